package graph

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// InsertMemories persists new memories and their events, all or none.
func (s *Store) InsertMemories(ctx context.Context, req domain.Request, ms []*domain.Memory, events []*domain.Event) ([]*domain.Memory, error) {
	return s.InsertScoredMemories(ctx, req, ms, events, nil)
}

// InsertScoredMemories is InsertMemories with the memories' first scores in the same write
// (domain.ScoredInserter).
func (s *Store) InsertScoredMemories(ctx context.Context, req domain.Request, ms []*domain.Memory, events []*domain.Event, scores []domain.ScoreUpdate) ([]*domain.Memory, error) {
	if len(ms) == 0 {
		return []*domain.Memory{}, nil
	}
	byID := make(map[string]*domain.ScoreUpdate, len(scores))
	for i := range scores {
		u := &scores[i]
		checkpoint, err := checkScore(*u)
		if err != nil {
			return nil, err
		}
		if u.Ref != "" || u.Tier != "" || u.ExpectVersion != 0 || !checkpoint {
			return nil, domain.FieldErrorf("scores", "a first score names its memory by id, moves no tier and gives its checkpoint")
		}
		byID[u.MemoryID] = u
	}
	ids := make([]string, 0, len(ms))
	scopes := map[string]bool{}
	for _, m := range ms {
		if !domain.ValidID(m.ID) || !domain.ValidID(m.ScopeID) {
			return nil, domain.Errorf(domain.EINVALID, "memory and scope ids must be UUIDs")
		}
		ids = append(ids, m.ID)
		scopes[m.ScopeID] = true
	}
	scopeIDs := make([]string, 0, len(scopes))
	for id := range scopes {
		scopeIDs = append(scopeIDs, id)
	}
	// What needs no read is refused before the write: an id given twice, or to a memory and
	// its scope.
	seen := make(map[string]bool, len(ms))
	for _, m := range ms {
		if seen[m.ID] {
			return nil, domain.Errorf(domain.ECONFLICT, "id %s appears twice in the batch", m.ID)
		}
		if scopes[m.ID] {
			return nil, domain.Errorf(domain.ECONFLICT, "id %s already exists", m.ID)
		}
		seen[m.ID] = true
	}
	// What depends on nothing the write reads or assigns is made before the write lock is taken:
	// the memories' nodes and the events' bodies. A storeMemory holds the lock for the engine's
	// mutation and commit, not for JSON (BenchmarkInsertScoredMemoryParallel).
	objs := make([]map[string]any, len(ms))
	docs := make([]string, len(ms))
	evs := slices.Clone(events)
	for i, m := range ms {
		u := byID[m.ID]
		if u != nil {
			// The memory is returned, and cached, as written.
			m.Salience = u.Salience
			evs = append(evs, u.Events...)
		}
		obj, err := memoryJSON(fmt.Sprintf("_:m%d", i), m, true)
		if err != nil {
			return nil, err
		}
		if u != nil {
			obj["mem.score"] = packScore(*u.Potential, *u.Recency, *u.ScoredAt, m.Claimed, m.Version, u.Salience)
			if u.ReinforcedAt != nil {
				obj["mem.reinforcedAt"] = ts(*u.ReinforcedAt)
			}
		}
		objs[i], docs[i] = obj, obj["mem.doc"].(string)
	}
	rendered := s.renderEvents(evs)
	return write(ctx, s, &req, func(t *tx) ([]*domain.Memory, error) {
		// One lookup of the scopes' ids and the new ids: the scopes must exist, the ids must not.
		// A scope this process found before, and ids drawn for this request, are not looked up.
		var lookup []string
		for _, id := range scopeIDs {
			if !s.knownScopes[id] {
				lookup = append(lookup, id)
			}
		}
		checked := len(lookup)
		if !req.FreshIDs {
			lookup = append(lookup, ids...)
		}
		if len(lookup) > 0 {
			var r struct {
				Q []struct {
					ID   string `json:"tr.id"`
					Kind string `json:"tr.kind"`
				} `json:"q"`
			}
			if err := t.query(`{ q(func: eq(tr.id, `+idList(lookup)+`)) { tr.id tr.kind } }`, nil, &r); err != nil {
				return nil, err
			}
			found := map[string]bool{}
			for _, n := range r.Q {
				if !scopes[n.ID] { // a new id (no memory is named like its scope)
					return nil, domain.Errorf(domain.ECONFLICT, "id %s already exists", n.ID)
				}
				if n.Kind == kindScope {
					found[n.ID] = true
				}
			}
			for _, id := range lookup[:checked] {
				if !found[id] {
					return nil, domain.Errorf(domain.ENOTFOUND, "scope %s not found", id)
				}
				s.listScope(id)
			}
		}
		for i, m := range ms {
			t.inScope(m.ScopeID)
			t.set(objs[i])
		}
		t.emitRendered(rendered, evs...)
		if s.cache != nil {
			// What was just written is what a read would find: new memories have no episodes
			// and no associations until a later write, which names them.
			t.onCommit(func(uids map[string]string) {
				for i, m := range ms {
					if uid := uids[fmt.Sprintf("m%d", i)]; uid != "" {
						s.cache.stored(nodeOf(uid, m, docs[i]))
					}
				}
			})
		}
		return ms, nil
	})
}

// memoryByID reads one memory inside a unit.
func (t *tx) memoryByID(id string) (*memNode, error) {
	var r struct {
		Q []memNode `json:"q"`
	}
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %q not found", id)
	}
	if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Memory")) { `+memFields+` } }`,
		map[string]string{"$id": id}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
	}
	return &r.Q[0], nil
}

// Memory loads one memory.
func (s *Store) Memory(ctx context.Context, id string) (*domain.Memory, error) {
	ms, err := s.Memories(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
	}
	return ms[0], nil
}

// Memories loads the memories that exist among ids, in the order of ids.
func (s *Store) Memories(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	return s.memories(ctx, ids, true)
}

// SharedMemories is Memories without copying what the read cache holds: the memories must not
// be modified (domain.SharedMemoryReader).
func (s *Store) SharedMemories(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	return s.memories(ctx, ids, false)
}

var _ domain.SharedMemoryReader = (*Store)(nil)

func (s *Store) memories(ctx context.Context, ids []string, clone bool) ([]*domain.Memory, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return []*domain.Memory{}, nil
	}
	byID, miss := map[string]*domain.Memory{}, valid
	if s.cache != nil {
		byID, miss = s.cache.memories(valid, clone)
	}
	if len(miss) > 0 {
		var e uint64
		if s.cache != nil {
			e = s.cache.begin()
			defer s.cache.end(e)
		}
		var r struct {
			Q []memNode `json:"q"`
		}
		// The kind is checked here, not with @filter(eq(tr.kind, …)): an eq filter reads the
		// kind's whole index posting list (every memory of the graph) to intersect it with a
		// short list.
		if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(miss)+`)) { tr.kind `+memFields+` } }`, nil, &r); err != nil {
			return nil, err
		}
		for i := range r.Q {
			if r.Q[i].NodeKind != kindMemory {
				continue
			}
			m, err := r.Q[i].memory()
			if err != nil {
				return nil, err
			}
			byID[m.ID] = m
			if s.cache != nil {
				s.cache.fillMemory(e, &r.Q[i])
			}
		}
	}
	out := make([]*domain.Memory, 0, len(byID))
	for _, id := range valid {
		if m, ok := byID[id]; ok {
			out = append(out, m)
			delete(byID, id)
		}
	}
	return out, nil
}

// filterDQL renders f as a DQL filter over memory nodes. Enum values are checked by the caller
// and re-checked here; tags travel as query variables.
func filterDQL(f domain.MemoryFilter, vars map[string]string) (string, error) {
	parts := []string{`eq(tr.kind, "Memory")`}
	orOf := func(pred string, vals []string) string {
		q := make([]string, len(vals))
		for i, v := range vals {
			q[i] = fmt.Sprintf(`eq(%s, %q)`, pred, v)
		}
		return "(" + strings.Join(q, " OR ") + ")"
	}
	if len(f.Tiers) > 0 {
		vals := make([]string, len(f.Tiers))
		for i, t := range f.Tiers {
			if !t.Valid() {
				return "", domain.FieldErrorf("filter.tiers", "unknown tier %q", t)
			}
			vals[i] = string(t)
		}
		parts = append(parts, orOf("mem.tier", vals))
	}
	if len(f.Kinds) > 0 {
		vals := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			if !k.Valid() {
				return "", domain.FieldErrorf("filter.kinds", "unknown kind %q", k)
			}
			vals[i] = string(k)
		}
		parts = append(parts, orOf("mem.kind", vals))
	}
	if len(f.States) > 0 {
		vals := make([]string, len(f.States))
		for i, st := range f.States {
			if !st.Valid() {
				return "", domain.FieldErrorf("filter.states", "unknown state %q", st)
			}
			vals[i] = string(st)
		}
		parts = append(parts, orOf("mem.state", vals))
	}
	for i, tag := range f.Tags {
		name := fmt.Sprintf("$tag%d", i)
		vars[name] = tag
		parts = append(parts, fmt.Sprintf("eq(mem.tags, %s)", name))
	}
	if f.From != nil {
		vars["$from"] = ts(*f.From)
		parts = append(parts, "ge(mem.occurredAt, $from)")
	}
	if f.To != nil {
		vars["$to"] = ts(*f.To)
		parts = append(parts, "lt(mem.occurredAt, $to)")
	}
	if f.Claimed != nil {
		if *f.Claimed {
			parts = append(parts, "eq(mem.claimed, true)")
		} else {
			parts = append(parts, "NOT eq(mem.claimed, true)")
		}
	}
	return strings.Join(parts, " AND "), nil
}

// varDecl declares the query variables in vars for a named query block.
func varDecl(vars map[string]string) string {
	if len(vars) == 0 {
		return ""
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		names[i] = k + ": string"
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// ListMemories pages through a scope's memories, newest occurredAt first (ties by id).
func (s *Store) ListMemories(ctx context.Context, scopeID string, f domain.MemoryFilter, p domain.Page) (*domain.MemoryPage, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	first := p.First
	if first <= 0 {
		first = 50
	}
	if first > 1000 {
		return nil, domain.FieldErrorf("first", "at most 1000 per page")
	}
	vars := map[string]string{"$scope": scopeID}
	filter, err := filterDQL(f, vars)
	if err != nil {
		return nil, err
	}
	cursor := ""
	if p.After != "" {
		at, id, err := decodeCursor(p.After)
		if err != nil {
			return nil, err
		}
		vars["$cat"], vars["$cid"] = ts(at), id
		cursor = `@filter(lt(mem.occurredAt, $cat) OR (eq(mem.occurredAt, $cat) AND lt(tr.id, $cid)))`
	}
	q := `query q` + varDecl(vars) + ` {
		m as var(func: eq(tr.scope, $scope)) @filter(` + filter + `)
		total(func: uid(m)) { n: count(uid) }
		page(func: uid(m), orderdesc: mem.occurredAt, orderdesc: tr.id, first: ` + fmt.Sprint(first+1) + `) ` + cursor + ` { ` + memFields + ` }
	}`
	var r struct {
		Total []struct {
			N int `json:"n"`
		} `json:"total"`
		Page []memNode `json:"page"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := &domain.MemoryPage{Memories: []*domain.Memory{}}
	if len(r.Total) > 0 {
		out.TotalCount = r.Total[0].N
	}
	if len(r.Page) > first {
		out.HasNext = true
		r.Page = r.Page[:first]
	}
	for i := range r.Page {
		m, err := r.Page[i].memory()
		if err != nil {
			return nil, err
		}
		out.Memories = append(out.Memories, m)
	}
	if n := len(out.Memories); n > 0 {
		last := out.Memories[n-1]
		out.EndCursor = encodeCursor(last.OccurredAt, last.ID)
	}
	return out, nil
}

func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(ts(at) + "|" + id))
}

func decodeCursor(c string) (time.Time, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	bad := domain.FieldErrorf("after", "is not a cursor returned by this API")
	if err != nil {
		return time.Time{}, "", bad
	}
	at, id, ok := strings.Cut(string(raw), "|")
	if !ok || !domain.ValidID(id) {
		return time.Time{}, "", bad
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return time.Time{}, "", bad
	}
	return t, id, nil
}

// UpdateMemory runs a read-modify-write of one memory; its version grows by one, so concurrent
// writers of the same memory conflict and retry instead of losing an update.
func (s *Store) UpdateMemory(ctx context.Context, req domain.Request, id string, fn domain.MemoryUpdate) (*domain.Memory, error) {
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Memory, error) {
		n, err := t.memoryByID(id)
		if err != nil {
			return nil, err
		}
		m, err := n.memory()
		if err != nil {
			return nil, err
		}
		t.inScope(n.Scope)
		orig := m.Clone()
		evs, err := fn(m)
		if err != nil {
			return nil, err
		}
		if m.ID != n.ID || m.ScopeID != n.Scope {
			return nil, domain.Errorf(domain.EINVALID, "a memory's id and scope never change")
		}
		m.Version = n.Version + 1
		obj, err := memoryJSON(n.UID, m, false)
		if err != nil {
			return nil, err
		}
		// Only what changed is written: the engine's cost is per N-Quad.
		before, err := memoryJSON(n.UID, orig, false)
		if err != nil {
			return nil, err
		}
		for k, v := range obj {
			if k != "uid" && k != "mem.version" && fmt.Sprint(before[k]) == fmt.Sprint(v) {
				delete(obj, k)
			}
		}
		t.set(obj)
		t.emit(evs...)
		return m, nil
	})
}

func reqPtr(r domain.Request) *domain.Request {
	if r.RequestID == "" {
		return nil
	}
	return &r
}

// DeleteMemory removes a memory node, every association touching it and its outgoing
// references (see DeleteArtifact: references pointing at it stay, broken).
func (s *Store) DeleteMemory(ctx context.Context, req domain.Request, id string, fn domain.MemoryUpdate) (*domain.Memory, error) {
	return s.deleteMemory(ctx, req, id, fn)
}

func reverseAssocFields() string {
	var b strings.Builder
	for _, at := range domain.AssociationTypes {
		fmt.Fprintf(&b, "~assoc.%s { uid } ", at)
	}
	return b.String()
}

// RecordAccesses raises access counts and last-access times of many memories in one write.
// Memories deleted meanwhile are skipped, with their MemoryAccessed.
func (s *Store) RecordAccesses(ctx context.Context, accesses []domain.Access, events []*domain.Event) error {
	if len(accesses) == 0 && len(events) == 0 {
		return nil
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		_, err := t.applyChanges(&domain.Changes{Accesses: accesses, Events: events})
		return struct{}{}, err
	})
	return err
}
