package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

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
// flashbacks that follow a start: every memory's associations (both directions, with strengths)
// in the walk's part of the cache; then, in the records' part, the episodes' members and each
// memory's record with its recall context; then the states of the memories whose records did
// not fit, each part until its budget is spent. Nothing is evicted
// to make room, and the cache's rules hold as for any read: a node written since Warm began is
// not filled (its next read fills it). It reads the graph by predicate — every memory's id and
// state, then the edges of each association type — and joins them here, which costs a fraction
// of reading each memory's neighbourhood. A cluster store has no cache: it returns at once.
func (s *Store) Warm(ctx context.Context) (st WarmStats, err error) {
	if s.cache == nil {
		return st, nil
	}
	start := time.Now()
	defer func() { st.Duration = time.Since(start) }()
	e := s.cache.begin()
	defer s.cache.end(e)

	// Every memory: uid → id and state.
	type memRef struct {
		id, scope string
		state     domain.LifecycleState
		edges     []farEdge
		episodes  []uint64
	}
	mems := map[uint64]*memRef{}
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
				mems[u] = &memRef{id: n.ID, scope: n.Scope, state: domain.LifecycleState(n.State)}
			}
			return true, nil
		})
	if err != nil {
		return st, err
	}
	// Every association, forward and reverse, by type.
	for ti, at := range domain.AssociationTypes {
		p := assocPred(at)
		err := pagesOf(ctx, s, p, "uid "+p+" @facets(strength) { uid }", warmPage, decode, rowUID,
			func(row *map[string]any) (bool, error) {
				u, err := parseUID(rowUID(row))
				if err != nil {
					return false, err
				}
				from := mems[u]
				edges, _ := (*row)[p].([]any)
				for _, x := range edges {
					em, _ := x.(map[string]any)
					uidStr, _ := em["uid"].(string)
					v, err := parseUID(uidStr)
					if err != nil {
						return false, err
					}
					st := num(em[p+"|strength"])
					// An end that is no memory has no id: the walk's read skips such an edge.
					if to := mems[v]; from != nil && to != nil {
						from.edges = append(from.edges, farEdge{far: v, typ: ti, strength: st})
						to.edges = append(to.edges, farEdge{far: u, typ: ti, reverse: true, strength: st})
					}
				}
				return true, nil
			})
		if err != nil {
			return st, err
		}
	}
	// The walk's cache entries: each memory's associations in the order its read gives them
	// (edgesOf: by type, forward before reverse, each list by the far end's uid).
	uids := make([]uint64, 0, len(mems))
	for u := range mems {
		uids = append(uids, u)
	}
	slices.Sort(uids)
	for _, u := range uids {
		m := mems[u]
		slices.SortFunc(m.edges, func(a, b farEdge) int {
			if c := cmp.Compare(a.typ, b.typ); c != 0 {
				return c
			}
			if a.reverse != b.reverse {
				if a.reverse {
					return 1
				}
				return -1
			}
			return cmp.Compare(a.far, b.far)
		})
		edges := make([]domain.Edge, len(m.edges))
		for i, fe := range m.edges {
			edges[i] = domain.Edge{From: m.id, To: mems[fe.far].id, Type: domain.AssociationTypes[fe.typ], Strength: fe.strength}
		}
		if !s.cache.warmAdj(e, m.id, &cachedAdj{uid: uidOf(u), edges: edges}) {
			st.Full = true
			break
		}
		st.Adjacencies++
		st.Edges += len(edges)
	}
	st.WalksAfter = time.Since(start)
	// Episodes: which hold each memory, and their members, for the records' part below.
	type epRef struct {
		id, scope string
		uid       uint64
		members   []string
	}
	eps := map[uint64]*epRef{}
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
			ep := &epRef{id: n.ID, scope: n.Scope, uid: u, members: make([]string, 0, len(n.Items))}
			eps[u] = ep
			for _, it := range n.Items {
				v, err := parseUID(it.UID)
				if err != nil {
					return false, err
				}
				if m := mems[v]; m != nil {
					m.episodes = append(m.episodes, u)
					ep.members = append(ep.members, m.id)
				}
			}
			return true, nil
		})
	if err != nil {
		return st, err
	}
	// The records' part: the episodes' members (a search scores the episodes of its hits by
	// them), then each memory's record with its recall context (the episodes holding it, its
	// TEMPORAL neighbours, its PERSON and THEMATIC associations), while the part's budget lasts.
	epUIDs := make([]uint64, 0, len(eps))
	for u := range eps {
		epUIDs = append(epUIDs, u)
	}
	slices.Sort(epUIDs)
	for _, u := range epUIDs {
		ep := eps[u]
		if !s.cache.warmMembers(e, ep.id, &cachedMembers{uid: uidOf(u), kind: kindEpisode, scope: internScope(ep.scope), members: ep.members}) {
			st.Full = true
			break
		}
		st.Episodes++
	}
	temporal := slices.Index(domain.AssociationTypes, domain.AssocTemporal)
	contextOf := func(m *memRef) *domain.MemoryContext {
		mc := &domain.MemoryContext{}
		slices.Sort(m.episodes)
		for _, ep := range m.episodes {
			mc.Episodes = append(mc.Episodes, eps[ep].id)
		}
		// In the order MemoryContexts reads them: by type, forward before reverse, by uid.
		for _, fe := range m.edges {
			if fe.typ == temporal {
				mc.Temporal = append(mc.Temporal, domain.Neighbour{ID: mems[fe.far].id, Type: domain.AssocTemporal, Strength: fe.strength})
			}
		}
		for _, t := range contextSpread {
			ti := slices.Index(domain.AssociationTypes, t)
			for _, fe := range m.edges {
				if fe.typ == ti {
					mc.Associated = append(mc.Associated, domain.Neighbour{ID: mems[fe.far].id, Type: t, Strength: fe.strength})
				}
			}
		}
		return mc
	}
	if !st.Full {
		err = pagesOf(ctx, s, "mem.state", "tr.kind "+memFields, warmPage, decode,
			func(n *memNode) string { return n.UID }, func(n *memNode) (bool, error) {
				if n.NodeKind != kindMemory || n.ID == "" {
					return true, nil
				}
				u, err := parseUID(n.UID)
				if err != nil {
					return false, err
				}
				if !s.cache.warmMemory(e, n) {
					st.Full = true
					return false, nil // stop: the budget is spent
				}
				st.Memories++
				m := mems[u]
				if m == nil || m.id != n.ID {
					return true, nil // stored since the walk's read: its next read fills it
				}
				if !s.cache.warmContext(e, m.id, &cachedContext{uid: n.UID, kind: kindMemory, scope: internScope(m.scope), ctx: contextOf(m)}) {
					st.Full = true
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
	for _, u := range uids {
		m := mems[u]
		ok, filled := s.cache.warmState(e, m.id, &cachedState{uid: uidOf(u), state: m.state})
		if !ok {
			st.Full = true
			break
		}
		if filled {
			st.States++
		}
	}
	s.cache.mu.Lock()
	st.Bytes = s.cache.used + s.cache.walkUsed
	s.cache.mu.Unlock()
	return st, nil
}

// farEdge is an association seen from one end while Warm joins the edges read.
type farEdge struct {
	far      uint64
	typ      int
	reverse  bool
	strength float64
}

func uidOf(u uint64) string { return "0x" + strconv.FormatUint(u, 16) }

func parseUID(s string) (uint64, error) {
	if len(s) < 3 || s[:2] != "0x" {
		return 0, fmt.Errorf("bad uid %q", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}
