// Package hook is the coding-agent hooks: `totalrecall hook session-start|user-prompt-submit|
// stop|session-end` read Claude Code's hook JSON on stdin (Codex CLI's where its JSON matches)
// and answer in the shape the agent documents, talking to the running server through package
// client. Seed 000's adapter for LLMs: the prompt is forced — flashbacks and queued notifications
// ride in with every prompt as additionalContext, and the Stop hook asks the SessionAuditPrompt
// ("what do you refuse to lose?") as a block reason, which the mind answers with store_memory and
// claim_memory. Each turn's prompt and final answer are recorded as the session's memories.
//
// A hook never holds the agent up: past its budget, or on any error, it answers nothing (the
// agent goes on as if there were no hook) and logs why.
package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
)

// The hook events, as the command names them.
const (
	SessionStart     = "session-start"
	UserPromptSubmit = "user-prompt-submit"
	Stop             = "stop"
	SessionEnd       = "session-end"
)

// Events lists the hook events.
var Events = []string{SessionStart, UserPromptSubmit, Stop, SessionEnd}

// Defaults of Options.
const (
	DefaultBudget     = 2 * time.Second
	DefaultAuditEvery = 20
	DefaultFlashbacks = 3
)

// EnvScope names the scope when --scope does not; EnvRecord set to off (or false, 0, no) stops
// the recording of turns.
const (
	EnvScope  = "TOTALRECALL_SCOPE"
	EnvRecord = "TOTALRECALL_RECORD"
)

// Options configure a hook run.
type Options struct {
	Client *client.Client
	// Scope names the scope (id or name); empty: $TOTALRECALL_SCOPE, else the project folder's
	// name ($CLAUDE_PROJECT_DIR, else the hook's cwd).
	Scope string
	// Budget bounds a run (DefaultBudget when 0).
	Budget time.Duration
	// AuditEvery asks the SessionAuditPrompt at the end of every AuditEvery-th turn (0: never).
	AuditEvery int
	// Record records each turn's prompt and final answer.
	Record bool
	// Flashbacks is how many memories resonate with a prompt (DefaultFlashbacks when 0).
	Flashbacks int
	// Log receives one line per problem; LogFile, when set, gets them too, timestamped.
	Log     io.Writer
	LogFile string
}

// Input is a hook's JSON: the fields of Claude Code's SessionStart, UserPromptSubmit, Stop and
// SessionEnd inputs, and of Codex's (turn_id, last_assistant_message).
type Input struct {
	SessionID            string  `json:"session_id"`
	TranscriptPath       *string `json:"transcript_path"`
	Cwd                  string  `json:"cwd"`
	HookEventName        string  `json:"hook_event_name"`
	Model                string  `json:"model"`
	Source               string  `json:"source"`
	Prompt               string  `json:"prompt"`
	StopHookActive       bool    `json:"stop_hook_active"`
	LastAssistantMessage *string `json:"last_assistant_message"`
	Reason               string  `json:"reason"`
	TurnID               string  `json:"turn_id"`
}

// agent is the harness that ran the hook: Codex names its turns.
func (in *Input) agent() string {
	if in.TurnID != "" {
		return "codex"
	}
	return "claude-code"
}

// Output is a hook's answer in Claude Code's documented shape (Codex reads the same fields).
type Output struct {
	Decision           string       `json:"decision,omitempty"`
	Reason             string       `json:"reason,omitempty"`
	HookSpecificOutput *SpecificOut `json:"hookSpecificOutput,omitempty"`
}

// SpecificOut is hookSpecificOutput.
type SpecificOut struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// MaxInputBytes bounds a hook's input.
const MaxInputBytes = 16 << 20

// Run runs the hook of event: it reads in, and writes the answer (possibly nothing) to out. It
// returns an error only for an unknown event; every other failure is logged and answered with
// nothing.
func Run(ctx context.Context, event string, in io.Reader, out io.Writer, opts Options) error {
	if !validEvent(event) {
		return fmt.Errorf("hook: unknown event %q (want %s)", event, strings.Join(Events, ", "))
	}
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Flashbacks <= 0 {
		opts.Flashbacks = DefaultFlashbacks
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	h := &run{opts: opts, event: event, start: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()
	type result struct {
		out *Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := h.answer(ctx, in)
		done <- result{o, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			h.logf("%s; answering nothing", oneLine(r.err))
			return nil
		}
		if r.out != nil {
			raw, err := json.Marshal(r.out)
			if err != nil {
				h.logf("encoding the answer: %v", err)
				return nil
			}
			out.Write(append(raw, '\n'))
		}
		return nil
	case <-ctx.Done():
		h.logf("past its budget of %s (at: %s); answering nothing", opts.Budget, h.stepName())
		return nil
	}
}

func validEvent(e string) bool {
	for _, x := range Events {
		if x == e {
			return true
		}
	}
	return false
}

type run struct {
	opts  Options
	event string
	start time.Time
	mu    sync.Mutex
	step  string
}

func (h *run) at(step string) {
	h.mu.Lock()
	h.step = step
	h.mu.Unlock()
}

func (h *run) stepName() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.step == "" {
		return "reading the input"
	}
	return h.step
}

func (h *run) logf(format string, args ...any) {
	line := fmt.Sprintf("totalrecall hook %s: %s", h.event, fmt.Sprintf(format, args...))
	fmt.Fprintln(h.opts.Log, line)
	if h.opts.LogFile != "" {
		if f, err := os.OpenFile(h.opts.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), line)
			f.Close()
		}
	}
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// ScopeRef is the scope a hook uses: flag, else $TOTALRECALL_SCOPE, else the project folder's
// name ($CLAUDE_PROJECT_DIR, else cwd).
func ScopeRef(flag, cwd string) string {
	for _, s := range []string{flag, os.Getenv(EnvScope)} {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	for _, dir := range []string{os.Getenv("CLAUDE_PROJECT_DIR"), cwd} {
		if dir != "" {
			if base := filepath.Base(filepath.Clean(dir)); base != "/" && base != "." {
				return base
			}
		}
	}
	if wd, err := os.Getwd(); err == nil {
		return filepath.Base(wd)
	}
	return ""
}

// RecordDefault is the recording's default: on, unless $TOTALRECALL_RECORD says off.
func RecordDefault() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvRecord))) {
	case "off", "false", "0", "no":
		return false
	}
	return true
}

func (h *run) answer(ctx context.Context, r io.Reader) (*Output, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	if len(raw) > MaxInputBytes {
		return nil, fmt.Errorf("the input is larger than %d MiB", MaxInputBytes>>20)
	}
	var in Input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("the input is not hook JSON: %v", err)
	}
	if strings.TrimSpace(in.SessionID) == "" {
		return nil, errors.New("the input names no session_id")
	}
	if h.opts.Client == nil {
		return nil, errors.New("no server client")
	}
	switch h.event {
	case SessionStart:
		return h.sessionStart(ctx, &in)
	case UserPromptSubmit:
		return h.userPromptSubmit(ctx, &in)
	case Stop:
		return h.stop(ctx, &in)
	}
	return h.sessionEnd(ctx, &in)
}

// scope resolves the hook's scope and, in the same round trip, keeps the instance's session
// alive (heartbeat with mode, when mode is set).
func (h *run) scope(ctx context.Context, in *Input, mode string) (sc *domain.Scope, alive bool, err error) {
	h.at("resolving the scope")
	ref := ScopeRef(h.opts.Scope, in.Cwd)
	if ref == "" {
		return nil, false, errors.New("no scope: give --scope, set $TOTALRECALL_SCOPE, or run in a project folder")
	}
	var out struct {
		R struct {
			Scope domain.Scope `json:"scope"`
		} `json:"resolveScope"`
		Alive *bool `json:"heartbeat"`
	}
	q := `mutation($s: String!) { resolveScope(scope: $s) { scope { id name } } }`
	vars := map[string]any{"s": ref}
	if mode != "" {
		q = `mutation($s: String!, $i: ID!, $m: SessionMode) { resolveScope(scope: $s) { scope { id name } } heartbeat: keepAlive(instanceId: $i, mode: $m) }`
		vars["i"], vars["m"] = in.SessionID, mode
	}
	if err := h.opts.Client.Do(ctx, q, vars, &out); err != nil {
		return nil, false, err
	}
	return &out.R.Scope, out.Alive != nil && *out.Alive, nil
}

// ---- SessionStart ----

func (h *run) sessionStart(ctx context.Context, in *Input) (*Output, error) {
	c := h.opts.Client
	sc, alive, err := h.scope(ctx, in, "CONVERSATION")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[totalrecall] Your memory is the scope %q (%s); your instance id is %s.\n", sc.Name, sc.ID, in.SessionID)
	if alive && (in.Source == "resume" || in.Source == "compact") {
		// The session goes on: what it started with is brought back, the session is not restarted.
		h.at("loading the identity")
		id, err := h.identity(ctx, sc.ID)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "Your session goes on (%s).\n", in.Source)
		b.WriteString(id)
	} else {
		h.at("starting the session")
		s, err := c.SessionStart(ctx, in.SessionID, in.agent(), sc.ID)
		if err != nil {
			return nil, err
		}
		b.WriteString(s.Welcome + "\n")
		b.WriteString(identityText(s.Identity, &s.AgentKernel, &s.WorldKernel))
		b.WriteString(storyText(s.Story))
	}
	h.at("taking the queued notifications")
	ns, err := c.TakeNotifications(ctx, in.SessionID, sc.ID)
	if err != nil {
		return nil, err
	}
	b.WriteString(notificationsText(ns))
	b.WriteString("Use the totalrecall tools: search_memory before answering about past work, decisions or preferences; " +
		"store_memory for what is worth keeping; claim_memory for what you refuse to lose.")
	return &Output{HookSpecificOutput: &SpecificOut{HookEventName: "SessionStart", AdditionalContext: b.String()}}, nil
}

func (h *run) identity(ctx context.Context, scopeID string) (string, error) {
	var out struct {
		Scope struct {
			AgentKernel domain.Kernel `json:"agentKernel"`
			WorldKernel domain.Kernel `json:"worldKernel"`
		} `json:"scope"`
		Memories struct {
			Nodes []domain.Memory `json:"nodes"`
		} `json:"memories"`
		Story *string `json:"storyContext"`
	}
	err := h.opts.Client.Do(ctx, `query($s: ID!) { scope(id: $s) { agentKernel { content } worldKernel { content } }
  memories(scopeId: $s, filter: { tiers: [IDENTITY_CORE], states: [ACTIVE] }, first: 200) { nodes { `+client.MemoryFields+` } }
  storyContext(scopeId: $s) }`,
		map[string]any{"s": scopeID}, &out)
	if err != nil {
		return "", err
	}
	story := ""
	if out.Story != nil {
		story = *out.Story
	}
	return identityText(out.Memories.Nodes, &out.Scope.AgentKernel, &out.Scope.WorldKernel) + storyText(story), nil
}

// storyText introduces the story (seed 003's STORY.md, injected where the mind starts); "" for
// none.
func storyText(story string) string {
	if strings.TrimSpace(story) == "" {
		return ""
	}
	return "Your story so far (its newest chapters):\n\n" + strings.TrimSpace(story) + "\n\n"
}

func identityText(ms []domain.Memory, agent, world *domain.Kernel) string {
	var b strings.Builder
	if agent != nil && strings.TrimSpace(agent.Content) != "" {
		fmt.Fprintf(&b, "Agent kernel: %s\n", strings.TrimSpace(agent.Content))
	}
	if world != nil && strings.TrimSpace(world.Content) != "" {
		fmt.Fprintf(&b, "World kernel: %s\n", strings.TrimSpace(world.Content))
	}
	if len(ms) > 0 {
		b.WriteString("Your identity (IDENTITY_CORE memories):\n")
		for i := range ms {
			b.WriteString(client.MemoryLine(&ms[i], 0) + "\n")
		}
	}
	return b.String()
}

func notificationsText(ns []client.Notification) string {
	if len(ns) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Notifications from your memory (%d):\n", len(ns))
	for i := range ns {
		b.WriteString(ns[i].Text() + "\n")
	}
	return b.String()
}

// ---- UserPromptSubmit ----

// FlashbackRunes is how much of a flashback rides in with a prompt.
const FlashbackRunes = 600

func (h *run) userPromptSubmit(ctx context.Context, in *Input) (*Output, error) {
	c := h.opts.Client
	sc, _, err := h.scope(ctx, in, "")
	if err != nil {
		return nil, err
	}
	// The heartbeat, the flashbacks and the queue side by side: none waits for another.
	h.at("heartbeat, resonating, taking notifications")
	var (
		wg               sync.WaitGroup
		alive            bool
		flashbacks       []client.RankedMemory
		notes            []client.Notification
		errH, errF, errN error
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		var out struct {
			Alive bool `json:"heartbeat"`
		}
		// The beat is written off the prompt's path; the answer says whether a session is active.
		errH = c.Do(ctx, `mutation($i: ID!) { heartbeat: keepAlive(instanceId: $i, mode: TASK) }`, map[string]any{"i": in.SessionID}, &out)
		alive = out.Alive
	}()
	go func() {
		defer wg.Done()
		var out struct {
			R []client.RankedMemory `json:"resonate"`
		}
		errF = c.Do(ctx, `query($s: ID!, $m: String!, $n: Int) { resonate(scopeId: $s, message: $m, maxResults: $n) { `+client.RankedFields+` } }`,
			map[string]any{"s": sc.ID, "m": truncate(in.Prompt, 64<<10), "n": h.opts.Flashbacks}, &out)
		flashbacks = out.R
	}()
	go func() {
		defer wg.Done()
		notes, errN = c.TakeNotifications(ctx, in.SessionID, sc.ID)
	}()
	// Codex names its turns: the prompt is recorded now, the answer when the turn stops.
	if h.opts.Record && in.TurnID != "" && in.TranscriptPath == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := time.Now().UTC()
			if _, err := c.RecordTurn(ctx, client.TurnInput{ScopeID: sc.ID, AgentSessionID: in.SessionID, Source: in.agent(), TurnID: in.TurnID,
				Prompt: in.Prompt, PromptAt: &now, Model: in.Model, WorkspacePath: in.Cwd}); err != nil && ctx.Err() == nil {
				h.logf("recording the prompt: %s", oneLine(err))
			}
		}()
	}
	wg.Wait()
	for _, err := range []error{errH, errF, errN} {
		if err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	if !alive {
		// No session-start hook ran (or the session timed out): start one now.
		h.at("starting the session")
		s, err := c.SessionStart(ctx, in.SessionID, in.agent(), sc.ID)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "[totalrecall] Your memory is the scope %q (%s); your instance id is %s.\n%s\n", sc.Name, sc.ID, in.SessionID, s.Welcome)
	}
	if len(flashbacks) > 0 {
		b.WriteString("[totalrecall] Memories this prompt brings back (claim_memory those that matter; total_recall_advisory to go deeper):\n")
		for i := range flashbacks {
			b.WriteString(client.MemoryLine(&flashbacks[i].Memory, FlashbackRunes) + "\n")
		}
	}
	b.WriteString(notificationsText(notes))
	if b.Len() == 0 {
		return nil, nil
	}
	return &Output{HookSpecificOutput: &SpecificOut{HookEventName: "UserPromptSubmit", AdditionalContext: strings.TrimRight(b.String(), "\n")}}, nil
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && (s[max]&0xC0) == 0x80 {
		max--
	}
	return s[:max]
}

// ---- Stop ----

// AuditPrompt is the question the Stop hook asks every AuditEvery turns.
const AuditPrompt = "What do you refuse to lose?"

func (h *run) stop(ctx context.Context, in *Input) (*Output, error) {
	c := h.opts.Client
	sc, _, err := h.scope(ctx, in, "CONVERSATION")
	if err != nil {
		return nil, err
	}
	var tr *transcript
	if in.TranscriptPath != nil && *in.TranscriptPath != "" {
		h.at("reading the transcript")
		if tr, err = readTranscript(*in.TranscriptPath); err != nil {
			h.logf("reading the transcript: %s", oneLine(err))
			tr = nil
		}
	}
	if h.opts.Record {
		h.at("recording the turn")
		if t := h.turnOf(in, tr, sc.ID); t != nil {
			if _, err := c.RecordTurn(ctx, *t); err != nil {
				if ctx.Err() != nil {
					return nil, err
				}
				h.logf("recording the turn: %s", oneLine(err))
			}
		}
	}
	if in.StopHookActive || h.opts.AuditEvery <= 0 || tr == nil || tr.Turns == 0 || tr.Turns%h.opts.AuditEvery != 0 {
		return nil, nil
	}
	h.at("asking the audit")
	sess, err := c.Session(ctx, in.SessionID)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SessionAuditPrompt from your memory (scope %q), after %d turns: %s\n", sc.Name, tr.Turns, AuditPrompt)
	if sess != nil {
		fmt.Fprintf(&b, "This session has run %d minutes and stored %d memories. ", sess.DurationSeconds/60, sess.MemoriesStored)
	}
	b.WriteString("Look back over the work since the last audit: store_memory each decision, fact or lesson worth keeping that is not stored yet " +
		"(self-contained), and claim_memory the memories you refuse to lose. Then finish as you were about to.")
	return &Output{Decision: "block", Reason: b.String()}, nil
}

// turnOf is the turn to record at a stop: the transcript's last turn, with its ids; without a
// transcript, the answer the agent hands the hook, under the turn's id when it names one.
func (h *run) turnOf(in *Input, tr *transcript, scopeID string) *client.TurnInput {
	t := &client.TurnInput{ScopeID: scopeID, AgentSessionID: in.SessionID, Source: in.agent(), Model: in.Model, WorkspacePath: in.Cwd}
	if tr != nil && tr.Last != nil {
		l := tr.Last
		if tr.SessionID != "" {
			t.AgentSessionID = tr.SessionID
		}
		if tr.Source != "" {
			t.Source = tr.Source
		}
		if t.Model == "" {
			t.Model = tr.Model
		}
		t.Prompt, t.PromptID, t.PromptAt = l.Prompt, l.PromptID, l.PromptAt
		t.Answer, t.AnswerID, t.AnswerAt = l.Answer, l.AnswerID, l.AnswerAt
		if t.Answer == "" && in.LastAssistantMessage != nil {
			t.Answer = *in.LastAssistantMessage
		}
		return t
	}
	if in.LastAssistantMessage == nil || strings.TrimSpace(*in.LastAssistantMessage) == "" {
		return nil
	}
	now := time.Now().UTC()
	t.TurnID, t.Answer, t.AnswerAt = in.TurnID, *in.LastAssistantMessage, &now
	return t
}

// ---- SessionEnd ----

func (h *run) sessionEnd(ctx context.Context, in *Input) (*Output, error) {
	h.at("ending the session")
	// Whatever the agent's reason (clear, logout, prompt_input_exit, other, ...), the mind ended
	// its session itself.
	if _, err := h.opts.Client.SessionEnd(ctx, in.SessionID, "EXPLICIT"); err != nil {
		return nil, err
	}
	return nil, nil
}
