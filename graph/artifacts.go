package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var _ domain.LifecycleStore = (*Store)(nil)

const artFields = `uid tr.id tr.kind tr.scope art.type art.state art.content art.tags art.updatedAt art.version art.doc life.doc`

type artNode struct {
	UID       string    `json:"uid"`
	ID        string    `json:"tr.id"`
	Kind      string    `json:"tr.kind"`
	Scope     string    `json:"tr.scope"`
	Type      string    `json:"art.type"`
	State     string    `json:"art.state"`
	Content   string    `json:"art.content"`
	Tags      []string  `json:"art.tags"`
	UpdatedAt time.Time `json:"art.updatedAt"`
	Version   int64     `json:"art.version"`
	Doc       string    `json:"art.doc"`
	Life      string    `json:"life.doc"`
}

// artDoc is the part of an artifact kept in art.doc.
type artDoc struct {
	Title     string         `json:"title,omitempty"`
	Steps     []string       `json:"steps,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
	SessionID string         `json:"sessionId,omitempty"`
}

func (n *artNode) artifact() (*domain.Artifact, error) {
	var d artDoc
	if n.Doc != "" {
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("artifact %s: bad document: %w", n.ID, err)
		}
	}
	a := &domain.Artifact{ID: n.ID, ScopeID: n.Scope, Family: familyOfKind(n.Kind, ""), Type: n.Type,
		Title: d.Title, Content: n.Content, Steps: d.Steps, Tags: n.Tags, Metadata: d.Metadata,
		State: domain.LifecycleState(n.State), SessionID: d.SessionID, CreatedAt: d.CreatedAt.UTC(),
		UpdatedAt: n.UpdatedAt.UTC(), Version: n.Version}
	if a.Tags == nil {
		a.Tags = []string{}
	}
	if a.Steps == nil {
		a.Steps = []string{}
	}
	if a.Metadata == nil {
		a.Metadata = map[string]any{}
	}
	rec, err := lifeRecord(n.Life)
	if err != nil {
		return nil, err
	}
	a.Archive = rec
	return a, nil
}

func lifeRecord(raw string) (*domain.ArchiveRecord, error) {
	if raw == "" {
		return nil, nil
	}
	var r domain.ArchiveRecord
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return nil, fmt.Errorf("bad archive record: %w", err)
	}
	return &r, nil
}

// artifactJSON is the set-mutation of a on node uid; a new node gets its kind, id and scope.
func artifactJSON(uid string, a *domain.Artifact, isNew bool) (map[string]any, error) {
	doc, err := json.Marshal(artDoc{Title: a.Title, Steps: a.Steps, Metadata: a.Metadata,
		CreatedAt: a.CreatedAt.UTC(), SessionID: a.SessionID})
	if err != nil {
		return nil, domain.FieldErrorf("metadata", "is not JSON-encodable: %v", err)
	}
	obj := map[string]any{"uid": uid, "art.state": string(a.State), "art.content": a.Content,
		"art.updatedAt": ts(a.UpdatedAt), "art.version": a.Version, "art.doc": string(doc)}
	if a.Type != "" {
		obj["art.type"] = a.Type
	}
	if isNew {
		obj["tr.kind"], obj["tr.id"], obj["tr.scope"] = kindOfFamily(a.Family), a.ID, a.ScopeID
	}
	if len(a.Tags) > 0 || !isNew {
		obj["art.tags"] = a.Tags
	}
	return obj, nil
}

func isArtifactKind(k string) bool {
	return k == kindKnowledge || k == kindSkill || k == kindWorkingState
}

// InsertArtifacts persists new knowledge pages, skills or working states and their events.
func (s *Store) InsertArtifacts(ctx context.Context, req domain.Request, arts []*domain.Artifact, events []*domain.Event) ([]*domain.Artifact, error) {
	if len(arts) == 0 {
		return []*domain.Artifact{}, nil
	}
	ids := make([]string, 0, len(arts))
	scopes := map[string]bool{}
	for _, a := range arts {
		if !domain.ValidID(a.ID) || !domain.ValidID(a.ScopeID) {
			return nil, domain.Errorf(domain.EINVALID, "artifact and scope ids must be UUIDs")
		}
		if k := kindOfFamily(a.Family); !isArtifactKind(k) {
			return nil, domain.Errorf(domain.EINVALID, "family %q is not stored as an artifact", a.Family)
		}
		ids = append(ids, a.ID)
		scopes[a.ScopeID] = true
	}
	scopeIDs := make([]string, 0, len(scopes))
	for id := range scopes {
		scopeIDs = append(scopeIDs, id)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) ([]*domain.Artifact, error) {
		var r struct {
			Scopes []struct {
				ID string `json:"tr.id"`
			} `json:"scopes"`
			Taken []struct {
				ID string `json:"tr.id"`
			} `json:"taken"`
		}
		q := `{ scopes(func: eq(tr.id, ` + idList(scopeIDs) + `)) @filter(eq(tr.kind, "Scope")) { tr.id }
		taken(func: eq(tr.id, ` + idList(ids) + `), first: 1) { tr.id } }`
		if err := t.query(q, nil, &r); err != nil {
			return nil, err
		}
		if len(r.Taken) > 0 {
			return nil, domain.Errorf(domain.ECONFLICT, "id %s already exists", r.Taken[0].ID)
		}
		found := map[string]bool{}
		for _, sc := range r.Scopes {
			found[sc.ID] = true
		}
		for _, id := range scopeIDs {
			if !found[id] {
				return nil, domain.Errorf(domain.ENOTFOUND, "scope %s not found", id)
			}
		}
		seen := map[string]bool{}
		for i, a := range arts {
			if seen[a.ID] {
				return nil, domain.Errorf(domain.ECONFLICT, "id %s appears twice in the batch", a.ID)
			}
			seen[a.ID] = true
			t.inScope(a.ScopeID)
			obj, err := artifactJSON(fmt.Sprintf("_:a%d", i), a, true)
			if err != nil {
				return nil, err
			}
			t.set(obj)
		}
		t.emit(events...)
		return arts, nil
	})
}

// Artifacts loads the knowledge pages, skills and working states among ids, in their order.
func (s *Store) Artifacts(ctx context.Context, ids []string) ([]*domain.Artifact, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return []*domain.Artifact{}, nil
	}
	var r struct {
		Q []artNode `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(valid)+`)) @filter(eq(tr.kind, ["Knowledge", "Skill", "WorkingState"])) { `+artFields+` } }`, nil, &r); err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Artifact, len(r.Q))
	for i := range r.Q {
		a, err := r.Q[i].artifact()
		if err != nil {
			return nil, err
		}
		byID[a.ID] = a
	}
	out := make([]*domain.Artifact, 0, len(byID))
	for _, id := range valid {
		if a, ok := byID[id]; ok {
			out = append(out, a)
			delete(byID, id)
		}
	}
	return out, nil
}

// ListArtifacts pages through a scope's artifacts of one family, newest update first (ties by id).
func (s *Store) ListArtifacts(ctx context.Context, scopeID string, family domain.ArtifactFamily, f domain.ArtifactFilter, p domain.Page) (*domain.ArtifactPage, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	kind := kindOfFamily(family)
	if !isArtifactKind(kind) {
		return nil, domain.FieldErrorf("family", "%q is not listed as an artifact family", family)
	}
	first := p.First
	if first <= 0 {
		first = 50
	}
	if first > 1000 {
		return nil, domain.FieldErrorf("first", "at most 1000 per page")
	}
	vars := map[string]string{"$scope": scopeID}
	parts := []string{fmt.Sprintf("eq(tr.kind, %q)", kind)}
	orOf := func(pred, prefix string, vals []string) string {
		q := make([]string, len(vals))
		for i, v := range vals {
			name := fmt.Sprintf("$%s%d", prefix, i)
			vars[name] = v
			q[i] = fmt.Sprintf("eq(%s, %s)", pred, name)
		}
		return "(" + strings.Join(q, " OR ") + ")"
	}
	if len(f.Types) > 0 {
		parts = append(parts, orOf("art.type", "type", f.Types))
	}
	if len(f.States) > 0 {
		vals := make([]string, len(f.States))
		for i, st := range f.States {
			if !st.Valid() {
				return nil, domain.FieldErrorf("filter.states", "unknown state %q", st)
			}
			vals[i] = string(st)
		}
		parts = append(parts, orOf("art.state", "state", vals))
	}
	for i, tag := range f.Tags {
		name := fmt.Sprintf("$tag%d", i)
		vars[name] = tag
		parts = append(parts, fmt.Sprintf("eq(art.tags, %s)", name))
	}
	cursor := ""
	if p.After != "" {
		at, id, err := decodeCursor(p.After)
		if err != nil {
			return nil, err
		}
		vars["$cat"], vars["$cid"] = ts(at), id
		cursor = `@filter(lt(art.updatedAt, $cat) OR (eq(art.updatedAt, $cat) AND lt(tr.id, $cid)))`
	}
	q := `query q` + varDecl(vars) + ` {
		m as var(func: eq(tr.scope, $scope)) @filter(` + strings.Join(parts, " AND ") + `)
		total(func: uid(m)) { n: count(uid) }
		page(func: uid(m), orderdesc: art.updatedAt, orderdesc: tr.id, first: ` + fmt.Sprint(first+1) + `) ` + cursor + ` { ` + artFields + ` }
	}`
	var r struct {
		Total []struct {
			N int `json:"n"`
		} `json:"total"`
		Page []artNode `json:"page"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := &domain.ArtifactPage{Artifacts: []*domain.Artifact{}}
	if len(r.Total) > 0 {
		out.TotalCount = r.Total[0].N
	}
	if len(r.Page) > first {
		out.HasNext = true
		r.Page = r.Page[:first]
	}
	for i := range r.Page {
		a, err := r.Page[i].artifact()
		if err != nil {
			return nil, err
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	if n := len(out.Artifacts); n > 0 {
		last := out.Artifacts[n-1]
		out.EndCursor = encodeCursor(last.UpdatedAt, last.ID)
	}
	return out, nil
}

// UpdateArtifact runs a read-modify-write of one knowledge page, skill or working state; its
// version grows by one, so concurrent writers conflict and retry instead of losing an update.
func (s *Store) UpdateArtifact(ctx context.Context, req domain.Request, id string, fn domain.ArtifactUpdate) (*domain.Artifact, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "artifact %q not found", id)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Artifact, error) {
		var r struct {
			Q []artNode `json:"q"`
		}
		if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, ["Knowledge", "Skill", "WorkingState"])) { `+artFields+` } }`,
			map[string]string{"$id": id}, &r); err != nil {
			return nil, err
		}
		if len(r.Q) == 0 {
			return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
		}
		n := r.Q[0]
		a, err := n.artifact()
		if err != nil {
			return nil, err
		}
		t.inScope(n.Scope)
		evs, err := fn(a)
		if err != nil {
			return nil, err
		}
		if a.ID != n.ID || a.ScopeID != n.Scope || kindOfFamily(a.Family) != n.Kind {
			return nil, domain.Errorf(domain.EINVALID, "an artifact's id, scope and family never change")
		}
		a.Version = n.Version + 1
		obj, err := artifactJSON(n.UID, a, false)
		if err != nil {
			return nil, err
		}
		if a.Type == "" && n.Type != "" {
			t.del(map[string]any{"uid": n.UID, "art.type": nil})
		}
		if len(a.Tags) == 0 {
			delete(obj, "art.tags")
			if len(n.Tags) > 0 {
				t.del(map[string]any{"uid": n.UID, "art.tags": nil})
			}
		} else if len(n.Tags) > 0 {
			// A list predicate's set adds values: drop the old ones first.
			t.del(map[string]any{"uid": n.UID, "art.tags": n.Tags})
		}
		t.set(obj)
		t.emit(evs...)
		return a, nil
	})
}
