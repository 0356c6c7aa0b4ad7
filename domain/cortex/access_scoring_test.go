package cortex_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/salience"
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
	evs := firstSight(t, s, rid, domain.EvMemoryAccessed, 2)
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
	awaitSalience(t, cx, evs)
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

// firstSight polls a request's messages as fast as the reads go until n of type typ show, and
// returns what that first read saw.
func firstSight(t *testing.T, s *testStack, rid string, typ domain.EventType, n int) []*domain.Event {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		evs, err := s.st.RequestEvents(context.Background(), rid)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, e := range evs {
			if e.Type == typ {
				got++
			}
		}
		if got >= n {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s of %s showed, want %d", got, typ, rid, n)
		}
	}
}

// awaitSalience waits until the Salience consumer has passed the last of evs.
func awaitSalience(t *testing.T, cx *cortex.Cortex, evs []*domain.Event) {
	t.Helper()
	var last uint64
	for _, e := range evs {
		last = max(last, e.Seq)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if sal, _ := cx.LivingPosition(); sal >= last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the Salience consumer never passed the request")
		}
	}
}

// New memories are scored in the write that stores them, single and in batches: the first read
// that sees a MemoryStored sees its SalienceScored, the Salience consumer does not score them
// again, and the stored checkpoint and salience are those of the memory as stored.
func TestStoredMemoriesAreScoredInTheirOwnWrite(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "scored stores", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	one := 0.9
	single, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: scope.ID,
		Content: "stored alone", Importance: &one}, RequestID: "store-scored-single"})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cx.StoreMemories(ctx, []hippocampus.StoreInput{{ScopeID: scope.ID, Content: "first of two"},
		{ScopeID: scope.ID, Content: "second of two", SuggestedTier: domain.TierIdentityCore}}, cortex.Meta{RequestID: "store-scored-batch"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rid string
		ms  []*domain.Memory
	}{{"store-scored-single", []*domain.Memory{single}}, {"store-scored-batch", batch}} {
		check := func(evs []*domain.Event) {
			t.Helper()
			byMsg := map[string]*domain.Event{}
			for _, e := range evs {
				byMsg[e.Context.MessageID] = e
			}
			scored := map[string]int{}
			for _, e := range evs {
				switch e.Type {
				case domain.EvMemoryStored:
					if !salience.Handled(e) {
						t.Errorf("%s: the MemoryStored of %s carries no Salience touch", c.rid, e.MemoryID)
					}
				case domain.EvSalienceScored:
					cause := byMsg[e.Context.CausationID]
					if cause == nil || cause.Type != domain.EvMemoryStored || cause.Seq >= e.Seq || e.Payload["memoryId"] != cause.MemoryID {
						t.Errorf("%s: SalienceScored %v is not caused by an earlier MemoryStored of its memory", c.rid, e.Payload["memoryId"])
						continue
					}
					scored[cause.MemoryID]++
				}
			}
			for _, m := range c.ms {
				if scored[m.ID] != 1 {
					t.Errorf("%s: memory %s scored %d times, want once", c.rid, m.ID, scored[m.ID])
				}
			}
		}
		evs := firstSight(t, s, c.rid, domain.EvMemoryStored, len(c.ms))
		check(evs)
		awaitSalience(t, cx, evs)
		if evs, err = s.st.RequestEvents(ctx, c.rid); err != nil {
			t.Fatal(err)
		}
		check(evs)
		ids := make([]string, len(c.ms))
		for i, m := range c.ms {
			ids[i] = m.ID
		}
		rows, err := s.st.ScoreRows(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(c.ms) {
			t.Fatalf("%s: %d rows, want %d", c.rid, len(rows), len(c.ms))
		}
		for i, r := range rows {
			m := c.ms[i]
			if r.ID != m.ID {
				m = nil
				for _, x := range c.ms {
					if x.ID == r.ID {
						m = x
					}
				}
			}
			want := 0.25 + 0.30*m.Importance // a new memory's potential
			if !r.Scored || r.ScoredVersion != r.Version || r.Recency != 1 || math.Abs(r.Potential-want) > 1e-9 ||
				math.Abs(r.Salience-m.Salience) > 1e-12 || m.Salience > want || m.Salience < want*0.99 {
				t.Errorf("%s: memory %s row %+v, want a checkpoint of its version with potential %v and the returned salience %v",
					c.rid, r.ID, r, want, m.Salience)
			}
		}
	}
}
