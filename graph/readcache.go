package graph

import (
	"encoding/json"
	"math"
	"strings"
	"sync"

	"github.com/totalrecall/totalrecall/domain"
)

// readCache keeps decoded memories, their recall contexts and scopes' persons in memory, so a
// search does not read a hundred memories from the engine for every query. It is used by the
// embedded engine only, where this Store is the one writer of the graph. Every commit of the
// store tells the cache what it wrote (writeOnce calls written):
//
//   - a memory's scalar predicates (salience, tier, counts, …) are patched into its cached node,
//     so the re-scoring and access writes that follow every store and search keep it cached;
//   - a memory's tags (a list: a set adds to it) or a delete naming it drop it;
//   - an edge written from or to a memory drops its recall context (episodes, neighbours) and
//     its adjacency (every association, both directions, with strengths: total recall's walk);
//   - a delete of a whole predicate or node (a nil value) may change edges seen from nodes it
//     does not name, so it drops everything, as do the writes that bypass the rules of the store
//     (raw sets, imports, DropAll);
//   - a facet written drops the persons lists and the explorer's entries (a facet names what
//     it describes by id, so its write names no uid of it);
//   - any write naming a node, as subject or as an edge's object, drops its explorer entry.
//
// A new memory is cached as its insert commits. A cluster has other writers, so there the cache
// is off.
//
// Consistency: a reader takes the cache's epoch before it reads the engine, and its answer may
// fill the cache only when no commit since that epoch wrote the node: commits bump the epoch
// after they are visible and leave a tombstone per written node, kept while a reader that began
// before it is in flight. Patches apply under the cache's lock to the value of the last commit,
// so a value in the cache is never older than the last commit that finished before the reader
// began.
type readCache struct {
	mu      sync.Mutex
	epoch   uint64
	cleared uint64 // epoch of the last clear: older readers fill nothing
	facets  uint64 // epoch of the last write of a facet: older persons lists fill nothing
	// dead holds the epoch at which each recently written uid was written.
	dead     map[string]uint64
	inflight map[uint64]int

	// budget bounds the records' part (memories, their recall contexts, episodes' members:
	// what a search reads), which uses used of it, and walkBudget the walk's (associations and
	// states), which uses walkUsed; both count about what their entries take of the heap. Each
	// part evicts only for itself: a search's records do not push out the walk's
	// neighbourhoods, nor the other way round.
	budget, used, walkBudget, walkUsed int
	mems                               map[string]*cachedMemory // by memory id
	ctxs                               map[string]*cachedContext
	eps                                map[string]*cachedMembers // episodes' members, by episode id
	adj                                map[string]*cachedAdj
	stateOf                            map[string]*cachedState // states of memories not in mems, for total recall's walk
	// entries are the explorer's nodes with their edges by uid (any node, not only memories),
	// in the walk's part of the budget; kept apart from uids, which maps memories' uids.
	entries map[string]*xEntry
	uids    map[string]string // uid → memory id, for invalidation
	persons map[string][]string
	// Spreading over facets: lists of facets by a key SharedFacets makes (an episode's, a
	// value's holders), dropped with the persons lists; facetCount is how many facets they
	// hold, at most maxCachedFacets.
	facetLists map[string][]*domain.Facet
	facetCount int
	// hits and misses count the lookups of each part (records: memories, contexts, episodes'
	// members; walks: associations, states) that found their entry or went to the engine.
	hits, misses, walkHits, walkMisses uint64
}

// maxCachedFacets bounds the facets the read cache keeps for spreading over facets (about
// 500 bytes each, with their metadata).
const maxCachedFacets = 50000

// cachedMemory is a memory as the cache holds it: the record alone, which a patch replaces
// (never changes: readers may hold it).
type cachedMemory struct {
	uid   string
	m     *domain.Memory
	score string // mem.score: the scoring checkpoint (scoreRows)
	size  int
}

// cachedMembers are the member ids of an episode (domain.EpisodeMemberReader), in no order.
type cachedMembers struct {
	uid     string
	kind    string
	scope   string
	members []string
	size    int
}

type cachedContext struct {
	uid   string
	kind  string
	scope string
	ctx   *domain.MemoryContext
	size  int
}

// cachedAdj is a memory's every association, both directions, whatever its strength; From is
// the memory itself.
type cachedAdj struct {
	uid   string
	edges []domain.Edge
}

// cachedState is a memory's lifecycle state.
type cachedState struct {
	uid   string
	state domain.LifecycleState
}

const stateSize = 96

// DefaultReadCacheBytes is the read cache's default budget for each of its two parts
// (approximate bytes of memories and contexts held; of associations and states held).
const DefaultReadCacheBytes = 64 << 20

func newReadCache(budget int) *readCache { return newReadCacheParts(budget, budget) }

// newReadCacheParts is a cache whose records' part holds budget bytes and whose walk's part
// holds walks bytes; nil when budget is 0 or less.
func newReadCacheParts(budget, walks int) *readCache {
	if budget <= 0 {
		return nil
	}
	return &readCache{budget: budget, walkBudget: max(walks, 0), dead: map[string]uint64{}, inflight: map[uint64]int{},
		mems: map[string]*cachedMemory{}, ctxs: map[string]*cachedContext{}, adj: map[string]*cachedAdj{},
		stateOf: map[string]*cachedState{}, uids: map[string]string{}, persons: map[string][]string{},
		facetLists: map[string][]*domain.Facet{},
		entries:    map[string]*xEntry{}, eps: map[string]*cachedMembers{}}
}

// begin starts a read; the epoch it returns is passed to the fills and to end.
func (c *readCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight[c.epoch]++
	return c.epoch
}

func (c *readCache) end(e uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[e]--; c.inflight[e] <= 0 {
		delete(c.inflight, e)
	}
	switch {
	case len(c.inflight) == 0:
		if len(c.dead) > 0 {
			c.dead = map[string]uint64{}
		}
	case len(c.dead) > 4096:
		oldest := c.epoch
		for x := range c.inflight {
			oldest = min(oldest, x)
		}
		for uid, at := range c.dead {
			if at <= oldest {
				delete(c.dead, uid)
			}
		}
	}
}

// fresh reports whether a value of uid read by a reader of epoch e may be kept. Under c.mu.
func (c *readCache) fresh(e uint64, uid string) bool {
	return e >= c.cleared && c.dead[uid] <= e
}

// memories returns the cached memories among ids (copies, or with !clone the cached values,
// which patches replace and never change) and the ids it does not hold.
func (c *readCache) memories(ids []string, clone bool) (map[string]*domain.Memory, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := make(map[string]*domain.Memory, len(ids))
	var miss []string
	for _, id := range ids {
		if cm := c.mems[id]; cm == nil {
			miss = append(miss, id)
		} else if clone {
			hit[id] = cm.m.Clone()
		} else {
			hit[id] = cm.m
		}
	}
	c.count(false, len(hit), len(miss))
	return hit, miss
}

func (c *readCache) fillMemory(e uint64, n *memNode) {
	cm, err := newCachedMemory(n)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fillLocked(c, c.mems, e, cm.m.ID, n.UID, cm, true)
}

// newCachedMemory is the cache entry of a memory node as read.
func newCachedMemory(n *memNode) (*cachedMemory, error) {
	d, err := n.doc()
	if err != nil {
		return nil, err
	}
	m := n.build(d)
	shareDoc(m)
	compactMemory(m)
	return &cachedMemory{uid: n.UID, m: m, score: n.Score, size: memoryBytes(m, len(n.Doc)) + len(n.Score)}, nil
}

// memoryBytes is about what a cached memory takes of the heap: its record and strings, the
// cache's maps' entries by id and by uid, and its metadata (about its document's length).
func memoryBytes(m *domain.Memory, doc int) int {
	size := 640 + len(m.Content) + len(m.SessionID) + 48*len(m.Tags)
	for _, t := range m.Tags {
		size += len(t)
	}
	if len(m.Metadata) > 0 {
		size += 2 * doc
	}
	return size
}

// compactMemory makes a cached record share what many records hold the same: the names of its
// kind, tier and state, and its scope's id (one string per scope, not one per record).
func compactMemory(m *domain.Memory) {
	m.Kind = domain.MemoryKind(internEnum(string(m.Kind)))
	m.Tier = domain.Tier(internEnum(string(m.Tier)))
	m.SuggestedTier = domain.Tier(internEnum(string(m.SuggestedTier)))
	m.State = domain.LifecycleState(internEnum(string(m.State)))
	m.ScopeID = internScope(m.ScopeID)
	if len(m.Metadata) == 0 {
		m.Metadata = noMetadata
	}
}

// shareDoc makes what a cached record's document decoded to share the strings and values other
// records hold the same (cacheStrings): its metadata and its session id.
func shareDoc(m *domain.Memory) {
	if len(m.Metadata) > 0 {
		m.Metadata = cacheStrings.metadata(m.Metadata)
	}
	m.SessionID = cacheStrings.str(m.SessionID)
}

// noMetadata is the metadata of every cached record without any: shared, as cached records are
// never modified (Clone copies it).
var noMetadata = map[string]any{}

// enumNames are the names of the domain's kinds, tiers and states, shared by cached records.
var enumNames = func() map[string]string {
	m := map[string]string{}
	for _, v := range domain.Kinds {
		m[string(v)] = string(v)
	}
	for _, v := range domain.Tiers {
		m[string(v)] = string(v)
	}
	for _, v := range domain.LifecycleStates {
		m[string(v)] = string(v)
	}
	return m
}()

func internEnum(s string) string {
	if v, ok := enumNames[s]; ok {
		return v
	}
	return s
}

// scopeNames interns scope ids: a store serves few scopes and caches many records of each.
var scopeNames sync.Map

func internScope(s string) string {
	if v, ok := scopeNames.Load(s); ok {
		return v.(string)
	}
	v, _ := scopeNames.LoadOrStore(strings.Clone(s), strings.Clone(s))
	return v.(string)
}

// sized is an entry of the cache: its approximate size in bytes, its node's uid, and whether
// it belongs to the walk's part of the budget.
type sized interface {
	bytes() int
	nodeUID() string
	walk() bool
}

func (cm *cachedMembers) walk() bool { return false }
func (cm *cachedMemory) walk() bool  { return false }
func (cc *cachedContext) walk() bool { return false }
func (ca *cachedAdj) walk() bool     { return true }
func (cs *cachedState) walk() bool   { return true }
func (xe *xEntry) walk() bool        { return true }

// usedBy is the count of bytes used by the part of the budget v belongs to. Under c.mu.
func (c *readCache) usedBy(walk bool) *int {
	if walk {
		return &c.walkUsed
	}
	return &c.used
}

// budgetOf is the budget of one part.
func (c *readCache) budgetOf(walk bool) int {
	if walk {
		return c.walkBudget
	}
	return c.budget
}

func (cm *cachedMembers) bytes() int { return cm.size }
func (cm *cachedMemory) bytes() int  { return cm.size }
func (cc *cachedContext) bytes() int { return cc.size }
func (ca *cachedAdj) bytes() int     { return 96 + 64*len(ca.edges) } // edges are never changed once cached
func (cs *cachedState) bytes() int   { return stateSize }
func (xe *xEntry) bytes() int        { return xe.size }

func (cm *cachedMembers) nodeUID() string { return cm.uid }
func (cm *cachedMemory) nodeUID() string  { return cm.uid }
func (cc *cachedContext) nodeUID() string { return cc.uid }
func (ca *cachedAdj) nodeUID() string     { return ca.uid }
func (cs *cachedState) nodeUID() string   { return cs.uid }
func (xe *xEntry) nodeUID() string        { return xe.uid }

// fillLocked keeps v as m[id] (of node uid), read by a reader of epoch e, unless a commit wrote
// the node since. A read's fill (evict) replaces the entry there and evicts others of its part
// of the cache to make room, and keeps nothing that alone would take a sixteenth of the budget;
// Warm's fill (!evict) keeps an entry already there and evicts nothing: it returns false when v
// does not fit what is left of its part. Under c.mu.
func fillLocked[T sized](c *readCache, m map[string]T, e uint64, id, uid string, v T, evict bool) bool {
	if !c.fresh(e, uid) {
		return true
	}
	size, used, budget := v.bytes(), c.usedBy(v.walk()), c.budgetOf(v.walk())
	if evict {
		if size > budget/16 {
			return true
		}
		c.makeRoom(v.walk(), size)
		dropEntry(c, m, id)
	} else if _, ok := m[id]; ok {
		return true // cached already, by a read at least as new
	} else if *used+size > budget {
		return false
	}
	m[id] = v
	c.uids[uid] = id
	*used += size
	return true
}

// dropEntry removes m[id], if there is one. Under c.mu.
func dropEntry[T sized](c *readCache, m map[string]T, id string) {
	if old, ok := m[id]; ok {
		*c.usedBy(old.walk()) -= old.bytes()
		delete(m, id)
	}
}

// stored caches a memory its writer has just created (under the store's write lock, after the
// commit): no reader can hold an older value of a node that did not exist.
func (c *readCache) stored(n *memNode) {
	c.mu.Lock()
	e := c.epoch
	c.mu.Unlock()
	c.fillMemory(e, n)
	c.fillContext(e, n.ID, &cachedContext{uid: n.UID, kind: kindMemory, scope: n.Scope, ctx: &domain.MemoryContext{}})
}

// contexts returns the cached recall contexts among ids and the ids it does not hold.
func (c *readCache) contexts(ids []string) (map[string]*cachedContext, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := make(map[string]*cachedContext, len(ids))
	var miss []string
	for _, id := range ids {
		if cc := c.ctxs[id]; cc != nil {
			hit[id] = cc
		} else {
			miss = append(miss, id)
		}
	}
	c.count(false, len(hit), len(miss))
	return hit, miss
}

func (c *readCache) fillContext(e uint64, id string, cc *cachedContext) {
	cc.size = contextBytes(cc.ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	fillLocked(c, c.ctxs, e, id, cc.uid, cc, true)
}

// warmContext is fillContext for Warm: it evicts nothing, and returns false when cc does not fit.
func (c *readCache) warmContext(e uint64, id string, cc *cachedContext) bool {
	cc.size = contextBytes(cc.ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	return fillLocked(c, c.ctxs, e, id, cc.uid, cc, false)
}

// warmMembers is fillMembers for Warm: it evicts nothing, and returns false when cm does not fit.
func (c *readCache) warmMembers(e uint64, id string, cm *cachedMembers) bool {
	cm.size = membersBytes(cm.members)
	c.mu.Lock()
	defer c.mu.Unlock()
	return fillLocked(c, c.eps, e, id, cm.uid, cm, false)
}

// membersBytes is about what an episode's cached members take of the heap.
func membersBytes(members []string) int { return 160 + 64*len(members) }

// contextBytes is about what a cached recall context takes of the heap.
func contextBytes(mc *domain.MemoryContext) int {
	return 160 + 64*len(mc.Episodes) + 80*(len(mc.Temporal)+len(mc.Associated))
}

// count adds hit and miss lookups to the part walk names. Under c.mu.
func (c *readCache) count(walk bool, hit, miss int) {
	if walk {
		c.walkHits += uint64(hit)
		c.walkMisses += uint64(miss)
	} else {
		c.hits += uint64(hit)
		c.misses += uint64(miss)
	}
}

// episodeMembers returns the cached members of the episodes among ids (shared: callers only read
// them) and the ids it does not hold.
func (c *readCache) episodeMembers(ids []string) (map[string]*cachedMembers, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := make(map[string]*cachedMembers, len(ids))
	var miss []string
	for _, id := range ids {
		if cm := c.eps[id]; cm != nil {
			hit[id] = cm
		} else {
			miss = append(miss, id)
		}
	}
	c.count(false, len(hit), len(miss))
	return hit, miss
}

func (c *readCache) fillMembers(e uint64, id string, cm *cachedMembers) {
	cm.size = membersBytes(cm.members)
	c.mu.Lock()
	defer c.mu.Unlock()
	fillLocked(c, c.eps, e, id, cm.uid, cm, true)
}

// adjacency returns the cached associations of ids (shared: callers only read them) and the ids
// it does not hold.
func (c *readCache) adjacency(ids []string) (map[string][]domain.Edge, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hit := make(map[string][]domain.Edge, len(ids))
	var miss []string
	for _, id := range ids {
		if ca := c.adj[id]; ca != nil {
			hit[id] = ca.edges
		} else {
			miss = append(miss, id)
		}
	}
	c.count(true, len(hit), len(miss))
	return hit, miss
}

// states sets state[id] for the cached memories among ids and returns the others.
func (c *readCache) states(ids []string, state map[string]domain.LifecycleState) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var miss []string
	for _, id := range ids {
		if cm := c.mems[id]; cm != nil {
			state[id] = cm.m.State
		} else if cs := c.stateOf[id]; cs != nil {
			state[id] = cs.state
		} else {
			miss = append(miss, id)
		}
	}
	c.count(true, len(ids)-len(miss), len(miss))
	return miss
}

func (c *readCache) fillState(e uint64, id string, cs *cachedState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fillLocked(c, c.stateOf, e, id, cs.uid, cs, true)
}

func (c *readCache) fillAdj(e uint64, id string, ca *cachedAdj) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fillLocked(c, c.adj, e, id, ca.uid, ca, true)
}

// warmAdj, warmState and warmMemory fill as fillAdj, fillState and fillMemory do, for Warm:
// without evicting anything. They return false when the entry does not fit its part's budget.
func (c *readCache) warmAdj(e uint64, id string, ca *cachedAdj) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fillLocked(c, c.adj, e, id, ca.uid, ca, false)
}

// warmState also reports whether it cached the state: not where the record, which holds it, is.
func (c *readCache) warmState(e uint64, id string, cs *cachedState) (ok, filled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mems[id] != nil {
		return true, false
	}
	return fillLocked(c, c.stateOf, e, id, cs.uid, cs, false), c.stateOf[id] == cs
}

// warmMemory caches the record, which holds the state: a state cached alone is dropped.
func (c *readCache) warmMemory(e uint64, n *memNode) bool {
	cm, err := newCachedMemory(n)
	if err != nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !fillLocked(c, c.mems, e, cm.m.ID, n.UID, cm, false) {
		return false
	}
	if c.mems[cm.m.ID] == cm {
		dropEntry(c, c.stateOf, cm.m.ID)
	}
	return true
}

// entriesOf puts the cached explorer entries among uids in out (shared: callers only read them)
// and returns the uids it does not hold.
func (c *readCache) entriesOf(uids []string, out map[string]*xEntry) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var miss []string
	for _, u := range uids {
		if xe := c.entries[u]; xe != nil {
			out[u] = xe
		} else {
			miss = append(miss, u)
		}
	}
	return miss
}

// fillEntries keeps the explorer entries a reader of epoch e read, but none written since, and
// none at all when a facet was written since (facets name no uid of what they describe).
func (c *readCache) fillEntries(e uint64, read map[string]*xEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e < c.facets {
		return
	}
	for u, xe := range read {
		if !c.fresh(e, u) || xe.size > c.walkBudget/16 {
			continue
		}
		c.makeRoom(true, xe.size)
		dropEntry(c, c.entries, u)
		c.entries[u] = xe
		c.walkUsed += xe.size
	}
}

func (c *readCache) scopePersons(scopeID string) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.persons[scopeID]
	return p, ok
}

func (c *readCache) fillPersons(e uint64, scopeID string, names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e < c.cleared || e < c.facets {
		return
	}
	if len(c.persons) > 4096 {
		c.persons = map[string][]string{}
	}
	c.persons[scopeID] = names
}

// dropFacets forgets the facets kept for spreading. Under c.mu.
func (c *readCache) dropFacets() {
	c.facetLists, c.facetCount = map[string][]*domain.Facet{}, 0
}

// keptFacets returns the kept facet lists of keys, and the keys not kept. A nil cache keeps
// nothing.
func (c *readCache) keptFacets(keys []string) (map[string][]*domain.Facet, []string) {
	out := make(map[string][]*domain.Facet, len(keys))
	if c == nil {
		return out, keys
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var miss []string
	for _, k := range keys {
		if fs, ok := c.facetLists[k]; ok {
			out[k] = fs
		} else {
			miss = append(miss, k)
		}
	}
	return out, miss
}

// fillFacets keeps the facet lists a reader of epoch e read, unless a facet was written since;
// past maxCachedFacets the kept lists are dropped first.
func (c *readCache) fillFacets(e uint64, read map[string][]*domain.Facet) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e < c.cleared || e < c.facets {
		return
	}
	if c.facetCount > maxCachedFacets {
		c.dropFacets()
	}
	for k, fs := range read {
		c.facetLists[k] = fs
		c.facetCount += len(fs) + 1
	}
}

// makeRoom evicts arbitrary entries of one part of the cache (the walk's, or the records')
// until size more fits its budget. Under c.mu.
func (c *readCache) makeRoom(walk bool, size int) {
	used, budget := c.usedBy(walk), c.budgetOf(walk)
	for *used+size > budget {
		if walk && (len(c.adj) > 0 || len(c.stateOf) > 0 || len(c.entries) > 0) {
			evictOne(c, c.adj)
			evictOne(c, c.stateOf)
			for u := range c.entries {
				dropEntry(c, c.entries, u) // by uid: nothing of it in uids
				break
			}
		} else if !walk && (len(c.mems) > 0 || len(c.ctxs) > 0 || len(c.eps) > 0) {
			evictOne(c, c.mems)
			evictOne(c, c.ctxs)
			evictOne(c, c.eps)
		} else {
			return
		}
	}
}

// resizeBatch is how many entries a resize drops under one hold of the cache's lock: readers
// and writers wait for no more than that.
const resizeBatch = 2048

// resize sets the budgets of the two parts of the cache (at least 1 byte of records: a
// budget of 0 would turn the cache off) and drops what no longer fits, in batches, arbitrary
// entries of each map of a part in proportion to its size.
func (c *readCache) resize(budget, walks int) {
	c.mu.Lock()
	c.budget, c.walkBudget = max(budget, 1), max(walks, 0)
	c.mu.Unlock()
	for _, walk := range []bool{false, true} {
		for {
			c.mu.Lock()
			used, budget := *c.usedBy(walk), c.budgetOf(walk)
			if used <= budget {
				c.mu.Unlock()
				break
			}
			// The share of each map to drop; each range starts at a random place in its map.
			drop := 1 - float64(budget)/float64(used)
			left := resizeBatch
			if walk {
				left -= shrinkMap(c, c.adj, drop, left, true)
				left -= shrinkMap(c, c.stateOf, drop, left, true)
				left -= shrinkMap(c, c.entries, drop, left, false) // by uid: nothing of it in uids
			} else {
				left -= shrinkMap(c, c.mems, drop, left, true)
				left -= shrinkMap(c, c.ctxs, drop, left, true)
				left -= shrinkMap(c, c.eps, drop, left, true)
			}
			if left == resizeBatch {
				c.makeRoom(walk, 0) // nothing dropped by shares: one at a time
				c.mu.Unlock()
				break
			}
			c.mu.Unlock()
		}
	}
}

// shrinkMap drops the share drop of m's entries, at most most of them, in one range; it returns
// how many it dropped. With forget, m is keyed by memory id and a node left with nothing cached
// is forgotten (forgetIfBare). Under c.mu.
func shrinkMap[T sized](c *readCache, m map[string]T, drop float64, most int, forget bool) int {
	n := min(most, int(math.Ceil(drop*float64(len(m)))))
	done := 0
	for id, v := range m {
		if done >= n {
			break
		}
		dropEntry(c, m, id)
		if forget {
			c.forgetIfBare(id, v.nodeUID())
		}
		done++
	}
	return done
}

// evictOne drops an arbitrary entry of m; its node's entries in the other part stay. Under c.mu.
func evictOne[T sized](c *readCache, m map[string]T) {
	for id, v := range m {
		dropEntry(c, m, id)
		c.forgetIfBare(id, v.nodeUID())
		return
	}
}

// forgetIfBare forgets the node uid of memory id once nothing of it is cached. Under c.mu.
func (c *readCache) forgetIfBare(id, uid string) {
	if c.mems[id] == nil && c.ctxs[id] == nil && c.adj[id] == nil && c.stateOf[id] == nil && c.eps[id] == nil {
		delete(c.uids, uid)
	}
}

// memScalars are the predicates of a memory node a read decodes (memFields, and the kind) that
// hold one value: a set replaces them, so a cached node takes the written value. Derived from
// memFields, so a predicate added there is patched too; mem.tags is a list (a set adds to it).
var memScalars = func() map[string]bool {
	m := map[string]bool{"tr.kind": true}
	for _, p := range strings.Fields(memFields) {
		if p != "uid" && p != "mem.tags" {
			m[p] = true
		}
	}
	return m
}()

// written brings the cache up to a committed write (see readCache): sets and dels are the
// objects of its mutation.
func (c *readCache) written(sets, dels []map[string]any) {
	if c == nil {
		return
	}
	type change struct {
		patch   map[string]any // scalar predicates set on the node
		dropMem bool
		dropCtx bool
	}
	changes := map[string]*change{}
	at := func(uid any) *change {
		s, ok := uid.(string)
		if !ok || !strings.HasPrefix(s, "0x") {
			return nil
		}
		ch := changes[s]
		if ch == nil {
			ch = &change{}
			changes[s] = ch
		}
		return ch
	}
	clearAll, facets := false, false
	var node func(o map[string]any, del, target bool)
	edges := func(v any, del bool) bool {
		switch x := v.(type) {
		case map[string]any:
			node(x, del, true)
		case []map[string]any:
			for _, m := range x {
				node(m, del, true)
			}
		case []any:
			isEdge := false
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					node(m, del, true)
					isEdge = true
				}
			}
			return isEdge
		default:
			return false
		}
		return true
	}
	node = func(o map[string]any, del, target bool) {
		ch := at(o["uid"])
		if ch != nil && (del || target) {
			ch.dropCtx = true
		}
		for k, v := range o {
			if k == "uid" || strings.Contains(k, "|") {
				continue // facets belong to the edge, which drops both ends' contexts
			}
			if strings.HasPrefix(k, "fc.") {
				facets = true
			}
			if del && v == nil {
				clearAll = true
			}
			if edges(v, del) {
				if ch != nil {
					ch.dropCtx = true
				}
				continue
			}
			if ch == nil {
				continue
			}
			switch {
			case del:
				ch.dropMem, ch.dropCtx = true, true
			case memScalars[k]:
				if ch.patch == nil {
					ch.patch = map[string]any{}
				}
				ch.patch[k] = v
				if k == "tr.kind" || k == "tr.scope" || k == "tr.id" {
					ch.dropCtx = true
				}
			case k == "mem.tags":
				ch.dropMem = true
			}
		}
	}
	for _, s := range sets {
		node(s, false, false)
	}
	for _, d := range dels {
		node(d, true, false)
	}
	if clearAll {
		c.clear()
		return
	}
	if len(changes) == 0 && !facets {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if facets {
		c.facets = c.epoch
		c.persons = map[string][]string{}
		c.dropFacets()
		for u, xe := range c.entries {
			c.walkUsed -= xe.bytes()
			delete(c.entries, u)
		}
	}
	for uid, ch := range changes {
		if len(c.inflight) > 0 {
			c.dead[uid] = c.epoch
		}
		dropEntry(c, c.entries, uid)
		id, ok := c.uids[uid]
		if !ok {
			continue
		}
		if cm := c.mems[id]; cm != nil && (ch.dropMem || ch.patch != nil) {
			if ch.dropMem || !c.patchLocked(cm, ch.patch) {
				dropEntry(c, c.mems, id)
			}
		}
		if ch.dropCtx {
			dropEntry(c, c.ctxs, id)
			dropEntry(c, c.adj, id)
			dropEntry(c, c.eps, id)
		}
		if _, ok := ch.patch["mem.state"]; ok || ch.dropMem {
			dropEntry(c, c.stateOf, id)
		}
		c.forgetIfBare(id, uid)
	}
}

// patchLocked sets scalar predicates of a cached memory, on a copy of its record that replaces
// it (readers may hold the old one); false when the record cannot take them.
func (c *readCache) patchLocked(cm *cachedMemory, patch map[string]any) bool {
	raw, err := json.Marshal(patch)
	if err != nil {
		return false
	}
	var n memNode
	if err := decode(raw, &n); err != nil {
		return false
	}
	m := *cm.m
	doc := 0
	score := cm.score
	for k := range patch {
		switch k {
		case "mem.score":
			score = n.Score
		case "tr.kind":
			if n.NodeKind != kindMemory {
				return false
			}
		case "tr.id":
			m.ID = n.ID
		case "tr.scope":
			m.ScopeID = n.Scope
		case "mem.content":
			m.Content = n.Content
		case "mem.kind":
			m.Kind = domain.MemoryKind(n.Kind)
		case "mem.tier":
			m.Tier = domain.Tier(n.Tier)
		case "mem.occurredAt":
			m.OccurredAt = n.OccurredAt.UTC()
		case "mem.salience":
			m.Salience = n.Salience
		case "mem.claimed":
			m.Claimed = n.Claimed
		case "mem.accessCount":
			m.AccessCount = n.AccessCount
		case "mem.lastAccessedAt":
			m.LastAccessedAt = utcPtr(n.LastAccessedAt)
		case "mem.state":
			m.State = domain.LifecycleState(n.State)
		case "mem.version":
			m.Version = n.Version
		case "mem.doc":
			d, err := n.doc()
			if err != nil {
				return false
			}
			m.SuggestedTier, m.Metadata, m.Importance, m.SessionID = domain.Tier(d.SuggestedTier), d.Metadata, d.Importance, d.SessionID
			m.CreatedAt, m.UpdatedAt, m.ClaimedAt = d.CreatedAt.UTC(), d.UpdatedAt.UTC(), utcPtr(d.ClaimedAt)
			shareDoc(&m)
			doc = len(n.Doc)
		default:
			return false // a predicate the record does not hold as a field: read it again
		}
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	compactMemory(&m)
	size := memoryBytes(&m, doc) + len(score)
	if doc == 0 {
		size = max(size, cm.size) // its metadata's size is not known again
	}
	c.used += size - cm.size
	cm.m, cm.score, cm.size = &m, score, size
	return true
}

// scoreRows gives the scoring rows (Store.ScoreRows) of the memories among ids whose record
// and associations it holds, as a read of their nodes gives them, and the ids it cannot give.
func (c *readCache) scoreRows(ids []string) ([]*domain.ScoreRow, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rows []*domain.ScoreRow
	var miss []string
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		cm, ca := c.mems[id], c.adj[id]
		if cm == nil || ca == nil {
			miss = append(miss, id)
			continue
		}
		r := domain.ScoreRowOf(cm.m)
		r.Ref, r.Full = cm.uid, true
		unpackScore(cm.score, r)
		for _, e := range ca.edges {
			r.Connectivity += e.Strength
		}
		rows = append(rows, r)
	}
	return rows, miss
}

// clear drops everything and refuses the fills of reads begun before it.
func (c *readCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.cleared = c.epoch
	c.facets = c.epoch
	c.dead = map[string]uint64{}
	c.mems, c.ctxs, c.uids = map[string]*cachedMemory{}, map[string]*cachedContext{}, map[string]string{}
	c.adj, c.stateOf = map[string]*cachedAdj{}, map[string]*cachedState{}
	c.entries = map[string]*xEntry{}
	c.eps = map[string]*cachedMembers{}
	c.persons = map[string][]string{}
	c.dropFacets()
	c.used, c.walkUsed = 0, 0
}

// CacheStats is the read cache's size now: for each of its two parts (records: memories and
// their contexts; walks: total recall's associations and states), bytes used and entries held.
type CacheStats struct {
	RecordBytes, WalkBytes     int
	RecordEntries, WalkEntries int
	// RecordBudget and WalkBudget are the parts' budgets now (ResizeReadCache).
	RecordBudget, WalkBudget int
	// Hits and Misses count the entries each part was asked for since the store opened: found,
	// or read from the engine.
	RecordHits, RecordMisses, WalkHits, WalkMisses uint64
}

// of returns the bytes, entries and budget of the part named "memories" or "walks".
func (s CacheStats) of(part string) (bytes, entries, budget int) {
	if part == "walks" {
		return s.WalkBytes, s.WalkEntries, s.WalkBudget
	}
	return s.RecordBytes, s.RecordEntries, s.RecordBudget
}

// Bytes returns the bytes of the part named "memories" or "walks".
func (s CacheStats) Bytes(part string) int { b, _, _ := s.of(part); return b }

// Entries returns the entries of the part named "memories" or "walks".
func (s CacheStats) Entries(part string) int { _, n, _ := s.of(part); return n }

// Lookups returns the hits and misses of the part named "memories" or "walks".
func (s CacheStats) Lookups(part string) (hits, misses uint64) {
	if part == "walks" {
		return s.WalkHits, s.WalkMisses
	}
	return s.RecordHits, s.RecordMisses
}

// Budget returns the budget of the part named "memories" or "walks".
func (s CacheStats) Budget(part string) int { _, _, b := s.of(part); return b }

// CacheStats reports the read cache's size (zero when there is none).
func (s *Store) CacheStats() CacheStats {
	c := s.cache
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{RecordBytes: c.used, WalkBytes: c.walkUsed,
		RecordEntries: len(c.mems) + len(c.ctxs), WalkEntries: len(c.adj) + len(c.stateOf),
		RecordBudget: c.budget, WalkBudget: c.walkBudget,
		RecordHits: c.hits, RecordMisses: c.misses, WalkHits: c.walkHits, WalkMisses: c.walkMisses}
}

// ResizeReadCache sets the budgets of the read cache's two parts (graph.WithReadCacheParts)
// while the store runs, dropping arbitrary entries until what is held fits. Nothing happens
// without a read cache (a cluster's store, or one opened with it off).
func (s *Store) ResizeReadCache(records, walks int) {
	if s.cache != nil {
		s.cache.resize(records, walks)
	}
}
