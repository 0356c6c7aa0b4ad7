package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Two stores on one graph: what two servers on one Dgraph cluster do to the same records at the
// same time. Each store serialises its own writes with a process lock, so only a second store
// (a second dgo connection) makes the cluster abort conflicting transactions, which the store
// must retry without losing or doubling anything.

// PeerHarness is a Harness that opens more stores on the graph of Store(), as more servers on
// one cluster do.
type PeerHarness interface {
	Harness
	// Peer returns another store on the same graph, closed when t ends. An engine that allows
	// one store per graph returns Store() itself (and says so in Shared), so the tests run as
	// concurrent clients of one store there.
	Peer(t *testing.T) domain.Store
	// Shared reports why Peer returns Store() itself ("" when it opens a store of its own).
	Shared() string
}

// AbortCounter is the optional store capability of counting the commits the graph aborted for
// conflicting with concurrent transactions (each retried by the store).
type AbortCounter interface {
	Aborts() uint64
}

type multiTest struct {
	name string
	fn   func(t *testing.T, a, b domain.Store)
}

func multiTests() []multiTest {
	return []multiTest{
		{"MultiClaimsAndStrengthens", testMultiClaimsAndStrengthens},
		{"MultiUpdatesWithoutEvents", testMultiUpdatesWithoutEvents},
		{"MultiInsertsShareOneLog", testMultiInserts},
		{"MultiSameRequestStore", testMultiSameRequestStore},
		{"MultiSameRequestClaimAndAssociate", testMultiSameRequestUpdate},
		{"MultiChapterRace", testMultiChapterRace},
	}
}

// runMultiTests runs the two-store tests with Store() and a peer, and checks that the cluster
// really made them conflict.
func runMultiTests(t *testing.T, h Harness) {
	a := h.Store()
	b, shared := a, "the harness opens one store per graph"
	if ph, ok := h.(PeerHarness); ok {
		b, shared = ph.Peer(t), ph.Shared()
	}
	if shared != "" {
		t.Logf("multi-store tests run on one store: %s", shared)
	}
	aborts := func() uint64 {
		var n uint64
		for _, st := range []domain.Store{a, b} {
			if c, ok := st.(AbortCounter); ok {
				n += c.Aborts()
			}
			if shared != "" {
				break
			}
		}
		return n
	}
	start := aborts()
	ran := 0
	for _, tc := range multiTests() {
		before := aborts()
		if t.Run(tc.name, func(t *testing.T) { tc.fn(t, a, b) }) {
			ran++
		}
		t.Logf("%s: %d aborted commits retried", tc.name, aborts()-before)
	}
	total := aborts() - start
	t.Run("MultiConflictsRetried", func(t *testing.T) {
		if ran < len(multiTests()) {
			t.Skip("not every multi-store test ran")
		}
		_, counts := a.(AbortCounter)
		t.Logf("%d aborted commits retried across the multi-store tests", total)
		// Two stores on one cluster, each with writers of its own on the same records: the
		// event counter alone makes concurrent writes conflict.
		if shared == "" && counts && total == 0 {
			t.Fatal("two stores wrote the same records concurrently and the cluster never aborted a commit: the tests did not exercise conflicts")
		}
	})
}

// both runs fn concurrently on workers goroutines per store, released together, and returns the
// first error.
func both(a, b domain.Store, workers int, fn func(st domain.Store, side, worker int) error) error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, 2*workers)
	for side, st := range []domain.Store{a, b} {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := fn(st, side, w); err != nil {
					errs <- fmt.Errorf("store %c worker %d: %w", 'A'+side, w, err)
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	return <-errs
}

func claimUpdate(x *domain.Memory) ([]*domain.Event, error) {
	at := t0.Add(time.Duration(x.AccessCount) * time.Second)
	x.Claimed, x.ClaimedAt, x.AccessCount = true, &at, x.AccessCount+1
	return []*domain.Event{{Type: domain.EvMemoryClaimed, ScopeID: x.ScopeID, MemoryID: x.ID, Context: ctxFor("claim")}}, nil
}

// testMultiClaimsAndStrengthens: both stores claim one memory and strengthen its association
// from either end, all at once; every claim and every strengthen is counted exactly.
func testMultiClaimsAndStrengthens(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, a)
	m1, m2 := NewMemory(sc.ID, "hot one"), NewMemory(sc.ID, "hot two")
	mustInsert(t, a, m1, m2)
	const workers, rounds = 6, 8
	start := time.Now()
	err := both(a, b, workers, func(st domain.Store, side, w int) error {
		for i := 0; i < rounds; i++ {
			if _, err := st.UpdateMemory(ctx, domain.Request{}, m1.ID, claimUpdate); err != nil {
				return fmt.Errorf("claim: %w", err)
			}
			src, dst := m1, m2
			if (side+w+i)%2 == 1 {
				src, dst = m2, m1
			}
			if _, err := st.Associate(ctx, domain.Request{}, src.ID, dst.ID, domain.AssocThematic, strengthen(1.0/256)); err != nil {
				return fmt.Errorf("strengthen: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 2 * workers * rounds
	t.Logf("%d claims and %d strengthens from two stores in %v", n, n, time.Since(start).Round(time.Millisecond))
	for _, st := range []domain.Store{a, b} {
		got, err := st.Memory(ctx, m1.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Every claim and every strengthen of the pair makes a new version of the memory.
		if got.AccessCount != n || !got.Claimed || got.Version != m1.Version+int64(2*n) {
			t.Fatalf("after %d claims and strengthens: access count %d, claimed %v, version %d (want %d): a lost update",
				n, got.AccessCount, got.Claimed, got.Version, m1.Version+int64(2*n))
		}
		for _, from := range []*domain.Memory{m1, m2} {
			as, err := st.Associations(ctx, from.ID, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != 1 || as[0].Strength != float64(n)/256 {
				t.Fatalf("from %s after %d strengthens of 1/256: %+v, want one edge of %v", from.Content, n, as, float64(n)/256)
			}
		}
		// The histories of both: each stored once, every claim and every strengthen (an event
		// of its source) once, each with a Seq of its own.
		types, seqs := map[domain.EventType]int{}, map[uint64]bool{}
		for _, m := range []*domain.Memory{m1, m2} {
			evs, err := st.MemoryEvents(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				types[e.Type]++
				if seqs[e.Seq] {
					t.Fatalf("two events with Seq %d", e.Seq)
				}
				seqs[e.Seq] = true
			}
		}
		want := map[domain.EventType]int{domain.EvMemoryStored: 2, domain.EvMemoryClaimed: n, domain.EvAssociationStrengthened: n}
		if fmt.Sprint(types) != fmt.Sprint(want) {
			t.Fatalf("histories have events %v, want %v", types, want)
		}
	}
}

// testMultiUpdatesWithoutEvents: writes that emit no event do not meet on the event counter;
// the records they change must conflict by themselves.
func testMultiUpdatesWithoutEvents(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, a)
	m1, m2 := NewMemory(sc.ID, "quiet one"), NewMemory(sc.ID, "quiet two")
	mustInsert(t, a, m1, m2)
	const workers, rounds = 5, 8
	quiet := func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
		next, _, err := strengthen(1.0/128)(cur, src, dst)
		return next, nil, err
	}
	err := both(a, b, workers, func(st domain.Store, side, w int) error {
		for i := 0; i < rounds; i++ {
			if _, err := st.UpdateMemory(ctx, domain.Request{}, m1.ID, func(x *domain.Memory) ([]*domain.Event, error) {
				x.AccessCount++
				return nil, nil
			}); err != nil {
				return fmt.Errorf("update: %w", err)
			}
			src, dst := m1, m2
			if (side+i)%2 == 1 {
				src, dst = m2, m1
			}
			if _, err := st.Associate(ctx, domain.Request{}, src.ID, dst.ID, domain.AssocCausal, quiet); err != nil {
				return fmt.Errorf("strengthen: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 2 * workers * rounds
	for _, st := range []domain.Store{a, b} {
		got, err := st.Memory(ctx, m1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.AccessCount != n || got.Version != m1.Version+int64(2*n) {
			t.Fatalf("after %d updates: access count %d, version %d: a lost update", n, got.AccessCount, got.Version)
		}
		as, err := st.Associations(ctx, m2.ID, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) != 1 || as[0].Strength != float64(n)/128 {
			t.Fatalf("after %d strengthens of 1/128: %+v, want one edge of %v", n, as, float64(n)/128)
		}
	}
}

// testMultiInserts: both stores insert into one scope at once; every memory is there once, with
// its one event, and the shared log gives every event its own Seq.
func testMultiInserts(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, a)
	head, err := a.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 5, 6
	var mu sync.Mutex
	ids := map[string]bool{}
	err = both(a, b, workers, func(st domain.Store, side, w int) error {
		for i := 0; i < rounds; i++ {
			m := NewMemory(sc.ID, fmt.Sprintf("from %c %d %d", 'A'+side, w, i))
			if _, err := st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{m}, []*domain.Event{storedEvent(m)}); err != nil {
				return err
			}
			mu.Lock()
			ids[m.ID] = true
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 2 * workers * rounds
	for _, st := range []domain.Store{a, b} {
		p, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalCount != n || len(p.Memories) != n {
			t.Fatalf("%d memories (total %d), want %d", len(p.Memories), p.TotalCount, n)
		}
		for _, m := range p.Memories {
			if !ids[m.ID] {
				t.Fatalf("memory %s was never inserted", m.ID)
			}
		}
	}
	evs := scopeEventsSince(t, a, head, sc.ID)
	seqs, per := map[uint64]bool{}, map[string]int{}
	for _, e := range evs {
		if seqs[e.Seq] {
			t.Fatalf("two events with Seq %d", e.Seq)
		}
		seqs[e.Seq] = true
		per[e.MemoryID]++
	}
	if len(per) != n {
		t.Fatalf("events about %d memories, want %d", len(per), n)
	}
	for id, k := range per {
		if k != 1 {
			t.Fatalf("memory %s has %d MemoryStored events, want 1", id, k)
		}
	}
}

func requestContext(requestID string) domain.TransactionContext {
	c := ctxFor("retried")
	c.RequestID = requestID
	return c
}

func sameAnswers(t *testing.T, what string, answers []any) {
	t.Helper()
	first, _ := json.Marshal(answers[0])
	for i, a := range answers[1:] {
		got, _ := json.Marshal(a)
		if string(got) != string(first) {
			t.Fatalf("%s: caller %d got\n %s\nthe first got\n %s", what, i+1, got, first)
		}
	}
}

// testMultiSameRequestStore: a store request retried against the other server while the first
// attempt still runs — both at once, several rounds — is applied exactly once, and every caller
// gets the first application's answer.
func testMultiSameRequestStore(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, a)
	const rounds, workers = 6, 2
	for r := 0; r < rounds; r++ {
		req := domain.Request{Op: "storeMemory", RequestID: domain.NewID(), Fingerprint: fmt.Sprint("round ", r)}
		var mu sync.Mutex
		var answers []any
		err := both(a, b, workers, func(st domain.Store, side, w int) error {
			// Every attempt builds its record anew, as a retried command does.
			m := NewMemory(sc.ID, fmt.Sprint("stored once in round ", r))
			ev := storedEvent(m)
			ev.Context = requestContext(req.RequestID)
			got, err := st.InsertMemories(ctx, req, []*domain.Memory{m}, []*domain.Event{ev})
			if err != nil {
				return err
			}
			mu.Lock()
			answers = append(answers, got)
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, fmt.Sprint("round ", r), answers)
		id := answers[0].([]*domain.Memory)[0].ID
		for _, st := range []domain.Store{a, b} {
			p, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 100})
			if err != nil {
				t.Fatal(err)
			}
			if p.TotalCount != r+1 {
				t.Fatalf("round %d: %d memories in the scope, want %d (a retry was applied twice)", r, p.TotalCount, r+1)
			}
			evs, err := st.RequestEvents(ctx, req.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != 1 || evs[0].MemoryID != id || evs[0].Type != domain.EvMemoryStored {
				t.Fatalf("round %d: the request has %d events (%v), want one MemoryStored of %s", r, len(evs), evs, id)
			}
		}
	}
}

// testMultiSameRequestUpdate: the same for a claim and an association: applied once.
func testMultiSameRequestUpdate(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, a)
	m1, m2 := NewMemory(sc.ID, "claimed once"), NewMemory(sc.ID, "associated once")
	mustInsert(t, a, m1, m2)
	const rounds, workers = 4, 2
	for r := 0; r < rounds; r++ {
		claim := domain.Request{Op: "claimMemory", RequestID: domain.NewID(), Fingerprint: "c"}
		assoc := domain.Request{Op: "associateMemories", RequestID: domain.NewID(), Fingerprint: "a"}
		var mu sync.Mutex
		var claims, assocs []any
		err := both(a, b, workers, func(st domain.Store, side, w int) error {
			got, err := st.UpdateMemory(ctx, claim, m1.ID, func(x *domain.Memory) ([]*domain.Event, error) {
				x.Claimed, x.AccessCount = true, x.AccessCount+1
				return []*domain.Event{{Type: domain.EvMemoryClaimed, ScopeID: x.ScopeID, MemoryID: x.ID, Context: requestContext(claim.RequestID)}}, nil
			})
			if err != nil {
				return fmt.Errorf("claim: %w", err)
			}
			as, err := st.Associate(ctx, assoc, m1.ID, m2.ID, domain.AssocEmotional,
				func(cur *domain.Association, s, d *domain.Memory) (*domain.Association, []*domain.Event, error) {
					next, evs, err := strengthen(1.0/16)(cur, s, d)
					for _, e := range evs {
						e.Context = requestContext(assoc.RequestID)
					}
					return next, evs, err
				})
			if err != nil {
				return fmt.Errorf("associate: %w", err)
			}
			mu.Lock()
			claims, assocs = append(claims, got), append(assocs, as)
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sameAnswers(t, fmt.Sprint("claim round ", r), claims)
		sameAnswers(t, fmt.Sprint("associate round ", r), assocs)
		for _, st := range []domain.Store{a, b} {
			got, err := st.Memory(ctx, m1.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.AccessCount != r+1 {
				t.Fatalf("round %d: access count %d, want %d (a claim applied twice)", r, got.AccessCount, r+1)
			}
			as, err := st.Associations(ctx, m1.ID, []domain.AssociationType{domain.AssocEmotional}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(as) != 1 || as[0].Strength != float64(r+1)/16 {
				t.Fatalf("round %d: %+v, want one edge of %v", r, as, float64(r+1)/16)
			}
			for _, id := range []string{claim.RequestID, assoc.RequestID} {
				evs, err := st.RequestEvents(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if len(evs) != 1 {
					t.Fatalf("round %d: request %s has %d events, want 1", r, id, len(evs))
				}
			}
		}
	}
}
