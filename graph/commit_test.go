package graph

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The events a commit hands over (OnCommit) are the events a read of the log returns: the same
// decoding of the same written values, numbers in payloads included.
func TestCommittedEventsAreWhatAReadReturns(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	var got []*domain.Event
	s.OnCommit(func(evs []*domain.Event) { got = append(got, evs...) })
	at := time.Date(2025, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	evs := []*domain.Event{
		{Type: domain.EvMemoryStored, ScopeID: scope.ID, MemoryID: domain.NewID(),
			Context: domain.TransactionContext{SessionID: "s", RequestID: "r", MessageID: domain.NewID(), CausationID: "c",
				Timestamp: at, SourceContext: domain.CtxHippocampus},
			Payload: map[string]any{"n": 3, "f": 0.25, "s": `quote " and \ slash`, "l": []string{"a", "b"}},
			Touches: []domain.Touch{{Context: domain.CtxSalience, At: at}}},
		{Type: domain.EvMemoryAccessed, ScopeID: scope.ID,
			Context: domain.TransactionContext{MessageID: domain.NewID(), Timestamp: at, SourceContext: domain.CtxRecall}},
	}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("handed over %d events, want 2", len(got))
	}
	read, err := s.EventsSince(ctx, got[0].Seq-1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, read) {
		t.Fatalf("handed over:\n%+v\nread:\n%+v", got, read)
	}
	if _, ok := got[0].Payload["n"].(float64); !ok {
		t.Fatalf("payload numbers handed over as %T, a read gives float64", got[0].Payload["n"])
	}
}
