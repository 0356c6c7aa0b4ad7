package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/llm"
)

// The story of a mind end to end: a real server with a local OpenAI-compatible model (an
// httptest server whose answers each test sets), real sessions, the pending log, chapters,
// failures and their retries, a commit that fails after the model answered, and the journal.

// fakeModel is a local OpenAI-compatible chat server.
type fakeModel struct {
	srv   *httptest.Server
	mode  atomic.Value // string: chapter, malformed, fail, slow, block
	delay atomic.Int64 // chapter mode: answer after this long
	calls atomic.Int64
	mu    sync.Mutex
	asked []string // the user prompt of every call
	// called receives the number of a call as it arrives, answered once its whole answer is
	// sent (neither ever blocks).
	called, answered chan int64
}

func newFakeModel(t *testing.T) *fakeModel {
	f := &fakeModel{called: make(chan int64, 1000), answered: make(chan int64, 1000)}
	f.mode.Store("chapter")
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) url() string { return f.srv.URL + "/v1" }

func (f *fakeModel) set(mode string) { f.mode.Store(mode) }

func (f *fakeModel) prompts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var in struct {
		Model    string
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Messages) != 2 {
		http.Error(w, "bad request", 400)
		return
	}
	f.mu.Lock()
	f.asked = append(f.asked, in.Messages[1].Content)
	f.mu.Unlock()
	n := f.calls.Add(1)
	select {
	case f.called <- n:
	default:
	}
	answer := func(content string) {
		body, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body)
		w.(http.Flusher).Flush() // the client has the whole answer now, before this handler returns
		select {
		case f.answered <- n:
		default:
		}
	}
	// A chapter that says how many memories it was told (one transcript line each).
	told := strings.Count(in.Messages[1].Content, "\n[")
	chapter := fmt.Sprintf("```json\n{\"title\": \"The lighthouse\", \"chapter\": \"I remember %d things from those days. I kept the lamp lit.\"}\n```", told)
	switch f.mode.Load().(string) {
	case "malformed":
		answer("I would rather not write today.")
	case "fail":
		w.WriteHeader(500)
		w.Write([]byte(`{"error": {"message": "model overloaded"}}`))
	case "slow", "block":
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	default:
		if d := time.Duration(f.delay.Load()); d > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(d):
			}
		}
		answer(chapter)
	}
}

// storyFlags are a server's flags with a model and a small threshold.
func storyFlags(sf storeFlags, model *fakeModel) storeFlags {
	sf = withLiving(sf)
	sf.living.Subconscious.Story = subconscious.StoryConfig{ThresholdTokens: 40, Timeout: 400 * time.Millisecond,
		RetryAfter: 150 * time.Millisecond, RetryMax: 600 * time.Millisecond, ScanInterval: 200 * time.Millisecond}
	if model != nil {
		c, err := llm.NewChat(llm.Config{BaseURL: model.url(), Model: "fake-scribe"})
		if err != nil {
			panic(err)
		}
		sf.mnemonic.Chat = c
	}
	return sf
}

type pendingView struct {
	Tokens, ThresholdTokens, Chapters int
	LastProcessed                     *string
	Memories                          []struct{ ID string }
	Entries                           []struct {
		MemoryID  string
		Seq       int
		Tokens    int
		SessionID string
	}
}

func (s *server) pending(t testing.TB, scope string) pendingView {
	t.Helper()
	var r struct{ PendingNarrative pendingView }
	s.ok(t, `query($s: ID!) { pendingNarrative(scopeId: $s) { tokens thresholdTokens chapters lastProcessed memories { id }
		entries { memoryId seq tokens sessionId } } }`, map[string]any{"s": scope}, &r)
	return r.PendingNarrative
}

type chapterView struct {
	ID, Title, Content, Mode, LastProcessed, From, To string
	Number, Memories, Tokens                          int
	MemoryIds                                         []string
	Model                                             *string
	Knowledge                                         struct {
		Type, Title string
		Tags        []string
	}
}

const chapterFields = `id number title content mode model from to lastProcessed memories memoryIds tokens knowledge { type title tags }`

type storyView struct {
	Markdown      string
	LastProcessed *string
	Tokens        int
	Chapters      []chapterView
}

func (s *server) story(t testing.TB, scope string) storyView {
	t.Helper()
	var r struct{ Story storyView }
	s.ok(t, `query($s: ID!) { story(scopeId: $s) { markdown lastProcessed tokens chapters { `+chapterFields+` } } }`, map[string]any{"s": scope}, &r)
	return r.Story
}

// storeInSession stores n memories with the session's id, each of 60 bytes (15 tokens).
func (s *server) storeInSession(t testing.TB, scope, session, prefix string, n int) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		content := fmt.Sprintf("%s %02d: the tide came in over the rocks at dusk.", prefix, i)
		content += strings.Repeat(".", 60-len(content))
		ids = append(ids, s.store(t, map[string]any{"scopeId": scope, "content": content, "sessionId": session}).ID)
	}
	return ids
}

func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, ",") == strings.Join(y, ",")
}

// storyEvents collects a scope's story events from a memoryEvents subscription.
type storyEvents struct {
	mu  sync.Mutex
	evs []map[string]any
}

func (s *server) watchStory(t *testing.T, scope string) *storyEvents {
	conn, events := subscribeWS(t, s.addr, `subscription($s: ID!) { memoryEvents(scopeId: $s) { id type memoryId payload
		context { sessionId requestId messageId causationId timestamp sourceContext } } }`, map[string]any{"s": scope})
	t.Cleanup(func() { conn.Close() })
	out := &storyEvents{}
	go func() {
		for p := range events {
			ev, _ := p["data"].(map[string]any)["memoryEvents"].(map[string]any)
			if typ, _ := ev["type"].(string); strings.HasPrefix(typ, "Story") || strings.HasPrefix(typ, "ConsolidateStory") {
				out.mu.Lock()
				out.evs = append(out.evs, ev)
				out.mu.Unlock()
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // subscribed before the test writes
	return out
}

func (e *storyEvents) of(typ string) []map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []map[string]any
	for _, ev := range e.evs {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

func TestStoryEndToEnd(t *testing.T) {
	model := newFakeModel(t)
	var fault atomic.Int64 // commits of a chapter to fail
	var failedCommits atomic.Int64
	sf := storyFlags(storeFlags{store: "file://" + t.TempDir()}, model)
	sf.commitHooks.Before = func(preds map[string]bool) error {
		if preds["story.anchorSeq"] && fault.Load() > 0 {
			fault.Add(-1)
			failedCommits.Add(1)
			return errors.New("injected: the server died before the chapter's commit")
		}
		return nil
	}
	s := startServer(t, sf)
	defer s.stop(t)

	t.Run("ThresholdWritesAChapter", func(t *testing.T) {
		model.set("chapter")
		scope, _, _ := s.createScope(t, "the keeper")
		sess := s.sessionStart(t, "keeper-1", "claude", scope)
		events := s.watchStory(t, scope)
		// Not in a session: never pending. An unknown session id: never pending.
		s.store(t, map[string]any{"scopeId": scope, "content": "stored outside any session"})
		s.store(t, map[string]any{"scopeId": scope, "content": "stored with a made-up session", "sessionId": "no-such-session"})
		ids := s.storeInSession(t, scope, sess.SessionID, "first", 2)
		eventually(t, func() string {
			if p := s.pending(t, scope); p.Tokens != 30 || len(p.Entries) != 2 {
				return fmt.Sprintf("pending = %+v, want 2 entries of 30 tokens", p)
			}
			return ""
		})
		p := s.pending(t, scope)
		if p.ThresholdTokens != 40 || p.Chapters != 0 || p.LastProcessed != nil || !sameSet([]string{p.Memories[0].ID, p.Memories[1].ID}, ids) ||
			p.Entries[0].MemoryID != ids[0] || p.Entries[1].MemoryID != ids[1] || p.Entries[0].Seq >= p.Entries[1].Seq ||
			p.Entries[0].SessionID != sess.SessionID || p.Entries[0].Tokens != 15 {
			t.Fatalf("pending = %+v, want the 2 session memories in order", p)
		}
		time.Sleep(300 * time.Millisecond) // below the threshold: no chapter however long we wait
		if st := s.story(t, scope); len(st.Chapters) != 0 || model.calls.Load() != 0 {
			t.Fatalf("a chapter below the threshold: %+v (model calls %d)", st, model.calls.Load())
		}
		ids = append(ids, s.storeInSession(t, scope, sess.SessionID, "then", 1)...)
		var st storyView
		eventually(t, func() string {
			if st = s.story(t, scope); len(st.Chapters) != 1 {
				return fmt.Sprintf("%d chapters, want 1", len(st.Chapters))
			}
			return ""
		})
		ch := st.Chapters[0]
		if ch.Number != 1 || ch.Title != "The lighthouse" || ch.Mode != "MODEL" || ch.Model == nil || *ch.Model != "fake-scribe" ||
			ch.Memories != 3 || ch.Tokens != 45 || !sameSet(ch.MemoryIds, ids) || ch.Knowledge.Type != "NARRATIVE" ||
			ch.Knowledge.Title != "Chapter 1: The lighthouse" || ch.Content != "I remember 3 things from those days. I kept the lamp lit." {
			t.Fatalf("chapter = %+v", ch)
		}
		if st.LastProcessed == nil || *st.LastProcessed != ch.LastProcessed || ch.LastProcessed != ch.To {
			t.Fatalf("anchor %v, chapter %+v", st.LastProcessed, ch)
		}
		want := "# The story of the keeper\n\n<!-- LAST_PROCESSED: " + anchorText(t, ch.LastProcessed) + " -->\n\n## Chapter 1: The lighthouse\n\n" + ch.Content + "\n"
		if st.Markdown != want {
			t.Fatalf("markdown =\n%s\nwant\n%s", st.Markdown, want)
		}
		p = s.pending(t, scope)
		if p.Tokens != 0 || len(p.Entries) != 0 || p.Chapters != 1 || p.LastProcessed == nil {
			t.Fatalf("pending after the chapter = %+v", p)
		}
		// The model was told the three memories, and no story before them.
		prompts := model.prompts()
		last := prompts[len(prompts)-1]
		if !strings.Contains(last, "] first 00: the tide") || !strings.Contains(last, "] first 01: the tide") || !strings.Contains(last, "] then 00: the tide") ||
			strings.Count(last, "\n[") != 3 ||
			strings.Contains(last, "outside any session") || !strings.Contains(last, "this is its beginning") {
			t.Fatalf("prompt = %s", last)
		}
		// derivedView, history and trace explain the chapter.
		var dv struct {
			DerivedView struct {
				Lineage struct {
					DerivedFrom []struct{ TargetID, TargetFamily string }
					Origin      struct{ Type string }
				}
				Cleanup struct {
					Candidate   bool
					Eligibility string
				}
			}
		}
		s.ok(t, `query($id: ID!) { derivedView(artifactId: $id) { lineage { derivedFrom { targetId targetFamily } origin { type } }
			cleanup { candidate eligibility } } }`, map[string]any{"id": ch.ID}, &dv)
		var targets []string
		for _, r := range dv.DerivedView.Lineage.DerivedFrom {
			if r.TargetFamily != "MEMORY" {
				t.Fatalf("derives from %+v", r)
			}
			targets = append(targets, r.TargetID)
		}
		if !sameSet(targets, ids) || dv.DerivedView.Lineage.Origin.Type != "ConsolidateStoryCommand" || dv.DerivedView.Cleanup.Eligibility != "DIGEST" {
			t.Fatalf("derivedView = %+v", dv)
		}
		// The digest: the chapter is never stale and keeps the memories it tells in service,
		// while a memory no chapter tells is proposed once unused.
		var dg struct {
			RunDigest struct{ Proposals []struct{ ArtifactID string } }
		}
		s.ok(t, `mutation($s: ID!) { runDigest(input: {scopeId: $s, propose: true, staleAfterDays: 0}) { proposals { artifactId } } }`,
			map[string]any{"s": scope}, &dg)
		var proposed []string
		for _, p := range dg.RunDigest.Proposals {
			proposed = append(proposed, p.ArtifactID)
		}
		if len(proposed) != 2 || contains(proposed, ch.ID) || contains(proposed, ids[0]) || contains(proposed, ids[2]) {
			t.Fatalf("proposals = %v, want the two memories stored outside the session", proposed)
		}
		var mv struct {
			DerivedView struct{ Support struct{ Supported bool } }
		}
		s.ok(t, `query($id: ID!) { derivedView(artifactId: $id) { support { supported } } }`, map[string]any{"id": ids[0]}, &mv)
		if !mv.DerivedView.Support.Supported {
			t.Fatal("a memory told by a chapter is not supported by it")
		}
		var h struct {
			History []struct {
				Type    string
				Context struct{ RequestID string }
			}
		}
		s.ok(t, `query($id: ID!) { history(memoryId: $id) { type context { requestId } } }`, map[string]any{"id": ch.ID}, &h)
		var types []string
		for _, e := range h.History {
			types = append(types, e.Type)
		}
		if strings.Join(types, ",") != "ConsolidateStoryCommand,ArtifactSaved,StoryChapterWritten" {
			t.Fatalf("chapter history = %v", types)
		}
		var mh struct{ History []struct{ Type string } }
		s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": ids[1]}, &mh)
		// The chapter follows the memory's storing; the Synapse's associations, made in the
		// background, may come before or after it.
		stored, told := -1, -1
		for k, e := range mh.History {
			switch e.Type {
			case "MemoryStored":
				stored = k
			case "StoryChapterWritten":
				told = k
			}
		}
		if stored < 0 || told < stored {
			t.Fatalf("the told memory's history = %+v, want the chapter after its storing", mh.History)
		}
		var tr struct {
			Trace struct {
				Roots []struct {
					Event    struct{ Type string }
					Children []struct {
						Event    struct{ Type string }
						Children []struct{ Event struct{ Type string } }
					}
				}
			}
		}
		s.ok(t, `query($r: ID!) { trace(requestId: $r) { roots { event { type } children { event { type } children { event { type } } } } } }`,
			map[string]any{"r": h.History[0].Context.RequestID}, &tr)
		if r := tr.Trace.Roots; len(r) != 1 || r[0].Event.Type != "ConsolidateStoryCommand" || len(r[0].Children) != 1 ||
			r[0].Children[0].Event.Type != "ArtifactSaved" || len(r[0].Children[0].Children) != 1 ||
			r[0].Children[0].Children[0].Event.Type != "StoryChapterWritten" {
			t.Fatalf("trace = %+v", tr)
		}
		// The StoryChapterWritten reached the subscriber with its TransactionContext.
		eventually(t, func() string {
			if len(events.of("StoryChapterWritten")) != 1 {
				return "no StoryChapterWritten over memoryEvents"
			}
			return ""
		})
		ev := events.of("StoryChapterWritten")[0]
		c := ev["context"].(map[string]any)
		pl := ev["payload"].(map[string]any)
		for _, k := range []string{"sessionId", "requestId", "messageId", "causationId", "timestamp", "sourceContext"} {
			if c[k] == "" || c[k] == nil {
				t.Fatalf("StoryChapterWritten context lacks %s: %v", k, c)
			}
		}
		if ev["memoryId"] != ch.ID || c["sourceContext"] != "Subconscious" || pl["chapter"] != float64(1) || pl["mode"] != "MODEL" {
			t.Fatalf("StoryChapterWritten = %v", ev)
		}
		// Where the mind starts and thinks: the session start and the prompt context.
		var sc struct{ SessionStart struct{ Story *string } }
		s.ok(t, `mutation($s: ID!) { sessionStart(instanceId: "keeper-2", mindType: "claude", scopeId: $s) { story } }`, map[string]any{"s": scope}, &sc)
		if sc.SessionStart.Story == nil || *sc.SessionStart.Story != "## Chapter 1: The lighthouse\n\n"+ch.Content {
			t.Fatalf("sessionStart story = %v", sc.SessionStart.Story)
		}
		var upd struct{ UpdateContext struct{ Capacity int } }
		s.ok(t, `mutation($s: ID!) { updateContext(scopeId: $s, text: "the tide over the rocks") { capacity } }`, map[string]any{"s": scope}, &upd)
		var pc struct {
			PromptContext struct {
				Text   string
				Tokens int
				Story  *string
			}
		}
		s.ok(t, `query($s: ID!) { promptContext(scopeId: $s, maxTokens: 200, includeStory: true) { text tokens story } }`, map[string]any{"s": scope}, &pc)
		if pc.PromptContext.Story == nil || !strings.HasPrefix(pc.PromptContext.Text, *pc.PromptContext.Story+"\n\n- [") || pc.PromptContext.Tokens > 200 {
			t.Fatalf("promptContext = %+v", pc.PromptContext)
		}
		s.ok(t, `query($s: ID!) { promptContext(scopeId: $s, maxTokens: 200) { text tokens story } }`, map[string]any{"s": scope}, &pc)
		if pc.PromptContext.Story != nil || !strings.HasPrefix(pc.PromptContext.Text, "- [") {
			t.Fatalf("promptContext without the story = %+v", pc.PromptContext)
		}
	})

	t.Run("HeartbeatTurnIsNeverPending", func(t *testing.T) {
		model.set("chapter")
		scope, _, _ := s.createScope(t, "heartbeats")
		sess := s.sessionStart(t, "beat-1", "claude", scope)
		if !s.boolMutation(t, `mutation { heartbeat(instanceId: "beat-1") }`, nil) {
			t.Fatal("heartbeat found no session")
		}
		s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!, $x: ID!) { storeMemory(input: {scopeId: $s, content: "HEARTBEAT_OK", sessionId: $x}) { id } }`,
			map[string]any{"s": scope, "x": sess.SessionID})
		var rs struct{ Resonate []struct{ Score float64 } }
		s.ok(t, `query($s: ID!) { resonate(scopeId: $s, message: "HEARTBEAT_OK") { score } }`, map[string]any{"s": scope}, &rs)
		kept := s.store(t, map[string]any{"scopeId": scope, "content": "HEARTBEAT_OK came back, and then the storm", "sessionId": sess.SessionID})
		eventually(t, func() string {
			if p := s.pending(t, scope); len(p.Entries) != 1 || p.Entries[0].MemoryID != kept.ID {
				return fmt.Sprintf("pending = %+v, want only the memory that merely mentions a heartbeat", p)
			}
			return ""
		})
		if len(rs.Resonate) != 0 {
			t.Fatalf("a heartbeat resonated: %+v", rs)
		}
	})

	// waitFailures waits for n StoryConsolidationFailed events and returns them.
	waitFailures := func(t *testing.T, events *storyEvents, n int) []map[string]any {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(events.of("StoryConsolidationFailed")) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d StoryConsolidationFailed events, want %d", len(events.of("StoryConsolidationFailed")), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return events.of("StoryConsolidationFailed")
	}
	// failsThenHeals stores a batch over the threshold while the model misbehaves as mode: the
	// failure is recorded and retried with backoff while the pending log stays as it was; once
	// the model behaves, exactly one chapter tells every memory.
	failsThenHeals := func(t *testing.T, mode, reason string) {
		model.set(mode)
		scope, _, _ := s.createScope(t, "the model "+mode)
		sess := s.sessionStart(t, "heal-"+mode, "claude", scope)
		events := s.watchStory(t, scope)
		ids := s.storeInSession(t, scope, sess.SessionID, mode, 3)
		fails := waitFailures(t, events, 2)
		for i, ev := range fails[:2] {
			pl := ev["payload"].(map[string]any)
			if !strings.Contains(pl["reason"].(string), reason) || pl["attempt"] != float64(i+1) || pl["retryAt"] == nil ||
				pl["pendingTokens"] != float64(45) || pl["model"] != "fake-scribe" || ev["context"].(map[string]any)["sourceContext"] != "Subconscious" {
				t.Fatalf("failure %d = %v", i+1, ev)
			}
			// The backoff: 150 ms after the first failure, twice that after the second.
			at, _ := time.Parse(time.RFC3339Nano, ev["context"].(map[string]any)["timestamp"].(string))
			retry, _ := time.Parse(time.RFC3339Nano, pl["retryAt"].(string))
			if want := 150 * time.Millisecond << i; retry.Sub(at) != want {
				t.Fatalf("failure %d retries after %v, want %v", i+1, retry.Sub(at), want)
			}
		}
		p := s.pending(t, scope)
		if p.Tokens != 45 || len(p.Entries) != 3 || p.Chapters != 0 || len(s.story(t, scope).Chapters) != 0 {
			t.Fatalf("after failures: pending %+v", p)
		}
		// Asked explicitly meanwhile: the same failure as UNAVAILABLE (or CONFLICT, should the
		// Subconscious's own retry hold the scope at that moment), and still nothing lost.
		r := s.do(t, `mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": scope})
		if len(r.Errors) == 0 || (r.Errors[0].Extensions["code"] != "UNAVAILABLE" && r.Errors[0].Extensions["code"] != "CONFLICT") {
			t.Fatalf("consolidateStory with a misbehaving model = %+v, want UNAVAILABLE", r)
		}
		if p := s.pending(t, scope); p.Tokens != 45 {
			t.Fatalf("pending after a failed explicit consolidation: %+v", p)
		}
		model.set("chapter")
		var st storyView
		eventually(t, func() string {
			if st = s.story(t, scope); len(st.Chapters) != 1 {
				return fmt.Sprintf("%d chapters after the model healed, want 1", len(st.Chapters))
			}
			return ""
		})
		if ch := st.Chapters[0]; !sameSet(ch.MemoryIds, ids) || ch.Memories != 3 || ch.Number != 1 {
			t.Fatalf("chapter = %+v", ch)
		}
		time.Sleep(300 * time.Millisecond)
		if p := s.pending(t, scope); len(s.story(t, scope).Chapters) != 1 || p.Tokens != 0 || p.Chapters != 1 {
			t.Fatalf("after healing: %d chapters, pending %+v", len(s.story(t, scope).Chapters), p)
		}
	}
	t.Run("MalformedAnswerKeptAndRetried", func(t *testing.T) { failsThenHeals(t, "malformed", "malformed") })
	t.Run("FailedModelKeptAndRetried", func(t *testing.T) { failsThenHeals(t, "fail", "model overloaded") })
	t.Run("SlowModelTimesOutAndIsRetried", func(t *testing.T) { failsThenHeals(t, "slow", "did not answer within 400ms") })

	t.Run("CrashBetweenAnswerAndCommitLosesNothing", func(t *testing.T) {
		model.set("chapter")
		scope, _, _ := s.createScope(t, "crash before commit")
		sess := s.sessionStart(t, "crash-1", "claude", scope)
		events := s.watchStory(t, scope)
		before := model.calls.Load()
		fault.Store(1)
		ids := s.storeInSession(t, scope, sess.SessionID, "crash", 3)
		fails := waitFailures(t, events, 1)
		if pl := fails[0]["payload"].(map[string]any); !strings.Contains(pl["reason"].(string), "could not be written") || failedCommits.Load() != 1 {
			t.Fatalf("failure = %v (failed commits %d)", pl, failedCommits.Load())
		}
		var st storyView
		eventually(t, func() string {
			if st = s.story(t, scope); len(st.Chapters) != 1 {
				return fmt.Sprintf("%d chapters after the failed commit, want 1", len(st.Chapters))
			}
			return ""
		})
		time.Sleep(300 * time.Millisecond)
		st = s.story(t, scope)
		if len(st.Chapters) != 1 || !sameSet(st.Chapters[0].MemoryIds, ids) || st.Chapters[0].Number != 1 {
			t.Fatalf("story after the crash: %+v", st.Chapters)
		}
		if p := s.pending(t, scope); p.Tokens != 0 || len(p.Entries) != 0 || p.Chapters != 1 {
			t.Fatalf("pending after the crash: %+v", p)
		}
		if n := model.calls.Load() - before; n != 2 {
			t.Fatalf("the model was asked %d times, want 2 (the lost answer, and the retry)", n)
		}
		if n := len(events.of("StoryChapterWritten")); n != 1 {
			t.Fatalf("%d StoryChapterWritten events", n)
		}
	})

	t.Run("ExplicitConsolidationAndBadInput", func(t *testing.T) {
		model.set("chapter")
		scope, _, _ := s.createScope(t, "asked")
		sess := s.sessionStart(t, "asked-1", "claude", scope)
		ids := s.storeInSession(t, scope, sess.SessionID, "asked", 1)
		eventually(t, func() string {
			if p := s.pending(t, scope); len(p.Entries) != 1 {
				return "not pending yet"
			}
			return ""
		})
		var r1, r2 struct{ ConsolidateStory *chapterView }
		q := `mutation($s: ID!, $r: ID) { consolidateStory(scopeId: $s, requestId: $r) { ` + chapterFields + ` } }`
		s.ok(t, q, map[string]any{"s": scope, "r": "story-once-" + runID}, &r1)
		s.ok(t, q, map[string]any{"s": scope, "r": "story-once-" + runID}, &r2)
		if r1.ConsolidateStory == nil || r2.ConsolidateStory == nil || r1.ConsolidateStory.ID != r2.ConsolidateStory.ID ||
			!sameSet(r1.ConsolidateStory.MemoryIds, ids) {
			t.Fatalf("consolidateStory = %+v then %+v", r1.ConsolidateStory, r2.ConsolidateStory)
		}
		var r3 struct{ ConsolidateStory *chapterView }
		s.ok(t, `mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": scope}, &r3)
		if r3.ConsolidateStory != nil || len(s.story(t, scope).Chapters) != 1 {
			t.Fatalf("nothing pending wrote %+v", r3.ConsolidateStory)
		}
		other, _, _ := s.createScope(t, "asked too")
		s.fails(t, "CONFLICT", `mutation($s: ID!, $r: ID) { consolidateStory(scopeId: $s, requestId: $r) { id } }`,
			map[string]any{"s": other, "r": "story-once-" + runID})
		for _, bad := range []string{"", "not a uuid", `"; drop all <_:x> *`} {
			s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { pendingNarrative(scopeId: $s) { tokens } }`, map[string]any{"s": bad})
			s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": bad})
			s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { story(scopeId: $s) { markdown } }`, map[string]any{"s": bad})
		}
		missing := "00000000-0000-4000-8000-00000000dead"
		s.fails(t, "NOT_FOUND", `query($s: ID!) { pendingNarrative(scopeId: $s) { tokens } }`, map[string]any{"s": missing})
		s.fails(t, "NOT_FOUND", `mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": missing})
		s.fails(t, "NOT_FOUND", `query($s: ID!) { story(scopeId: $s) { markdown } }`, map[string]any{"s": missing})
		// Chapters are the Subconscious's to write.
		s.fails(t, "FORBIDDEN", `mutation($s: ID!) { saveKnowledge(input: {scopeId: $s, type: NARRATIVE, title: "Chapter 9: forged", content: "I did not."}) { id } }`,
			map[string]any{"s": scope})
		s.fails(t, "FORBIDDEN", `mutation($s: ID!, $id: ID) { saveKnowledge(input: {scopeId: $s, id: $id, type: FACT, title: "rewritten", content: "no"}) { id } }`,
			map[string]any{"s": scope, "id": r1.ConsolidateStory.ID})
		if st := s.story(t, scope); len(st.Chapters) != 1 || st.Chapters[0].Title != "The lighthouse" {
			t.Fatalf("story after refused saves: %+v", st.Chapters)
		}
	})
}

// anchorText renders a chapter's lastProcessed as the anchor does.
func anchorText(t *testing.T, s string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at.UTC().Format(time.RFC3339Nano)
}

// testStoryDigestWithoutModel: a server without a model writes a dated digest by salience; the
// CLI shows the story and asks for a chapter through the server.
func testStoryDigestWithoutModel(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "no model")
	sess := s.sessionStart(t, "digest-"+runID, "person", scope)
	low := s.store(t, map[string]any{"scopeId": scope, "content": "I watered the ferns.", "sessionId": sess.SessionID, "importance": 0.1})
	high := s.store(t, map[string]any{"scopeId": scope, "content": "I signed the lease on the lighthouse.", "sessionId": sess.SessionID, "importance": 0.9})
	mid := s.store(t, map[string]any{"scopeId": scope, "content": "I met the harbour master.", "sessionId": sess.SessionID, "importance": 0.5})
	eventually(t, func() string {
		if p := s.pending(t, scope); len(p.Entries) != 3 {
			return fmt.Sprintf("%d pending, want 3", len(p.Entries))
		}
		return ""
	})
	var out strings.Builder
	if err := run([]string{"story", "consolidate", "--server", s.addr, "--scope", scope}, &out, &out); err != nil {
		t.Fatal(err)
	}
	st := s.story(t, scope)
	if len(st.Chapters) != 1 {
		t.Fatalf("%d chapters", len(st.Chapters))
	}
	ch := st.Chapters[0]
	if ch.Mode != "DIGEST" || ch.Model != nil || !strings.HasPrefix(ch.Title, "Digest of ") || !sameSet(ch.MemoryIds, []string{low.ID, high.ID, mid.ID}) {
		t.Fatalf("chapter = %+v", ch)
	}
	if want := fmt.Sprintf("chapter 1 written (digest, 3 memories, %d tokens): %s\n", ch.Tokens, ch.Title); out.String() != want {
		t.Fatalf("story consolidate printed %q, want %q", out.String(), want)
	}
	a, b, c := strings.Index(ch.Content, "lease on the lighthouse"), strings.Index(ch.Content, "harbour master"), strings.Index(ch.Content, "ferns")
	if a < 0 || b < a || c < b || !strings.Contains(ch.Content, "*3 memories, stored ") {
		t.Fatalf("the digest is not by salience:\n%s", ch.Content)
	}
	out.Reset()
	if err := run([]string{"story", "show", "--server", "http://" + s.addr, "--scope", scope}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != st.Markdown || !strings.Contains(out.String(), "<!-- LAST_PROCESSED: ") {
		t.Fatalf("story show printed %q, want %q", out.String(), st.Markdown)
	}
	out.Reset()
	if err := run([]string{"story", "consolidate", "--server", s.addr, "--scope", scope}, &out, &out); err != nil || out.String() != "nothing pending: no chapter written\n" {
		t.Fatalf("second consolidate: %v %q", err, out.String())
	}
	if err := run([]string{"story", "show", "--server", s.addr, "--scope", "00000000-0000-4000-8000-00000000dead"}, &out, &out); err == nil ||
		!strings.Contains(err.Error(), "not found") {
		t.Fatalf("story show of a missing scope: %v", err)
	}
}

// testJournal imports a journal through the CLI and the server, searches it and reads it back;
// a second import changes nothing, an edited journal updates its pages.
func testJournal(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "journal")
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("MEMORY.md", "# Preferences\n\nThe user likes \"quiet\" <mornings> & strong tea.\n\n## Editors\n\nUses helix; never suggest emacs.\n")
	write("memory/2025-01-31.md", "Morning notes.\n\n# Decisions\n\n```\n# not a heading\n```\nWe chose Dgraph over Neo4j for the graph.\n")
	write("memory/notes.txt", "not a journal file")
	imp := func() string {
		var out strings.Builder
		if err := run([]string{"import", "journal", "--server", s.addr, "--scope", scope, dir}, &out, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got := imp(); got != "journal: 2 files, 4 pages (4 created, 0 updated, 0 deleted, 0 unchanged)\n" {
		t.Fatalf("first import: %q", got)
	}
	if got := imp(); got != "journal: 2 files, 4 pages (0 created, 0 updated, 0 deleted, 4 unchanged)\n" {
		t.Fatalf("second import: %q", got)
	}
	type hit struct {
		Family    string
		Knowledge struct {
			ID, Type, Title, Content string
			Tags                     []string
			Journal                  struct {
				Path            string
				Headings        []string
				FromLine, Lines int
			}
		}
	}
	search := func(q string) []hit {
		var r struct{ SearchArtifacts []hit }
		s.ok(t, `query($s: ID!, $q: String!) { searchArtifacts(scopeId: $s, query: $q, knowledgeTypes: [JOURNAL]) { family
			knowledge { id type title content tags journal { path headings fromLine lines } } } }`, map[string]any{"s": scope, "q": q}, &r)
		return r.SearchArtifacts
	}
	hs := search("Dgraph Neo4j")
	if len(hs) != 1 {
		t.Fatalf("hits = %+v", hs)
	}
	k := hs[0].Knowledge
	if k.Type != "JOURNAL" || k.Title != "memory/2025-01-31.md › Decisions" || k.Journal.Path != "memory/2025-01-31.md" ||
		strings.Join(k.Journal.Headings, "|") != "Decisions" || k.Journal.FromLine != 3 || k.Journal.Lines != 6 ||
		!sameSet(k.Tags, []string{"journal", "journal:memory/2025-01-31.md"}) {
		t.Fatalf("hit = %+v", k)
	}
	if hs := search("helix"); len(hs) != 1 || hs[0].Knowledge.Title != "MEMORY.md › Preferences › Editors" {
		t.Fatalf("helix hits = %+v", hs)
	}
	get := func(path string, from, n any) (snip struct {
		Path                        string
		FromLine, Lines, TotalLines int
		Text                        string
	}) {
		var r struct {
			JournalGet struct {
				Path                        string
				FromLine, Lines, TotalLines int
				Text                        string
			}
		}
		s.ok(t, `query($s: ID!, $p: String!, $f: Int, $n: Int) { journalGet(scopeId: $s, path: $p, fromLine: $f, lines: $n) { path fromLine lines totalLines text } }`,
			map[string]any{"s": scope, "p": path, "f": from, "n": n}, &r)
		return r.JournalGet
	}
	if g := get("memory/2025-01-31.md", k.Journal.FromLine, k.Journal.Lines); g.Text != "# Decisions\n\n```\n# not a heading\n```\nWe chose Dgraph over Neo4j for the graph." || g.Lines != 6 {
		t.Fatalf("journalGet = %+v", g)
	}
	if g := get("MEMORY.md", nil, nil); g.Text != "# Preferences\n\nThe user likes \"quiet\" <mornings> & strong tea.\n\n## Editors\n\nUses helix; never suggest emacs." ||
		g.FromLine != 1 || g.TotalLines != 7 {
		t.Fatalf("whole MEMORY.md = %+v", g)
	}
	if g := get("memory/2025-01-31.md", 2, 1); g.Text != "" || g.Lines != 1 {
		t.Fatalf("a blank line = %+v", g)
	}
	s.fails(t, "NOT_FOUND", `query($s: ID!) { journalGet(scopeId: $s, path: "memory/none.md") { text } }`, map[string]any{"s": scope})
	for _, bad := range []string{"../etc/passwd.md", "/MEMORY.md", "memory/../MEMORY.md", "notes.md", "memory/x.txt", "memory\\x.md", "memory/a\x00b.md", ""} {
		s.fails(t, "INVALID_ARGUMENT", `query($s: ID!, $p: String!) { journalGet(scopeId: $s, path: $p) { text } }`, map[string]any{"s": scope, "p": bad})
	}
	s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { journalGet(scopeId: $s, path: "MEMORY.md", fromLine: 0) { text } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { journalGet(scopeId: $s, path: "MEMORY.md", fromLine: 8) { text } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { importJournal(scopeId: $s, files: [{path: "../x.md", content: "x"}]) { pages } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { importJournal(scopeId: $s, files: [{path: "MEMORY.md", content: "a"}, {path: "MEMORY.md", content: "b"}]) { pages } }`, map[string]any{"s": scope})
	s.fails(t, "FORBIDDEN", `mutation($s: ID!) { saveKnowledge(input: {scopeId: $s, type: JOURNAL, title: "forged", content: "x"}) { id } }`, map[string]any{"s": scope})
	if got := imp(); !strings.Contains(got, "4 unchanged") {
		t.Fatalf("refused imports changed the journal: %q", got)
	}

	// An edited journal: a section changes, one is added, a file is removed.
	write("MEMORY.md", "# Preferences\n\nThe user likes \"quiet\" <mornings> & green tea.\n\n## Editors\n\nUses helix; never suggest emacs.\n\n## Shell\n\nfish, with vi keys.\n")
	if err := os.Remove(filepath.Join(dir, "memory", "2025-01-31.md")); err != nil {
		t.Fatal(err)
	}
	write("memory/2025-02-01.md", "# Travel\n\nThe user flies to Lisbon on Friday.\n")
	if got := imp(); got != "journal: 2 files, 4 pages (2 created, 1 updated, 2 deleted, 1 unchanged)\n" {
		t.Fatalf("edited import: %q", got)
	}
	if hs := search("Dgraph Neo4j"); len(hs) != 0 {
		t.Fatalf("a deleted file is still found: %+v", hs)
	}
	if hs := search("green tea"); len(hs) != 1 || hs[0].Knowledge.Journal.Path != "MEMORY.md" {
		t.Fatalf("the updated section is not found: %+v", hs)
	}
	if hs := search("strong"); len(hs) != 0 {
		t.Fatalf("the old text is still found: %+v", hs)
	}
	if g := get("MEMORY.md", 9, 3); g.Text != "## Shell\n\nfish, with vi keys." || g.TotalLines != 11 {
		t.Fatalf("journalGet after the edit = %+v", g)
	}
	s.fails(t, "NOT_FOUND", `query($s: ID!) { journalGet(scopeId: $s, path: "memory/2025-01-31.md") { text } }`, map[string]any{"s": scope})
	// The journal is not the story, and the story is not the journal.
	var r struct{ SearchArtifacts []hit }
	s.ok(t, `query($s: ID!) { searchArtifacts(scopeId: $s, query: "Lisbon", knowledgeTypes: [NARRATIVE]) { family } }`, map[string]any{"s": scope}, &r)
	if len(r.SearchArtifacts) != 0 {
		t.Fatalf("NARRATIVE search found journal pages: %+v", r)
	}
}

// TestStoryKilledServerTellsEverythingOnce kills a real server process with SIGKILL while the
// model writes a chapter, and right after the model answered (before or after the commit: the
// kill races it), then restarts it on the same data: every pending memory is told, in exactly
// one chapter.
func TestStoryKilledServerTellsEverythingOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server process")
	}
	model := newFakeModel(t)
	dir := t.TempDir()
	args := []string{"--store", "file://" + dir, "--llm-url", model.url(), "--llm-model", "fake-scribe",
		"--story-threshold-tokens", "40", "--story-timeout", "1s", "--story-retry", "200ms", "--story-retry-max", "1s", "--story-scan", "300ms",
		"--decay-interval", "0"}
	for _, c := range []struct{ name, mode string }{{"WhileTheModelWrites", "block"}, {"RightAfterTheModelAnswered", "chapter"}} {
		t.Run(c.name, func(t *testing.T) {
			model.set(c.mode)
			p := startProcess(t, args...)
			s := &server{addr: p.addr}
			scope, _, _ := s.createScope(t, "killed "+c.name)
			sess := s.sessionStart(t, "killed-"+c.mode, "claude", scope)
			for len(model.called) > 0 {
				<-model.called
			}
			for len(model.answered) > 0 {
				<-model.answered
			}
			before := model.calls.Load()
			ids := s.storeInSession(t, scope, sess.SessionID, c.mode, 3)
			wait := model.called
			if c.mode == "chapter" {
				wait = model.answered
			}
			select {
			case <-wait:
			case <-time.After(30 * time.Second):
				t.Fatal("the model was never asked")
			}
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			p.cmd.Wait()
			model.set("chapter")
			p = startProcess(t, args...)
			defer func() { p.cmd.Process.Signal(os.Interrupt); p.cmd.Wait() }()
			s = &server{addr: p.addr}
			var st storyView
			eventually(t, func() string {
				if st = s.story(t, scope); len(st.Chapters) != 1 {
					return fmt.Sprintf("%d chapters after the restart, want 1", len(st.Chapters))
				}
				return ""
			})
			time.Sleep(time.Second) // the Subconscious's scans find nothing more to tell
			st = s.story(t, scope)
			if len(st.Chapters) != 1 || !sameSet(st.Chapters[0].MemoryIds, ids) || st.Chapters[0].Number != 1 {
				t.Fatalf("story after the kill: %+v", st.Chapters)
			}
			if pn := s.pending(t, scope); pn.Tokens != 0 || len(pn.Entries) != 0 || pn.Chapters != 1 {
				t.Fatalf("pending after the kill: %+v", pn)
			}
			t.Logf("the model was asked %d times", model.calls.Load()-before)
		})
	}
}

// TestStoryTwoServersOneCluster runs two server processes on one Dgraph cluster, both with the
// model and a threshold: memories stored in one session through both, while both are asked for
// chapters again and again. Every memory is told in exactly one chapter; chapters are numbered
// once each.
func TestStoryTwoServersOneCluster(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	model := newFakeModel(t)
	model.delay.Store(int64(100 * time.Millisecond)) // a wider window for the servers to race in
	args := func(index string) []string {
		return []string{"--store", uri, "--index", filepath.Join(t.TempDir(), index), "--llm-url", model.url(), "--llm-model", "fake-scribe",
			"--story-threshold-tokens", "40", "--story-timeout", "5s", "--story-retry", "100ms", "--story-retry-max", "400ms",
			"--story-scan", "200ms", "--decay-interval", "0"}
	}
	a := serveProcess(t, args("a")...)
	defer a.stop(t)
	b := serveProcess(t, args("b")...)
	defer b.stop(t)
	scope, _, _ := a.createScope(t, "two servers")
	sess := a.sessionStart(t, "two-servers-"+runID, "claude", scope)

	stop := make(chan struct{})
	var asked sync.WaitGroup
	var conflicts, written atomic.Int64
	for _, srv := range []*server{a, b, a, b} {
		asked.Add(1)
		go func(srv *server) {
			defer asked.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r, err := srv.try(`mutation($s: ID!) { consolidateStory(scopeId: $s) { id } }`, map[string]any{"s": scope})
				switch {
				case err != nil:
					t.Error(err)
					return
				case len(r.Errors) > 0 && r.Errors[0].Extensions["code"] == "CONFLICT":
					conflicts.Add(1)
				case len(r.Errors) > 0:
					t.Errorf("consolidateStory: %+v", r.Errors)
					return
				case string(r.Data) != `{"consolidateStory":null}`:
					written.Add(1)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(srv)
	}
	var ids []string
	for i := 0; i < 12; i++ {
		srv := []*server{a, b}[i%2]
		ids = append(ids, srv.storeInSession(t, scope, sess.SessionID, fmt.Sprint("both ", i), 1)...)
	}
	// Every memory reaches a chapter.
	told := func() ([]chapterView, map[string]int) {
		st := a.story(t, scope)
		n := map[string]int{}
		for _, ch := range st.Chapters {
			for _, id := range ch.MemoryIds {
				n[id]++
			}
		}
		return st.Chapters, n
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, n := told(); len(n) == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			chs, n := told()
			t.Fatalf("after 60s %d of %d memories told in %d chapters", len(n), len(ids), len(chs))
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	asked.Wait()
	chs, n := told()
	for _, id := range ids {
		if n[id] != 1 {
			t.Fatalf("memory %s told %d times", id, n[id])
		}
	}
	total := 0
	for i, ch := range chs {
		if ch.Number != i+1 {
			t.Fatalf("chapter %d is numbered %d", i+1, ch.Number)
		}
		total += ch.Memories
	}
	if total != len(ids) || len(n) != len(ids) {
		t.Fatalf("%d chapters tell %d memories (%d distinct), want %d", len(chs), total, len(n), len(ids))
	}
	for _, srv := range []*server{a, b} {
		if p := srv.pending(t, scope); p.Tokens != 0 || len(p.Entries) != 0 || p.Chapters != len(chs) {
			t.Fatalf("pending on %s = %+v", srv.addr, p)
		}
	}
	t.Logf("%d chapters; %d written on request, %d requests refused as CONFLICT; the model was asked %d times",
		len(chs), written.Load(), conflicts.Load(), model.calls.Load())
}
