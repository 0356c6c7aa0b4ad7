package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// AnalysisTypes lists a scope's analysis types by name.
func (s *Store) AnalysisTypes(ctx context.Context, scopeID string) ([]*domain.AnalysisType, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	var r struct {
		Q []struct {
			Doc string `json:"at.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($s: string) { q(func: eq(tr.scope, $s), first: 10000) @filter(eq(tr.kind, "AnalysisType")) { at.doc } }`,
		map[string]string{"$s": scopeID}, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.AnalysisType, 0, len(r.Q))
	for _, n := range r.Q {
		var d domain.AnalysisType
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("analysis type: bad document: %w", err)
		}
		out = append(out, &d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// AnalysisRuns lists a scope's analysis runs, oldest first.
func (s *Store) AnalysisRuns(ctx context.Context, scopeID string, f domain.RunFilter) ([]*domain.AnalysisRun, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	vars := map[string]string{"$s": scopeID}
	root := `eq(tr.scope, $s)`
	filter := `eq(tr.kind, "AnalysisRun") AND eq(tr.scope, $s)`
	if f.EpisodeID != "" {
		if !domain.ValidID(f.EpisodeID) {
			return []*domain.AnalysisRun{}, nil
		}
		root = `eq(ar.episode, "` + f.EpisodeID + `")`
	}
	if f.TypeID != "" {
		if !domain.ValidID(f.TypeID) {
			return []*domain.AnalysisRun{}, nil
		}
		filter += ` AND eq(ar.type, "` + f.TypeID + `")`
	}
	if f.Status != "" {
		if !f.Status.Valid() {
			return nil, domain.FieldErrorf("status", "unknown status %q", f.Status)
		}
		filter += ` AND eq(ar.status, "` + string(f.Status) + `")`
	}
	first := f.First
	if first <= 0 || first > 100000 {
		first = 100000
	}
	var r struct {
		Q []struct {
			Status string `json:"ar.status"`
			Doc    string `json:"ar.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($s: string) { q(func: `+root+`, first: `+fmt.Sprint(first)+`) @filter(`+filter+`) { ar.status ar.doc } }`, vars, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.AnalysisRun, 0, len(r.Q))
	for _, n := range r.Q {
		var d domain.AnalysisRun
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("analysis run: bad document: %w", err)
		}
		d.Status = domain.AnalysisStatus(n.Status)
		out = append(out, &d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// UnfinishedRuns lists the analysis runs of every scope that are pending or running, a page at a
// time in the store's order: cursor "" starts, the cursor returned continues ("" after the last
// page). One read keyed on ar.status (exact index): it costs the runs it returns, not the sizes
// of the scopes. Only run nodes carry ar.status, so the page needs no filter, and a full page
// means more may follow.
func (s *Store) UnfinishedRuns(ctx context.Context, cursor string, limit int) ([]*domain.AnalysisRun, string, error) {
	after, err := afterCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 || limit > 100000 {
		limit = 100000
	}
	var r struct {
		Q []struct {
			UID    string `json:"uid"`
			Scope  string `json:"tr.scope"`
			Status string `json:"ar.status"`
			Doc    string `json:"ar.doc"`
		} `json:"q"`
	}
	q := fmt.Sprintf(`{ q(func: eq(ar.status, [%q, %q]), first: %d%s) { uid tr.scope ar.status ar.doc } }`,
		domain.RunPending, domain.RunRunning, limit, after)
	if err := s.read(ctx, q, nil, &r); err != nil {
		return nil, "", err
	}
	out := make([]*domain.AnalysisRun, 0, len(r.Q))
	for _, n := range r.Q {
		var d domain.AnalysisRun
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, "", fmt.Errorf("analysis run: bad document: %w", err)
		}
		d.Status = domain.AnalysisStatus(n.Status)
		if n.Scope != "" {
			d.ScopeID = n.Scope
		}
		out = append(out, &d)
	}
	next := ""
	if len(r.Q) == limit {
		next = r.Q[len(r.Q)-1].UID
	}
	return out, next, nil
}

type facetNode struct {
	ID         string  `json:"tr.id"`
	Scope      string  `json:"tr.scope"`
	Type       string  `json:"fc.type"`
	Value      string  `json:"fc.value"`
	Episode    string  `json:"fc.episode"`
	Run        string  `json:"fc.run"`
	Memory     string  `json:"fc.memory"`
	Confidence float64 `json:"fc.confidence"`
	Doc        string  `json:"fc.doc"`
}

const facetFields = `tr.id tr.scope fc.type fc.value fc.episode fc.run fc.memory fc.confidence fc.doc`

func (n *facetNode) facet() (*domain.Facet, error) {
	var d facetDoc
	if n.Doc != "" {
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("facet %s: bad document: %w", n.ID, err)
		}
	}
	return &domain.Facet{ID: n.ID, ScopeID: n.Scope, RunID: n.Run, EpisodeID: n.Episode, MemoryID: n.Memory,
		Type: n.Type, Value: n.Value, PersonID: d.PersonID, Confidence: n.Confidence, Metadata: d.Metadata,
		CreatedAt: d.CreatedAt.UTC()}, nil
}

// Facets lists a scope's facets: by type, then confidence (highest first), then value.
func (s *Store) Facets(ctx context.Context, scopeID string, f domain.FacetFilter) ([]*domain.Facet, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	vars := map[string]string{"$s": scopeID}
	root := `eq(tr.scope, $s)`
	filter := `eq(tr.kind, "Facet") AND eq(tr.scope, $s)`
	for _, c := range []struct{ pred, val string }{{"fc.episode", f.EpisodeID}, {"fc.run", f.RunID}, {"fc.memory", f.MemoryID}} {
		if c.val == "" {
			continue
		}
		if !domain.ValidID(c.val) {
			return []*domain.Facet{}, nil
		}
		root = `eq(` + c.pred + `, "` + c.val + `")`
		filter += ` AND eq(` + c.pred + `, "` + c.val + `")`
	}
	if f.Type != "" {
		vars["$t"] = f.Type
		filter += ` AND eq(fc.type, $t)`
	}
	if f.Value != "" {
		vars["$v"] = f.Value
		filter += ` AND eq(fc.value, $v)`
	}
	first := f.First
	if first <= 0 || first > 100000 {
		first = 100000
	}
	var r struct {
		Q []facetNode `json:"q"`
	}
	q := `query q` + varDecl(vars) + ` { q(func: ` + root + `, first: ` + fmt.Sprint(first) + `) @filter(` + filter + `) { ` + facetFields + ` } }`
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.Facet, 0, len(r.Q))
	for i := range r.Q {
		x, err := r.Q[i].facet()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Value != b.Value {
			return a.Value < b.Value
		}
		return a.ID < b.ID
	})
	return out, nil
}

// facetTypeRE is what a facet type SharedFacets is asked for may be: it is written into the query.
var facetTypeRE = regexp.MustCompile(`^[a-z][a-z_]{0,63}$`)

// MaxSharedFacets bounds how many facets SharedFacets reads for the values of its episodes: a
// value many episodes share says little of any one of them, and the read stays bounded.
const MaxSharedFacets = 2000

// SharedFacets returns the facets of the given types of episodes of the scope (own), and the
// facets of the same types and values in the scope's other episodes (shared, from at most
// MaxSharedFacets read). The embedded store keeps what it read in its read cache until a facet is
// written: the facets returned may be shared, and must not be modified.
func (s *Store) SharedFacets(ctx context.Context, scopeID string, episodeIDs, types []string) (own, shared []*domain.Facet, err error) {
	episodeIDs = validIDs(episodeIDs)
	if len(episodeIDs) == 0 || len(types) == 0 || !domain.ValidID(scopeID) {
		return nil, nil, nil
	}
	typeList := make([]string, 0, len(types))
	for _, t := range types {
		if !facetTypeRE.MatchString(t) {
			return nil, nil, domain.FieldErrorf("types", "%q is not a facet type", t)
		}
		typeList = append(typeList, `"`+t+`"`)
	}
	slices.Sort(typeList)
	typeList = slices.Compact(typeList)
	tk := strings.Join(typeList, ",")
	byType := `eq(fc.type, [` + tk + `])`
	var e uint64
	if s.cache != nil {
		e = s.cache.begin()
		defer s.cache.end(e)
	}
	// The episodes' own facets: from the cache, the rest in one read.
	epKey := func(id string) string { return "episode\x00" + tk + "\x00" + id }
	epKeys := make([]string, len(episodeIDs))
	for k, id := range episodeIDs {
		epKeys[k] = epKey(id)
	}
	ownOf, miss := s.cache.keptFacets(epKeys)
	if len(miss) > 0 {
		var ids []string
		for k, id := range episodeIDs {
			if _, kept := ownOf[epKeys[k]]; !kept {
				ids = append(ids, id)
			}
		}
		var r struct {
			Q []facetNode `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(fc.episode, `+idList(ids)+`)) @filter(`+byType+`) { `+facetFields+` } }`, nil, &r); err != nil {
			return nil, nil, err
		}
		read := make(map[string][]*domain.Facet, len(miss))
		for _, key := range miss {
			read[key] = nil
		}
		for i := range r.Q {
			f, err := r.Q[i].facet()
			if err != nil {
				return nil, nil, err
			}
			read[epKey(f.EpisodeID)] = append(read[epKey(f.EpisodeID)], f)
		}
		s.cache.fillFacets(e, read)
		for key, fs := range read {
			ownOf[key] = fs
		}
	}
	src := map[string]bool{}
	var keys []string
	valueOf := map[string]string{} // a value's key → the value
	for k, id := range episodeIDs {
		src[id] = true
		for _, f := range ownOf[epKeys[k]] {
			if f.ScopeID != scopeID {
				continue
			}
			own = append(own, f)
			vk := facetKey(scopeID, f.Type, f.Value)
			if _, seen := valueOf[vk]; !seen {
				valueOf[vk] = f.Value
				keys = append(keys, vk)
			}
		}
	}
	if len(keys) == 0 {
		return own, nil, nil
	}
	// The holders of the episodes' values: from the cache, the rest in one read through
	// fc.value's index. Type and scope filter the few nodes it finds (the engine compares their
	// values rather than reading the index of either).
	holders, missKeys := s.cache.keptFacets(keys)
	if len(missKeys) > 0 {
		vals := map[string]bool{}
		var list []string
		for _, k := range missKeys {
			if v := valueOf[k]; !vals[v] {
				vals[v] = true
				list = append(list, quote(v))
			}
		}
		var r struct {
			Q []facetNode `json:"q"`
		}
		q := `query q($s: string) { q(func: eq(fc.value, [` + strings.Join(list, ",") + `]), first: ` + fmt.Sprint(MaxSharedFacets) +
			`) @filter(` + byType + ` AND eq(tr.scope, $s)) { ` + facetFields + ` } }`
		if err := s.read(ctx, q, map[string]string{"$s": scopeID}, &r); err != nil {
			return nil, nil, err
		}
		read := make(map[string][]*domain.Facet, len(missKeys))
		for _, k := range missKeys {
			read[k] = nil
		}
		for i := range r.Q {
			f, err := r.Q[i].facet()
			if err != nil {
				return nil, nil, err
			}
			k := facetKey(f.ScopeID, f.Type, f.Value)
			if fs, missing := read[k]; missing {
				read[k] = append(fs, f)
			}
		}
		if len(r.Q) < MaxSharedFacets {
			s.cache.fillFacets(e, read)
		}
		for k, fs := range read {
			holders[k] = fs
		}
	}
	for _, k := range keys {
		for _, f := range holders[k] {
			if !src[f.EpisodeID] {
				shared = append(shared, f)
			}
		}
	}
	return own, shared, nil
}

// facetKey names the holders of a value in the read cache's facet lists.
func facetKey(scopeID, typ, value string) string {
	return "value\x00" + scopeID + "\x00" + typ + "\x00" + value
}
