package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Events carry no tr.kind (an event is the node with an ev.seq), and the events written before,
// which carry tr.kind Event, are still events: a dump lists each event once, of kind Event, and
// deleting the scope erases both.
func TestEventsCarryNoKind(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(id string) *domain.Event {
		return &domain.Event{Type: domain.EvMemoryClaimed, ScopeID: scope.ID, MemoryID: domain.NewID(), Context: domain.TransactionContext{
			SessionID: "s", RequestID: "r", MessageID: id, CausationID: "c", Timestamp: at, SourceContext: domain.CtxHippocampus}}
	}
	newID, oldID := domain.NewID(), domain.NewID()
	if err := s.AppendEvents(ctx, []*domain.Event{ev(newID), ev(oldID)}); err != nil {
		t.Fatal(err)
	}
	node := func(messageID string) map[string]any {
		t.Helper()
		raw, err := s.RawQuery(ctx, `query q($m: string) { q(func: eq(ev.messageId, $m)) { uid tr.kind tr.scope ev.type } }`, map[string]string{"$m": messageID})
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Q []map[string]any }
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Q) != 1 {
			t.Fatalf("event %s: %s, %v", messageID, raw, err)
		}
		return r.Q[0]
	}
	if n := node(newID); n["tr.kind"] != nil || n["tr.scope"] != scope.ID {
		t.Fatalf("a new event node: %v, want a scope and no kind", n)
	}
	// One event as written before: with its kind.
	if err := s.RawSet(ctx, map[string]any{"uid": node(oldID)["uid"], "tr.kind": kindEvent}); err != nil {
		t.Fatal(err)
	}

	var dump bytes.Buffer
	if _, err := s.Export(ctx, &dump); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(&dump)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		d, err := decodeLine(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := d.Set["ev.messageId"].(string); m == newID || m == oldID {
			if d.Set["tr.kind"] != kindEvent {
				t.Errorf("the dump lists event %s with kind %v", m, d.Set["tr.kind"])
			}
			seen[m]++
		}
	}
	if seen[newID] != 1 || seen[oldID] != 1 {
		t.Fatalf("the dump lists the events %v times, want once each", seen)
	}

	del, err := s.DeleteScope(ctx, domain.Request{}, scope.ID, func(*domain.ScopeDeletion) []*domain.Event { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if del.Events < 2 {
		t.Fatalf("deletion erased %d events, want both (and the scope's own)", del.Events)
	}
	for _, id := range []string{newID, oldID} {
		raw, err := s.RawQuery(ctx, `query q($m: string) { q(func: eq(ev.messageId, $m)) { uid } }`, map[string]string{"$m": id})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(`"q":[]`)) {
			t.Errorf("event %s keeps its message id after the scope was deleted: %s", id, raw)
		}
	}
	raw, err := s.RawQuery(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) { uid } }`, map[string]string{"$s": scope.ID})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"q":[]`)) {
		t.Errorf("nodes keep the deleted scope: %s", raw)
	}
}
