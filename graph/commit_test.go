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

	// An insert renders its events before it takes the write lock: they are handed over as a
	// read returns them too, in the order emitted (the memories' events, then their scores').
	got = nil
	ms, stored, ups := scoredInsert(scope.ID)
	stored[1].Payload["n"] = 7
	stored[1].Touches = []domain.Touch{{Context: domain.CtxSalience, At: at}}
	if _, err := s.InsertScoredMemories(ctx, domain.Request{FreshIDs: true}, ms, stored, ups); err != nil {
		t.Fatal(err)
	}
	want := []domain.EventType{domain.MsgStoreCommand, domain.EvMemoryStored, domain.EvSalienceScored}
	if len(got) != len(want) {
		t.Fatalf("handed over %d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Type != want[i] {
			t.Fatalf("handed over %s as event %d, want %s", e.Type, i, want[i])
		}
	}
	if read, err = s.EventsSince(ctx, got[0].Seq-1, 10); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, read) {
		t.Fatalf("handed over:\n%+v\nread:\n%+v", got, read)
	}
	if _, ok := got[1].Payload["n"].(float64); !ok || len(got[1].Touches) != 1 {
		t.Fatalf("insert's event handed over with payload %v, touches %v", got[1].Payload, got[1].Touches)
	}
}
