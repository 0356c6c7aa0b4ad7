package graph

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// contextSpread are the association types a recall context holds besides TEMPORAL, in order.
var contextSpread = []domain.AssociationType{domain.AssocPerson, domain.AssocThematic}

// MemoryContexts returns, for each of ids that is a memory of scope, the episodes grouping it and
// its TEMPORAL neighbours, PERSON and THEMATIC associations — one query for all candidates of a
// search. The contexts may be shared with the read cache: callers must not modify them.
func (s *Store) MemoryContexts(ctx context.Context, scopeID string, ids []string) (map[string]*domain.MemoryContext, error) {
	out := map[string]*domain.MemoryContext{}
	ids = validIDs(ids)
	if len(ids) == 0 || !domain.ValidID(scopeID) {
		return out, nil
	}
	var hit map[string]*cachedContext
	miss := ids
	if s.cache != nil {
		hit, miss = s.cache.contexts(ids)
	}
	for id, cc := range hit {
		if cc.kind == kindMemory && cc.scope == scopeID {
			out[id] = cc.ctx
		}
	}
	if len(miss) == 0 {
		return out, nil
	}
	var e uint64
	if s.cache != nil {
		e = s.cache.begin()
		defer s.cache.end(e)
	}
	read, err := s.contextsRead(ctx, miss)
	if err != nil {
		return nil, err
	}
	for id, cc := range read {
		if s.cache != nil {
			s.cache.fillContext(e, id, &cachedContext{uid: cc.uid, kind: cc.kind, scope: internScope(cc.scope), ctx: cc.ctx})
		}
		if cc.kind == kindMemory && cc.scope == scopeID {
			out[id] = cc.ctx
		}
	}
	return out, nil
}

// contextsRead reads the recall contexts of the nodes with ids from the graph, by id, whatever
// their kind and scope (the cache's fills and checks need both).
func (s *Store) contextsRead(ctx context.Context, ids []string) (map[string]*cachedContext, error) {
	out := map[string]*cachedContext{}
	pred := assocPred(domain.AssocTemporal)
	spread := contextSpread
	edgesQ := ""
	for _, t := range spread {
		p := assocPred(t)
		edgesQ += " " + p + " @facets(strength) { tr.id } ~" + p + " @facets(strength) { tr.id }"
	}
	var r struct {
		Q []map[string]any `json:"q"`
	}
	// Kind and scope are checked by the caller: eq filters would read their whole index posting lists.
	q := `{ q(func: eq(tr.id, ` + idList(ids) + `)) {
		uid tr.kind tr.scope tr.id eps: ~ep.items { tr.id } ` + pred + ` @facets(strength) { tr.id } ~` + pred + ` @facets(strength) { tr.id }` + edgesQ + ` } }`
	if err := s.read(ctx, q, nil, &r); err != nil {
		return nil, err
	}
	for _, row := range r.Q {
		id, _ := row["tr.id"].(string)
		kind, _ := row["tr.kind"].(string)
		scope, _ := row["tr.scope"].(string)
		mc := &domain.MemoryContext{}
		if eps, ok := row["eps"].([]any); ok {
			for _, e := range eps {
				if em, ok := e.(map[string]any); ok {
					if eid, ok := em["tr.id"].(string); ok {
						mc.Episodes = append(mc.Episodes, eid)
					}
				}
			}
		}
		for _, key := range []string{pred, "~" + pred} {
			edges, _ := row[key].([]any)
			for _, e := range edges {
				em, _ := e.(map[string]any)
				other, _ := em["tr.id"].(string)
				if other == "" {
					continue
				}
				mc.Temporal = append(mc.Temporal, domain.Neighbour{ID: other, Type: domain.AssocTemporal,
					Strength: num(em[key+"|strength"])})
			}
		}
		for _, t := range spread {
			p := assocPred(t)
			for _, key := range []string{p, "~" + p} {
				edges, _ := row[key].([]any)
				for _, e := range edges {
					em, _ := e.(map[string]any)
					if other, _ := em["tr.id"].(string); other != "" {
						mc.Associated = append(mc.Associated, domain.Neighbour{ID: other, Type: t, Strength: num(em[key+"|strength"])})
					}
				}
			}
		}
		if id != "" {
			uid, _ := row["uid"].(string)
			out[id] = &cachedContext{uid: uid, kind: kind, scope: scope, ctx: mc}
		}
	}
	return out, nil
}

// ScopePersons returns the distinct values of the scope's person facets.
func (s *Store) ScopePersons(ctx context.Context, scopeID string) (out []string, err error) {
	if !domain.ValidID(scopeID) {
		return nil, nil
	}
	var r struct {
		Q []struct {
			Groups []struct {
				Value string `json:"fc.value"`
			} `json:"@groupby"`
		} `json:"q"`
	}
	if s.cache != nil {
		if names, ok := s.cache.scopePersons(scopeID); ok {
			return append([]string(nil), names...), nil
		}
		e := s.cache.begin()
		defer s.cache.end(e)
		defer func() {
			if err == nil {
				s.cache.fillPersons(e, scopeID, append([]string(nil), out...))
			}
		}()
	}
	if err := s.read(ctx, `query q($s: string) { q(func: eq(fc.type, "person")) @filter(eq(tr.scope, $s) AND eq(tr.kind, "Facet")) @groupby(fc.value) { count(uid) } }`,
		map[string]string{"$s": scopeID}, &r); err != nil {
		return nil, err
	}
	for _, q := range r.Q {
		for _, g := range q.Groups {
			if strings.TrimSpace(g.Value) != "" {
				out = append(out, g.Value)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// SimilarMemories returns up to k memories of scope nearest to vec by cosine similarity. The
// HNSW index is global, so it is asked for more neighbours than k and the scope filtered after.
func (s *Store) SimilarMemories(ctx context.Context, scopeID string, vec []float32, k int) ([]domain.VectorHit, error) {
	if !domain.ValidID(scopeID) || len(vec) == 0 || k <= 0 {
		return nil, nil
	}
	over := min(max(k*10, 100), 10000)
	var r struct {
		Q []struct {
			ID     string    `json:"tr.id"`
			Vector []float32 `json:"emb.vector"`
		} `json:"q"`
	}
	q := `query q($v: float32vector, $s: string) { q(func: similar_to(emb.vector, ` + itoa(over) + `, $v)) @filter(eq(tr.scope, $s) AND eq(tr.kind, "Memory")) { tr.id emb.vector } }`
	if err := s.read(ctx, q, map[string]string{"$v": vectorLiteral(vec), "$s": scopeID}, &r); err != nil {
		return nil, err
	}
	out := make([]domain.VectorHit, 0, len(r.Q))
	for _, n := range r.Q {
		out = append(out, domain.VectorHit{MemoryID: n.ID, Similarity: cosine(vec, n.Vector)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Similarity != out[j].Similarity {
			return out[i].Similarity > out[j].Similarity
		}
		return out[i].MemoryID < out[j].MemoryID
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// HasEmbeddings reports whether any memory of scope has a vector.
func (s *Store) HasEmbeddings(ctx context.Context, scopeID string) (bool, error) {
	if !domain.ValidID(scopeID) {
		return false, nil
	}
	var r struct {
		Q []struct {
			N int `json:"n"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($s: string) { var(func: has(emb.vector)) @filter(eq(tr.scope, $s)) { v as uid }
		q(func: uid(v), first: 1) { n: count(uid) } }`, map[string]string{"$s": scopeID}, &r); err != nil {
		return false, err
	}
	return len(r.Q) > 0 && r.Q[0].N > 0, nil
}

// MissingEmbeddings returns up to limit memories of scope without a vector.
func (s *Store) MissingEmbeddings(ctx context.Context, scopeID string, limit int) ([]*domain.Memory, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	if limit <= 0 {
		limit = 1000
	}
	var r struct {
		Q []memNode `json:"q"`
	}
	if err := s.read(ctx, `query q($s: string) { q(func: eq(tr.scope, $s), first: `+itoa(limit)+`) @filter(eq(tr.kind, "Memory") AND NOT has(emb.vector)) { `+memFields+` } }`,
		map[string]string{"$s": scopeID}, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.Memory, 0, len(r.Q))
	for i := range r.Q {
		m, err := r.Q[i].memory()
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
