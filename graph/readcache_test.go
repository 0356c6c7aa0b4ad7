package graph

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func cacheNode(uid, id string) *memNode {
	return &memNode{UID: uid, ID: id, NodeKind: kindMemory, Content: "c", Salience: 0.5, Doc: `{"metadata":{"n":{"k":"v"}}}`}
}

// A read that began before a commit wrote its node may not fill the cache; one that began after
// may. Deleting a whole predicate drops everything and refuses older reads' fills.
func TestReadCacheProtocol(t *testing.T) {
	c := newReadCache(1 << 20)
	e := c.begin()
	c.written([]map[string]any{{"uid": "0x1", "mem.salience": 0.5}}, nil)
	c.fillMemory(e, cacheNode("0x1", "a"))
	c.end(e)
	if hit, _ := c.memories([]string{"a"}, true); len(hit) != 0 {
		t.Fatal("a read begun before the commit that wrote its node filled the cache")
	}
	e = c.begin()
	c.fillMemory(e, cacheNode("0x1", "a"))
	c.end(e)
	hit, miss := c.memories([]string{"a", "b"}, true)
	if len(hit) != 1 || len(miss) != 1 || miss[0] != "b" {
		t.Fatalf("hits %v, misses %v; want a cached and b missing", hit, miss)
	}
	// Callers get copies: changing one changes nothing cached.
	hit["a"].Metadata["n"].(map[string]any)["k"] = "changed"
	if again, _ := c.memories([]string{"a"}, true); again["a"].Metadata["n"].(map[string]any)["k"] != "v" {
		t.Fatal("a caller's change to nested metadata reached the cache")
	}
	// A new node's edge to a cached node drops the cached node's context.
	e = c.begin()
	c.fillContext(e, "a", &cachedContext{uid: "0x1", kind: kindMemory, scope: "s", ctx: &domain.MemoryContext{}})
	c.end(e)
	c.written([]map[string]any{{"uid": "_:ep", "ep.items": []map[string]any{{"uid": "0x1"}}}}, nil)
	if ctxs, _ := c.contexts([]string{"a"}); len(ctxs) != 0 {
		t.Fatal("an episode written with a cached memory as item left the memory's context cached")
	}
	// Fill a, then a delete of a whole predicate of another node clears it.
	e = c.begin()
	c.fillMemory(e, cacheNode("0x1", "a"))
	old := c.begin()
	c.written(nil, []map[string]any{{"uid": "0x9", "ep.items": nil}})
	if hit, _ := c.memories([]string{"a"}, true); len(hit) != 0 {
		t.Fatal("a wildcard delete left the cache filled")
	}
	c.fillMemory(old, cacheNode("0x1", "a"))
	c.end(old)
	c.end(e)
	if hit, _ := c.memories([]string{"a"}, true); len(hit) != 0 {
		t.Fatal("a read begun before a clear filled the cache")
	}
	// Scalar writes patch the cached node and keep its context; a tag, an edge or a delete
	// naming it does not.
	e = c.begin()
	c.fillMemory(e, cacheNode("0x1", "a"))
	c.fillContext(e, "a", &cachedContext{uid: "0x1", kind: kindMemory, scope: "s", ctx: &domain.MemoryContext{Episodes: []string{"ep"}}})
	c.end(e)
	held, _ := c.memories([]string{"a"}, false) // a reader holding the shared record
	c.written([]map[string]any{{"uid": "0x1", "mem.salience": 0.875, "mem.version": 7, "mem.score": "x",
		"mem.lastAccessedAt": "2025-03-04T05:06:07.5Z"}}, nil)
	if m := held["a"]; m == nil || m.Salience != 0.5 || m.Version != 0 || m.LastAccessedAt != nil {
		t.Fatalf("a patch changed the record a reader holds: %+v", m)
	}
	if shared, _ := c.memories([]string{"a"}, false); shared["a"] == held["a"] {
		t.Fatal("a patched memory is still the record a reader held")
	}
	hit, _ = c.memories([]string{"a"}, true)
	ctxs, _ := c.contexts([]string{"a"})
	if m := hit["a"]; m == nil || m.Salience != 0.875 || m.Version != 7 || m.LastAccessedAt == nil ||
		!m.LastAccessedAt.Equal(time.Date(2025, 3, 4, 5, 6, 7, 5e8, time.UTC)) || m.Metadata["n"] == nil || len(ctxs) != 1 {
		t.Fatalf("after a scalar write: memory %+v, contexts %v", m, ctxs)
	}
	c.written([]map[string]any{{"uid": "0x1", "mem.doc": `{"metadata":{"x":1}}`}}, nil)
	if hit, _ = c.memories([]string{"a"}, true); hit["a"] == nil || hit["a"].Metadata["x"] != 1.0 || hit["a"].Metadata["n"] != nil {
		t.Fatalf("after a document write: %+v", hit["a"])
	}
	c.written([]map[string]any{{"uid": "0x2", "assoc.temporal": map[string]any{"uid": "0x1", "assoc.temporal|strength": 0.5}}}, nil)
	if hit, _ = c.memories([]string{"a"}, true); len(hit) != 1 {
		t.Fatal("an edge to a cached memory dropped the memory, whose predicates did not change")
	}
	if ctxs, _ = c.contexts([]string{"a"}); len(ctxs) != 0 {
		t.Fatal("an edge to a cached memory left its context cached")
	}
	c.written([]map[string]any{{"uid": "0x1", "mem.tags": []string{"t"}}}, nil)
	if hit, _ = c.memories([]string{"a"}, true); len(hit) != 0 {
		t.Fatal("a tag added to a cached memory left it cached")
	}
	e = c.begin()
	c.fillMemory(e, cacheNode("0x1", "a"))
	c.end(e)
	c.written(nil, []map[string]any{{"uid": "0x1", "mem.claimed": true}})
	if hit, _ = c.memories([]string{"a"}, true); len(hit) != 0 {
		t.Fatal("a delete naming a cached memory left it cached")
	}

	// Persons: a facet write refuses older lists.
	e = c.begin()
	c.written([]map[string]any{{"uid": "_:f", "fc.type": "person", "fc.value": "Ann"}}, nil)
	c.fillPersons(e, "s", []string{"Bob"})
	c.end(e)
	if _, ok := c.scopePersons("s"); ok {
		t.Fatal("a persons list read before a facet write was kept")
	}
	e = c.begin()
	c.fillPersons(e, "s", []string{"Ann"})
	c.end(e)
	if p, ok := c.scopePersons("s"); !ok || len(p) != 1 {
		t.Fatalf("persons %v, %v after a fresh fill", p, ok)
	}
	if len(c.dead) != 0 || len(c.inflight) != 0 {
		t.Fatalf("%d tombstones and %d reads in flight left with no reader", len(c.dead), len(c.inflight))
	}
}

// The budget holds: filling far more than it evicts.
func TestReadCacheBudget(t *testing.T) {
	// The documented default: 64 MiB for records and as many for total recall's walk.
	if DefaultReadCacheBytes != 64<<20 {
		t.Fatalf("the read cache's default is %d bytes a part, want 64 MiB", DefaultReadCacheBytes)
	}
	c := newReadCache(64 << 10)
	e := c.begin()
	for i := range 5000 {
		c.fillMemory(e, cacheNode(fmt.Sprintf("0x%x", i+1), fmt.Sprint(i)))
	}
	c.end(e)
	if c.used > c.budget || len(c.mems) == 0 || len(c.mems) >= 5000 || len(c.uids) != len(c.mems) {
		t.Fatalf("used %d of %d with %d memories and %d uids", c.used, c.budget, len(c.mems), len(c.uids))
	}
}

// The cache's two parts keep to one budget each and evict only for themselves: walks through
// many neighbourhoods do not push out the records a search reads, nor searches the walk's
// associations.
func TestReadCacheTwoParts(t *testing.T) {
	c := newReadCache(256 << 10) // room for the first 100 records, not for 5,000
	e := c.begin()
	for i := range 100 {
		c.fillMemory(e, cacheNode(fmt.Sprintf("0x%x", i+1), fmt.Sprint(i)))
	}
	mems := len(c.mems)
	for i := range 5000 {
		id := fmt.Sprint("w", i)
		c.fillAdj(e, id, &cachedAdj{uid: fmt.Sprintf("0x%x", 10000+i), edges: []domain.Edge{{From: id, To: "x", Type: domain.AssocTemporal, Strength: 0.5}}})
		c.fillState(e, id, &cachedState{uid: fmt.Sprintf("0x%x", 10000+i), state: domain.StateActive})
	}
	if len(c.mems) != mems || mems != 100 {
		t.Fatalf("the walk's entries pushed out records: %d of %d left", len(c.mems), mems)
	}
	if c.walkUsed > c.budget || len(c.adj) == 0 || len(c.adj) >= 5000 {
		t.Fatalf("the walk's part: %d bytes of %d, %d associations", c.walkUsed, c.budget, len(c.adj))
	}
	adj := len(c.adj)
	for i := range 5000 {
		c.fillMemory(e, cacheNode(fmt.Sprintf("0x%x", 20000+i), fmt.Sprint("m", i)))
	}
	c.end(e)
	if len(c.adj) != adj || c.used > c.budget || len(c.mems) >= 5100 {
		t.Fatalf("records pushed out the walk's entries (%d of %d left), or overran their part (%d of %d bytes)",
			len(c.adj), adj, c.used, c.budget)
	}
}

// associateFor writes an association of typ and strength from src to dst in scopeID.
func associateFor(t *testing.T, s *Store, scopeID, src, dst string, typ domain.AssociationType, strength float64) {
	t.Helper()
	at := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Associate(context.Background(), domain.Request{}, src, dst, typ,
		func(cur *domain.Association, sm, dm *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return &domain.Association{SourceID: sm.ID, TargetID: dm.ID, ScopeID: scopeID, Type: typ,
				Strength: strength, UpdatedAt: at}, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
}

// openScopeStore opens an embedded store with opts on a fresh folder with one scope.
func openScopeStore(t testing.TB, opts ...Option) (*Store, *domain.Scope) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, "file://"+t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	scope := &domain.Scope{ID: domain.NewID(), Name: "old", CreatedAt: at}
	scope.AgentKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyAgentKernel, UpdatedAt: at}
	scope.WorldKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyWorldKernel, UpdatedAt: at}
	if _, err := s.CreateScope(ctx, domain.Request{}, scope, nil); err != nil {
		t.Fatal(err)
	}
	return s, scope
}

// memoryIDs are the ids of ms, in order.
func memoryIDs(ms []*domain.Memory) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids
}

func cacheMemories(t *testing.T, s *Store, scope *domain.Scope, n int) []*domain.Memory {
	t.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var ms []*domain.Memory
	for i := range n {
		ms = append(ms, &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: fmt.Sprintf("memory %d", i),
			Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext,
			OccurredAt: at, CreatedAt: at, UpdatedAt: at, Salience: 0.5, State: domain.StateActive, Version: 1,
			Metadata: map[string]any{"speaker": "Ann"}})
	}
	if _, err := s.InsertMemories(context.Background(), domain.Request{}, ms, nil); err != nil {
		t.Fatal(err)
	}
	return ms
}

// Every kind of write the store makes is seen by the next read of a cached memory or context:
// updates, score changes, associations, raw writes.
func TestReadCacheSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	if s.cache == nil {
		t.Fatal("the embedded store has no read cache")
	}
	ms := cacheMemories(t, s, scope, 3)
	ids := []string{ms[0].ID, ms[1].ID, ms[2].ID}
	read := func() map[string]*domain.Memory {
		t.Helper()
		got, err := s.Memories(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*domain.Memory{}
		for _, m := range got {
			out[m.ID] = m
		}
		return out
	}
	read()
	if hit, _ := s.cache.memories(ids, true); len(hit) != 3 {
		t.Fatalf("%d of 3 memories cached after a read", len(hit))
	}
	if _, err := s.UpdateMemory(ctx, domain.Request{}, ms[0].ID, func(m *domain.Memory) ([]*domain.Event, error) {
		m.Claimed, m.Tier = true, domain.TierIdentityCore
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if m := read()[ms[0].ID]; !m.Claimed || m.Tier != domain.TierIdentityCore {
		t.Fatalf("after an update the cached read says claimed=%v tier=%s", m.Claimed, m.Tier)
	}
	at := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	pot, rec := 0.1, 0.1
	if _, err := s.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{MemoryID: ms[1].ID, Salience: 0.125,
		Tier: domain.TierActiveContext, Potential: &pot, Recency: &rec, ScoredAt: &at}}}, nil); err != nil {
		t.Fatal(err)
	}
	if m := read()[ms[1].ID]; m.Salience != 0.125 {
		t.Fatalf("after a score change the cached read says salience %v", m.Salience)
	}
	// Contexts: a temporal association shows from both ends.
	if _, err := s.MemoryContexts(ctx, scope.ID, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Associate(ctx, domain.Request{}, ms[1].ID, ms[2].ID, domain.AssocTemporal,
		func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: scope.ID, Type: domain.AssocTemporal,
				Strength: 0.75, UpdatedAt: at}, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
	mc, err := s.MemoryContexts(ctx, scope.ID, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]int{{1, 2}, {2, 1}} {
		c := mc[ids[pair[0]]]
		if c == nil || len(c.Temporal) != 1 || c.Temporal[0].ID != ids[pair[1]] || c.Temporal[0].Strength != 0.75 {
			t.Fatalf("context of memory %d after an association: %+v", pair[0], c)
		}
	}
	// A PERSON association shows from both ends among Associated, not among Temporal; the
	// cached contexts are dropped by the write.
	if _, err := s.Associate(ctx, domain.Request{}, ms[0].ID, ms[2].ID, domain.AssocPerson,
		func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: scope.ID, Type: domain.AssocPerson,
				Strength: 0.625, UpdatedAt: at}, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
	if mc, err = s.MemoryContexts(ctx, scope.ID, ids); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]int{{0, 2}, {2, 0}} {
		c := mc[ids[pair[0]]]
		if c == nil || len(c.Associated) != 1 || c.Associated[0] != (domain.Neighbour{ID: ids[pair[1]], Type: domain.AssocPerson, Strength: 0.625}) {
			t.Fatalf("context of memory %d after a PERSON association: %+v", pair[0], c)
		}
	}
	if c := mc[ids[2]]; len(c.Temporal) != 1 || c.Temporal[0].ID != ids[1] {
		t.Fatalf("context of memory 2: %+v", c)
	}
	if other, err := s.MemoryContexts(ctx, domain.NewID(), ids); err != nil || len(other) != 0 {
		t.Fatalf("contexts asked in another scope: %v, %v", other, err)
	}
	// A raw write, outside the rules, drops the cache.
	read()
	var r struct {
		Q []struct{ UID string } `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(tr.id, "`+ms[2].ID+`")) { uid } }`, nil, &r); err != nil || len(r.Q) != 1 {
		t.Fatal(r, err)
	}
	if err := s.RawSet(ctx, map[string]any{"uid": r.Q[0].UID, "mem.content": "rewritten"}); err != nil {
		t.Fatal(err)
	}
	if m := read()[ms[2].ID]; m.Content != "rewritten" {
		t.Fatalf("after a raw write the cached read says %q", m.Content)
	}
}

// Readers racing a writer never see a version go back, and once the writer is done every reader
// sees its last write.
func TestReadCacheUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 4)
	ids := memoryIDs(ms)
	const writes = 60
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := range writes {
			id := ids[i%len(ids)]
			if _, err := s.UpdateMemory(ctx, domain.Request{}, id, func(m *domain.Memory) ([]*domain.Event, error) {
				m.Content = fmt.Sprintf("write %d", i)
				return nil, nil
			}); err != nil {
				errs <- err
				return
			}
		}
	}()
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := map[string]int64{}
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := s.Memories(ctx, ids)
				if err != nil {
					errs <- err
					return
				}
				for _, m := range got {
					if m.Version < last[m.ID] {
						errs <- fmt.Errorf("memory %s went back from version %d to %d", m.ID, last[m.ID], m.Version)
						return
					}
					last[m.ID] = m.Version
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.Memories(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range got {
		want := fmt.Sprintf("write %d", writes-len(ids)+i)
		if m.Content != want || m.Version != int64(1+writes/len(ids)) {
			t.Fatalf("memory %d after the writes: %q version %d, want %q version %d", i, m.Content, m.Version, want, 1+writes/len(ids))
		}
	}
}

// What a store caches on insert is exactly what a read of the graph decodes.
func TestReadCacheStoredEqualsRead(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	claimed := at.Add(time.Hour)
	m := &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: "ünïcode \"quoted\" <x> _:b .",
		Kind: domain.KindSemantic, Tier: domain.TierLongTerm, SuggestedTier: domain.TierActiveContext,
		Tags: []string{"zeta", "alpha", "Mid"}, OccurredAt: at, CreatedAt: at, UpdatedAt: at, Salience: 0.3,
		Importance: 0.7, Claimed: true, ClaimedAt: &claimed, State: domain.StateActive, Version: 1, SessionID: "s1",
		Metadata: map[string]any{"n": 3, "nested": map[string]any{"list": []any{1, "two"}}, "f": 0.5}}
	if _, err := s.InsertMemories(ctx, domain.Request{}, []*domain.Memory{m}, nil); err != nil {
		t.Fatal(err)
	}
	hit, _ := s.cache.memories([]string{m.ID}, true)
	cached := hit[m.ID]
	if cached == nil {
		t.Fatal("an inserted memory is not cached")
	}
	s.cache.clear()
	fromGraph, err := s.Memory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cached, fromGraph) {
		t.Fatalf("cached on insert:\n%#v\nread from the graph:\n%#v", cached, fromGraph)
	}
	ctxs, err := s.MemoryContexts(ctx, scope.ID, []string{m.ID})
	if err != nil || ctxs[m.ID] == nil || len(ctxs[m.ID].Episodes)+len(ctxs[m.ID].Temporal) != 0 {
		t.Fatalf("context of a new memory: %+v, %v", ctxs[m.ID], err)
	}
}

// A cluster store never caches: other servers write the graph.
func TestClusterStoreHasNoReadCache(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	s, err := Open(context.Background(), uri)
	if err != nil {
		t.Fatalf("cluster %s configured but unreachable: %v", uri, err)
	}
	defer s.Close()
	if s.cache != nil {
		t.Fatal("a cluster store has a read cache")
	}
}

// Total recall's walk reads associations from the cache, and every write of an edge, of its
// strength or of an end's state is seen by the next walk, which answers as the engine's own
// filtered query does.
func TestReadCacheNeighbours(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 3)
	a, b, c := ms[0].ID, ms[1].ID, ms[2].ID
	associate := func(src, dst string, typ domain.AssociationType, strength float64) {
		t.Helper()
		associateFor(t, s, scope.ID, src, dst, typ, strength)
	}
	walk := func(want ...string) {
		t.Helper()
		got, err := s.Neighbours(ctx, []string{a}, 0.3)
		if err != nil {
			t.Fatal(err)
		}
		direct, err := s.neighboursRead(ctx, []string{a}, 0.3)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, direct) {
			t.Fatalf("cached walk %+v, the engine's query %+v", got, direct)
		}
		var to []string
		for _, e := range got {
			to = append(to, e.To)
		}
		if fmt.Sprint(to) != fmt.Sprint(want) {
			t.Fatalf("neighbours of a: %v, want %v", to, want)
		}
		if hit, _ := s.cache.adjacency([]string{a}); len(hit) != 1 {
			t.Fatal("a's associations are not cached after a walk")
		}
	}
	walk()
	associate(a, b, domain.AssocThematic, 0.6)
	walk(b)
	associate(a, b, domain.AssocThematic, 0.2)
	walk()
	associate(c, a, domain.AssocCausal, 0.8) // written on c: a sees it through the reverse edge
	walk(c)
	// c's record leaves the cache: the walk caches its state alone, which the archiving drops.
	s.cache.mu.Lock()
	s.cache.used -= s.cache.mems[c].size
	delete(s.cache.mems, c)
	s.cache.mu.Unlock()
	walk(c)
	if s.cache.stateOf[c] == nil {
		t.Fatal("the walk did not cache the state of an end whose record is not cached")
	}
	if _, err := s.UpdateMemory(ctx, domain.Request{}, c, func(m *domain.Memory) ([]*domain.Event, error) {
		m.State = domain.StateArchived
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	walk()
}

// The records' part counts what its memories take of the heap: the budget bounds memory, not an
// abstract weight. Memories without metadata and with the importer's (whose keys and repeated
// values the cache shares) both.
func TestReadCacheCountsTheHeap(t *testing.T) {
	const n = 20000
	plain := func(i int) string { return "" }
	imported := func(i int) string {
		return `,"metadata":{"channel":"locomo","contentTypes":["text"],"conversation":"conv-` + fmt.Sprint(i/500) +
			`","diaId":"D9:` + fmt.Sprint(i%40) + `","direction":"received","ingestMessageId":"` + fmt.Sprintf("%08d-1111-4000-8000-000000000000", i) +
			`","ingestRequestId":"` + fmt.Sprintf("%08d-2222-4000-8000-000000000000", i/100) + `","seq":` + fmt.Sprint(i%500) +
			`,"session":` + fmt.Sprint(i%30) + `,"sourceAdapter":"locomo","sourceId":"conv-` + fmt.Sprintf("%d/D9:%d", i/500, i%40) +
			`","speaker":"Olga","threadId":"` + fmt.Sprintf("%08d-3333-4000-8000-000000000000", i/500) + `"}`
	}
	for name, meta := range map[string]func(int) string{"without metadata": plain, "with the importer's metadata": imported} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		nodes := make([]*memNode, n) // as a read decodes them: what the cache keeps of them counts
		for i := range nodes {
			nodes[i] = &memNode{UID: fmt.Sprintf("0x%x", i+1), ID: fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), NodeKind: kindMemory,
				Scope: "5e1d8a52-35e6-4b8b-9c55-6a3b8b2f0f11", Content: fmt.Sprintf("Caroline: I went to the LGBTQ support group yesterday and it was so powerful %d", i),
				Kind: "EPISODIC", Tier: "ACTIVE_CONTEXT", State: "ACTIVE", Salience: 0.5, Version: 1,
				Doc: `{"createdAt":"2023-05-08T13:56:00Z","updatedAt":"2023-05-08T13:56:00Z","sessionId":"` + fmt.Sprintf("%032d", i/20) + `"` + meta(i) + `}`}
		}
		c := newReadCache(1 << 30)
		e := c.begin()
		for _, nd := range nodes {
			c.fillMemory(e, nd)
		}
		c.end(e)
		nodes = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		if ratio := heap / float64(c.used); ratio > 1.25 || ratio < 0.5 {
			t.Fatalf("%s: %d memories take %.0f bytes of heap and count %d (%.2f×)", name, len(c.mems), heap, c.used, ratio)
		} else {
			t.Logf("%s: %d memories: %.0f bytes of heap, %.0f a memory; counted %d (%.2f×)", name, len(c.mems), heap, heap/n, c.used, ratio)
		}
		runtime.KeepAlive(c)
	}
}

// A resize keeps each part within its new budget, drops entries of every map of the part, leaves
// the other part alone, and lets the cache fill to the larger budget again.
func TestReadCacheResize(t *testing.T) {
	c := newReadCache(1 << 20)
	e := c.begin()
	for i := range 3000 {
		c.fillMemory(e, cacheNode(fmt.Sprintf("0x%x", i+1), fmt.Sprint(i)))
		c.fillContext(e, fmt.Sprint(i), &cachedContext{uid: fmt.Sprintf("0x%x", i+1), kind: kindMemory, scope: "s", ctx: &domain.MemoryContext{}, size: 100})
	}
	for i := range 3000 {
		id := fmt.Sprint("w", i)
		c.fillAdj(e, id, &cachedAdj{uid: fmt.Sprintf("0x%x", 10000+i), edges: []domain.Edge{{From: id, To: "x", Type: domain.AssocTemporal, Strength: 0.5}}})
	}
	c.end(e)
	mems, ctxs, adj, walkUsed := len(c.mems), len(c.ctxs), len(c.adj), c.walkUsed
	if c.used < 512<<10 || mems == 0 || ctxs == 0 {
		t.Fatalf("the cache filled %d bytes with %d memories and %d contexts; the test wants it half full at least", c.used, mems, ctxs)
	}
	c.resize(64<<10, 1<<20)
	if c.used > 64<<10 || c.budget != 64<<10 {
		t.Fatalf("after a resize to 64 KiB the records hold %d bytes, budget %d", c.used, c.budget)
	}
	if len(c.mems) == 0 || len(c.ctxs) == 0 || len(c.mems) >= mems || len(c.ctxs) >= ctxs {
		t.Fatalf("the resize left %d of %d memories and %d of %d contexts; want some of each dropped, some kept",
			len(c.mems), mems, len(c.ctxs), ctxs)
	}
	if len(c.adj) != adj || c.walkUsed != walkUsed {
		t.Fatalf("a resize of the records' part dropped walks: %d of %d left", len(c.adj), adj)
	}
	for uid, id := range c.uids {
		if c.mems[id] == nil && c.ctxs[id] == nil && c.adj[id] == nil && c.stateOf[id] == nil && c.eps[id] == nil {
			t.Fatalf("uid %s of memory %s is remembered with nothing of it cached", uid, id)
		}
	}
	c.resize(64<<10, 4<<10)
	if c.walkUsed > 4<<10 || len(c.adj) == 0 || len(c.adj) >= adj {
		t.Fatalf("after a resize of the walks to 4 KiB: %d bytes, %d of %d associations", c.walkUsed, len(c.adj), adj)
	}
	c.resize(1<<20, 1<<20)
	e = c.begin()
	for i := range 3000 {
		c.fillMemory(e, cacheNode(fmt.Sprintf("0x%x", i+1), fmt.Sprint(i)))
	}
	c.end(e)
	if c.used <= 64<<10 || c.used > 1<<20 {
		t.Fatalf("grown back to 1 MiB, the records hold %d bytes", c.used)
	}
}

// A store's read cache resized while it runs answers every read as before, from the engine
// where the resize dropped the record.
func TestStoreResizeReadCache(t *testing.T) {
	s, scope := openScopeStore(t, WithReadCacheParts(1<<20, 1<<20))
	ms := cacheMemories(t, s, scope, 200)
	ids := memoryIDs(ms)
	ctx := context.Background()
	if _, err := s.Memories(ctx, ids); err != nil {
		t.Fatal(err)
	}
	full := s.CacheStats()
	if full.RecordEntries < 200 || full.RecordBudget != 1<<20 {
		t.Fatalf("the cache holds %d records (budget %d) after reading 200 memories", full.RecordEntries, full.RecordBudget)
	}
	s.ResizeReadCache(full.RecordBytes/4, 1<<20)
	small := s.CacheStats()
	if small.RecordBytes > full.RecordBytes/4 || small.RecordBudget != full.RecordBytes/4 || small.RecordEntries >= full.RecordEntries {
		t.Fatalf("resized to %d bytes: %d bytes and %d entries held (before: %d, %d)", full.RecordBytes/4,
			small.RecordBytes, small.RecordEntries, full.RecordBytes, full.RecordEntries)
	}
	got, err := s.Memories(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ms) {
		t.Fatalf("read %d of %d memories after the resize", len(got), len(ms))
	}
	for _, m := range got {
		if m.Content == "" || m.ScopeID != scope.ID {
			t.Fatalf("memory %s read back as %+v", m.ID, m)
		}
	}
}

// The cache counts what it is asked for: entries it holds are hits, the rest misses, in the
// part they belong to; a resize that drops entries turns their next reads into misses.
func TestReadCacheCountsLookups(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t, WithReadCacheParts(1<<20, 1<<20))
	ms := cacheMemories(t, s, scope, 10) // cached as they are stored
	ids := memoryIDs(ms)
	before := s.CacheStats()
	if _, err := s.Memories(ctx, ids); err != nil {
		t.Fatal(err)
	}
	st := s.CacheStats()
	if h, m := st.RecordHits-before.RecordHits, st.RecordMisses-before.RecordMisses; h != 10 || m != 0 {
		t.Fatalf("reading 10 stored memories: %d hits, %d misses; want 10, 0", h, m)
	}
	// Two ids nothing holds: misses (read from the engine, which has none).
	if _, err := s.Memories(ctx, []string{domain.NewID(), domain.NewID()}); err != nil {
		t.Fatal(err)
	}
	st2 := s.CacheStats()
	if h, m := st2.RecordHits-st.RecordHits, st2.RecordMisses-st.RecordMisses; h != 0 || m != 2 {
		t.Fatalf("reading 2 unknown ids: %d hits, %d misses; want 0, 2", h, m)
	}
	// The walk's part: associations read once are held the second time.
	if _, err := s.Neighbours(ctx, ids[:3], 0); err != nil {
		t.Fatal(err)
	}
	st3 := s.CacheStats()
	if _, err := s.Neighbours(ctx, ids[:3], 0); err != nil {
		t.Fatal(err)
	}
	st4 := s.CacheStats()
	if m := st3.WalkMisses - st2.WalkMisses; m != 3 {
		t.Errorf("first walk over 3 memories: %d misses, want 3", m)
	}
	if h, m := st4.WalkHits-st3.WalkHits, st4.WalkMisses-st3.WalkMisses; h != 3 || m != 0 {
		t.Errorf("second walk over 3 memories: %d hits, %d misses; want 3, 0", h, m)
	}
	if st4.RecordHits != st2.RecordHits || st4.RecordMisses != st2.RecordMisses {
		t.Errorf("walks counted in the records' part: %+v then %+v", st2, st4)
	}
	// Emptied, the cache misses what it held.
	s.ResizeReadCache(0, 1<<20)
	if _, err := s.Memories(ctx, ids); err != nil {
		t.Fatal(err)
	}
	st5 := s.CacheStats()
	if h, m := st5.RecordHits-st4.RecordHits, st5.RecordMisses-st4.RecordMisses; h != 0 || m != 10 {
		t.Errorf("reading 10 memories after the cache was emptied: %d hits, %d misses; want 0, 10", h, m)
	}
}
