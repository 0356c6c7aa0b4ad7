package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Exploring a scope's graph (domain.GraphExplorer): memories, episodes, facets, knowledge,
// skills, working states, kernels and agent messages as nodes; associations, episode membership,
// facets, references and consolidation as edges. Every node read is checked against the scope
// asked for, whatever edge led to it.

var _ domain.GraphExplorer = (*Store)(nil)

// exploreHead is what a node of the explored graph is read with: enough for its kind, label,
// tier, salience, state and time, and the ends of a facet.
const exploreHead = `uid tr.id tr.kind tr.scope mem.content mem.tier mem.salience mem.state mem.occurredAt kernel.family
art.state art.doc ep.start ep.doc fc.type fc.value fc.memory fc.episode ag.doc life.family`

// xNode is a node as exploreHead reads it; W is the strength of the association it was reached
// through (the facet aliased w).
type xNode struct {
	UID        string     `json:"uid"`
	ID         string     `json:"tr.id"`
	Kind       string     `json:"tr.kind"`
	Scope      string     `json:"tr.scope"`
	Content    string     `json:"mem.content"`
	Tier       string     `json:"mem.tier"`
	Salience   *float64   `json:"mem.salience"`
	MemState   string     `json:"mem.state"`
	Occurred   *time.Time `json:"mem.occurredAt"`
	KFamily    string     `json:"kernel.family"`
	ArtState   string     `json:"art.state"`
	ArtDoc     string     `json:"art.doc"`
	EpStart    *time.Time `json:"ep.start"`
	EpDoc      string     `json:"ep.doc"`
	FcType     string     `json:"fc.type"`
	FcValue    string     `json:"fc.value"`
	FcMemory   string     `json:"fc.memory"`
	FcEpisode  string     `json:"fc.episode"`
	AgDoc      string     `json:"ag.doc"`
	LifeFamily string     `json:"life.family"`
	W          *float64   `json:"w"`
	// built is the node's GraphNode, made once by seal (the entries the read cache keeps drop
	// the large fields it is made from).
	built *domain.GraphNode
}

// seal builds the node's GraphNode and drops what only that needed (content, documents).
func (n *xNode) seal() {
	n.built = n.node()
	n.Content, n.ArtDoc, n.EpDoc, n.AgDoc = "", "", "", ""
}

// xRow is a node with its edges, one alias per edge spec (e0 … e23; see edgeSpecs).
type xRow struct {
	xNode
	E0  xEnds `json:"e0"`
	E1  xEnds `json:"e1"`
	E2  xEnds `json:"e2"`
	E3  xEnds `json:"e3"`
	E4  xEnds `json:"e4"`
	E5  xEnds `json:"e5"`
	E6  xEnds `json:"e6"`
	E7  xEnds `json:"e7"`
	E8  xEnds `json:"e8"`
	E9  xEnds `json:"e9"`
	E10 xEnds `json:"e10"`
	E11 xEnds `json:"e11"`
	E12 xEnds `json:"e12"`
	E13 xEnds `json:"e13"`
	E14 xEnds `json:"e14"`
	E15 xEnds `json:"e15"`
	E16 xEnds `json:"e16"`
	E17 xEnds `json:"e17"`
	E18 xEnds `json:"e18"`
	E19 xEnds `json:"e19"`
	E20 xEnds `json:"e20"`
	E21 xEnds `json:"e21"`
	E22 xEnds `json:"e22"`
	E23 xEnds `json:"e23"`
	// facets are the facets describing the node (the entry's, hung on it by rows).
	facets []*xNode
}

// xEnds are the other ends of one edge alias: a list, or one object for a single-uid predicate
// (mem.consolidatedInto).
type xEnds []xNode

func (e *xEnds) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var one xNode
		if err := decode(b, &one); err != nil {
			return err
		}
		*e = xEnds{one}
		return nil
	}
	return decode(b, (*[]xNode)(e))
}

// endsAt is the alias i of the row, to append to.
func (r *xRow) endsAt(i int) *xEnds {
	return [...]*xEnds{&r.E0, &r.E1, &r.E2, &r.E3, &r.E4, &r.E5, &r.E6, &r.E7, &r.E8, &r.E9, &r.E10, &r.E11, &r.E12, &r.E13,
		&r.E14, &r.E15, &r.E16, &r.E17, &r.E18, &r.E19, &r.E20, &r.E21, &r.E22, &r.E23}[i]
}

func (r *xRow) ends(i int) xEnds {
	return [...]xEnds{r.E0, r.E1, r.E2, r.E3, r.E4, r.E5, r.E6, r.E7, r.E8, r.E9, r.E10, r.E11, r.E12, r.E13,
		r.E14, r.E15, r.E16, r.E17, r.E18, r.E19, r.E20, r.E21, r.E22, r.E23}[i]
}

// edgeSpec is one uid predicate of the explored graph, read forward (the node holds it) or
// in reverse (the node is its object). Forward, the edge goes from the node to the other end.
type edgeSpec struct {
	pred    string
	reverse bool
	kind    domain.GraphEdgeKind
	typ     string
}

var edgeSpecs = func() []edgeSpec {
	var out []edgeSpec
	both := func(pred string, k domain.GraphEdgeKind, typ string) {
		out = append(out, edgeSpec{pred, false, k, typ}, edgeSpec{pred, true, k, typ})
	}
	for _, at := range domain.AssociationTypes {
		both(assocPred(at), domain.EdgeAssociation, string(at))
	}
	both("ep.items", domain.EdgeEpisodeMember, "")
	for _, t := range domain.RefTypes {
		both(refPred(t), domain.EdgeReference, string(t))
	}
	both("mem.consolidatedInto", domain.EdgeConsolidation, "")
	if len(out) != 24 {
		panic("graph: xRow has 24 edge aliases")
	}
	return out
}()

// follows reports whether f follows the edges of spec.
func (sp edgeSpec) follows(f *domain.EdgeFilter) bool {
	switch sp.kind {
	case domain.EdgeAssociation:
		return f.FollowsAssoc(domain.AssociationType(sp.typ))
	case domain.EdgeReference:
		return f.FollowsRef(domain.RefType(sp.typ))
	}
	return f.Follows(sp.kind)
}

// exploredKind is the node kind of a graph node, "" for nodes that are not part of the
// explored graph (events, requests, runs, ...).
func (n *xNode) exploredKind() domain.GraphNodeKind {
	switch n.Kind {
	case kindMemory:
		return domain.NodeMemory
	case kindEpisode:
		return domain.NodeEpisode
	case kindFacet:
		return domain.NodeFacet
	case kindKnowledge:
		return domain.NodeKnowledge
	case kindSkill:
		return domain.NodeSkill
	case kindWorkingState:
		return domain.NodeWorkingState
	case kindAgentMessage:
		return domain.NodeAgentMessage
	case kindRemoved:
		return domain.NodeRemoved
	case kindKernel:
		return domain.NodeKindOfFamily(domain.ArtifactFamily(n.KFamily))
	}
	return ""
}

// exploredKinds are the tr.kind values of the explored graph's nodes.
var exploredKinds = []string{kindMemory, kindEpisode, kindFacet, kindKnowledge, kindSkill, kindWorkingState,
	kindAgentMessage, kindRemoved, kindKernel}

// node builds the GraphNode of n.
func (n *xNode) node() *domain.GraphNode {
	if n.built != nil {
		return n.built.Clone()
	}
	g := &domain.GraphNode{ID: n.ID, Kind: n.exploredKind(), State: domain.EndActive}
	switch n.Kind {
	case kindMemory:
		g.Label = domain.Label(n.Content)
		g.Tier = domain.Tier(n.Tier)
		sal := 0.0
		if n.Salience != nil {
			sal = *n.Salience
		}
		g.Salience = &sal
		if n.MemState == string(domain.StateArchived) {
			g.State = domain.EndArchived
		}
		g.OccurredAt = utcPtr(n.Occurred)
	case kindEpisode:
		var d episodeDoc
		_ = decode([]byte(n.EpDoc), &d)
		label := "episode"
		if d.Channel != "" {
			label += " · " + d.Channel
		}
		if n.EpStart != nil {
			label += " · " + n.EpStart.UTC().Format("2006-01-02 15:04")
		}
		g.Label = domain.Label(fmt.Sprintf("%s · %d events", label, d.EventCount))
		g.OccurredAt = utcPtr(n.EpStart)
	case kindFacet:
		g.Label = domain.Label(n.FcType + ": " + n.FcValue)
	case kindKnowledge, kindSkill, kindWorkingState:
		var d artDoc
		_ = decode([]byte(n.ArtDoc), &d)
		g.Label = domain.Label(d.Title)
		switch {
		case n.Kind == kindWorkingState:
			g.State = domain.EndTransient
		case n.ArtState == string(domain.StateArchived):
			g.State = domain.EndArchived
		}
	case kindKernel:
		g.Label = strings.ReplaceAll(strings.TrimSuffix(n.KFamily, "_kernel"), "_", " ") + " kernel"
	case kindAgentMessage:
		var d struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		_ = decode([]byte(n.AgDoc), &d)
		g.Label = domain.Label(d.Role + ": " + d.Content)
	case kindRemoved:
		g.Label = "removed " + strings.ReplaceAll(n.LifeFamily, "_", " ")
		g.State = domain.EndRemoved
	}
	return g
}

// walk is the state of one neighbourhood walk.
type walk struct {
	s       *Store
	ctx     context.Context
	scope   string
	follow  *domain.EdgeFilter
	floor   float64
	limit   int
	byUID   map[string]*xNode
	order   []string // uids in the order they were taken
	idToUID map[string]string
	edges   map[string]*domain.GraphEdge
	// pending are the edges seen so far by the uids of their ends, kept until both are taken.
	pending   []pendingEdge
	truncated bool
	// ent are the entries loaded by the walk, by uid (nil: no node).
	ent map[string]*xEntry
}

type pendingEdge struct {
	a, b string // uids
	e    *domain.GraphEdge
}

// candidate is a node reachable from the taken ones, with the rank of its strongest edge.
type candidate struct {
	n    *xNode
	rank float64
}

// edgeRank orders the nodes a level reaches: an association counts its strength, every other
// edge 0.5 (membership of a large episode would otherwise crowd out strong associations).
func edgeRank(e *domain.GraphEdge) float64 {
	if e.Strength != nil {
		return *e.Strength
	}
	return 0.5
}

// Neighborhood walks from the seeds breadth first (domain.GraphExplorer).
func (s *Store) Neighborhood(ctx context.Context, q domain.NeighborhoodQuery) (*domain.Subgraph, error) {
	if !domain.ValidID(q.ScopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", q.ScopeID)
	}
	w := &walk{s: s, ctx: ctx, scope: q.ScopeID, follow: q.Follow, limit: q.Limit,
		byUID: map[string]*xNode{}, idToUID: map[string]string{}, edges: map[string]*domain.GraphEdge{},
		ent: map[string]*xEntry{}}
	if q.MinStrength != nil {
		w.floor = *q.MinStrength
	}
	if w.limit <= 0 {
		w.limit = domain.DefaultNeighborhoodLimit
	}
	seeds := validIDs(q.Seeds)
	uidOf, scopeFound, err := w.seedUIDs(seeds)
	if err != nil {
		return nil, err
	}
	if !scopeFound {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %s not found", q.ScopeID)
	}
	var uids []string
	for _, id := range seeds {
		if u := uidOf[id]; u != "" {
			uids = append(uids, u)
		}
	}
	if err := w.load(uids); err != nil {
		return nil, err
	}
	// Seeds in the order asked, once each.
	var taken []string
	for _, u := range uids {
		e := w.ent[u]
		if e == nil || !w.mine(&e.head) || w.byUID[u] != nil {
			continue
		}
		if len(w.order) == w.limit {
			w.truncated = true
			break
		}
		n := e.head
		w.take(&n)
		taken = append(taken, u)
	}
	// rows are the last nodes taken with their edges: to anything while the walk goes on, only
	// to taken nodes once it ends (the edges among the last level).
	within := q.Depth == 0
	rows, err := w.rows(taken, within)
	if err != nil {
		return nil, err
	}
	for level := 1; level <= q.Depth && len(rows) > 0; level++ {
		cands, err := w.expand(rows, within)
		if err != nil {
			return nil, err
		}
		room := w.limit - len(w.order)
		if len(cands) > room {
			w.truncated = true
			cands = cands[:room]
		}
		next := make([]string, 0, len(cands))
		for _, c := range cands {
			w.take(c.n)
			next = append(next, c.n.UID)
		}
		if len(next) == 0 {
			rows = nil
			break
		}
		within = level == q.Depth
		if rows, err = w.rows(next, within); err != nil {
			return nil, err
		}
	}
	if len(rows) > 0 {
		if _, err := w.expand(rows, within); err != nil {
			return nil, err
		}
	}
	return w.subgraph(), nil
}

// seedUIDs finds the uids of the seeds by id, and whether the scope exists: one round trip.
func (w *walk) seedUIDs(ids []string) (map[string]string, bool, error) {
	var r struct {
		S []struct {
			UID string `json:"uid"`
		} `json:"s"`
		Q []struct {
			UID string `json:"uid"`
			ID  string `json:"tr.id"`
		} `json:"q"`
	}
	q := `query q($scope: string) { s(func: eq(tr.id, $scope)) @filter(eq(tr.kind, "Scope")) { uid } `
	if len(ids) > 0 {
		q += `q(func: eq(tr.id, ` + idList(ids) + `)) { uid tr.id } `
	}
	q += `}`
	if err := w.s.read(w.ctx, q, map[string]string{"$scope": w.scope}, &r); err != nil {
		return nil, false, err
	}
	out := make(map[string]string, len(r.Q))
	for _, n := range r.Q {
		out[n.ID] = n.UID
	}
	return out, len(r.S) > 0, nil
}

// mine reports whether n is a node of the walk's scope and of the explored graph.
func (w *walk) mine(n *xNode) bool {
	return n.Scope == w.scope && n.exploredKind() != "" && n.ID != ""
}

// load brings the entries of uids into the walk (w.ent; nil for a uid that is no node).
func (w *walk) load(uids []string) error {
	var need []string
	for _, u := range uids {
		if _, ok := w.ent[u]; !ok {
			w.ent[u] = nil
			need = append(need, u)
		}
	}
	if len(need) == 0 {
		return nil
	}
	got, err := w.s.exploreEntries(w.ctx, need)
	if err != nil {
		return err
	}
	for u, e := range got {
		w.ent[u] = e
	}
	return nil
}

// rows builds the rows of uids from their entries, each edge's other end with its head: any
// node while the walk goes on (their entries loaded first), only taken nodes when within.
func (w *walk) rows(uids []string, within bool) ([]*xRow, error) {
	if err := w.load(uids); err != nil {
		return nil, err
	}
	facets := w.follow.Follows(domain.EdgeFacet)
	if !within {
		var ends []string
		for _, u := range uids {
			e := w.ent[u]
			if e == nil {
				continue
			}
			for _, x := range e.ends {
				if w.byUID[x.uid] == nil && edgeSpecs[x.spec].follows(w.follow) {
					ends = append(ends, x.uid)
				}
			}
			if facets {
				ends = append(ends, e.facets...)
			}
		}
		if err := w.load(ends); err != nil {
			return nil, err
		}
	}
	head := func(u string) *xNode {
		if n := w.byUID[u]; n != nil {
			return n
		}
		if e := w.ent[u]; e != nil && !within {
			return &e.head
		}
		return nil
	}
	rows := make([]*xRow, 0, len(uids))
	for _, u := range uids {
		e := w.ent[u]
		if e == nil || !w.mine(&e.head) {
			continue
		}
		r := &xRow{xNode: e.head}
		for _, x := range e.ends {
			sp := edgeSpecs[x.spec]
			h := head(x.uid)
			if h == nil || !sp.follows(w.follow) {
				continue
			}
			other := *h
			other.W = nil
			if sp.kind == domain.EdgeAssociation {
				st := x.w
				other.W = &st
			}
			at := r.endsAt(int(x.spec))
			*at = append(*at, other)
		}
		if facets && !within {
			for _, f := range e.facets {
				if h := head(f); h != nil && h.Kind == kindFacet && h.Scope == w.scope {
					fc := *h // a cached entry's head is shared by every walk: never handed out
					r.facets = append(r.facets, &fc)
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// xEntry is a node as the walk reads it, whatever the walk's filters: its head and the other
// end of each of its edges by uid, and the facets describing it (a memory or an episode).
// Entries are kept by the store's read cache (embedded engine).
type xEntry struct {
	uid    string
	head   xNode
	ends   []xEnd
	facets []string // uids
	size   int
}

// xEnd is one edge of an entry: its spec (edgeSpecs), the other end's uid and, for an
// association, its strength.
type xEnd struct {
	spec uint8
	w    float64
	uid  string
}

// exploreEntries returns the entries of uids: from the read cache, the others read from the
// engine (and cached). A uid that is no node has none.
func (s *Store) exploreEntries(ctx context.Context, uids []string) (map[string]*xEntry, error) {
	out := make(map[string]*xEntry, len(uids))
	miss := uids
	if s.cache != nil {
		miss = s.cache.entriesOf(uids, out)
		if len(miss) == 0 {
			return out, nil
		}
		e := s.cache.begin()
		defer s.cache.end(e)
		read, err := s.readEntries(ctx, miss)
		if err != nil {
			return nil, err
		}
		for u, x := range read {
			out[u] = x
		}
		s.cache.fillEntries(e, read)
		return out, nil
	}
	read, err := s.readEntries(ctx, miss)
	if err != nil {
		return nil, err
	}
	for u, x := range read {
		out[u] = x
	}
	return out, nil
}

// entryEdges selects every edge of the explored graph, the other ends by uid alone.
var entryEdges = func() string {
	var b strings.Builder
	for i, sp := range edgeSpecs {
		p := sp.pred
		if sp.reverse {
			p = "~" + p
		}
		facets := ""
		if sp.kind == domain.EdgeAssociation {
			facets = "@facets(w: strength) "
		}
		fmt.Fprintf(&b, "e%d: %s %s{ uid } ", i, p, facets)
	}
	return b.String()
}()

// readEntries reads the entries of uids from the engine: the nodes with their edges, then the
// facets found in the memories and episodes among them (facets name what they describe by id).
func (s *Store) readEntries(ctx context.Context, uids []string) (map[string]*xEntry, error) {
	var r struct {
		Q []*xRow `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: uid(`+strings.Join(uids, ",")+`)) { `+exploreHead+` `+entryEdges+`} }`, nil, &r); err != nil {
		return nil, err
	}
	out := make(map[string]*xEntry, len(r.Q))
	byID := map[string]*xEntry{}
	var described []string
	for _, row := range r.Q {
		if row.ID == "" {
			continue // a uid no node holds
		}
		e := &xEntry{uid: row.UID, head: row.xNode}
		e.head.W = nil
		e.head.seal()
		for i := range edgeSpecs {
			for _, o := range row.ends(i) {
				x := xEnd{spec: uint8(i), uid: o.UID}
				if o.W != nil {
					x.w = *o.W
				}
				e.ends = append(e.ends, x)
			}
		}
		out[row.UID] = e
		if row.Kind == kindMemory || row.Kind == kindEpisode {
			byID[row.ID] = e
			described = append(described, row.ID)
		}
	}
	if len(described) > 0 {
		var f struct {
			F []*xNode `json:"f"`
		}
		if err := s.read(ctx, `{ `+facetBlocks(described)+`}`, nil, &f); err != nil {
			return nil, err
		}
		for _, fc := range f.F {
			if fc.Kind != kindFacet {
				continue
			}
			if e := byID[facetTarget(fc)]; e != nil && fc.Scope == e.head.Scope {
				e.facets = append(e.facets, fc.UID)
			}
		}
	}
	for _, e := range out {
		e.size = 160 + len(e.head.ID) + len(e.head.Scope) + len(e.head.FcMemory) + len(e.head.FcEpisode) +
			len(e.head.built.Label) + 64 + 40*len(e.ends) + 24*len(e.facets)
	}
	return out, nil
}

// facetBlocks reads the facets found in the memories, or (without a memory) in the episodes,
// among ids: facets point at what they describe by id. Their kind is checked by the reader: an
// eq filter on tr.kind would read the posting list of every facet of the graph.
func facetBlocks(ids []string) string {
	l := idList(ids)
	return `f as var(func: eq(fc.memory, ` + l + `)) g as var(func: eq(fc.episode, ` + l + `)) f(func: uid(f, g)) { uid tr.kind tr.scope fc.memory fc.episode } `
}

// facetTarget is the id of what a facet describes: its memory, else its episode.
func facetTarget(f *xNode) string {
	if f.FcMemory != "" {
		return f.FcMemory
	}
	return f.FcEpisode
}

func (w *walk) take(n *xNode) {
	w.byUID[n.UID] = n
	w.idToUID[n.ID] = n.UID
	w.order = append(w.order, n.UID)
}

// expand records the edges of rows and returns the nodes they reach that are not taken yet,
// strongest first. Rows read within the taken nodes reach no others.
func (w *walk) expand(rows []*xRow, within bool) ([]candidate, error) {
	best := map[string]*candidate{}
	reach := func(other *xNode, e *domain.GraphEdge, self string) {
		if other.Scope != w.scope || other.exploredKind() == "" || other.ID == "" {
			return
		}
		if e.Strength != nil && *e.Strength < w.floor {
			return
		}
		w.pending = append(w.pending, pendingEdge{a: self, b: other.UID, e: e})
		if w.byUID[other.UID] != nil {
			return
		}
		rank := edgeRank(e)
		if c := best[other.UID]; c == nil || rank > c.rank {
			best[other.UID] = &candidate{n: other, rank: rank}
		}
	}
	for _, r := range rows {
		for i, sp := range edgeSpecs {
			for j := range r.ends(i) {
				other := &r.ends(i)[j]
				if other.ID == "" {
					// An end read by uid alone: its head is known when it is taken.
					known := w.byUID[other.UID]
					if known == nil {
						continue
					}
					k := *known
					k.W = other.W
					other = &k
				}
				e := &domain.GraphEdge{Kind: sp.kind, Type: sp.typ}
				if sp.reverse {
					e.Source, e.Target = other.ID, r.ID
				} else {
					e.Source, e.Target = r.ID, other.ID
				}
				if sp.kind == domain.EdgeAssociation {
					st := 0.0
					if other.W != nil {
						st = *other.W
					}
					e.Strength = &st
				}
				reach(other, e, r.UID)
			}
		}
		// A facet row reaches what it describes; a memory or episode row its facets.
		if r.Kind == kindFacet && w.follow.Follows(domain.EdgeFacet) {
			if t := facetTarget(&r.xNode); t != "" {
				if err := w.facetEnd(r, t, within, reach); err != nil {
					return nil, err
				}
			}
		}
		for _, f := range r.facets {
			reach(f, &domain.GraphEdge{Source: f.ID, Target: r.ID, Kind: domain.EdgeFacet, Type: f.FcType}, r.UID)
		}
	}
	out := make([]candidate, 0, len(best))
	for _, c := range best {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank > out[j].rank
		}
		return out[i].n.ID < out[j].n.ID
	})
	return out, nil
}

// facetEnd reaches the memory or episode a facet row describes: from the taken nodes when it
// is one of them, else read.
func (w *walk) facetEnd(r *xRow, target string, within bool, reach func(*xNode, *domain.GraphEdge, string)) error {
	e := &domain.GraphEdge{Source: r.ID, Target: target, Kind: domain.EdgeFacet, Type: r.FcType}
	if u, ok := w.idToUID[target]; ok {
		reach(w.byUID[u], e, r.UID)
		return nil
	}
	if within || !domain.ValidID(target) {
		return nil
	}
	var res struct {
		Q []*xNode `json:"q"`
	}
	if err := w.s.read(w.ctx, `{ q(func: eq(tr.id, "`+target+`")) { `+exploreHead+` } }`, nil, &res); err != nil {
		return err
	}
	for _, n := range res.Q {
		reach(n, e, r.UID)
	}
	return nil
}

// subgraph is the walk's answer: the taken nodes in the order taken, and the edges between
// them, each once.
func (w *walk) subgraph() *domain.Subgraph {
	out := &domain.Subgraph{Nodes: make([]*domain.GraphNode, 0, len(w.order)), Edges: []*domain.GraphEdge{}, Truncated: w.truncated}
	for _, u := range w.order {
		out.Nodes = append(out.Nodes, w.byUID[u].node())
	}
	for _, p := range w.pending {
		if w.byUID[p.a] == nil || w.byUID[p.b] == nil {
			continue
		}
		k := p.e.Key()
		if _, ok := w.edges[k]; ok {
			continue
		}
		w.edges[k] = p.e
		out.Edges = append(out.Edges, p.e)
	}
	return out
}

// readNodes reads the heads of the scope's explored nodes among ids, by id.
func (s *Store) readNodes(ctx context.Context, scopeID string, ids []string) (map[string]*xNode, error) {
	out := map[string]*xNode{}
	ids = validIDs(ids)
	if len(ids) == 0 {
		return out, nil
	}
	var r struct {
		Q []*xNode `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(ids)+`)) { `+exploreHead+` } }`, nil, &r); err != nil {
		return nil, err
	}
	for _, n := range r.Q {
		if n.Scope == scopeID && n.exploredKind() != "" {
			out[n.ID] = n
		}
	}
	return out, nil
}

// GraphNodes returns the scope's nodes among ids, in the order of ids (domain.GraphExplorer).
func (s *Store) GraphNodes(ctx context.Context, scopeID string, ids []string) ([]*domain.GraphNode, error) {
	byID, err := s.readNodes(ctx, scopeID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*domain.GraphNode, 0, len(byID))
	for _, id := range ids {
		if n := byID[id]; n != nil {
			out = append(out, n.node())
			delete(byID, id)
		}
	}
	return out, nil
}

// pathFrontierCap bounds the nodes a path search expands from each end; a search that would
// expand more answers with what it found and Truncated set.
const pathFrontierCap = 20000

// pathEdge is an association seen during a path search, by the uids of its ends.
type pathEdge struct {
	a, b string
	t    domain.AssociationType
	w    float64
}

// Path finds the strongest chain of at most maxDepth associations between two memories. Any
// such chain has every association within ⌈maxDepth/2⌉ − 1 levels of fromID or ⌊maxDepth/2⌋ − 1
// levels of toID at its nearer end, so the search reads the associations of those levels from
// both ends (one query per level and end) and finds the least total cost (1 − strength each)
// with at most maxDepth hops among them (Bellman-Ford by hops). Dgraph's shortest path bounds
// the levels it expands, not the length of the path it returns; this bounds the path.
func (s *Store) Path(ctx context.Context, fromID, toID string, maxDepth int) (*domain.Subgraph, error) {
	var r struct {
		Q []*xNode `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList([]string{fromID, toID})+`)) { `+exploreHead+` } }`, nil, &r); err != nil {
		return nil, err
	}
	var from, to *xNode
	for _, n := range r.Q {
		if n.Kind != kindMemory {
			continue
		}
		if n.ID == fromID {
			from = n
		}
		if n.ID == toID {
			to = n
		}
	}
	switch {
	case from == nil:
		return nil, &domain.Error{Code: domain.ENOTFOUND, Field: "fromId", Message: fmt.Sprintf("memory %s not found", fromID)}
	case to == nil:
		return nil, &domain.Error{Code: domain.ENOTFOUND, Field: "toId", Message: fmt.Sprintf("memory %s not found", toID)}
	case from.Scope != to.Scope:
		return nil, domain.Errorf(domain.ECROSSSCOPE, "memory %s and memory %s belong to different scopes", fromID, toID)
	}
	out := &domain.Subgraph{Nodes: []*domain.GraphNode{}, Edges: []*domain.GraphEdge{}}
	if from.ID == to.ID {
		out.Nodes = append(out.Nodes, from.node())
		return out, nil
	}
	scope := from.Scope
	var edges []pathEdge
	truncated := false
	expand := func(start string, levels int) error {
		seen := map[string]bool{start: true}
		frontier := []string{start}
		for l := 0; l < levels && len(frontier) > 0; l++ {
			es, err := s.associationsOf(ctx, scope, frontier)
			if err != nil {
				return err
			}
			edges = append(edges, es...)
			var next []string
			for _, e := range es {
				for _, u := range []string{e.a, e.b} {
					if !seen[u] {
						seen[u] = true
						next = append(next, u)
					}
				}
			}
			if len(seen) > pathFrontierCap {
				truncated = true
				return nil
			}
			frontier = next
		}
		return nil
	}
	if err := expand(from.UID, (maxDepth+1)/2); err != nil {
		return nil, err
	}
	if err := expand(to.UID, maxDepth/2); err != nil {
		return nil, err
	}
	chain, hops := strongestChain(edges, from.UID, to.UID, maxDepth)
	out.Truncated = truncated
	if chain == nil {
		return out, nil
	}
	var hr struct {
		Q []*xNode `json:"q"`
	}
	uids := make([]string, len(chain))
	copy(uids, chain)
	if err := s.read(ctx, `{ q(func: uid(`+strings.Join(uids, ",")+`)) { `+exploreHead+` } }`, nil, &hr); err != nil {
		return nil, err
	}
	heads := map[string]*xNode{}
	for _, n := range hr.Q {
		heads[n.UID] = n
	}
	for _, u := range chain {
		h := heads[u]
		if h == nil || h.Scope != scope {
			// Deleted meanwhile: there is no such chain any more.
			return &domain.Subgraph{Nodes: []*domain.GraphNode{}, Edges: []*domain.GraphEdge{}, Truncated: truncated}, nil
		}
		out.Nodes = append(out.Nodes, h.node())
	}
	for i, e := range hops {
		w := e.w
		out.Edges = append(out.Edges, &domain.GraphEdge{Source: heads[chain[i]].ID, Target: heads[chain[i+1]].ID,
			Kind: domain.EdgeAssociation, Type: string(e.t), Strength: &w})
	}
	return out, nil
}

// associationsOf reads the associations of the memories uids to memories of scope, both ways.
func (s *Store) associationsOf(ctx context.Context, scope string, uids []string) ([]pathEdge, error) {
	var b strings.Builder
	for i, sp := range edgeSpecs {
		if sp.kind != domain.EdgeAssociation {
			continue
		}
		p := sp.pred
		if sp.reverse {
			p = "~" + p
		}
		fmt.Fprintf(&b, "e%d: %s @facets(w: strength) { uid tr.scope } ", i, p)
	}
	var r struct {
		Q []*xRow `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: uid(`+strings.Join(uids, ",")+`)) { uid tr.scope `+b.String()+`} }`, nil, &r); err != nil {
		return nil, err
	}
	var out []pathEdge
	for _, row := range r.Q {
		if row.Scope != scope {
			continue
		}
		for i, sp := range edgeSpecs {
			if sp.kind != domain.EdgeAssociation {
				continue
			}
			for _, o := range row.ends(i) {
				if o.Scope != scope {
					continue
				}
				w := 0.0
				if o.W != nil {
					w = *o.W
				}
				out = append(out, pathEdge{a: row.UID, b: o.UID, t: domain.AssociationType(sp.typ), w: w})
			}
		}
	}
	return out, nil
}

// strongestChain is the chain of least total cost (1 − strength per association) from one uid to
// another with at most maxHops associations, and the association of each hop; nil when none.
// Of equal costs the shorter chain wins, then the smaller uids, so the answer is stable.
func strongestChain(edges []pathEdge, from, to string, maxHops int) ([]string, []pathEdge) {
	type arc struct {
		to string
		e  pathEdge
	}
	adj := map[string][]arc{}
	best := map[[2]string]pathEdge{} // the strongest association of each pair, either way
	for _, e := range edges {
		k := [2]string{min(e.a, e.b), max(e.a, e.b)}
		if cur, ok := best[k]; !ok || e.w > cur.w || (e.w == cur.w && e.t < cur.t) {
			best[k] = e
		}
	}
	for k, e := range best {
		adj[k[0]] = append(adj[k[0]], arc{k[1], e})
		adj[k[1]] = append(adj[k[1]], arc{k[0], e})
	}
	type state struct {
		cost float64
		prev string
		via  pathEdge
	}
	// layers[h][v]: the cheapest way to v with exactly h hops.
	layers := []map[string]state{{from: {}}}
	for h := 1; h <= maxHops; h++ {
		cur := map[string]state{}
		for v, st := range layers[h-1] {
			for _, a := range adj[v] {
				c := st.cost + (1 - a.e.w)
				if old, ok := cur[a.to]; !ok || c < old.cost || (c == old.cost && v < old.prev) {
					cur[a.to] = state{cost: c, prev: v, via: a.e}
				}
			}
		}
		if len(cur) == 0 {
			break
		}
		layers = append(layers, cur)
	}
	bestH := -1
	for h := 1; h < len(layers); h++ {
		if st, ok := layers[h][to]; ok && (bestH < 0 || st.cost < layers[bestH][to].cost) {
			bestH = h
		}
	}
	if bestH < 0 {
		return nil, nil
	}
	chain := make([]string, bestH+1)
	hops := make([]pathEdge, bestH)
	v := to
	for h := bestH; h > 0; h-- {
		st := layers[h][v]
		chain[h], hops[h-1] = v, st.via
		v = st.prev
	}
	chain[0] = from
	return chain, hops
}

// scopePage is how many nodes ScopeGraph reads at a time.
const scopePage = 5000

// ScopeGraph hands the scope's whole graph over, nodes first, then edges (domain.GraphExplorer).
func (s *Store) ScopeGraph(ctx context.Context, scopeID string, nodes func([]*domain.GraphNode) error, edges func([]*domain.GraphEdge) error) error {
	if _, err := s.Scope(ctx, scopeID); err != nil {
		return err
	}
	kinds := make([]string, len(exploredKinds))
	for i, k := range exploredKinds {
		kinds[i] = fmt.Sprintf("%q", k)
	}
	vars := map[string]string{"$s": scopeID}
	var uids []string
	ids := map[string]bool{}
	after := "0x0"
	for {
		var r struct {
			Q []*xNode `json:"q"`
		}
		q := fmt.Sprintf(`query q($s: string) { q(func: eq(tr.scope, $s), first: %d, after: %s) @filter(eq(tr.kind, [%s])) { %s } }`,
			scopePage, after, strings.Join(kinds, ","), exploreHead)
		if err := s.read(ctx, q, vars, &r); err != nil {
			return err
		}
		page := make([]*domain.GraphNode, 0, len(r.Q))
		for _, n := range r.Q {
			if n.Scope != scopeID || n.exploredKind() == "" || n.ID == "" {
				continue
			}
			uids = append(uids, n.UID)
			ids[n.ID] = true
			page = append(page, n.node())
		}
		if len(page) > 0 {
			if err := nodes(page); err != nil {
				return err
			}
		}
		if len(r.Q) < scopePage {
			break
		}
		after = r.Q[len(r.Q)-1].UID
	}
	// Every edge once: from the node that holds it, to a node of the scope.
	var b strings.Builder
	for i, sp := range edgeSpecs {
		if sp.reverse {
			continue
		}
		facets := ""
		if sp.kind == domain.EdgeAssociation {
			facets = "@facets(w: strength) "
		}
		fmt.Fprintf(&b, "e%d: %s %s{ uid tr.id tr.scope } ", i, sp.pred, facets)
	}
	sel := b.String()
	for i := 0; i < len(uids); i += scopePage {
		var r struct {
			Q []*xRow `json:"q"`
		}
		q := fmt.Sprintf(`{ q(func: uid(%s)) { uid tr.id tr.kind tr.scope fc.type fc.memory fc.episode %s } }`,
			strings.Join(uids[i:min(i+scopePage, len(uids))], ","), sel)
		if err := s.read(ctx, q, nil, &r); err != nil {
			return err
		}
		var page []*domain.GraphEdge
		for _, row := range r.Q {
			if !ids[row.ID] {
				continue
			}
			for k, sp := range edgeSpecs {
				for _, other := range row.ends(k) {
					if other.Scope != scopeID || !ids[other.ID] {
						continue
					}
					e := &domain.GraphEdge{Source: row.ID, Target: other.ID, Kind: sp.kind, Type: sp.typ}
					if sp.kind == domain.EdgeAssociation {
						w := 0.0
						if other.W != nil {
							w = *other.W
						}
						e.Strength = &w
					}
					page = append(page, e)
				}
			}
			if row.Kind == kindFacet {
				if t := facetTarget(&row.xNode); ids[t] {
					page = append(page, &domain.GraphEdge{Source: row.ID, Target: t, Kind: domain.EdgeFacet, Type: row.FcType})
				}
			}
		}
		if len(page) > 0 {
			if err := edges(page); err != nil {
				return err
			}
		}
	}
	return nil
}
