package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/totalrecall/totalrecall/domain"
)

// WarmStats says what Warm put in the read cache.
type WarmStats struct {
	// Adjacencies is how many memories have their every association cached (Edges in all, each
	// counted at both ends), States how many have their lifecycle state cached without their
	// record, Memories how many records are cached.
	Adjacencies, Edges, States, Memories int
	// Contexts is how many memories have their recall context cached, Episodes how many
	// episodes their members.
	Contexts, Episodes int
	// Bytes is the cache's estimate of what it holds afterwards; Full says a part's budget ran
	// out before everything was loaded.
	Bytes int
	Full  bool
	// WalksAfter is when the walk's associations were all in (the records and the states of
	// memories without a record follow), Duration the whole.
	WalksAfter, Duration time.Duration
}

// warmPage is how many nodes one query of Warm lists.
const warmPage = 10000

// Warm fills the embedded engine's read cache from the graph, for the searches, walks and
// flashbacks that follow a start: memories' associations (both directions, with strengths) in
// the walk's part of the cache; then, in the records' part, the episodes' members and each
// memory's record with its recall context; then the states of the memories whose records did
// not fit, each part until its budget is spent. Nothing is evicted to make room, and the
// cache's rules hold as for any read: a node written since Warm began is not filled (its next
// read fills it). It reads the graph by predicate — every memory's id and state, then the edges
// of each association type — and joins them here, which costs a fraction of reading each
// memory's neighbourhood. What it holds meanwhile is bounded by what the cache can take: a
// compact table of every memory (about 40 bytes each), and the edges of only the memories the
// walk's part has room for. A cluster store has no cache: it returns at once.
func (s *Store) Warm(ctx context.Context) (st WarmStats, err error) {
	if s.cache == nil {
		return st, nil
	}
	start := time.Now()
	defer func() { st.Duration = time.Since(start) }()
	e := s.cache.begin()
	defer s.cache.end(e)

	// Every memory, in uid order: the pages come in it.
	var mt warmTable
	type memRow struct {
		UID   string `json:"uid"`
		Kind  string `json:"tr.kind"`
		ID    string `json:"tr.id"`
		Scope string `json:"tr.scope"`
		State string `json:"mem.state"`
	}
	err = pagesOf(ctx, s, "mem.state", "uid tr.kind tr.id tr.scope mem.state", warmPage, decode,
		func(n *memRow) string { return n.UID }, func(n *memRow) (bool, error) {
			u, err := parseUID(n.UID)
			if err != nil {
				return false, err
			}
			if n.Kind == kindMemory && n.ID != "" {
				mt.add(u, n.ID, domain.LifecycleState(n.State))
			}
			return true, nil
		})
	if err != nil {
		return st, err
	}
	// The memories whose edges are kept: as many as the walk's part could hold at the least an
	// adjacency takes, the first in uid order (the order the parts fill in).
	s.cache.mu.Lock()
	room := max(s.cache.walkBudget-s.cache.walkUsed, 0)
	s.cache.mu.Unlock()
	keep := min(mt.len(), room/adjBytes(0)+1)
	// Every association, forward and reverse, by type, at the ends among the kept.
	var ends []warmEnd
	for ti, at := range domain.AssociationTypes {
		p := assocPred(at)
		err := pagesOf(ctx, s, p, "uid "+p+" @facets(strength) { uid }", warmPage, decode, rowUID,
			func(row *map[string]any) (bool, error) {
				u, err := parseUID(rowUID(row))
				if err != nil {
					return false, err
				}
				from := mt.find(u)
				edges, _ := (*row)[p].([]any)
				for _, x := range edges {
					em, _ := x.(map[string]any)
					uidStr, _ := em["uid"].(string)
					v, err := parseUID(uidStr)
					if err != nil {
						return false, err
					}
					to := mt.find(v)
					// An end that is no memory has no id: the walk's read skips such an edge.
					if from < 0 || to < 0 {
						continue
					}
					st := num(em[p+"|strength"])
					if from < keep {
						ends = append(ends, warmEnd{from: int32(from), far: int32(to), typ: int8(ti), strength: st})
					}
					if to < keep {
						ends = append(ends, warmEnd{from: int32(to), far: int32(from), typ: int8(ti), reverse: true, strength: st})
					}
				}
				return true, nil
			})
		if err != nil {
			return st, err
		}
	}
	// Each memory's associations in the order its read gives them (edgesOf: by type, forward
	// before reverse, each list by the far end's uid).
	slices.SortFunc(ends, func(a, b warmEnd) int {
		if c := cmp.Compare(a.from, b.from); c != 0 {
			return c
		}
		if c := cmp.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		if a.reverse != b.reverse {
			if a.reverse {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.far, b.far) // uid order is index order
	})
	edgesOf := func(i int) []warmEnd {
		lo := sort.Search(len(ends), func(k int) bool { return int(ends[k].from) >= i })
		hi := lo
		for hi < len(ends) && int(ends[hi].from) == i {
			hi++
		}
		return ends[lo:hi]
	}
	walkFull := keep < mt.len()
	for i := range keep {
		mine := edgesOf(i)
		id := mt.id(i)
		edges := make([]domain.Edge, len(mine))
		for k, fe := range mine {
			edges[k] = domain.Edge{From: id, To: mt.id(int(fe.far)), Type: domain.AssociationTypes[fe.typ], Strength: fe.strength}
		}
		if !s.cache.warmAdj(e, id, &cachedAdj{uid: mt.uid(i), edges: edges}) {
			walkFull = true
			break
		}
		st.Adjacencies++
		st.Edges += len(edges)
	}
	st.WalksAfter = time.Since(start)

	// Episodes: which hold each memory, and their members, for the records' part below.
	type epRef struct {
		uid       uint64
		id, scope string
		members   []string
	}
	var eps []epRef
	var memberOf []warmMember // (memory, episode) pairs, for the contexts
	type epRow struct {
		UID   string `json:"uid"`
		Kind  string `json:"tr.kind"`
		ID    string `json:"tr.id"`
		Scope string `json:"tr.scope"`
		Items []struct {
			UID string `json:"uid"`
		} `json:"ep.items"`
	}
	err = pagesOf(ctx, s, "ep.items", "uid tr.kind tr.id tr.scope ep.items (first: 100000) { uid }", warmPage/10, decode,
		func(n *epRow) string { return n.UID }, func(n *epRow) (bool, error) {
			u, err := parseUID(n.UID)
			if err != nil {
				return false, err
			}
			if n.Kind != kindEpisode || n.ID == "" {
				return true, nil
			}
			ep := epRef{uid: u, id: n.ID, scope: internScope(n.Scope), members: make([]string, 0, len(n.Items))}
			for _, it := range n.Items {
				v, err := parseUID(it.UID)
				if err != nil {
					return false, err
				}
				if i := mt.find(v); i >= 0 {
					ep.members = append(ep.members, mt.id(i))
					memberOf = append(memberOf, warmMember{mem: int32(i), ep: int32(len(eps))})
				}
			}
			eps = append(eps, ep)
			return true, nil
		})
	if err != nil {
		return st, err
	}
	// The records' part: the episodes' members (a search scores the episodes of its hits by
	// them), then each memory's record with its recall context (the episodes holding it, its
	// TEMPORAL neighbours, its PERSON and THEMATIC associations), while the part's budget lasts.
	// Episodes are listed in uid order, so the members' lists are too.
	recordsFull := false
	for k := range eps {
		ep := &eps[k]
		if !s.cache.warmMembers(e, ep.id, &cachedMembers{uid: uidOf(ep.uid), kind: kindEpisode, scope: ep.scope, members: ep.members}) {
			recordsFull = true
			break
		}
		st.Episodes++
	}
	slices.SortFunc(memberOf, func(a, b warmMember) int {
		if c := cmp.Compare(a.mem, b.mem); c != 0 {
			return c
		}
		return cmp.Compare(a.ep, b.ep)
	})
	temporal := int8(slices.Index(domain.AssociationTypes, domain.AssocTemporal))
	spread := make([]int8, len(contextSpread))
	for k, t := range contextSpread {
		spread[k] = int8(slices.Index(domain.AssociationTypes, t))
	}
	contextOf := func(i int) *domain.MemoryContext {
		mc := &domain.MemoryContext{}
		lo := sort.Search(len(memberOf), func(k int) bool { return int(memberOf[k].mem) >= i })
		for k := lo; k < len(memberOf) && int(memberOf[k].mem) == i; k++ {
			mc.Episodes = append(mc.Episodes, eps[memberOf[k].ep].id)
		}
		// In the order MemoryContexts reads them: by type, forward before reverse, by uid.
		mine := edgesOf(i)
		for _, fe := range mine {
			if fe.typ == temporal {
				mc.Temporal = append(mc.Temporal, domain.Neighbour{ID: mt.id(int(fe.far)), Type: domain.AssocTemporal, Strength: fe.strength})
			}
		}
		for k, ti := range spread {
			for _, fe := range mine {
				if fe.typ == ti {
					mc.Associated = append(mc.Associated, domain.Neighbour{ID: mt.id(int(fe.far)), Type: contextSpread[k], Strength: fe.strength})
				}
			}
		}
		return mc
	}
	recorded := make([]bool, mt.len()) // the memories whose records are cached
	if !recordsFull {
		err = pagesOf(ctx, s, "mem.state", "tr.kind "+memFields, warmPage, decode,
			func(n *memNode) string { return n.UID }, func(n *memNode) (bool, error) {
				if n.NodeKind != kindMemory || n.ID == "" {
					return true, nil
				}
				u, err := parseUID(n.UID)
				if err != nil {
					return false, err
				}
				i := mt.find(u)
				if i < 0 || mt.id(i) != n.ID {
					return true, nil // stored since the table's read: its next read fills it
				}
				n.ID, n.UID = mt.id(i), mt.uid(i) // the strings its edges and neighbours share (same uid: found by it)
				if !s.cache.warmMemory(e, n) {
					recordsFull = true
					return false, nil // stop: the budget is spent
				}
				recorded[i] = true
				st.Memories++
				if i >= keep {
					return true, nil // its edges were not kept: its context's next read fills it
				}
				if !s.cache.warmContext(e, n.ID, &cachedContext{uid: n.UID, kind: kindMemory, scope: internScope(n.Scope), ctx: contextOf(i)}) {
					recordsFull = true
					return false, nil
				}
				st.Contexts++
				return true, nil
			})
		if err != nil {
			return st, err
		}
	}
	// The states of the memories whose records did not fit, in the walk's part.
	for i := range mt.len() {
		if recorded[i] {
			continue
		}
		ok, filled := s.cache.warmState(e, mt.id(i), &cachedState{uid: mt.uid(i), state: mt.states[i]})
		if !ok {
			walkFull = true
			break
		}
		if filled {
			st.States++
		}
	}
	st.Full = walkFull || recordsFull
	s.cache.mu.Lock()
	st.Bytes = s.cache.used + s.cache.walkUsed
	s.cache.mu.Unlock()
	return st, nil
}

// warmEnd is an association seen from one end (by index in the warm table) while Warm joins
// the edges read.
type warmEnd struct {
	strength  float64
	from, far int32
	typ       int8
	reverse   bool
}

// warmMember says a memory (by index in the warm table) is a member of an episode (by index).
type warmMember struct{ mem, ep int32 }

// warmTable is every memory of the store while Warm runs, in uid order: its uid, its id (as the
// UUID's 16 bytes where the id is a canonical UUID, which it is unless written otherwise) and
// its state — about 40 bytes a memory, where the ids as strings would take 64 more. The strings
// of ids and uids are made once each, when first asked for, and kept (16 bytes a memory for each
// of the two lists): every entry that names a memory — its record, its context, its edges, the
// lists of its neighbours and episodes — then shares one string, not one of its own.
type warmTable struct {
	uids   []uint64
	ids    [][16]byte
	odd    map[int]string // ids that are not canonical UUIDs, by index
	states []domain.LifecycleState
	idStr  []string // by index, "" until asked for
	uidStr []string
}

func (t *warmTable) len() int { return len(t.uids) }

func (t *warmTable) add(u uint64, id string, state domain.LifecycleState) {
	if n := len(t.uids); n > 0 && t.uids[n-1] >= u {
		return // pages come in uid order; a repeat is a page boundary's
	}
	var b [16]byte
	if parsed, err := uuid.Parse(id); err == nil && parsed.String() == id {
		b = parsed
	} else {
		if t.odd == nil {
			t.odd = map[int]string{}
		}
		t.odd[len(t.uids)] = id
	}
	t.uids = append(t.uids, u)
	t.ids = append(t.ids, b)
	t.states = append(t.states, domain.LifecycleState(internEnum(string(state))))
}

// find returns the index of uid u, -1 when it is no memory.
func (t *warmTable) find(u uint64) int {
	i, ok := slices.BinarySearch(t.uids, u)
	if !ok {
		return -1
	}
	return i
}

// id is the id of the memory at index i.
func (t *warmTable) id(i int) string {
	if s, ok := t.odd[i]; ok {
		return s
	}
	if t.idStr == nil {
		t.idStr = make([]string, len(t.uids))
	}
	if t.idStr[i] == "" {
		t.idStr[i] = uuid.UUID(t.ids[i]).String()
	}
	return t.idStr[i]
}

// uid is the uid of the memory at index i, as the engine writes it.
func (t *warmTable) uid(i int) string {
	if t.uidStr == nil {
		t.uidStr = make([]string, len(t.uids))
	}
	if t.uidStr[i] == "" {
		t.uidStr[i] = uidOf(t.uids[i])
	}
	return t.uidStr[i]
}

// adjBytes is what a cached adjacency of n edges takes (cachedAdj.bytes).
func adjBytes(n int) int { return 96 + 64*n }

func uidOf(u uint64) string { return "0x" + strconv.FormatUint(u, 16) }

func parseUID(s string) (uint64, error) {
	if len(s) < 3 || s[:2] != "0x" {
		return 0, fmt.Errorf("bad uid %q", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}
