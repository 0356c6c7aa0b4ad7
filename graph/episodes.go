package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// EpisodeDefinitions lists a scope's episode definitions by name.
func (s *Store) EpisodeDefinitions(ctx context.Context, scopeID string) ([]*domain.EpisodeDefinition, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	var r struct {
		Q []struct {
			Doc string `json:"epd.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($s: string) { q(func: eq(tr.scope, $s), first: 10000) @filter(eq(tr.kind, "EpisodeDefinition")) { epd.doc } }`,
		map[string]string{"$s": scopeID}, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.EpisodeDefinition, 0, len(r.Q))
	for _, n := range r.Q {
		var d domain.EpisodeDefinition
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("episode definition: bad document: %w", err)
		}
		out = append(out, &d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

const episodeFields = `uid tr.id tr.scope ep.def ep.thread ep.start ep.doc`

type episodeNode struct {
	UID    string    `json:"uid"`
	Kind   string    `json:"tr.kind"`
	ID     string    `json:"tr.id"`
	Scope  string    `json:"tr.scope"`
	Def    string    `json:"ep.def"`
	Thread string    `json:"ep.thread"`
	Start  time.Time `json:"ep.start"`
	Doc    string    `json:"ep.doc"`
	Items  []struct {
		ID  string `json:"tr.id"`
		Pos int    `json:"ep.items|pos"`
	} `json:"ep.items"`
}

func (n *episodeNode) episode() (*domain.Episode, error) {
	var d episodeDoc
	if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
		return nil, fmt.Errorf("episode %s: bad document: %w", n.ID, err)
	}
	e := &domain.Episode{ID: n.ID, ScopeID: n.Scope, DefinitionID: n.Def, ThreadID: n.Thread, Channel: d.Channel,
		StartTime: n.Start.UTC(), EndTime: d.EndTime.UTC(), EventCount: d.EventCount, FirstEventID: d.First,
		LastEventID: d.Last, CreatedAt: d.CreatedAt.UTC()}
	if len(n.Items) > 0 {
		sort.SliceStable(n.Items, func(i, j int) bool { return n.Items[i].Pos < n.Items[j].Pos })
		e.Items = make([]string, len(n.Items))
		for i, it := range n.Items {
			e.Items[i] = it.ID
		}
	}
	return e, nil
}

// EpisodeMembers returns the member ids of each of ids that is an episode of the scope, in no
// particular order (domain.EpisodeMemberReader): one query for the members alone, without the
// episodes' documents, their order, or a sort by start.
func (s *Store) EpisodeMembers(ctx context.Context, scopeID string, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	ids = validIDs(ids)
	if len(ids) == 0 || !domain.ValidID(scopeID) {
		return out, nil
	}
	miss := ids
	if s.cache != nil {
		var hit map[string]*cachedMembers
		hit, miss = s.cache.episodeMembers(ids)
		for id, cm := range hit {
			if cm.kind == kindEpisode && cm.scope == scopeID {
				out[id] = cm.members
			}
		}
		if len(miss) == 0 {
			return out, nil
		}
	}
	var e uint64
	if s.cache != nil {
		e = s.cache.begin()
		defer s.cache.end(e)
	}
	var r struct {
		Q []struct {
			UID   string `json:"uid"`
			Kind  string `json:"tr.kind"`
			Scope string `json:"tr.scope"`
			ID    string `json:"tr.id"`
			Items []struct {
				ID string `json:"tr.id"`
			} `json:"ep.items"`
		} `json:"q"`
	}
	// Kind and scope are checked here: eq filters would read their whole index posting lists.
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(miss)+`)) { uid tr.kind tr.scope tr.id ep.items (first: 100000) { tr.id } } }`, nil, &r); err != nil {
		return nil, err
	}
	for _, n := range r.Q {
		members := make([]string, 0, len(n.Items))
		for _, it := range n.Items {
			members = append(members, it.ID)
		}
		if s.cache != nil && n.Kind == kindEpisode {
			// Cached for the searches that follow: an episode's members change only by writes
			// that name it (readCache.written drops it then).
			s.cache.fillMembers(e, n.ID, &cachedMembers{uid: n.UID, kind: n.Kind, scope: internScope(n.Scope), members: members})
		}
		if n.Kind != kindEpisode || n.Scope != scopeID {
			continue
		}
		out[n.ID] = members
	}
	return out, nil
}

// Episodes lists a scope's episodes, oldest start first, without their items.
func (s *Store) Episodes(ctx context.Context, scopeID string, f domain.EpisodeFilter) ([]*domain.Episode, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	first := f.First
	if first <= 0 || first > 100000 {
		first = 100000
	}
	vars := map[string]string{"$s": scopeID}
	filter := `eq(tr.kind, "Episode")`
	root := `eq(tr.scope, $s)`
	if f.DefinitionID != "" {
		if !domain.ValidID(f.DefinitionID) {
			return []*domain.Episode{}, nil
		}
		root = `eq(ep.def, "` + f.DefinitionID + `")`
		filter += ` AND eq(tr.scope, $s)`
	}
	if f.ThreadID != "" {
		if !domain.ValidID(f.ThreadID) {
			return []*domain.Episode{}, nil
		}
		filter += ` AND eq(ep.thread, "` + f.ThreadID + `")`
	}
	if len(f.ThreadIDs) > 0 {
		threads := idList(f.ThreadIDs)
		if threads == "[]" {
			return []*domain.Episode{}, nil
		}
		// Rooted at the threads: a definition's index list names every episode of the scope.
		if f.DefinitionID != "" {
			filter += ` AND eq(ep.def, "` + f.DefinitionID + `")`
		} else {
			filter += ` AND eq(tr.scope, $s)`
		}
		root = `eq(ep.thread, ` + threads + `)`
	}
	if len(f.IDs) > 0 {
		filter += ` AND eq(tr.id, ` + idList(f.IDs) + `)`
	}
	fields := episodeFields
	if f.WithItems {
		fields += ` ep.items (first: 100000) @facets(pos) { tr.id }`
	}
	q := `query q($s: string) { q(func: ` + root + `, orderasc: ep.start, first: ` + fmt.Sprint(first) + `) @filter(` + filter + `) { ` + fields + ` } }`
	if f.MemoryID != "" {
		if !domain.ValidID(f.MemoryID) {
			return []*domain.Episode{}, nil
		}
		q = `query q($s: string) { var(func: eq(tr.id, "` + f.MemoryID + `")) { e as ~ep.items }
			q(func: uid(e), orderasc: ep.start, first: ` + fmt.Sprint(first) + `) @filter(` + filter + ` AND eq(tr.scope, $s)) { ` + fields + ` } }`
	}
	byIDs := len(f.IDs) > 0 && f.MemoryID == "" && f.DefinitionID == "" && f.ThreadID == "" && len(f.ThreadIDs) == 0
	if byIDs && idList(f.IDs) == "[]" {
		return []*domain.Episode{}, nil
	}
	if byIDs {
		// Straight to the ids; kind and scope are checked below. Rooted at the scope, the query
		// would walk every node of the scope, and eq filters read whole index posting lists.
		q = `{ q(func: eq(tr.id, ` + idList(f.IDs) + `), orderasc: ep.start, first: ` + fmt.Sprint(first) + `) { tr.kind ` + fields + ` } }`
		vars = nil
	}
	var r struct {
		Q []episodeNode `json:"q"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.Episode, 0, len(r.Q))
	for i := range r.Q {
		if byIDs && (r.Q[i].Kind != kindEpisode || r.Q[i].Scope != scopeID) {
			continue
		}
		e, err := r.Q[i].episode()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	// Dgraph orders by the start alone, and episodes that start together (those a chunking
	// opens at one time) came in an order of its own, which moved between reads on a cluster:
	// the id settles the ties.
	slices.SortStableFunc(out, func(a, b *domain.Episode) int {
		if c := a.StartTime.Compare(b.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Episode loads one episode with its items in order.
func (s *Store) Episode(ctx context.Context, id string) (*domain.Episode, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "episode %q not found", id)
	}
	var r struct {
		Q []episodeNode `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Episode")) { `+episodeFields+` ep.items (first: 100000) @facets(pos) { tr.id } } }`,
		map[string]string{"$id": id}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "episode %s not found", id)
	}
	return r.Q[0].episode()
}

// LedgerEvents loads a scope's ledger events, ordered by thread, time and source position.
func (s *Store) LedgerEvents(ctx context.Context, scopeID string) ([]*domain.LedgerEvent, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	var out []*domain.LedgerEvent
	after := "0x0"
	for {
		var r struct {
			Q []memNode `json:"q"`
		}
		q := `query q($s: string) { q(func: eq(tr.scope, $s), first: 5000, after: ` + after + `) @filter(eq(tr.kind, "Memory") AND has(ing.thread)) { ` + memFields + ` } }`
		if err := s.read(ctx, q, map[string]string{"$s": scopeID}, &r); err != nil {
			return nil, err
		}
		for i := range r.Q {
			m, err := r.Q[i].memory()
			if err != nil {
				return nil, err
			}
			out = append(out, domain.LedgerEventOf(m))
		}
		if len(r.Q) < 5000 {
			break
		}
		after = r.Q[len(r.Q)-1].UID
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ThreadID != b.ThreadID {
			return a.ThreadID < b.ThreadID
		}
		if !a.Memory.OccurredAt.Equal(b.Memory.OccurredAt) {
			return a.Memory.OccurredAt.Before(b.Memory.OccurredAt)
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Memory.ID < b.Memory.ID
	})
	return out, nil
}
