package graph

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// An event about more artifacts than its own commit holds has its pages committed ahead, a few
// commits of aboutInline pages, and is then the same as any event about several artifacts: one
// event in the log, a step with its payload in each artifact's history. When the event's own
// commit fails, the pages committed ahead are in no history; the write done again is seen once.
func TestEventAboutManyArtifacts(t *testing.T) {
	ctx := context.Background()
	var failEvents atomic.Bool
	var commits atomic.Int64
	s, scope := openScopeStore(t, WithCommitHooks(CommitHooks{Before: func(preds map[string]bool) error {
		commits.Add(1)
		if preds["ev.type"] && failEvents.Load() {
			return errors.New("injected: the event's commit fails")
		}
		return nil
	}}))
	n := 2*aboutInline*aboutPage + 7 // three commits ahead: two full, one of a page
	ids := make([]string, n)
	for i := range ids {
		ids[i] = domain.NewID()
	}
	event := func() *domain.Event {
		about := make(map[string]any, n)
		for i, id := range ids {
			about[id] = struct {
				ArtifactID string `json:"artifactId"`
				N          int    `json:"n"`
			}{id, i}
		}
		return &domain.Event{Type: domain.EvDigestProposed, ScopeID: scope.ID, About: about, Payload: map[string]any{"proposals": n},
			Context: domain.TransactionContext{RequestID: domain.NewID(), MessageID: domain.NewID(), Timestamp: time.Now().UTC(), SourceContext: "digest"}}
	}
	seq0, err := s.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	probe := []int{0, aboutInline*aboutPage - 1, aboutInline * aboutPage, n - 1}
	failEvents.Store(true)
	commits.Store(0)
	if err := s.AppendEvents(ctx, []*domain.Event{event()}); err == nil {
		t.Fatal("the event's commit was refused, yet the write succeeded")
	}
	if c := commits.Load(); c != 4 {
		t.Fatalf("%d commits for an event about %d artifacts: want 3 ahead and its own", c, n)
	}
	for _, i := range probe {
		if h, err := s.MemoryEvents(ctx, ids[i]); err != nil || len(h) != 0 {
			t.Fatalf("after the event's commit failed, artifact %d's history = %+v, %v", i, h, err)
		}
	}
	failEvents.Store(false)
	ev := event()
	if err := s.AppendEvents(ctx, []*domain.Event{ev}); err != nil {
		t.Fatal(err)
	}
	logged, err := s.EventsSince(ctx, seq0, 10)
	if err != nil || len(logged) != 1 || logged[0].Context.MessageID != ev.Context.MessageID || logged[0].About != nil {
		t.Fatalf("the log since the start holds %+v, %v; want the one event", logged, err)
	}
	for _, i := range probe {
		h, err := s.MemoryEvents(ctx, ids[i])
		if err != nil || len(h) != 1 || h[0].Seq != logged[0].Seq || h[0].MemoryID != ids[i] ||
			h[0].Payload["artifactId"] != ids[i] || h[0].Payload["n"] != float64(i) {
			t.Fatalf("artifact %d's history = %+v, %v; want the event with its payload", i, h, err)
		}
	}
}
