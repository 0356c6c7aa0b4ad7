package graph

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// cacheMatchesGraph checks every entry of the read cache against a read of the graph that
// bypasses it: associations, states and memory records.
func cacheMatchesGraph(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	s.cache.mu.Lock()
	adj := maps.Clone(s.cache.adj)
	states := maps.Clone(s.cache.stateOf)
	mems := maps.Clone(s.cache.mems)
	ctxs := maps.Clone(s.cache.ctxs)
	eps := maps.Clone(s.cache.eps)
	s.cache.mu.Unlock()
	for id, ca := range adj {
		read, err := s.adjacencyRead(ctx, []string{id}, map[string]domain.LifecycleState{})
		if err != nil {
			t.Fatal(err)
		}
		var want []domain.Edge
		if r := read[id]; r != nil {
			want = r.edges
		}
		if len(want) != len(ca.edges) || (len(want) > 0 && !reflect.DeepEqual(want, ca.edges)) {
			t.Fatalf("cached associations of %s:\n%+v\nthe graph's:\n%+v", id, ca.edges, want)
		}
	}
	for id, cs := range states {
		var r struct {
			Q []struct {
				State string `json:"mem.state"`
			} `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, "`+id+`")) { mem.state } }`, nil, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Q) != 1 || domain.LifecycleState(r.Q[0].State) != cs.state {
			t.Fatalf("cached state of %s: %s, the graph's %+v", id, cs.state, r.Q)
		}
	}
	for id, cc := range ctxs {
		read, err := s.contextsRead(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		want := read[id]
		if want == nil || want.kind != cc.kind || want.scope != cc.scope || !sameContext(want.ctx, cc.ctx) {
			t.Fatalf("cached context of %s: %+v %+v, the graph's %+v", id, cc, cc.ctx, want)
		}
	}
	for id, cm := range eps {
		var r struct {
			Q []struct {
				Items []struct {
					ID string `json:"tr.id"`
				} `json:"ep.items"`
			} `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, "`+id+`")) { ep.items { tr.id } } }`, nil, &r); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, q := range r.Q {
			for _, it := range q.Items {
				want = append(want, it.ID)
			}
		}
		if !reflect.DeepEqual(slices.Sorted(slices.Values(want)), slices.Sorted(slices.Values(cm.members))) {
			t.Fatalf("cached members of episode %s: %v, the graph's %v", id, cm.members, want)
		}
	}
	for id, cm := range mems {
		var r struct {
			Q []memNode `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, "`+id+`")) { tr.kind `+memFields+` } }`, nil, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Q) != 1 {
			t.Fatalf("cached memory %s: the graph holds %d nodes", id, len(r.Q))
		}
		m, err := r.Q[0].memory()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, cm.m) {
			t.Fatalf("cached memory %s:\n%+v\nthe graph's:\n%+v", id, cm.m, m)
		}
	}
}

// sameContext reports whether two recall contexts hold the same episodes and neighbours, in any
// order.
func sameContext(a, b *domain.MemoryContext) bool {
	key := func(ns []domain.Neighbour) []string {
		var out []string
		for _, n := range ns {
			out = append(out, fmt.Sprintf("%s %s %.6f", n.ID, n.Type, n.Strength))
		}
		return slices.Sorted(slices.Values(out))
	}
	return reflect.DeepEqual(slices.Sorted(slices.Values(a.Episodes)), slices.Sorted(slices.Values(b.Episodes))) &&
		reflect.DeepEqual(key(a.Temporal), key(b.Temporal)) && reflect.DeepEqual(key(a.Associated), key(b.Associated))
}

// Warm caches exactly what the walk's and the records' reads would: every memory's associations
// (every type, both directions, any strength, in the read's order), states and records, in
// every scope; the walk then answers as the engine's own filtered query does.
func TestWarmFillsWhatReadsWould(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 8)
	other := &domain.Scope{ID: domain.NewID(), Name: "other", CreatedAt: time.Now().UTC()}
	other.AgentKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: other.ID, Family: domain.FamilyAgentKernel, UpdatedAt: other.CreatedAt}
	other.WorldKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: other.ID, Family: domain.FamilyWorldKernel, UpdatedAt: other.CreatedAt}
	if _, err := s.CreateScope(ctx, domain.Request{}, other, nil); err != nil {
		t.Fatal(err)
	}
	others := cacheMemories(t, s, other, 3)
	id := func(i int) string { return ms[i].ID }
	associateFor(t, s, scope.ID, id(0), id(1), domain.AssocThematic, 0.9)
	associateFor(t, s, scope.ID, id(1), id(0), domain.AssocCausal, 0.5) // the same pair, another type
	associateFor(t, s, scope.ID, id(2), id(0), domain.AssocTemporal, 0.7)
	associateFor(t, s, scope.ID, id(0), id(3), domain.AssocPerson, 0.1) // under the walk's floor
	associateFor(t, s, scope.ID, id(4), id(0), domain.AssocEmotional, 0.6)
	associateFor(t, s, scope.ID, id(5), id(6), domain.AssocThematic, 0.4)
	associateFor(t, s, other.ID, others[0].ID, others[1].ID, domain.AssocTemporal, 0.8)
	if _, err := s.UpdateMemory(ctx, domain.Request{}, id(4), func(m *domain.Memory) ([]*domain.Event, error) {
		m.State = domain.StateArchived
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	// An episode of three memories of the scope, another of one memory of the other scope.
	episode := func(sc *domain.Scope, items ...string) {
		t.Helper()
		ep := &domain.Episode{ID: domain.NewID(), ScopeID: sc.ID, DefinitionID: domain.NewID(), StartTime: time.Now().UTC(), CreatedAt: time.Now().UTC()}
		if _, err := s.Consume(ctx, "warm-test-"+ep.ID, 1, func(uint64) (*domain.Changes, error) {
			return &domain.Changes{Growth: &domain.Growth{Episodes: []domain.EpisodeGrowth{{Episode: ep, Items: items}}}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	episode(scope, id(0), id(1), id(2))
	episode(other, others[2].ID)
	s.cache.clear()
	st, err := s.Warm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Full || st.Adjacencies != 11 || st.Memories != 11 || st.States != 0 || st.Edges != 14 || st.Contexts != 11 || st.Episodes != 2 {
		t.Fatalf("warm-up: %+v, want 11 memories with 14 association ends and their contexts, 2 episodes, nothing left out", st)
	}
	if len(s.cache.ctxs) != 11 || len(s.cache.eps) != 2 {
		t.Fatalf("cache after warm-up: %d contexts, %d episodes", len(s.cache.ctxs), len(s.cache.eps))
	}
	if mc := s.cache.ctxs[id(0)]; mc == nil || len(mc.ctx.Episodes) != 1 || len(mc.ctx.Temporal) != 1 || len(mc.ctx.Associated) != 2 {
		t.Fatalf("the warm context of a memory in an episode with TEMPORAL, THEMATIC and PERSON associations: %+v", mc)
	}
	if len(s.cache.adj) != 11 || len(s.cache.mems) != 11 || len(s.cache.stateOf) != 0 {
		t.Fatalf("cache after warm-up: %d adjacencies, %d memories, %d states", len(s.cache.adj), len(s.cache.mems), len(s.cache.stateOf))
	}
	if got := s.cache.adj[id(7)]; got == nil || len(got.edges) != 0 {
		t.Fatalf("a memory without associations is not cached as having none: %+v", got)
	}
	cacheMatchesGraph(t, s)
	// Every entry naming a memory shares one string of its id and one of its uid, and records
	// share their metadata's keys and repeated values: one object each, not one per entry.
	rec0, rec1, adj0, ctx1 := s.cache.mems[id(0)], s.cache.mems[id(1)], s.cache.adj[id(0)], s.cache.ctxs[id(1)]
	var far string
	for _, e := range adj0.edges {
		if e.To == id(1) {
			far = e.To
		}
	}
	var fromCtx string
	for _, n := range append(ctx1.ctx.Temporal, ctx1.ctx.Associated...) {
		if n.ID == id(0) {
			fromCtx = n.ID
		}
	}
	if !sameData(adj0.edges[0].From, rec0.m.ID) || !sameData(far, rec1.m.ID) || !sameData(fromCtx, rec0.m.ID) ||
		!sameData(adj0.uid, rec0.uid) || !sameData(s.cache.ctxs[id(0)].uid, rec0.uid) {
		t.Fatalf("the warm entries of %s and %s do not share their ids' and uids' strings", id(0), id(1))
	}
	for k := range rec0.m.Metadata {
		for k1 := range rec1.m.Metadata {
			if !sameData(k, k1) || !sameData(rec0.m.Metadata[k].(string), rec1.m.Metadata[k1].(string)) {
				t.Fatalf("two warm records do not share their metadata %q: %q", k, rec0.m.Metadata[k])
			}
		}
	}
	for _, m := range append(ms, others...) {
		got, err := s.Neighbours(ctx, []string{m.ID}, 0.3)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.neighboursRead(ctx, []string{m.ID}, 0.3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("walk from %s on the warm cache %+v, the engine's query %+v", m.ID, got, want)
		}
	}
	// The walk found everything in the cache: the engine was not asked.
	if n := len(s.cache.adj); n != 11 {
		t.Fatalf("%d adjacencies after the walks", n)
	}
}

// Warm stops when a part's budget is spent and evicts nothing that was cached before it.
func TestWarmKeepsToItsBudget(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t, WithReadCache(20<<10))
	ms := cacheMemories(t, s, scope, 120)
	for i := 1; i < len(ms); i++ {
		associateFor(t, s, scope.ID, ms[i-1].ID, ms[i].ID, domain.AssocTemporal, 0.5)
	}
	s.cache.clear()
	if _, err := s.Memories(ctx, []string{ms[0].ID}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Warm(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Full || st.Memories >= len(ms) {
		t.Fatalf("warm-up in a cache of 20 KiB: %+v", st)
	}
	if s.cache.used > s.cache.budget || s.cache.walkUsed > s.cache.budget || s.cache.mems[ms[0].ID] == nil {
		t.Fatalf("after the warm-up %d and %d bytes of %d are used; the memory cached before it is kept: %v",
			s.cache.used, s.cache.walkUsed, s.cache.budget, s.cache.mems[ms[0].ID] != nil)
	}
	cacheMatchesGraph(t, s)
}

// A warm-up racing writes never leaves an entry older than the graph: what a write changed
// after the warm-up began is not filled from the warm-up's reads.
func TestWarmUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 40)
	for i := 1; i < len(ms); i++ {
		associateFor(t, s, scope.ID, ms[i-1].ID, ms[i].ID, domain.AssocTemporal, 0.5)
	}
	for round := range 4 {
		s.cache.clear()
		var wg sync.WaitGroup
		wg.Add(2)
		errs := make(chan error, 2)
		go func() {
			defer wg.Done()
			for i := range 20 {
				a, b := ms[(i*7+round)%len(ms)], ms[(i*11+3)%len(ms)]
				if a.ID == b.ID {
					continue
				}
				associateFor(t, s, scope.ID, a.ID, b.ID, domain.AssociationTypes[i%len(domain.AssociationTypes)], float64(i%10)/10+0.05)
				if _, err := s.UpdateMemory(ctx, domain.Request{}, a.ID, func(m *domain.Memory) ([]*domain.Event, error) {
					m.Content = fmt.Sprintf("round %d write %d", round, i)
					if i%5 == 0 {
						m.State = domain.StateArchived
					} else {
						m.State = domain.StateActive
					}
					return nil, nil
				}); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			if _, err := s.Warm(ctx); err != nil {
				errs <- err
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		cacheMatchesGraph(t, s)
	}
}

// The warm table keeps ids as they are written, canonical UUIDs in 16 bytes and any other id as
// it is, and finds memories by uid.
func TestWarmTable(t *testing.T) {
	var mt warmTable
	ids := []string{"6f1c3c1e-4b8a-4f3e-9d2a-0c1b2a3d4e5f", "6F1C3C1E-4B8A-4F3E-9D2A-0C1B2A3D4E60", "00000000-0000-0000-0000-000000000000"}
	for k, id := range ids {
		mt.add(uint64(10*(k+1)), id, domain.StateActive)
	}
	mt.add(30, ids[0], domain.StateArchived) // a repeat at a page's boundary
	if mt.len() != 3 {
		t.Fatalf("%d memories, want 3", mt.len())
	}
	for k, id := range ids {
		if i := mt.find(uint64(10 * (k + 1))); i != k || mt.id(i) != id || mt.states[i] != domain.StateActive {
			t.Fatalf("memory %d: index %d, id %q, state %s; want %d, %q", k, i, mt.id(i), mt.states[i], k, id)
		}
	}
	if mt.find(15) != -1 || mt.find(0) != -1 || mt.find(40) != -1 {
		t.Fatal("a uid that is no memory was found")
	}
}
