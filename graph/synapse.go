package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
)

// The Synapse's records: a node per stream of stored memories (its place in the stream, in one
// JSON document), and what it grows with the records of seed 001 (episodes, analysis runs and
// facets, vectors), written in the write that moves its watermark (Consume).
func init() {
	schemaParts = append(schemaParts, `
syn.doc: string .
`)
}

// kindSynapseStream is the node of a stream of stored memories (domain.SynapseStream).
const kindSynapseStream = "SynapseStream"

var _ domain.SynapseStore = (*Store)(nil)

// SynapseStreams loads the streams among ids that exist.
func (s *Store) SynapseStreams(ctx context.Context, ids []string) (map[string]*domain.SynapseStream, error) {
	out := map[string]*domain.SynapseStream{}
	ids = validIDs(ids)
	for start := 0; start < len(ids); start += 5000 {
		var r struct {
			Q []struct {
				Kind string `json:"tr.kind"`
				ID   string `json:"tr.id"`
				Doc  string `json:"syn.doc"`
			} `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(ids[start:min(len(ids), start+5000)])+`)) { tr.kind tr.id syn.doc } }`, nil, &r); err != nil {
			return nil, err
		}
		for _, n := range r.Q {
			if n.Kind != kindSynapseStream {
				continue
			}
			var st domain.SynapseStream
			if err := json.Unmarshal([]byte(n.Doc), &st); err != nil {
				return nil, fmt.Errorf("synapse stream %s: bad document: %w", n.ID, err)
			}
			out[n.ID] = &st
		}
	}
	return out, nil
}

// MemoryLinks returns, for each of ids that is a memory, how many PERSON and THEMATIC
// associations it has and, when with is set, the memories it is associated with. Without them
// it counts the edges, reading no far node.
func (s *Store) MemoryLinks(ctx context.Context, ids []string, with bool) (map[string]*domain.MemoryLinks, error) {
	out := map[string]*domain.MemoryLinks{}
	ids = validIDs(ids)
	var b strings.Builder
	counted := []domain.AssociationType{domain.AssocPerson, domain.AssocThematic}
	if with {
		for _, at := range domain.AssociationTypes {
			p := assocPred(at)
			fmt.Fprintf(&b, "%s { tr.id } ~%s { tr.id } ", p, p)
		}
	} else {
		for _, at := range counted {
			p := assocPred(at)
			fmt.Fprintf(&b, "count(%s) count(~%s) ", p, p)
		}
	}
	for start := 0; start < len(ids); start += 2000 {
		var r struct {
			Q []map[string]any `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(ids[start:min(len(ids), start+2000)])+`)) { tr.kind tr.id `+b.String()+` } }`, nil, &r); err != nil {
			return nil, err
		}
		for _, row := range r.Q {
			if k, _ := row["tr.kind"].(string); k != kindMemory {
				continue
			}
			id, _ := row["tr.id"].(string)
			l := &domain.MemoryLinks{}
			if !with {
				for _, at := range counted {
					p := assocPred(at)
					l.Linked += int(num(row["count("+p+")"]) + num(row["count(~"+p+")"]))
				}
				out[id] = l
				continue
			}
			l.With = map[string][]domain.AssociationType{}
			eachEdge(row, domain.AssociationTypes, func(at domain.AssociationType, _ string, _ float64, far map[string]any) {
				other, _ := far["tr.id"].(string)
				if other == "" {
					return
				}
				l.With[other] = append(l.With[other], at)
				if at == domain.AssocPerson || at == domain.AssocThematic {
					l.Linked++
				}
			})
			out[id] = l
		}
	}
	return out, nil
}

// growthNode is a node a growth write reads: what it refers to or upserts.
type growthNode struct {
	UID   string `json:"uid"`
	ID    string `json:"tr.id"`
	Scope string `json:"tr.scope"`
	Kind  string `json:"tr.kind"`
}

// applyGrowth turns the Synapse's growth into the unit's mutations: streams, episode definitions,
// episodes (new items appended at their positions), analysis types, runs and facets upserted by
// id, vectors set on their memories. Every record must lie in the scope of what it refers to.
func (t *tx) applyGrowth(g *domain.Growth) error {
	if g.Empty() {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	add := func(id string) error {
		if !domain.ValidID(id) {
			return domain.Errorf(domain.EINVALID, "id %q is not a UUID", id)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		return nil
	}
	for _, x := range g.Streams {
		if err := add(x.ID); err != nil {
			return err
		}
	}
	for _, x := range g.Definitions {
		if err := add(x.ID); err != nil {
			return err
		}
	}
	for _, e := range g.Episodes {
		if e.Episode == nil {
			return domain.Errorf(domain.EINVALID, "episode growth without an episode")
		}
		if err := add(e.Episode.ID); err != nil {
			return err
		}
		for _, it := range e.Items {
			if err := add(it); err != nil {
				return err
			}
		}
	}
	for _, x := range g.AnalysisTypes {
		if err := add(x.ID); err != nil {
			return err
		}
	}
	for _, x := range g.Runs {
		if err := add(x.ID); err != nil {
			return err
		}
	}
	for _, x := range g.Facets {
		if err := add(x.ID); err != nil {
			return err
		}
	}
	for _, x := range g.Embeddings {
		if err := add(x.MemoryID); err != nil {
			return err
		}
	}
	nodes := map[string]growthNode{}
	for start := 0; start < len(ids); start += 5000 {
		var r struct {
			Q []growthNode `json:"q"`
		}
		if err := t.query(`{ q(func: eq(tr.id, `+idList(ids[start:min(len(ids), start+5000)])+`)) { uid tr.id tr.scope tr.kind } }`, nil, &r); err != nil {
			return err
		}
		for _, n := range r.Q {
			if n.Kind == kindEvent || n.Kind == kindRequest || n.Kind == kindCounter {
				continue
			}
			nodes[n.ID] = n
		}
	}
	blank := map[string]string{}
	// node returns the uid to write record id of kind in scope, and whether it is new.
	node := func(id, kind, scope string) (string, bool, error) {
		if n, ok := nodes[id]; ok {
			if n.Kind != kind {
				return "", false, domain.Errorf(domain.ECONFLICT, "id %s names a %s, not a %s", id, n.Kind, kind)
			}
			if n.Scope != scope {
				return "", false, domain.Errorf(domain.ECROSSSCOPE, "%s %s belongs to another scope", strings.ToLower(kind), id)
			}
			return n.UID, false, nil
		}
		if b, ok := blank[id]; ok {
			return b, false, nil
		}
		b := fmt.Sprintf("_:g%d", len(blank)+1)
		blank[id] = b
		return b, true, nil
	}
	identity := func(obj map[string]any, id, kind, scope string) {
		obj["tr.kind"], obj["tr.id"], obj["tr.scope"] = kind, id, scope
	}
	memory := func(id, scope string) (string, error) {
		n, ok := nodes[id]
		if !ok || n.Kind != kindMemory {
			return "", domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
		}
		if n.Scope != scope {
			return "", domain.Errorf(domain.ECROSSSCOPE, "memory %s belongs to another scope", id)
		}
		return n.UID, nil
	}
	for _, x := range g.Streams {
		uid, isNew, err := node(x.ID, kindSynapseStream, x.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(x)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "syn.doc": doc}
		if isNew {
			identity(obj, x.ID, kindSynapseStream, x.ScopeID)
		}
		t.set(obj)
		t.inScope(x.ScopeID)
	}
	for _, d := range g.Definitions {
		uid, isNew, err := node(d.ID, kindEpisodeDef, d.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(d)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "epd.doc": doc}
		if isNew {
			identity(obj, d.ID, kindEpisodeDef, d.ScopeID)
			obj["epd.name"] = d.Name
		}
		t.set(obj)
	}
	for _, eg := range g.Episodes {
		e := eg.Episode
		uid, isNew, err := node(e.ID, kindEpisode, e.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(episodeDoc{Channel: e.Channel, EndTime: e.EndTime.UTC(), EventCount: e.EventCount,
			First: e.FirstEventID, Last: e.LastEventID, CreatedAt: e.CreatedAt.UTC()})
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "ep.start": ts(e.StartTime), "ep.doc": doc}
		if isNew {
			identity(obj, e.ID, kindEpisode, e.ScopeID)
			obj["ep.def"] = e.DefinitionID
			if e.ThreadID != "" {
				obj["ep.thread"] = e.ThreadID
			}
		}
		items := make([]map[string]any, 0, len(eg.Items))
		for i, id := range eg.Items {
			mu, err := memory(id, e.ScopeID)
			if err != nil {
				if domain.ErrorCode(err) == domain.ENOTFOUND {
					continue // deleted since it was stored
				}
				return err
			}
			items = append(items, map[string]any{"uid": mu, "ep.items|pos": eg.FirstPos + i})
		}
		if len(items) > 0 {
			obj["ep.items"] = items
		}
		t.set(obj)
	}
	for _, x := range g.AnalysisTypes {
		uid, isNew, err := node(x.ID, kindAnalysisType, x.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(x)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "at.doc": doc}
		if isNew {
			identity(obj, x.ID, kindAnalysisType, x.ScopeID)
			obj["at.name"] = x.Name
		}
		t.set(obj)
	}
	for _, x := range g.Runs {
		uid, isNew, err := node(x.ID, kindAnalysisRun, x.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(x)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "ar.status": string(x.Status), "ar.doc": doc}
		if isNew {
			identity(obj, x.ID, kindAnalysisRun, x.ScopeID)
			obj["ar.type"], obj["ar.episode"] = x.TypeID, x.EpisodeID
		}
		t.set(obj)
	}
	for _, f := range g.Facets {
		value := f.Value
		if len(value) > domain.MaxFacetValue {
			cut := domain.MaxFacetValue
			for cut > 0 && !utf8.RuneStart(value[cut]) {
				cut--
			}
			value = value[:cut]
		}
		uid, isNew, err := node(f.ID, kindFacet, f.ScopeID)
		if err != nil {
			return err
		}
		doc, err := docJSON(facetDoc{PersonID: f.PersonID, Metadata: f.Metadata, CreatedAt: f.CreatedAt.UTC()})
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "fc.type": f.Type, "fc.value": value, "fc.confidence": f.Confidence, "fc.doc": doc}
		if isNew {
			identity(obj, f.ID, kindFacet, f.ScopeID)
			obj["fc.run"], obj["fc.episode"] = f.RunID, f.EpisodeID
			if f.MemoryID != "" {
				obj["fc.memory"] = f.MemoryID
			}
		}
		t.set(obj)
	}
	for _, e := range g.Embeddings {
		if len(e.Vector) == 0 {
			return domain.Errorf(domain.EINVALID, "embedding of %s has no vector", e.MemoryID)
		}
		mu, err := memory(e.MemoryID, e.ScopeID)
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				continue
			}
			return err
		}
		t.set(map[string]any{"uid": mu, "emb.vector": vectorLiteral(e.Vector)})
	}
	return nil
}
