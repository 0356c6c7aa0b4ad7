package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/hook"
	"github.com/totalrecall/totalrecall/resolvers"
	"github.com/totalrecall/totalrecall/search"
)

// server is a real totalrecall server: the embedded engine, a Bleve index on disk, the Cortex
// with the living memory and the GraphQL API on a real HTTP listener.
type server struct {
	cx  *cortex.Cortex
	url string
	c   *client.Client
}

func newServer(t *testing.T) *server {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Living: cortex.LivingConfig{Subconscious: subconscious.Config{SessionCheckInterval: 50 * time.Millisecond, RecallBurst: 100, RecallRefill: time.Hour}}})
	if err != nil {
		idx.Close()
		st.Close()
		t.Fatal(err)
	}
	srv := httptest.NewServer(resolvers.NewHandler(cx, nil))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		cx.Close()
		idx.Close()
		st.Close()
	})
	return &server{cx: cx, url: srv.URL, c: client.New(srv.URL, "")}
}

// input reads a recorded hook input, its transcript path pointing at transcript.
func input(t *testing.T, name, transcript string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(raw), "TRANSCRIPT", transcript)
}

// run runs a hook and returns its answer (decoded; nil for none) and its log.
func run(t *testing.T, s *server, event, in string, opts hook.Options) (map[string]any, string) {
	t.Helper()
	var out, log bytes.Buffer
	opts.Client = s.c
	opts.Log = &log
	if err := hook.Run(context.Background(), event, strings.NewReader(in), &out, opts); err != nil {
		t.Fatalf("hook %s: %v", event, err)
	}
	if out.Len() == 0 {
		return nil, log.String()
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) || bytes.Count(out.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("hook %s wrote more than one JSON line: %q", event, out.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("hook %s wrote %q: %v", event, out.String(), err)
	}
	return m, log.String()
}

// context returns hookSpecificOutput.additionalContext, checking the answer's shape exactly.
func additional(t *testing.T, out map[string]any, eventName string) string {
	t.Helper()
	if len(out) != 1 {
		t.Fatalf("answer %v: want hookSpecificOutput alone", out)
	}
	hs, _ := out["hookSpecificOutput"].(map[string]any)
	if len(hs) != 2 || hs["hookEventName"] != eventName {
		t.Fatalf("hookSpecificOutput = %v, want hookEventName %s and additionalContext", hs, eventName)
	}
	s, _ := hs["additionalContext"].(string)
	return s
}

// turnMemories lists the contents of a scope's recorded turns, sorted.
func turnMemories(t *testing.T, s *server, scopeID string) string {
	t.Helper()
	var out struct {
		M struct {
			Nodes []domain.Memory `json:"nodes"`
		} `json:"memories"`
	}
	if err := s.c.Do(context.Background(), `query($s: ID!) { memories(scopeId: $s, filter: { tags: ["agent_turn"] }, first: 100) { nodes { content } } }`,
		map[string]any{"s": scopeID}, &out); err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, m := range out.M.Nodes {
		contents = append(contents, m.Content)
	}
	sort.Strings(contents)
	return strings.Join(contents, "\n")
}

func appendFile(t *testing.T, path, fixture string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(raw)
}

const claudeSession = "6b1f0c52-3a9e-4d7b-9c0e-2f61a8d4e7b3"

// TestClaudeCodeSession plays a whole Claude Code session through the four hooks, with the
// hook JSON Claude Code sends and a transcript it writes.
func TestClaudeCodeSession(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	opts := hook.Options{Scope: "atlas", AuditEvery: 2, Record: true}

	// A memory of an earlier session, for the prompt to bring back.
	sc, created, err := s.c.ResolveScope(ctx, "atlas")
	if err != nil || !created {
		t.Fatalf("resolve: %v %v", created, err)
	}
	old, err := s.c.StoreMemory(ctx, client.StoreInput{ScopeID: sc.ID, Content: "Billing deploys wait for the finance close, which runs on Wednesdays.", SuggestedTier: "LONG_TERM"})
	if err != nil {
		t.Fatal(err)
	}

	// SessionStart: the welcome, the instance id, the advice.
	out, log := run(t, s, hook.SessionStart, input(t, "claude-session-start.json", transcript), opts)
	got := additional(t, out, "SessionStart")
	want := `[totalrecall] Your memory is the scope "atlas" (` + sc.ID + `); your instance id is ` + claudeSession + `.
Welcome, claude-code. This is the first session in "atlas". Your identity holds 0 memories.
Use the totalrecall tools: search_memory before answering about past work, decisions or preferences; store_memory for what is worth keeping; claim_memory for what you refuse to lose.`
	if got != want || log != "" {
		t.Fatalf("session-start context:\n%s\nwant:\n%s\nlog: %s", got, want, log)
	}
	if ms, err := s.c.Session(ctx, claudeSession); err != nil || ms == nil || ms.MindType != "claude-code" || ms.ScopeID != sc.ID {
		t.Fatalf("session after session-start: %+v %v", ms, err)
	}

	// UserPromptSubmit: the flashbacks.
	out, log = run(t, s, hook.UserPromptSubmit, input(t, "claude-user-prompt-submit-1.json", transcript), opts)
	got = additional(t, out, "UserPromptSubmit")
	if !strings.HasPrefix(got, "[totalrecall] Memories this prompt brings back (claim_memory those that matter; total_recall_advisory to go deeper):\n- [LONG_TERM ") ||
		!strings.Contains(got, old.ID+"] Billing deploys wait for the finance close, which runs on Wednesdays.") || log != "" {
		t.Fatalf("user-prompt-submit context:\n%s\nlog: %s", got, log)
	}

	// Stop after turn 1: the turn is recorded, no audit yet (every 2 turns).
	appendFile(t, transcript, "claude-transcript-turn1.jsonl")
	if out, log = run(t, s, hook.Stop, input(t, "claude-stop-1.json", transcript), opts); out != nil || log != "" {
		t.Fatalf("stop after turn 1 = %v, log %q; want nothing", out, log)
	}
	wantTurn := "assistant: Billing deploys on Thursdays because the finance close runs on Wednesdays (docs/runbook.md, line 12).\n" +
		"user: Why do we deploy the billing service on Thursdays?"
	if got := turnMemories(t, s, sc.ID); got != wantTurn {
		t.Fatalf("the recorded turn:\n%s\nwant:\n%s", got, wantTurn)
	}

	// A recollection for the instance waits in its queue for the next prompt.
	rec, err := s.c.TotalRecall(ctx, []string{old.ID}, 2, claudeSession, 0)
	if err != nil {
		t.Fatal(err)
	}
	var queued []*domain.Event
	for deadline := time.Now().Add(10 * time.Second); len(queued) == 0; time.Sleep(20 * time.Millisecond) {
		if queued, err = s.cx.QueuedNotifications(ctx, claudeSession, sc.ID); err != nil || time.Now().After(deadline) {
			t.Fatalf("the recollection was not queued: %v", err)
		}
	}
	out, _ = run(t, s, hook.UserPromptSubmit, input(t, "claude-user-prompt-submit-2.json", transcript), opts)
	got = additional(t, out, "UserPromptSubmit")
	if !strings.Contains(got, "Notifications from your memory (1):\nTotalRecallNotification: total recall from "+old.ID+" reached depth 0 and recalled 0 memories") {
		t.Fatalf("the queued notification did not ride in with the prompt:\n%s", got)
	}
	if q, _ := s.cx.QueuedNotifications(ctx, claudeSession, sc.ID); len(q) != 0 || rec.OriginRequestID == "" {
		t.Fatalf("handed over, the notification left the queue: %d", len(q))
	}

	// Stop after turn 2: the audit, as a block with the SessionAuditPrompt.
	appendFile(t, transcript, "claude-transcript-turn2.jsonl")
	out, log = run(t, s, hook.Stop, input(t, "claude-stop-2.json", transcript), opts)
	if len(out) != 2 || out["decision"] != "block" || log != "" {
		t.Fatalf("stop after turn 2 = %v (log %q); want a block", out, log)
	}
	reason := out["reason"].(string)
	if !strings.HasPrefix(reason, `SessionAuditPrompt from your memory (scope "atlas"), after 2 turns: What do you refuse to lose?`+"\nThis session has run 0 minutes and stored 0 memories. ") ||
		!strings.HasSuffix(reason, "claim_memory the memories you refuse to lose. Then finish as you were about to.") {
		t.Fatalf("audit reason:\n%s", reason)
	}
	// The mind answered; stopping again never blocks twice.
	if out, _ = run(t, s, hook.Stop, input(t, "claude-stop-2-active.json", transcript), opts); out != nil {
		t.Fatalf("stop with stop_hook_active = %v, want nothing", out)
	}

	// The recorded turns took the transcript's ids: importing the transcript adds no memory twice.
	raw, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	var imp struct {
		R client.ImportResult `json:"importData"`
	}
	if err := s.c.Do(ctx, `mutation($s: ID!, $d: String!) { importData(scopeId: $s, format: AGENT_SESSIONS, data: $d) { events imported skipped } }`,
		map[string]any{"s": sc.ID, "d": string(raw)}, &imp); err != nil {
		t.Fatal(err)
	}
	if imp.R.Events != 5 || imp.R.Skipped != 4 || imp.R.Imported != 1 {
		// 5 trimmed events: the two turns (4, recorded by the hooks) and the subagent's prompt.
		t.Fatalf("importing the transcript after the hooks: %+v, want 4 of 5 events there already", imp.R)
	}

	// SessionEnd ends the session.
	if out, log = run(t, s, hook.SessionEnd, input(t, "claude-session-end.json", transcript), opts); out != nil || log != "" {
		t.Fatalf("session-end = %v, log %q", out, log)
	}
	if ms, err := s.c.Session(ctx, claudeSession); err != nil || ms != nil {
		t.Fatalf("session after session-end: %+v %v", ms, err)
	}
}

func TestCodexTurn(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	opts := hook.Options{Scope: "atlas", AuditEvery: 20, Record: true}
	out, log := run(t, s, hook.UserPromptSubmit, input(t, "codex-user-prompt-submit.json", ""), opts)
	got := additional(t, out, "UserPromptSubmit")
	if !strings.HasPrefix(got, `[totalrecall] Your memory is the scope "atlas" (`) || !strings.Contains(got, "Welcome, codex.") || log != "" {
		t.Fatalf("first prompt without a session-start hook:\n%s\nlog %s", got, log)
	}
	if out, log = run(t, s, hook.Stop, input(t, "codex-stop.json", ""), opts); out != nil || log != "" {
		t.Fatalf("codex stop = %v, log %q", out, log)
	}
	sc, _, err := s.c.ResolveScope(ctx, "atlas")
	if err != nil {
		t.Fatal(err)
	}
	want := "assistant: It reads billing.events, partitioned by account.\nuser: Which queue does the billing worker read?"
	if got := turnMemories(t, s, sc.ID); got != want {
		t.Fatalf("the Codex turn, recorded in two halves:\n%s\nwant:\n%s", got, want)
	}
}

func TestHookNeverHoldsTheAgentUp(t *testing.T) {
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer stall.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	logFile := filepath.Join(t.TempDir(), "hook.log")
	in := `{"session_id":"s1","cwd":"/home/dev/atlas","hook_event_name":"UserPromptSubmit","prompt":"hi"}`
	for _, tc := range []struct {
		name, server, in, log string
	}{
		{"slow server", stall.URL, in, "totalrecall hook user-prompt-submit: past its budget of 300ms (at: resolving the scope); answering nothing\n"},
		{"no server", deadURL, in, "totalrecall hook user-prompt-submit: UNAVAILABLE: no totalrecall server answers at " + deadURL +
			" (start one with `totalrecall serve`, or name another with --server or $TOTALRECALL_SERVER); answering nothing\n"},
		{"not JSON", stall.URL, "{oops", "totalrecall hook user-prompt-submit: the input is not hook JSON: invalid character 'o' looking for beginning of object key string; answering nothing\n"},
		{"no session", stall.URL, `{"prompt":"hi"}`, "totalrecall hook user-prompt-submit: the input names no session_id; answering nothing\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, log bytes.Buffer
			start := time.Now()
			err := hook.Run(context.Background(), hook.UserPromptSubmit, strings.NewReader(tc.in), &out,
				hook.Options{Client: client.New(tc.server, ""), Scope: "atlas", Budget: 300 * time.Millisecond, Log: &log, LogFile: logFile})
			if err != nil || out.Len() != 0 || log.String() != tc.log {
				t.Fatalf("err %v, answer %q, log %q; want nothing answered and the log %q (after %s)", err, out.String(), log.String(), tc.log, time.Since(start))
			}
		})
	}
	raw, _ := os.ReadFile(logFile)
	if n := strings.Count(string(raw), " totalrecall hook user-prompt-submit: "); n != 4 {
		t.Fatalf("the log file holds %d lines, want 4:\n%s", n, raw)
	}
	if err := hook.Run(context.Background(), "pre-tool-use", strings.NewReader(in), &bytes.Buffer{}, hook.Options{}); err == nil {
		t.Fatal("an unknown event ran")
	}
}

// TestSessionStartTellsTheStory: the session-start hook gives the agent its story — the newest
// chapters, after the identity — when a session starts, and again when it resumes or its
// context was compacted.
func TestSessionStartTellsTheStory(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	opts := hook.Options{Scope: "atlas", Record: false}
	sc, _, err := s.c.ResolveScope(ctx, "atlas")
	if err != nil {
		t.Fatal(err)
	}

	// An earlier session stored a memory, which the Subconscious told as chapter 1.
	earlier, err := s.c.SessionStart(ctx, "earlier-session", "claude-code", sc.ID)
	if err != nil || earlier.Story != "" {
		t.Fatalf("a story before the first chapter: %+v %v", earlier, err)
	}
	m, err := s.c.StoreMemory(ctx, client.StoreInput{ScopeID: sc.ID, SessionID: earlier.SessionID,
		Content: "We moved the ledger to Postgres after the March outage; \"never again\" {said} <_:the team>."})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		p, err := s.cx.PendingNarrative(ctx, sc.ID)
		if err == nil && len(p.Entries) == 1 && p.Entries[0].MemoryID == m.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the memory did not reach the pending log: %+v %v", p, err)
		}
	}
	ch, err := s.cx.ConsolidateStory(ctx, sc.ID, cortex.Meta{})
	if err != nil || ch == nil || ch.Number != 1 {
		t.Fatalf("chapter: %+v %v", ch, err)
	}
	chapter := "## Chapter 1: " + ch.Title + "\n\n" + strings.TrimSpace(ch.Page.Content)
	if !strings.Contains(chapter, m.Content) {
		t.Fatalf("the chapter does not tell the memory:\n%s", chapter)
	}
	if _, err := s.c.SessionEnd(ctx, "earlier-session", "EXPLICIT"); err != nil {
		t.Fatal(err)
	}

	const tail = "\nUse the totalrecall tools: search_memory before answering about past work, decisions or preferences; store_memory for what is worth keeping; claim_memory for what you refuse to lose."
	out, log := run(t, s, hook.SessionStart, input(t, "claude-session-start.json", transcript), opts)
	got := additional(t, out, "SessionStart")
	if !strings.HasPrefix(got, `[totalrecall] Your memory is the scope "atlas" (`+sc.ID+`); your instance id is `+claudeSession+".\nWelcome back, claude-code.") ||
		!strings.HasSuffix(got, ".\nYour story so far (its newest chapters):\n\n"+chapter+"\n"+tail) || log != "" {
		t.Fatalf("session-start context:\n%s\nlog: %s", got, log)
	}

	// Resumed or compacted, the session goes on and the story comes back with the identity.
	for _, source := range []string{"resume", "compact"} {
		in := strings.Replace(input(t, "claude-session-start.json", transcript), `"source":"startup"`, `"source":"`+source+`"`, 1)
		out, log = run(t, s, hook.SessionStart, in, opts)
		got = additional(t, out, "SessionStart")
		want := `[totalrecall] Your memory is the scope "atlas" (` + sc.ID + `); your instance id is ` + claudeSession + ".\n" +
			"Your session goes on (" + source + ").\nYour story so far (its newest chapters):\n\n" + chapter + "\n" + tail
		if got != want || log != "" {
			t.Fatalf("session-start (%s) context:\n%s\nwant:\n%s\nlog: %s", source, got, want, log)
		}
	}
}

// storyContext, the query the hook reads on resume: the budget, and bad input.
func TestStoryContextQuery(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	sc, _, err := s.c.ResolveScope(ctx, "quiet")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		S *string `json:"storyContext"`
	}
	if err := s.c.Do(ctx, `query($s: ID!) { storyContext(scopeId: $s) }`, map[string]any{"s": sc.ID}, &out); err != nil || out.S != nil {
		t.Fatalf("before the first chapter: %v %v", out.S, err)
	}
	for _, tc := range []struct {
		vars map[string]any
		code string
	}{
		{map[string]any{"s": sc.ID, "n": 0}, "INVALID_ARGUMENT"},
		{map[string]any{"s": sc.ID, "n": 1 << 21}, "INVALID_ARGUMENT"},
		{map[string]any{"s": "8f0e6a52-0000-4000-8000-000000000000", "n": 10}, "NOT_FOUND"},
		{map[string]any{"s": "' or 1=1 <_:x>", "n": 10}, "INVALID_ARGUMENT"},
	} {
		err := s.c.Do(ctx, `query($s: ID!, $n: Int) { storyContext(scopeId: $s, maxTokens: $n) }`, tc.vars, &out)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != tc.code {
			t.Errorf("storyContext(%v) = %v, want %s", tc.vars, err, tc.code)
		}
	}
}
