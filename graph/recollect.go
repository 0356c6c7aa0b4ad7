package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Neighbours returns one level of associations of at least floor from the given memories, both
// directions, to active memories of the same scope. On the embedded engine each memory's
// associations come from the read cache when it holds them (see readCache), and the states of
// their ends from its memories.
func (s *Store) Neighbours(ctx context.Context, ids []string, floor float64) ([]domain.Edge, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !(floor >= 0 && floor <= 1) {
		return nil, domain.FieldErrorf("floor", "must be within 0..1")
	}
	if s.cache == nil {
		return s.neighboursRead(ctx, ids, floor)
	}
	ids = validIDs(ids)
	adj, miss := s.cache.adjacency(ids)
	// The states of the far ends: as read with the associations just read, else the cached
	// memory's, else read.
	state := map[string]domain.LifecycleState{}
	if len(miss) > 0 {
		e := s.cache.begin()
		defer s.cache.end(e)
		read, err := s.adjacencyRead(ctx, miss, state)
		if err != nil {
			return nil, err
		}
		for id, ca := range read {
			adj[id] = ca.edges
			s.cache.fillAdj(e, id, ca)
		}
	}
	var out []domain.Edge
	var unknown []string
	for _, id := range ids {
		for _, ed := range adj[id] {
			if ed.Strength >= floor {
				out = append(out, ed)
				if _, ok := state[ed.To]; !ok {
					state[ed.To] = ""
					unknown = append(unknown, ed.To)
				}
			}
		}
	}
	if len(unknown) > 0 {
		if err := s.memoryStates(ctx, unknown, state); err != nil {
			return nil, err
		}
	}
	var kept []domain.Edge
	for _, ed := range out {
		if st := state[ed.To]; st != "" && st != domain.StateArchived {
			kept = append(kept, ed)
		}
	}
	return kept, nil
}

// memoryStates sets state[id] for each of ids that is a memory: from the read cache, the rest
// read (and cached).
func (s *Store) memoryStates(ctx context.Context, ids []string, state map[string]domain.LifecycleState) error {
	miss := s.cache.states(ids, state)
	if len(miss) == 0 {
		return nil
	}
	e := s.cache.begin()
	defer s.cache.end(e)
	var r struct {
		Q []struct {
			UID   string `json:"uid"`
			ID    string `json:"tr.id"`
			Kind  string `json:"tr.kind"`
			State string `json:"mem.state"`
		} `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(miss)+`)) { uid tr.id tr.kind mem.state } }`, nil, &r); err != nil {
		return err
	}
	for _, n := range r.Q {
		if n.Kind == kindMemory {
			state[n.ID] = domain.LifecycleState(n.State)
			s.cache.fillState(e, n.ID, &cachedState{uid: n.UID, state: state[n.ID]})
		}
	}
	return nil
}

// adjacencyRead reads every association of the memories ids, both directions, with strengths,
// and sets the state of each far end in state.
func (s *Store) adjacencyRead(ctx context.Context, ids []string, state map[string]domain.LifecycleState) (map[string]*cachedAdj, error) {
	var b strings.Builder
	for _, at := range domain.AssociationTypes {
		p := assocPred(at)
		fmt.Fprintf(&b, `%s @facets(strength) { tr.id mem.state } ~%s @facets(strength) { tr.id mem.state } `, p, p)
	}
	var r struct {
		Q []map[string]any `json:"q"`
	}
	// Only memory nodes carry associations: the root needs no kind filter.
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(ids)+`)) { uid tr.id `+b.String()+` } }`, nil, &r); err != nil {
		return nil, err
	}
	out := make(map[string]*cachedAdj, len(r.Q))
	for _, row := range r.Q {
		from, _ := row["tr.id"].(string)
		uid, _ := row["uid"].(string)
		if from == "" {
			continue
		}
		out[from] = &cachedAdj{uid: uid, edges: edgesOf(row, from, 0, state)}
	}
	return out, nil
}

// edgesOf lists the associations of a row read with every association predicate and its
// reverse, of at least floor, in the order of domain.AssociationTypes, forward before reverse.
// When state is not nil it takes the far ends' mem.state as read.
func edgesOf(row map[string]any, from string, floor float64, state map[string]domain.LifecycleState) []domain.Edge {
	var out []domain.Edge
	eachEdge(row, domain.AssociationTypes, func(at domain.AssociationType, _ string, st float64, em map[string]any) {
		to, _ := em["tr.id"].(string)
		if to == "" {
			return
		}
		if st >= floor {
			out = append(out, domain.Edge{From: from, To: to, Type: at, Strength: st})
		}
		if ls, ok := em["mem.state"].(string); ok && state != nil {
			state[to] = domain.LifecycleState(ls)
		}
	})
	return out
}

// neighboursRead is Neighbours in one query, filtered by the engine: the cluster's way.
func (s *Store) neighboursRead(ctx context.Context, ids []string, floor float64) ([]domain.Edge, error) {
	f := strconv.FormatFloat(floor, 'f', -1, 64)
	var b strings.Builder
	for _, at := range domain.AssociationTypes {
		p := assocPred(at)
		for _, key := range []string{p, "~" + p} {
			// NOT ARCHIVED intersects with a short list; eq(ACTIVE) would read every active memory.
			// Both ends of an association are in one scope (every write of one refuses others).
			fmt.Fprintf(&b, `%s @facets(ge(strength, %s)) @facets(strength) @filter(NOT eq(mem.state, "ARCHIVED")) { tr.id } `, key, f)
		}
	}
	var r struct {
		Q []map[string]any `json:"q"`
	}
	// Only memory nodes carry associations: the root needs no kind filter.
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(ids)+`)) { tr.id `+b.String()+` } }`, nil, &r); err != nil {
		return nil, err
	}
	var out []domain.Edge
	for _, row := range r.Q {
		from, _ := row["tr.id"].(string)
		out = append(out, edgesOf(row, from, floor, nil)...)
	}
	return out, nil
}

// RawRecurse runs the raw DQL traversal total recall is measured against: @recurse over every
// association predicate in both directions from the sources, depth levels deep, following edges
// of at least floor. It returns the number of distinct memories reached. For benchmarks.
func (s *Store) RawRecurse(ctx context.Context, sources []string, depth int, floor float64) (int, error) {
	f := strconv.FormatFloat(floor, 'f', -1, 64)
	var b strings.Builder
	for _, at := range domain.AssociationTypes {
		p := assocPred(at)
		fmt.Fprintf(&b, "%s @facets(ge(strength, %s)) ~%s @facets(ge(strength, %s)) ", p, f, p, f)
	}
	q := fmt.Sprintf(`{ q(func: eq(tr.id, %s)) @recurse(depth: %d, loop: false) { uid %s } }`, idList(sources), depth+1, b.String())
	raw, err := s.b.query(ctx, q, nil)
	if err != nil {
		return 0, err
	}
	var r struct {
		Q []map[string]any `json:"q"`
	}
	if err := decode(raw, &r); err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if u, ok := x["uid"].(string); ok {
				seen[u] = true
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	for _, n := range r.Q {
		walk(n)
	}
	return len(seen), nil
}

// ReflectRows pages through a scope's active memories matching f, in uid order.
func (s *Store) ReflectRows(ctx context.Context, scopeID string, f domain.ReflectFilter, cursor string, limit int) ([]*domain.ReflectRow, string, error) {
	if !domain.ValidID(scopeID) {
		return nil, "", domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	after, err := afterCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 || limit > 10000 {
		limit = 2000
	}
	vars := map[string]string{"$scope": scopeID}
	filter := `eq(tr.kind, "Memory") AND eq(mem.state, "ACTIVE")`
	if len(f.Tiers) > 0 {
		var ts []string
		for _, t := range f.Tiers {
			if !t.Valid() {
				return nil, "", domain.FieldErrorf("tiers", "unknown tier %q", t)
			}
			ts = append(ts, fmt.Sprintf(`eq(mem.tier, %q)`, string(t)))
		}
		filter += " AND (" + strings.Join(ts, " OR ") + ")"
	}
	if !f.Weak {
		// Without the weak criterion only stale or in-span memories can qualify.
		var any []string
		if f.StaleBefore != nil {
			vars["$stale"] = ts(*f.StaleBefore)
			any = append(any, `lt(mem.reinforcedAt, $stale) OR NOT has(mem.reinforcedAt)`)
		}
		if f.From != nil || f.To != nil {
			var span []string
			if f.From != nil {
				vars["$from"] = ts(*f.From)
				span = append(span, "ge(mem.occurredAt, $from)")
			}
			if f.To != nil {
				vars["$to"] = ts(*f.To)
				span = append(span, "lt(mem.occurredAt, $to)")
			}
			any = append(any, "("+strings.Join(span, " AND ")+")")
		}
		if len(any) > 0 {
			filter += " AND (" + strings.Join(any, " OR ") + ")"
		}
	}
	q := fmt.Sprintf(`query q%s { q(func: eq(tr.scope, $scope), first: %d%s) @filter(%s) { %s mem.reinforcedAt %s } }`,
		varDecl(vars), limit, after, filter, memFields, assocFacetFields(""))
	var r struct {
		Q []json.RawMessage `json:"q"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, "", err
	}
	out := make([]*domain.ReflectRow, 0, len(r.Q))
	lastUID := ""
	for _, raw := range r.Q {
		var n struct {
			memNode
			ReinforcedAt *time.Time `json:"mem.reinforcedAt"`
		}
		if err := decode(raw, &n); err != nil {
			return nil, "", err
		}
		var edges map[string]any
		if err := decode(raw, &edges); err != nil {
			return nil, "", err
		}
		m, err := n.memory()
		if err != nil {
			return nil, "", err
		}
		row := &domain.ReflectRow{Memory: m, ReinforcedAt: utcPtr(n.ReinforcedAt)}
		for _, st := range edgeStrengths(edges) {
			row.Associations++
			row.Strongest = max(row.Strongest, st)
		}
		out = append(out, row)
		lastUID = n.UID
	}
	next := ""
	if len(r.Q) == limit {
		next = lastUID
	}
	return out, next, nil
}

// Consolidate merges memories of one scope into a new one.
func (s *Store) Consolidate(ctx context.Context, req domain.Request, ids []string, fn domain.MemoryMerge) (*domain.Memory, error) {
	for _, id := range ids {
		if !domain.ValidID(id) {
			return nil, domain.Errorf(domain.ENOTFOUND, "memory %q not found", id)
		}
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Memory, error) {
		var r struct {
			Q []json.RawMessage `json:"q"`
		}
		q := `{ q(func: eq(tr.id, ` + idList(ids) + `)) @filter(eq(tr.kind, "Memory")) { ` + memFields + ` mem.consolidatedInto { tr.id } ` +
			assocFacetsWithIDs() + ` } }`
		if err := t.query(q, nil, &r); err != nil {
			return nil, err
		}
		type srcNode struct {
			memNode
			Into *struct {
				ID string `json:"tr.id"`
			} `json:"mem.consolidatedInto"`
		}
		nodes := map[string]*srcNode{}
		edgesOf := map[string]map[string]any{}
		for _, raw := range r.Q {
			var n srcNode
			if err := decode(raw, &n); err != nil {
				return nil, err
			}
			var e map[string]any
			if err := decode(raw, &e); err != nil {
				return nil, err
			}
			nodes[n.ID], edgesOf[n.ID] = &n, e
		}
		sources := make([]*domain.Memory, 0, len(ids))
		for _, id := range ids {
			n := nodes[id]
			if n == nil {
				return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
			}
			if n.Scope != nodes[ids[0]].Scope {
				return nil, domain.Errorf(domain.ECROSSSCOPE, "memory %s and memory %s belong to different scopes", ids[0], id)
			}
			if n.Into != nil {
				return nil, domain.Errorf(domain.ECONFLICT, "memory %s was already consolidated into %s", id, n.Into.ID)
			}
			m, err := n.memory()
			if err != nil {
				return nil, err
			}
			sources = append(sources, m)
		}
		t.inScope(sources[0].ScopeID)
		merged, evs, err := fn(sources)
		if err != nil {
			return nil, err
		}
		if merged.ScopeID != sources[0].ScopeID || !domain.ValidID(merged.ID) {
			return nil, domain.Errorf(domain.EINVALID, "a consolidated memory stays in its sources' scope")
		}
		obj, err := memoryJSON("_:merged", merged, true)
		if err != nil {
			return nil, err
		}
		t.set(obj)
		isSource := map[string]bool{}
		for _, id := range ids {
			isSource[id] = true
		}
		// The new memory takes over the sources' associations: per neighbour and type, the
		// strongest.
		type key struct {
			pred, uid string
		}
		best := map[key]float64{}
		nbID := map[string]string{}
		for _, id := range ids {
			n := nodes[id]
			t.set(map[string]any{"uid": n.UID, "mem.state": string(domain.StateArchived), "mem.version": n.Version + 1,
				"mem.consolidatedInto": map[string]any{"uid": "_:merged"}})
			// Archived by the consolidation, not by a digest pass: no pass may remove it.
			t.del(map[string]any{"uid": n.UID, "life.archivedBy": nil})
			for _, at := range domain.AssociationTypes {
				p := assocPred(at)
				for _, k := range []string{p, "~" + p} {
					list, _ := edgesOf[id][k].([]any)
					for _, e := range list {
						em, _ := e.(map[string]any)
						uid, _ := em["uid"].(string)
						other, _ := em["tr.id"].(string)
						if uid == "" || other == "" || isSource[other] {
							continue
						}
						nbID[uid] = other
						if st := num(em[k+"|strength"]); st > best[key{p, uid}] {
							best[key{p, uid}] = st
						}
					}
				}
			}
		}
		now := ts(merged.CreatedAt)
		for k, st := range best {
			facets := func(p string) map[string]any {
				return map[string]any{p + "|strength": st, p + "|cost": 1 - st, p + "|updatedAt": now}
			}
			if merged.ID < nbID[k.uid] {
				e := facets(k.pred)
				e["uid"] = k.uid
				t.set(map[string]any{"uid": "_:merged", k.pred: e})
			} else {
				e := facets(k.pred)
				e["uid"] = "_:merged"
				t.set(map[string]any{"uid": k.uid, k.pred: e})
			}
		}
		t.emit(evs...)
		return merged, nil
	})
}

func assocFacetsWithIDs() string { return assocFacetFields("tr.id") }

// Lineage returns what a memory was merged into and from.
func (s *Store) Lineage(ctx context.Context, id string) (*domain.Lineage, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %q not found", id)
	}
	var r struct {
		Q []struct {
			Into *struct {
				ID string `json:"tr.id"`
			} `json:"mem.consolidatedInto"`
			From []struct {
				ID string `json:"tr.id"`
			} `json:"~mem.consolidatedInto"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Memory")) { uid mem.consolidatedInto { tr.id } ~mem.consolidatedInto { tr.id } } }`,
		map[string]string{"$id": id}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
	}
	out := &domain.Lineage{From: []string{}}
	if into := r.Q[0].Into; into != nil {
		out.Into = into.ID
	}
	for _, x := range r.Q[0].From {
		if x.ID != "" {
			out.From = append(out.From, x.ID)
		}
	}
	return out, nil
}
