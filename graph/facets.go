package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

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
