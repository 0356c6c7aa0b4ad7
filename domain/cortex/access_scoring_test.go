package cortex_test

import (
	"context"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// A search's retrievals are scored in the write that records them: the first read that sees a
// MemoryAccessed sees its SalienceScored, each retrieved memory is scored once (the Salience
// consumer passes the handled retrievals by), and the stored checkpoint is of the version the
// retrieval left, so a sweep need not score the memory again from its features.
func TestSearchRetrievalsAreScoredInTheirOwnWrite(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "scored retrievals", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{"the unicorn of the north", "a unicorn in the garden", "nothing to see"} {
		m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: scope.ID, Content: text}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	const rid = "search-scored-in-its-write"
	res, err := cx.SearchMemory(ctx, cortex.SearchInput{ScopeID: scope.ID, Query: "unicorn", MaxResults: 5, RequestID: rid})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d results, want the 2 unicorns", len(res))
	}
	// Poll the request's messages as fast as the reads go, until the retrievals show.
	var evs []*domain.Event
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, err = s.st.RequestEvents(ctx, rid)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs {
			if e.Type == domain.EvMemoryAccessed {
				n++
			}
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the retrievals never showed: %d", n)
		}
		time.Sleep(time.Millisecond)
	}
	check := func(evs []*domain.Event) {
		t.Helper()
		bySeq := map[string]*domain.Event{}
		for _, e := range evs {
			bySeq[e.Context.MessageID] = e
		}
		scored := map[string]int{}
		for _, e := range evs {
			switch e.Type {
			case domain.EvMemoryAccessed:
				touched := false
				for _, tc := range e.Touches {
					touched = touched || tc.Context == domain.CtxSalience
				}
				if !touched {
					t.Errorf("the retrieval of %s carries no Salience touch", e.MemoryID)
				}
			case domain.EvSalienceScored:
				cause := bySeq[e.Context.CausationID]
				if cause == nil || cause.Type != domain.EvMemoryAccessed || cause.Seq >= e.Seq {
					t.Errorf("SalienceScored %v is not caused by an earlier retrieval", e.Payload["memoryId"])
					continue
				}
				scored[cause.MemoryID]++
				if e.Payload["memoryId"] != cause.MemoryID {
					t.Errorf("SalienceScored of %v caused by the retrieval of %s", e.Payload["memoryId"], cause.MemoryID)
				}
			}
		}
		if len(scored) != 2 || scored[ids[0]] != 1 || scored[ids[1]] != 1 {
			t.Errorf("scores per retrieved memory: %v, want one for each unicorn", scored)
		}
	}
	// The first read that shows the retrievals shows their scores.
	check(evs)
	// Once the Salience consumer has passed the search, nothing was scored twice.
	var last uint64
	for _, e := range evs {
		last = max(last, e.Seq)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if sal, _ := cx.LivingPosition(); sal >= last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the Salience consumer never passed the search")
		}
	}
	if evs, err = s.st.RequestEvents(ctx, rid); err != nil {
		t.Fatal(err)
	}
	check(evs)
	rows, err := s.st.ScoreRows(ctx, ids[:2])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.AccessCount != 1 || !r.Scored || r.ScoredVersion != r.Version {
			t.Errorf("memory %s: %d accesses, checkpoint of version %d (scored %v), memory at version %d",
				r.ID, r.AccessCount, r.ScoredVersion, r.Scored, r.Version)
		}
	}
}
