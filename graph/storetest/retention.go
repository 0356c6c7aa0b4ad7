package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func retentionTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"PruneReadEvents", testPruneReadEvents},
		{"ReadEventsOfOneWrite", testReadEventsOfOneWrite},
	}
}

// testPruneReadEvents: old read events go, a page at a time, up to the bound the caller gives and
// up to the first young read event; every other event stays, and so does what the memory holds.
// The store is shared with the suite's other tests, whose events are all older than the cutoff
// (a year from now): their read events go too, which none of them looks at again.
func testPruneReadEvents(t *testing.T, st domain.Store) {
	pr, ok := st.(domain.EventPruner)
	if !ok {
		t.Skip("store does not prune events")
	}
	ctx := context.Background()
	// What earlier runs on the same cluster left (their young events among them) goes first.
	if head, err := st.LastSeq(ctx); err != nil {
		t.Fatal(err)
	} else {
		for more := true; more; {
			res, err := pr.PruneEvents(ctx, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), head, 1000)
			if err != nil {
				t.Fatal(err)
			}
			more = res.More
		}
	}
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "pruned around")
	mustInsert(t, st, m)
	cutoff := time.Now().UTC().AddDate(1, 0, 0)
	at := func(c domain.TransactionContext, ts time.Time) domain.TransactionContext {
		c.Timestamp = ts
		return c
	}
	old, young := cutoff.Add(-time.Hour), cutoff.Add(time.Hour)
	search := func(ts time.Time) string {
		c := at(ctxFor("search"), ts)
		evs := []*domain.Event{
			{Type: domain.MsgSearchQuery, ScopeID: sc.ID, Context: c, Payload: map[string]any{"query": `"; delete <*> * . {`}},
			{Type: domain.EvMemoryMatchRequest, ScopeID: sc.ID, Context: c.Derive(domain.CtxRecall, ts)},
			{Type: domain.EvMemoryAccessed, ScopeID: sc.ID, MemoryID: m.ID, Context: c.Derive(domain.CtxHippocampus, ts)},
			{Type: domain.EvSalienceScored, ScopeID: sc.ID, Context: c.Derive(domain.CtxSalience, ts), Payload: map[string]any{"memoryId": m.ID}},
		}
		if err := st.AppendEvents(ctx, evs); err != nil {
			t.Fatal(err)
		}
		return c.RequestID
	}
	first := search(old)
	second := search(old)
	// An old event that is not a read event, between them and the young one.
	kept := at(ctxFor("found"), old)
	if err := st.AppendEvents(ctx, []*domain.Event{{Type: domain.EvAssociationsFound, ScopeID: sc.ID, Context: kept}}); err != nil {
		t.Fatal(err)
	}
	fresh := search(young)
	late := search(old) // after the young one: the scan stops before it
	reqSeqs := func(rid string) []uint64 {
		t.Helper()
		evs, err := st.RequestEvents(ctx, rid)
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, e := range evs {
			out = append(out, e.Seq)
		}
		return out
	}
	firstSeqs, secondSeqs, freshSeqs := reqSeqs(first), reqSeqs(second), reqSeqs(fresh)
	if len(firstSeqs) != 4 || len(secondSeqs) != 4 || len(freshSeqs) != 4 {
		t.Fatalf("request events before pruning: %d, %d, %d, want 4 each", len(firstSeqs), len(secondSeqs), len(freshSeqs))
	}
	prune := func(upTo uint64) (deleted int, last domain.PruneResult) {
		t.Helper()
		for calls := 0; ; calls++ {
			res, err := pr.PruneEvents(ctx, cutoff, upTo, 3)
			if err != nil {
				t.Fatal(err)
			}
			if res.Watermark > upTo {
				t.Fatalf("watermark %d beyond the bound %d", res.Watermark, upTo)
			}
			deleted += res.Deleted
			if !res.More {
				return deleted, res
			}
			if calls > 100000 {
				t.Fatal("pruning does not end")
			}
		}
	}
	// Up to the first search's last message: the second one stays whole.
	if _, res := prune(firstSeqs[3]); res.Watermark != firstSeqs[3] {
		t.Fatalf("watermark %d, want the bound %d", res.Watermark, firstSeqs[3])
	}
	if got := reqSeqs(first); len(got) != 0 {
		t.Fatalf("first search: %d messages left, want 0", len(got))
	}
	if got := reqSeqs(second); len(got) != 4 {
		t.Fatalf("second search beyond the bound: %d messages left, want 4", len(got))
	}
	head, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deleted, res := prune(head)
	if deleted != 4 {
		t.Fatalf("deleted %d, want the second search's 4", deleted)
	}
	if res.Watermark != freshSeqs[0]-1 {
		t.Fatalf("watermark %d, want %d (before the first young read event)", res.Watermark, freshSeqs[0]-1)
	}
	for name, rid := range map[string]string{"second": second} {
		if got := reqSeqs(rid); len(got) != 0 {
			t.Fatalf("%s search: %d messages left, want 0", name, len(got))
		}
	}
	for name, rid := range map[string]string{"young": fresh, "after the young one": late} {
		if got := reqSeqs(rid); len(got) != 4 {
			t.Fatalf("%s search: %d messages left, want 4", name, len(got))
		}
	}
	if got := reqSeqs(kept.RequestID); len(got) != 1 {
		t.Fatalf("the old AssociationsFound: %d left, want 1", len(got))
	}
	hist, err := st.MemoryEvents(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var types []domain.EventType
	for _, e := range hist {
		types = append(types, e.Type)
	}
	if len(hist) != 3 || hist[0].Type != domain.EvMemoryStored || hist[1].Context.RequestID != fresh || hist[2].Context.RequestID != late {
		t.Fatalf("history %v, want MemoryStored and the two accesses not pruned", types)
	}
	// The log reads on across the holes.
	evs, err := st.EventsSince(ctx, firstSeqs[0]-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Context.RequestID == first || e.Context.RequestID == second {
			t.Fatalf("EventsSince returns a pruned %s (seq %d)", e.Type, e.Seq)
		}
	}
	if len(evs) < 9 {
		t.Fatalf("EventsSince after the holes: %d events, want at least the 9 kept", len(evs))
	}
	// Again: nothing more to do, nothing written.
	if deleted, again := prune(head); deleted != 0 || again.Watermark != res.Watermark {
		t.Fatalf("second pass deleted %d, watermark %d; want 0 and %d", deleted, again.Watermark, res.Watermark)
	}
	got, err := st.Memory(ctx, m.ID)
	if err != nil || got.Content != m.Content {
		t.Fatalf("memory after pruning: %v, %v", got, err)
	}
}
