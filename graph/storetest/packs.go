package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// testReadEventsOfOneWrite: a write's read events — two searches' messages between events of
// other kinds, and one of another scope — read back from the log, a memory's history and a
// request's trace exactly as written, from any Seq on; deleting the scope leaves an Erased
// event at each of its Seqs.
func testReadEventsOfOneWrite(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc, other := mustScope(t, st), mustScope(t, st)
	m1, m2, m3 := NewMemory(sc.ID, "one"), NewMemory(sc.ID, "two"), NewMemory(sc.ID, "three")
	mustInsert(t, st, m1, m2, m3)
	ts := time.Date(2026, 3, 4, 5, 6, 7, 891000000, time.UTC)
	search := func(scopeID, query string, mems ...*domain.Memory) []*domain.Event {
		c := ctxFor("search")
		c.Timestamp = ts
		match := c.Derive(domain.CtxRecall, ts)
		evs := []*domain.Event{
			{Type: domain.MsgSearchQuery, ScopeID: scopeID, Context: c, Payload: map[string]any{"query": query, "results": float64(len(mems))}},
			{Type: domain.EvMemoryMatchRequest, ScopeID: scopeID, Context: match,
				Touches: []domain.Touch{{Context: domain.CtxHippocampus, At: ts}}},
		}
		for _, m := range mems {
			evs = append(evs, &domain.Event{Type: domain.EvMemoryAccessed, ScopeID: scopeID, MemoryID: m.ID,
				Context: match.Derive(domain.CtxHippocampus, ts), Payload: map[string]any{"memoryId": m.ID}})
		}
		if len(mems) > 0 {
			evs = append(evs, &domain.Event{Type: domain.EvSalienceScored, ScopeID: scopeID,
				Context: evs[2].Context.Derive(domain.CtxSalience, ts), Payload: map[string]any{"memoryId": mems[0].ID, "score": 0.25}})
		}
		return evs
	}
	a := search(sc.ID, `"; delete <*> * . { x } _:b <ev.pack> "]" . — ünïcödé 🧠`, m1, m2)
	b := search(sc.ID, `second`, m2, m3)
	o := search(other.ID, `other scope`)
	found := &domain.Event{Type: domain.EvAssociationsFound, ScopeID: sc.ID, Context: ctxFor("found")}
	var all []*domain.Event
	all = append(all, found)
	all = append(all, a...)
	all = append(all, b...)
	all = append(all, o...)
	all = append(all, &domain.Event{Type: domain.EvAssociationsFound, ScopeID: sc.ID, Context: ctxFor("found")})
	seq0, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendEvents(ctx, all); err != nil {
		t.Fatal(err)
	}
	same := func(what string, got, want []*domain.Event) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d", what, len(got), len(want))
		}
		for i := range want {
			g, w := *got[i], *want[i]
			g.Context.Timestamp, w.Context.Timestamp = g.Context.Timestamp.UTC(), w.Context.Timestamp.UTC()
			if g.Payload == nil {
				g.Payload = map[string]any{}
			}
			if w.Payload == nil {
				w.Payload = map[string]any{}
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s, event %d:\n got %+v\nwant %+v", what, i, g, w)
			}
		}
	}
	for i, e := range all {
		if e.Seq != seq0+uint64(i)+1 {
			t.Fatalf("event %d has Seq %d, want %d", i, e.Seq, seq0+uint64(i)+1)
		}
	}
	got, err := st.EventsSince(ctx, seq0, 0)
	if err != nil {
		t.Fatal(err)
	}
	same("the log", got, all)
	// From every Seq on, a few at a time: a read that begins inside a run of read events.
	for k := range all {
		got, err := st.EventsSince(ctx, seq0+uint64(k), 3)
		if err != nil {
			t.Fatal(err)
		}
		same(fmt.Sprintf("the log after Seq %d, 3 events", seq0+uint64(k)), got, all[k:min(len(all), k+3)])
	}
	hist, err := st.MemoryEvents(ctx, m2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || hist[0].Type != domain.EvMemoryStored {
		t.Fatalf("history of m2: %d events, want MemoryStored and two accesses", len(hist))
	}
	same("history of m2's accesses", hist[1:], []*domain.Event{a[3], b[2]})
	hist, err = st.MemoryEvents(ctx, m3.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("history of m3's accesses", hist[1:], []*domain.Event{b[3]})
	for name, want := range map[string][]*domain.Event{"first search": a, "second search": b, "other scope's": o} {
		got, err := st.RequestEvents(ctx, want[0].Context.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		same("trace of the "+name, got, want)
	}

	ls, ok := st.(domain.LifecycleStore)
	if !ok {
		return
	}
	del, err := ls.DeleteScope(ctx, domain.Request{}, sc.ID, func(*domain.ScopeDeletion) []*domain.Event { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if del.Events < len(all)-len(o) {
		t.Fatalf("deletion erased %d events, want at least the scope's %d here", del.Events, len(all)-len(o))
	}
	got, err = st.EventsSince(ctx, seq0, len(all))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("after the deletion the log holds %d of the %d Seqs", len(got), len(all))
	}
	for i, e := range got {
		if e.Seq != all[i].Seq {
			t.Fatalf("after the deletion: Seq %d where %d was", e.Seq, all[i].Seq)
		}
		if all[i].ScopeID == sc.ID && (e.Type != domain.EvErased || e.ScopeID != "" || e.MemoryID != "" || len(e.Payload) > 0) {
			t.Fatalf("Seq %d of the deleted scope: %+v, want an empty Erased", e.Seq, e)
		}
	}
	same("the other scope's events after the deletion", got[1+len(a)+len(b):len(all)-1], o)
	if evs, err := st.RequestEvents(ctx, a[0].Context.RequestID); err != nil || len(evs) != 0 {
		t.Fatalf("trace of a search of the deleted scope: %d events, %v", len(evs), err)
	}
}
