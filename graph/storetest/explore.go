package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

func exploreTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"ExploreNeighborhood", testExploreNeighborhood},
		{"ExploreNeighborhoodCapsAndFilters", testExploreCaps},
		{"ExplorePath", testExplorePath},
		{"ExploreScopeGraph", testExploreScopeGraph},
		{"ExploreSeesWrites", testExploreSeesWrites},
	}
}

func explorer(t *testing.T, st domain.Store) domain.GraphExplorer {
	t.Helper()
	ge, ok := st.(domain.GraphExplorer)
	if !ok {
		t.Fatal("store does not implement domain.GraphExplorer")
	}
	return ge
}

// exploreFixture is one scope's small graph of every node and edge kind, and a memory of
// another scope:
//
//	A -THEMATIC .9- B -CAUSAL .8- C -THEMATIC .9- D,  A -TEMPORAL .1- D,  A -PERSON .3- E,  F alone
//	episode EP groups A and B; facets Ada (in A), Bob (in B), Cy (in EP only)
//	knowledge K SUPPORTS A; G and H consolidated into M
type exploreFixture struct {
	scope, other *domain.Scope
	mem          map[string]*domain.Memory // by letter: A … H, M, and X of the other scope
	ep, k        string
	facets       map[string]string // facet value → id
	name         map[string]string // node id → name in the fixture
}

func newExploreFixture(t *testing.T, st domain.Store) *exploreFixture {
	t.Helper()
	ctx := context.Background()
	f := &exploreFixture{scope: mustScope(t, st), other: mustScope(t, st), mem: map[string]*domain.Memory{},
		facets: map[string]string{}, name: map[string]string{}}
	var ms []*domain.Memory
	for _, l := range "ABCDEFGH" {
		m := NewMemory(f.scope.ID, fmt.Sprintf("memory %c: %s", l, Nasty[int(l-'A')%len(Nasty)]))
		f.mem[string(l)] = m
		ms = append(ms, m)
	}
	mustInsert(t, st, ms...)
	f.mem["X"] = NewMemory(f.other.ID, "memory X of another scope")
	mustInsert(t, st, f.mem["X"])
	m := f.mem
	associate(t, st, m["A"], m["B"], domain.AssocThematic, 0.9)
	associate(t, st, m["B"], m["C"], domain.AssocCausal, 0.8)
	associate(t, st, m["C"], m["D"], domain.AssocThematic, 0.9)
	associate(t, st, m["A"], m["D"], domain.AssocTemporal, 0.1)
	associate(t, st, m["A"], m["E"], domain.AssocPerson, 0.3)

	sc := f.scope.ID
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(sc, "def", "explore"), ScopeID: sc, Name: "explore",
		Strategy: domain.StrategyThread, Config: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
	ep := &domain.Episode{ID: domain.DeriveID(sc, "episode", "explore"), ScopeID: sc, DefinitionID: def.ID, Channel: "chat",
		StartTime: t0, EndTime: t0, EventCount: 2, FirstEventID: m["A"].ID, LastEventID: m["B"].ID, CreatedAt: t0,
		Items: []string{m["A"].ID, m["B"].ID}}
	at, run, fs := analysed(sc, ep, "Ada", "Bob", "Cy")
	fs[2].MemoryID = ""
	if _, err := ingestStore(t, st).Ingest(ctx, domain.Request{}, sc, &domain.IngestBatch{Definitions: []*domain.EpisodeDefinition{def},
		Episodes: []*domain.Episode{ep}, AnalysisTypes: []*domain.AnalysisType{at}, Runs: []*domain.AnalysisRun{run}, Facets: fs}, nil); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	f.ep = ep.ID
	for _, fc := range fs {
		f.facets[fc.Value] = fc.ID
		f.name[fc.ID] = fc.Value
	}

	k := NewArtifact(sc, domain.FamKnowledge, "page K")
	mustArtifacts(t, st, k)
	noop := func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) { return nil, nil }
	if _, err := lifecycle(t, st).Reference(ctx, domain.Request{}, k.ID, domain.RefSupports, m["A"].ID, true, t0, noop); err != nil {
		t.Fatalf("Reference: %v", err)
	}
	f.k = k.ID

	merged, err := st.(domain.LivingStore).Consolidate(ctx, domain.Request{}, []string{m["G"].ID, m["H"].ID},
		func(src []*domain.Memory) (*domain.Memory, []*domain.Event, error) {
			n := NewMemory(sc, "memory M: G and H")
			return n, []*domain.Event{ev(domain.EvMemoryStored, sc, n.ID)}, nil
		})
	if err != nil {
		t.Fatalf("Consolidate: %v", err)
	}
	m["M"] = merged
	for l, mm := range m {
		f.name[mm.ID] = l
	}
	f.name[f.ep], f.name[f.k] = "EP", "K"
	f.name[f.scope.AgentKernel.ID], f.name[f.scope.WorldKernel.ID] = "agent", "world"
	return f
}

// nodes names a subgraph's nodes, sorted.
func (f *exploreFixture) nodes(g *domain.Subgraph) string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, f.nameOf(n.ID))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func (f *exploreFixture) nameOf(id string) string {
	if n, ok := f.name[id]; ok {
		return n
	}
	return "?" + id
}

// edges names a subgraph's edges (kind, type and strength included), sorted.
func (f *exploreFixture) edges(g *domain.Subgraph) string {
	var out []string
	for _, e := range g.Edges {
		s := fmt.Sprintf("%s>%s:%s", f.nameOf(e.Source), f.nameOf(e.Target), e.Kind)
		if e.Type != "" {
			s += "/" + e.Type
		}
		if e.Strength != nil {
			s += fmt.Sprintf("@%.1f", *e.Strength)
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// assoc names an association as stored: from the smaller memory id.
func (f *exploreFixture) assoc(a, b, typ string, w float64) string {
	x, y := f.mem[a], f.mem[b]
	if y.ID < x.ID {
		a, b = b, a
	}
	return fmt.Sprintf("%s>%s:ASSOCIATION/%s@%.1f", a, b, typ, w)
}

func sortedJoin(xs ...string) string {
	sort.Strings(xs)
	return strings.Join(xs, " ")
}

func testExploreNeighborhood(t *testing.T, st domain.Store) {
	ctx := context.Background()
	f := newExploreFixture(t, st)
	ge := explorer(t, st)
	A := f.mem["A"].ID
	q := func(seeds []string, depth int, follow []string, floor *float64, limit int) *domain.Subgraph {
		t.Helper()
		fl, err := domain.ParseEdgeTypes("types", follow)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ge.Neighborhood(ctx, domain.NeighborhoodQuery{ScopeID: f.scope.ID, Seeds: seeds, Depth: depth, Follow: fl, MinStrength: floor, Limit: limit})
		if err != nil {
			t.Fatalf("Neighborhood: %v", err)
		}
		return g
	}

	// Depth 1, every edge: associations, membership, facets and references, strongest first.
	g := q([]string{A}, 1, nil, nil, 200)
	if got, want := f.nodes(g), sortedJoin("A", "B", "D", "E", "EP", "Ada", "K"); got != want {
		t.Fatalf("depth 1 nodes = %s, want %s", got, want)
	}
	if got, want := f.edges(g), sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("A", "D", "TEMPORAL", .1), f.assoc("A", "E", "PERSON", .3),
		"EP>A:EPISODE_MEMBER", "EP>B:EPISODE_MEMBER", "Ada>A:FACET/person", "K>A:REFERENCE/SUPPORTS"); got != want {
		t.Fatalf("depth 1 edges = %s\nwant %s", got, want)
	}
	if g.Truncated || f.nameOf(g.Nodes[0].ID) != "A" || f.nameOf(g.Nodes[1].ID) != "B" || f.nameOf(g.Nodes[len(g.Nodes)-1].ID) != "D" {
		t.Fatalf("order = %v (truncated %v), want A, B first, D (0.1) last", f.order(g), g.Truncated)
	}
	byName := map[string]*domain.GraphNode{}
	for _, n := range g.Nodes {
		byName[f.nameOf(n.ID)] = n
	}
	a, ep, ada, k := byName["A"], byName["EP"], byName["Ada"], byName["K"]
	if a.Kind != domain.NodeMemory || a.Tier != domain.TierActiveContext || a.Salience == nil || *a.Salience != 0.5 ||
		a.State != domain.EndActive || a.OccurredAt == nil || !a.OccurredAt.Equal(t0) || a.Label != domain.Label(f.mem["A"].Content) {
		t.Fatalf("node A = %+v", a)
	}
	if ep.Kind != domain.NodeEpisode || ep.OccurredAt == nil || !strings.Contains(ep.Label, "2 events") || ep.Tier != "" || ep.Salience != nil {
		t.Fatalf("node EP = %+v", ep)
	}
	if ada.Kind != domain.NodeFacet || ada.Label != "person: Ada" || k.Kind != domain.NodeKnowledge || k.Label != "page K" {
		t.Fatalf("nodes Ada, K = %+v, %+v", ada, k)
	}

	// Depth 2 along associations: C comes in, with C–D found among the last level.
	g = q([]string{A}, 2, []string{"ASSOCIATION"}, nil, 200)
	if got, want := f.nodes(g), "A B C D E"; got != want {
		t.Fatalf("depth 2 nodes = %s, want %s", got, want)
	}
	if got, want := f.edges(g), sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("B", "C", "CAUSAL", .8), f.assoc("C", "D", "THEMATIC", .9),
		f.assoc("A", "D", "TEMPORAL", .1), f.assoc("A", "E", "PERSON", .3)); got != want {
		t.Fatalf("depth 2 edges = %s\nwant %s", got, want)
	}

	// Depth 0: the seeds and the edges among them; unknown seeds and those of another scope are
	// left out without a word.
	g = q([]string{A, f.mem["X"].ID, domain.NewID(), f.mem["B"].ID, f.mem["F"].ID, A}, 0, nil, nil, 200)
	if got, want := f.nodes(g), "A B F"; got != want {
		t.Fatalf("depth 0 nodes = %s, want %s", got, want)
	}
	if got, want := f.edges(g), f.assoc("A", "B", "THEMATIC", .9); got != want {
		t.Fatalf("depth 0 edges = %s, want %s", got, want)
	}

	// From a facet and from the episode: what they describe, and the facets of an episode.
	g = q([]string{f.facets["Cy"]}, 1, nil, nil, 200)
	if got, want := f.nodes(g), "Cy EP"; got != want {
		t.Fatalf("from facet Cy = %s, want %s", got, want)
	}
	g = q([]string{f.ep}, 1, []string{"EPISODE_MEMBER", "FACET"}, nil, 200)
	if got, want := f.nodes(g), sortedJoin("EP", "A", "B", "Cy"); got != want {
		t.Fatalf("from EP = %s, want %s", got, want)
	}
	// Consolidation, both ways.
	g = q([]string{f.mem["M"].ID}, 1, nil, nil, 200)
	if got, want := f.edges(g), "G>M:CONSOLIDATION H>M:CONSOLIDATION"; got != want {
		t.Fatalf("from M = %s, want %s", got, want)
	}
	for _, n := range g.Nodes {
		if want := map[bool]domain.EndState{true: domain.EndArchived, false: domain.EndActive}[n.ID != f.mem["M"].ID]; n.State != want {
			t.Fatalf("%s state = %s, want %s", f.nameOf(n.ID), n.State, want)
		}
	}

	// Nothing of another scope, whatever the seeds; an unknown scope is NOT_FOUND.
	_, err := ge.Neighborhood(ctx, domain.NeighborhoodQuery{ScopeID: f.other.ID, Seeds: []string{A}, Depth: 2, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	g, _ = ge.Neighborhood(ctx, domain.NeighborhoodQuery{ScopeID: f.other.ID, Seeds: []string{A, f.mem["X"].ID}, Depth: 2, Limit: 200})
	if got := f.nodes(g); got != "X" || len(g.Edges) != 0 {
		t.Fatalf("other scope from A and X = %s %s, want X alone", got, f.edges(g))
	}
	_, err = ge.Neighborhood(ctx, domain.NeighborhoodQuery{ScopeID: domain.NewID(), Seeds: []string{A}, Depth: 1, Limit: 10})
	wantCode(t, err, domain.ENOTFOUND)
}

func (f *exploreFixture) order(g *domain.Subgraph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, f.nameOf(n.ID))
	}
	return out
}

func testExploreCaps(t *testing.T, st domain.Store) {
	ctx := context.Background()
	f := newExploreFixture(t, st)
	ge := explorer(t, st)
	A := f.mem["A"].ID
	assocOnly, _ := domain.ParseEdgeTypes("types", []string{"ASSOCIATION"})
	cases := []struct {
		name      string
		q         domain.NeighborhoodQuery
		nodes     string
		edges     string
		truncated bool
	}{
		{"limit keeps the strongest", domain.NeighborhoodQuery{Seeds: []string{A}, Depth: 1, Follow: assocOnly, Limit: 3},
			"A B E", sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("A", "E", "PERSON", .3)), true},
		{"limit at the seeds", domain.NeighborhoodQuery{Seeds: []string{A, f.mem["F"].ID, f.mem["B"].ID}, Depth: 1, Limit: 2},
			"A F", "", true},
		{"limit exactly reached", domain.NeighborhoodQuery{Seeds: []string{f.mem["E"].ID}, Depth: 1, Follow: assocOnly, Limit: 2},
			"A E", f.assoc("A", "E", "PERSON", .3), false},
		{"limit reached before the last level", domain.NeighborhoodQuery{Seeds: []string{f.mem["E"].ID}, Depth: 2, Follow: assocOnly, Limit: 2},
			"A E", f.assoc("A", "E", "PERSON", .3), true},
		{"strength floor", domain.NeighborhoodQuery{Seeds: []string{A}, Depth: 2, Follow: assocOnly, MinStrength: ptr(0.5), Limit: 200},
			"A B C", sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("B", "C", "CAUSAL", .8)), false},
		{"association and reference types", domain.NeighborhoodQuery{Seeds: []string{A}, Depth: 1, Limit: 200,
			Follow: &domain.EdgeFilter{Assoc: map[domain.AssociationType]bool{domain.AssocThematic: true}, Refs: map[domain.RefType]bool{domain.RefSupports: true}}},
			"A B K", sortedJoin(f.assoc("A", "B", "THEMATIC", .9), "K>A:REFERENCE/SUPPORTS"), false},
		{"depth 3 reaches all the associations", domain.NeighborhoodQuery{Seeds: []string{f.mem["E"].ID}, Depth: 3, Follow: assocOnly, Limit: 200},
			"A B C D E", sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("B", "C", "CAUSAL", .8), f.assoc("C", "D", "THEMATIC", .9),
				f.assoc("A", "D", "TEMPORAL", .1), f.assoc("A", "E", "PERSON", .3)), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.ScopeID = f.scope.ID
			g, err := ge.Neighborhood(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.nodes(g); got != tc.nodes {
				t.Fatalf("nodes = %s, want %s", got, tc.nodes)
			}
			if got := f.edges(g); got != tc.edges {
				t.Fatalf("edges = %s\nwant %s", got, tc.edges)
			}
			if g.Truncated != tc.truncated {
				t.Fatalf("truncated = %v, want %v", g.Truncated, tc.truncated)
			}
		})
	}
}

func testExplorePath(t *testing.T, st domain.Store) {
	ctx := context.Background()
	f := newExploreFixture(t, st)
	ge := explorer(t, st)
	m := f.mem
	path := func(g *domain.Subgraph) string {
		var b strings.Builder
		for i, n := range g.Nodes {
			b.WriteString(f.nameOf(n.ID))
			if i < len(g.Edges) {
				e := g.Edges[i]
				if e.Source != n.ID || e.Target != g.Nodes[i+1].ID || e.Kind != domain.EdgeAssociation || e.Strength == nil {
					t.Fatalf("edge %d = %+v, want %s to %s", i, e, n.ID, g.Nodes[i+1].ID)
				}
				fmt.Fprintf(&b, " -%s %.1f- ", e.Type, *e.Strength)
			}
		}
		if len(g.Edges) != max(len(g.Nodes)-1, 0) {
			t.Fatalf("%d edges for %d nodes", len(g.Edges), len(g.Nodes))
		}
		return b.String()
	}
	cases := []struct {
		from, to string
		depth    int
		want     string
	}{
		{"A", "C", 6, "A -THEMATIC 0.9- B -CAUSAL 0.8- C"},
		// Three strong associations cost less (0.4) than the weak direct one (0.9).
		{"A", "D", 6, "A -THEMATIC 0.9- B -CAUSAL 0.8- C -THEMATIC 0.9- D"},
		{"D", "A", 6, "D -THEMATIC 0.9- C -CAUSAL 0.8- B -THEMATIC 0.9- A"},
		{"A", "D", 2, "A -TEMPORAL 0.1- D"},
		{"E", "C", 6, "E -PERSON 0.3- A -THEMATIC 0.9- B -CAUSAL 0.8- C"},
		{"E", "C", 2, ""},
		{"A", "F", 6, ""},
		{"A", "A", 6, "A"},
	}
	for _, tc := range cases {
		g, err := ge.Path(ctx, m[tc.from].ID, m[tc.to].ID, tc.depth)
		if err != nil {
			t.Fatalf("%s to %s: %v", tc.from, tc.to, err)
		}
		if got := path(g); got != tc.want {
			t.Fatalf("%s to %s within %d = %q, want %q", tc.from, tc.to, tc.depth, got, tc.want)
		}
	}
	_, err := ge.Path(ctx, m["A"].ID, m["X"].ID, 6)
	wantCode(t, err, domain.ECROSSSCOPE)
	_, err = ge.Path(ctx, m["A"].ID, domain.NewID(), 6)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = ge.Path(ctx, f.k, m["A"].ID, 6)
	wantCode(t, err, domain.ENOTFOUND)
}

func testExploreScopeGraph(t *testing.T, st domain.Store) {
	ctx := context.Background()
	f := newExploreFixture(t, st)
	ge := explorer(t, st)
	var nodes []*domain.GraphNode
	var edges []*domain.GraphEdge
	edgesStarted := false
	err := ge.ScopeGraph(ctx, f.scope.ID, func(ns []*domain.GraphNode) error {
		if edgesStarted {
			t.Fatal("nodes after edges")
		}
		nodes = append(nodes, ns...)
		return nil
	}, func(es []*domain.GraphEdge) error {
		edgesStarted = true
		edges = append(edges, es...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g := &domain.Subgraph{Nodes: nodes, Edges: edges}
	if got, want := f.nodes(g), sortedJoin("A", "B", "C", "D", "E", "F", "G", "H", "M", "EP", "Ada", "Bob", "Cy", "K", "agent", "world"); got != want {
		t.Fatalf("scope graph nodes = %s\nwant %s", got, want)
	}
	if got, want := f.edges(g), sortedJoin(f.assoc("A", "B", "THEMATIC", .9), f.assoc("B", "C", "CAUSAL", .8), f.assoc("C", "D", "THEMATIC", .9),
		f.assoc("A", "D", "TEMPORAL", .1), f.assoc("A", "E", "PERSON", .3), "EP>A:EPISODE_MEMBER", "EP>B:EPISODE_MEMBER",
		"Ada>A:FACET/person", "Bob>B:FACET/person", "Cy>EP:FACET/person", "K>A:REFERENCE/SUPPORTS",
		"G>M:CONSOLIDATION", "H>M:CONSOLIDATION"); got != want {
		t.Fatalf("scope graph edges = %s\nwant %s", got, want)
	}
	kinds := map[domain.GraphNodeKind]int{}
	for _, n := range nodes {
		kinds[n.Kind]++
	}
	if got, want := fmt.Sprint(kinds), "map[AGENT_KERNEL:1 EPISODE:1 FACET:3 KNOWLEDGE:1 MEMORY:9 WORLD_KERNEL:1]"; got != want {
		t.Fatalf("kinds = %s, want %s", got, want)
	}
	err = ge.ScopeGraph(ctx, domain.NewID(), func([]*domain.GraphNode) error { return nil }, func([]*domain.GraphEdge) error { return nil })
	wantCode(t, err, domain.ENOTFOUND)

	// GraphNodes: the scope's nodes among ids, in order; another scope's are left out.
	ns, err := ge.GraphNodes(ctx, f.scope.ID, []string{f.k, f.mem["X"].ID, "not an id", f.scope.WorldKernel.ID, f.mem["G"].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.order(&domain.Subgraph{Nodes: ns})); got != "[K world G]" || ns[1].Kind != domain.NodeWorldKernel ||
		ns[1].Label != "world model kernel" || ns[2].State != domain.EndArchived {
		t.Fatalf("GraphNodes = %s %+v", got, ns)
	}
}

// testExploreSeesWrites: a neighbourhood asked again after a write shows it, whatever the
// store kept from the first asking (the embedded store caches the explorer's nodes): a new
// association, a new episode and a facet of a memory read before, a tier and a state changed.
func testExploreSeesWrites(t *testing.T, st domain.Store) {
	ctx := context.Background()
	f := newExploreFixture(t, st)
	ge := explorer(t, st)
	m := f.mem
	ask := func(seed string) *domain.Subgraph {
		t.Helper()
		g, err := ge.Neighborhood(ctx, domain.NeighborhoodQuery{ScopeID: f.scope.ID, Seeds: []string{seed}, Depth: 1, Limit: 50})
		if err != nil {
			t.Fatalf("Neighborhood: %v", err)
		}
		return g
	}
	if got := f.nodes(ask(m["F"].ID)); got != "F" {
		t.Fatalf("F before: %s", got)
	}
	if got := f.nodes(ask(m["E"].ID)); got != "A E" {
		t.Fatalf("E before: %s", got)
	}

	associate(t, st, m["F"], m["E"], domain.AssocEmotional, 0.6)
	g := ask(m["E"].ID)
	if got := f.nodes(g); got != "A E F" {
		t.Fatalf("E after F associated with it: %s", got)
	}
	if got, want := f.edges(g), sortedJoin(f.assoc("A", "E", "PERSON", 0.3), f.assoc("E", "F", "EMOTIONAL", 0.6)); got != want {
		t.Fatalf("E's edges after F associated with it: %s, want %s", got, want)
	}
	if got := f.nodes(ask(m["F"].ID)); got != "E F" {
		t.Fatalf("F after it was associated with E: %s", got)
	}

	sc := f.scope.ID
	ep := &domain.Episode{ID: domain.DeriveID(sc, "episode", "explore", "2"), ScopeID: sc, DefinitionID: domain.DeriveID(sc, "def", "explore"),
		Channel: "chat", StartTime: t0, EndTime: t0, EventCount: 1, FirstEventID: m["F"].ID, LastEventID: m["F"].ID, CreatedAt: t0,
		Items: []string{m["F"].ID}}
	at, run, fs := analysed(sc, ep, "Zed")
	if _, err := ingestStore(t, st).Ingest(ctx, domain.Request{}, sc, &domain.IngestBatch{Episodes: []*domain.Episode{ep},
		AnalysisTypes: []*domain.AnalysisType{at}, Runs: []*domain.AnalysisRun{run}, Facets: fs}, nil); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	f.name[ep.ID] = "EP2"
	f.name[fs[0].ID] = "Zed"
	if got := f.nodes(ask(m["F"].ID)); got != "E EP2 F Zed" {
		t.Fatalf("F after an episode and a facet of it: %s", got)
	}

	// A facet found in E, which the walk read before: its write names no uid of E.
	if got := f.nodes(ask(m["E"].ID)); got != "A E F" {
		t.Fatalf("E before its facet: %s", got)
	}
	yve := &domain.Facet{ID: domain.DeriveID(sc, "facet", run.ID, "Yve"), ScopeID: sc, RunID: run.ID, EpisodeID: ep.ID,
		MemoryID: m["E"].ID, Type: domain.FacetPerson, Value: "Yve", Confidence: 0.5, CreatedAt: t0}
	if _, err := ingestStore(t, st).Ingest(ctx, domain.Request{}, sc, &domain.IngestBatch{Episodes: []*domain.Episode{ep}, AnalysisTypes: []*domain.AnalysisType{at}, Runs: []*domain.AnalysisRun{run}, Facets: []*domain.Facet{fs[0], yve}}, nil); err != nil {
		t.Fatalf("Ingest of a facet: %v", err)
	}
	f.name[yve.ID] = "Yve"
	if got := f.nodes(ask(m["E"].ID)); got != "A E F Yve" {
		t.Fatalf("E after a facet found in it: %s", got)
	}

	if _, err := st.UpdateMemory(ctx, domain.Request{}, m["F"].ID, func(x *domain.Memory) ([]*domain.Event, error) {
		x.Tier, x.State = domain.TierLongTerm, domain.StateArchived
		return nil, nil
	}); err != nil {
		t.Fatalf("UpdateMemory: %v", err)
	}
	for _, n := range ask(m["E"].ID).Nodes {
		if n.ID == m["F"].ID && (n.Tier != domain.TierLongTerm || n.State != domain.EndArchived) {
			t.Fatalf("F after its update: tier %s, state %s", n.Tier, n.State)
		}
	}
}
