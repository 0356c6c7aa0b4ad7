package cortex_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/llm"
)

// Asynchronous analysis on the real embedded store: runs recorded PENDING, taken up by the
// Cortex's worker (RUNNING), ending COMPLETED or FAILED; and taken up again after a restart.
// The runs are held in place deterministically by a fake OpenAI-compatible chat server that,
// while holding, does not answer about a transcript that mentions a zebra until the test
// releases it — no sleeps, no timing.

// liveness bounds a wait that should end at once; reaching it is a hang, not a slow machine.
const liveness = 2 * time.Minute

// gatedChat is a fake chat model server. Transcripts about pets get a summary and a "pets"
// topic; "gibberish" gets an answer that is not JSON (the analysis fails, saying so); while
// hold is set, a transcript mentioning a zebra signals started and waits for release.
type gatedChat struct {
	url     string
	hold    atomic.Bool
	started chan struct{}
	release chan struct{}
}

func newGatedChat(t *testing.T) *gatedChat {
	t.Helper()
	g := &gatedChat{started: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []domain.ChatMessage `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		var prompt strings.Builder
		for _, m := range req.Messages {
			prompt.WriteString(m.Content)
		}
		if strings.Contains(prompt.String(), "zebra") && g.hold.Load() {
			select {
			case g.started <- struct{}{}:
			case <-r.Context().Done():
				return
			}
			select {
			case <-g.release:
			case <-r.Context().Done():
				return
			}
		}
		answer := `{"summary": "a chat about pets", "facets": [{"type": "topic", "value": "pets", "confidence": 0.8}]}`
		if strings.Contains(prompt.String(), "gibberish") {
			answer = "I would rather not."
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": map[string]any{"content": answer}}}})
	}))
	t.Cleanup(srv.Close)
	g.url = srv.URL + "/v1"
	return g
}

func (g *gatedChat) config(t *testing.T) cortex.MnemonicConfig {
	t.Helper()
	chat, err := llm.NewChat(llm.Config{BaseURL: g.url, Model: "fake-chat"})
	if err != nil {
		t.Fatal(err)
	}
	return cortex.MnemonicConfig{Chat: chat}
}

// waitStarted waits until the held transcript reached the model: its run is RUNNING.
func (g *gatedChat) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(liveness):
		t.Fatal("the worker never asked the model about the held episode")
	}
}

// Three conversations on three days: three episodes.
const analysisEvents = `{"timestamp": "2026-01-01T10:00:00Z", "channel": "chat", "content": "The zebra waited at the gate all morning", "direction": "sent", "thread_id": "z", "source_id": "1", "sender": "Ada"}
{"timestamp": "2026-01-03T10:00:00Z", "channel": "chat", "content": "My dog Rex loves the beach", "direction": "received", "thread_id": "d", "source_id": "2", "sender": "Bob"}
{"timestamp": "2026-01-05T10:00:00Z", "channel": "chat", "content": "gibberish only", "direction": "sent", "thread_id": "g", "source_id": "3", "sender": "Ada"}
`

// analysisScope creates a scope with the three conversations and returns their episodes, by the
// word each is about: "zebra", "dog", "gibberish".
func analysisScope(t *testing.T, cx *cortex.Cortex) (string, map[string]*domain.Episode) {
	t.Helper()
	ctx := context.Background()
	sc, err := cx.CreateScope(ctx, "analysis", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if res := importSource(t, cx, sc.ID, ingest.KindEvents, analysisEvents); res.Episodes != 3 {
		t.Fatalf("import = %+v, want 3 episodes", res)
	}
	eps, err := cx.Episodes(ctx, sc.ID, domain.EpisodeFilter{WithItems: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*domain.Episode{}
	for _, e := range eps {
		ms, err := cx.EpisodeMemories(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, w := range []string{"zebra", "dog", "gibberish"} {
				if strings.Contains(m.Content, w) {
					out[w] = e
				}
			}
		}
	}
	if len(out) != 3 {
		t.Fatalf("episodes = %d, found %d of the three conversations", len(eps), len(out))
	}
	return sc.ID, out
}

// llmRuns lists the scope's runs of the llm analysis, by episode (the import ran "persons").
func llmRuns(t *testing.T, fs domain.FacetStore, scopeID string) map[string]*domain.AnalysisRun {
	t.Helper()
	runs, err := fs.AnalysisRuns(context.Background(), scopeID, domain.RunFilter{TypeID: domain.DeriveID(scopeID, "analysis-type", "llm")})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*domain.AnalysisRun{}
	for _, r := range runs {
		if out[r.EpisodeID] != nil {
			t.Fatalf("two llm runs of episode %s", r.EpisodeID)
		}
		out[r.EpisodeID] = r
	}
	return out
}

// awaitRuns follows the event log from seq until every run in ids has its AnalysisRunCompleted
// or AnalysisRunFailed event, and returns those events by run id.
func awaitRuns(t *testing.T, cx *cortex.Cortex, seq uint64, ids ...string) map[string]*domain.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	evs := cx.Log().Subscribe(ctx, seq, func(e *domain.Event) bool {
		return e.Type == domain.EvAnalysisRunCompleted || e.Type == domain.EvAnalysisRunFailed
	})
	got := map[string]*domain.Event{}
	for len(got) < len(want) {
		e, ok := <-evs
		if !ok {
			t.Fatalf("the runs did not finish: events of %d of %d runs", len(got), len(want))
		}
		if id, _ := e.Payload["runId"].(string); want[id] {
			got[id] = e
		}
	}
	return got
}

func statusOf(rs []*cortex.RunResult) []domain.AnalysisStatus {
	out := make([]domain.AnalysisStatus, len(rs))
	for i, r := range rs {
		out[i] = r.Status
	}
	return out
}

func TestAnalyzeAsyncLifecycle(t *testing.T) {
	ctx := context.Background()
	stk := openTestStack(t)
	chat := newGatedChat(t)
	cx, _ := stk.cortex(chat.config(t))
	scope, eps := analysisScope(t, cx)
	zebra, dog, gib := eps["zebra"].ID, eps["dog"].ID, eps["gibberish"].ID

	// Bad input: a clear error with a stable code, and no run written.
	for _, bad := range []struct {
		in   cortex.AnalyzeInput
		code string
	}{
		{cortex.AnalyzeInput{ScopeID: scope, Type: "no-such-analysis", Async: true}, domain.EINVALID},
		{cortex.AnalyzeInput{ScopeID: "not-a-scope", Type: "llm", Async: true}, domain.EINVALID},
		{cortex.AnalyzeInput{ScopeID: domain.NewID(), Type: "llm", Async: true}, domain.ENOTFOUND},
		{cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{zebra, domain.NewID()}, Async: true}, domain.ENOTFOUND},
		{cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{"x"}, Async: true}, domain.EINVALID},
		{cortex.AnalyzeInput{ScopeID: scope, Type: "llm", Async: true, Meta: cortex.Meta{RequestID: " "}}, domain.EINVALID},
	} {
		if _, err := cx.Analyze(ctx, bad.in); domain.ErrorCode(err) != bad.code {
			t.Fatalf("Analyze(%+v) = %v, want %s", bad.in, err, bad.code)
		}
	}
	if runs := llmRuns(t, stk.st, scope); len(runs) != 0 {
		t.Fatalf("bad input wrote %d runs", len(runs))
	}

	from := cx.Log().Head()
	chat.hold.Store(true)
	a, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{zebra}, Async: true,
		Meta: cortex.Meta{RequestID: "async-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || a[0].Status != domain.RunPending || a[0].StartedAt != nil || a[0].EpisodeID != zebra {
		t.Fatalf("async answer = %+v, want one PENDING run", a)
	}
	// The worker took it up: RUNNING, held at the model.
	chat.waitStarted(t)
	if r := llmRuns(t, stk.st, scope)[zebra]; r == nil || r.Status != domain.RunRunning || r.StartedAt == nil || r.ID != a[0].ID {
		t.Fatalf("held run = %+v, want it RUNNING", r)
	}
	// A second request waits behind it: its runs are PENDING in the graph.
	b, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{dog, gib}, Async: true,
		Meta: cortex.Meta{RequestID: "async-b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statusOf(b); len(got) != 2 || got[0] != domain.RunPending || got[1] != domain.RunPending {
		t.Fatalf("second async answer = %v, want two PENDING runs", got)
	}
	runs := llmRuns(t, stk.st, scope)
	if runs[dog].Status != domain.RunPending || runs[gib].Status != domain.RunPending || runs[zebra].Status != domain.RunRunning {
		t.Fatalf("runs = zebra %s, dog %s, gibberish %s; want RUNNING, PENDING, PENDING", runs[zebra].Status, runs[dog].Status, runs[gib].Status)
	}
	// Retrying the request, or asking synchronously, neither duplicates a run nor runs one twice:
	// the runs come back as they stand.
	again, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{dog, gib}, Async: true,
		Meta: cortex.Meta{RequestID: "async-b"}})
	if err != nil || len(again) != 2 || again[0].ID != b[0].ID || again[1].ID != b[1].ID || again[0].Status != domain.RunPending {
		t.Fatalf("retried async answer = %+v, %v", again, err)
	}
	direct, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm"})
	if err != nil {
		t.Fatal(err)
	}
	if len(direct) != 3 {
		t.Fatalf("synchronous answer = %d runs, want 3", len(direct))
	}
	for _, r := range direct {
		if r.Status != domain.RunPending && r.Status != domain.RunRunning {
			t.Fatalf("synchronous answer ran a run the worker holds: %+v", r.AnalysisRun)
		}
	}
	if n := len(llmRuns(t, stk.st, scope)); n != 3 {
		t.Fatalf("%d llm runs, want one per episode", n)
	}

	close(chat.release)
	evs := awaitRuns(t, cx, from, a[0].ID, b[0].ID, b[1].ID)
	runs = llmRuns(t, stk.st, scope)
	if r := runs[zebra]; r.Status != domain.RunCompleted || r.OutputText != "a chat about pets" || r.CompletedAt == nil || r.ErrorMessage != "" {
		t.Fatalf("zebra run = %+v, want COMPLETED with the model's summary", r)
	}
	if r := runs[dog]; r.Status != domain.RunCompleted || r.CompletedAt == nil {
		t.Fatalf("dog run = %+v, want COMPLETED", r)
	}
	if r := runs[gib]; r.Status != domain.RunFailed || !strings.Contains(r.ErrorMessage, "JSON") || r.CompletedAt == nil {
		t.Fatalf("gibberish run = %+v, want FAILED saying the reply is not JSON", r)
	}
	if len(runs) != 3 {
		t.Fatalf("%d llm runs, want 3", len(runs))
	}
	fs, err := cx.Facets(ctx, scope, domain.FacetFilter{RunID: runs[zebra].ID})
	if err != nil || len(fs) != 1 || fs[0].Type != "topic" || fs[0].Value != "pets" {
		t.Fatalf("zebra facets = %+v, %v", fs, err)
	}
	// Each run's event follows from the request that asked for it.
	if e := evs[runs[zebra].ID]; e.Type != domain.EvAnalysisRunCompleted || e.Context.RequestID != "async-a" || e.Context.CausationID == "async-a" {
		t.Fatalf("zebra event = %s %+v", e.Type, e.Context)
	}
	e := evs[runs[gib].ID]
	if msg, _ := e.Payload["error"].(string); e.Type != domain.EvAnalysisRunFailed || e.Context.RequestID != "async-b" || !strings.Contains(msg, "JSON") {
		t.Fatalf("gibberish event = %s %+v %v", e.Type, e.Context, e.Payload)
	}
	// Asked again: the completed runs stand, the failed one is pending again and fails again.
	from = cx.Log().Head()
	third, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", Async: true})
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, r := range third {
		if r.Status == domain.RunPending {
			pending++
			if r.EpisodeID != gib {
				t.Fatalf("re-queued %+v", r.AnalysisRun)
			}
		}
	}
	if len(third) != 3 || pending != 1 {
		t.Fatalf("third answer = %v", statusOf(third))
	}
	awaitRuns(t, cx, from, runs[gib].ID)
	if r := llmRuns(t, stk.st, scope)[gib]; r.Status != domain.RunFailed {
		t.Fatalf("gibberish run = %+v", r)
	}
}

func TestAnalyzeAsyncResumesAfterRestart(t *testing.T) {
	ctx := context.Background()
	stk := openTestStack(t)
	chat := newGatedChat(t)
	cx, closeCx := stk.cortex(chat.config(t))
	scope, eps := analysisScope(t, cx)
	zebra, dog, gib := eps["zebra"].ID, eps["dog"].ID, eps["gibberish"].ID

	from := cx.Log().Head()
	chat.hold.Store(true)
	if _, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{zebra}, Async: true,
		Meta: cortex.Meta{RequestID: "resume-a"}}); err != nil {
		t.Fatal(err)
	}
	chat.waitStarted(t)
	if _, err := cx.Analyze(ctx, cortex.AnalyzeInput{ScopeID: scope, Type: "llm", EpisodeIDs: []string{dog, gib}, Async: true,
		Meta: cortex.Meta{RequestID: "resume-b"}}); err != nil {
		t.Fatal(err)
	}
	// The server stops while the worker is at the model: nothing is finished, nothing is lost.
	closeCx()
	runs := llmRuns(t, stk.st, scope)
	if runs[zebra].Status != domain.RunRunning || runs[dog].Status != domain.RunPending || runs[gib].Status != domain.RunPending {
		t.Fatalf("after stop: zebra %s, dog %s, gibberish %s; want RUNNING, PENDING, PENDING", runs[zebra].Status, runs[dog].Status, runs[gib].Status)
	}

	// The restarted server takes them up on its own.
	chat.hold.Store(false)
	cx2, _ := stk.cortex(chat.config(t))
	evs := awaitRuns(t, cx2, from, runs[zebra].ID, runs[dog].ID, runs[gib].ID)
	runs = llmRuns(t, stk.st, scope)
	if len(runs) != 3 || runs[zebra].Status != domain.RunCompleted || runs[dog].Status != domain.RunCompleted ||
		runs[gib].Status != domain.RunFailed || !strings.Contains(runs[gib].ErrorMessage, "JSON") {
		t.Fatalf("after restart: %d runs, zebra %s, dog %s, gibberish %s %q", len(runs), runs[zebra].Status, runs[dog].Status,
			runs[gib].Status, runs[gib].ErrorMessage)
	}
	// Still the requests' runs: their events carry the requests that asked for them.
	if got := evs[runs[zebra].ID].Context.RequestID; got != "resume-a" {
		t.Fatalf("zebra event of request %q", got)
	}
	if got := evs[runs[dog].ID].Context.RequestID; got != "resume-b" {
		t.Fatalf("dog event of request %q", got)
	}
}
