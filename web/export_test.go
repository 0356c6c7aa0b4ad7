package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/graph/formats/cytoscapejs"
	"gonum.org/v1/gonum/graph/formats/gexf12"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/search"
	"github.com/totalrecall/totalrecall/web"
)

// stack is a real store, index and Cortex on a temp folder.
func stack(t *testing.T) (*graph.Store, *cortex.Cortex) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := graph.Open(ctx, "file://"+dir+"/graph")
	if err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(dir + "/index")
	if err != nil {
		t.Fatal(err)
	}
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cx.Close(); idx.Close(); st.Close() })
	return st, cx
}

// nasty strings every export must carry: quotes, markup, XML-illegal control characters.
var nasty = []string{
	`plain memory`,
	`"quotes" & <markup attr='x'> ]]> </graphml>`,
	"line\nbreak\ttab and emoji 🧠 and CJK 記憶",
	"control \x01\x02 chars",
	`{"elements": [1]} \" \\`,
}

// seed stores a scope with memories, associations, a knowledge page referencing
// one, an episode and facets, and another scope that must not appear.
func seed(t *testing.T, st *graph.Store, cx *cortex.Cortex) (string, string) {
	t.Helper()
	ctx := context.Background()
	sc, err := cx.CreateScope(ctx, `export "scope" <&>`, cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := cx.CreateScope(ctx, "other", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var ins []hippocampus.StoreInput
	for i, c := range nasty {
		at := time.Date(2026, 1, 1+i, 9, 0, 0, 0, time.UTC)
		ins = append(ins, hippocampus.StoreInput{ScopeID: sc.ID, Content: c, OccurredAt: &at})
	}
	ms, err := cx.StoreMemories(ctx, ins, cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cx.StoreMemories(ctx, []hippocampus.StoreInput{{ScopeID: other.ID, Content: "not exported"}}, cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	for i, p := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 4}} {
		if _, err := cx.AssociateMemories(ctx, cortex.AssociateInput{SourceID: ms[p[0]].ID, TargetID: ms[p[1]].ID,
			Type: domain.AssociationTypes[i], Strength: 0.2 + 0.2*float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	k, err := cx.SaveArtifact(ctx, domain.FamKnowledge, cortex.SaveArtifactInput{ScopeID: sc.ID, Type: string(domain.KnowFact),
		Title: "a page <about> & \"quotes\"", Content: "the facts"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cx.Reference(ctx, cortex.ReferenceInput{SourceID: k.ID, Type: domain.RefCites, TargetID: ms[2].ID}, true); err != nil {
		t.Fatal(err)
	}
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(sc.ID, "def", "x"), ScopeID: sc.ID, Name: "x", Strategy: domain.StrategyThread,
		Config: map[string]any{}, CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	ep := &domain.Episode{ID: domain.DeriveID(sc.ID, "ep", "x"), ScopeID: sc.ID, DefinitionID: def.ID, StartTime: start,
		EndTime: start.Add(time.Hour), EventCount: 2, FirstEventID: ms[0].ID, LastEventID: ms[1].ID, CreatedAt: start,
		Items: []string{ms[0].ID, ms[1].ID}}
	at := &domain.AnalysisType{ID: domain.DeriveID(sc.ID, "at"), ScopeID: sc.ID, Name: "persons", Version: "1", OutputType: "structured", CreatedAt: start, UpdatedAt: start}
	run := &domain.AnalysisRun{ID: domain.DeriveID(sc.ID, "run"), ScopeID: sc.ID, TypeID: at.ID, TypeName: at.Name, EpisodeID: ep.ID, Status: domain.RunCompleted, CreatedAt: start}
	fc := &domain.Facet{ID: domain.DeriveID(sc.ID, "facet"), ScopeID: sc.ID, RunID: run.ID, EpisodeID: ep.ID, MemoryID: ms[1].ID,
		Type: domain.FacetPerson, Value: "Ada <Lovelace>", Confidence: 0.9, CreatedAt: start}
	if _, err := st.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Definitions: []*domain.EpisodeDefinition{def},
		Episodes: []*domain.Episode{ep}, AnalysisTypes: []*domain.AnalysisType{at}, Runs: []*domain.AnalysisRun{run},
		Facets: []*domain.Facet{fc}}, nil); err != nil {
		t.Fatal(err)
	}
	return sc.ID, other.ID
}

// settle waits until the consumers have applied every event (salience is rescored in the
// background after associations), so that the graph holds still while it is compared.
func settle(cx *cortex.Cortex) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		head := cx.Log().Head()
		a, b := cx.LivingPosition()
		if a >= head && b >= head {
			time.Sleep(200 * time.Millisecond)
			if cx.Log().Head() == head {
				return
			}
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// want is the scope's graph as the Cortex gives it: attributes by node id and by edge key.
type want struct {
	nodes map[string]map[string]string
	edges map[string]map[string]string
}

func graphOf(t *testing.T, cx *cortex.Cortex, scope string) want {
	t.Helper()
	w := want{nodes: map[string]map[string]string{}, edges: map[string]map[string]string{}}
	err := cx.ScopeGraph(context.Background(), scope, func(ns []*domain.GraphNode) error {
		for _, n := range ns {
			a := map[string]string{"kind": string(n.Kind), "label": n.Label, "state": string(n.State)}
			if n.Tier != "" {
				a["tier"] = string(n.Tier)
			}
			if n.Salience != nil {
				a["salience"] = strconv.FormatFloat(*n.Salience, 'g', -1, 64)
			}
			if n.OccurredAt != nil {
				a["occurredAt"] = n.OccurredAt.UTC().Format(time.RFC3339Nano)
			}
			w.nodes[n.ID] = a
		}
		return nil
	}, func(es []*domain.GraphEdge) error {
		for _, e := range es {
			a := map[string]string{"kind": string(e.Kind)}
			if e.Type != "" {
				a["type"] = e.Type
			}
			if e.Strength != nil {
				a["strength"] = strconv.FormatFloat(*e.Strength, 'g', -1, 64)
			}
			w.edges[e.Source+">"+e.Target+">"+string(e.Kind)+">"+e.Type] = a
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// xmlSafe is s as XML can carry it: characters outside XML's range become U+FFFD.
func xmlSafe(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	var out string
	if err := xml.Unmarshal([]byte("<x>"+b.String()+"</x>"), &out); err != nil {
		panic(err)
	}
	return out
}

func compare(t *testing.T, format string, w want, nodes map[string]map[string]string, edges map[string]map[string]string, xmlFormat bool) {
	t.Helper()
	if len(nodes) != len(w.nodes) || len(edges) != len(w.edges) {
		t.Fatalf("%s: %d nodes, %d edges; the graph has %d and %d", format, len(nodes), len(edges), len(w.nodes), len(w.edges))
	}
	for id, wa := range w.nodes {
		got := nodes[id]
		for k, v := range wa {
			if xmlFormat {
				v = xmlSafe(v)
			}
			if got[k] != v {
				t.Fatalf("%s: node %s %s = %q, want %q (all: %v)", format, id, k, got[k], v, got)
			}
		}
		if len(got) != len(wa) {
			t.Fatalf("%s: node %s attributes %v, want %v", format, id, got, wa)
		}
	}
	for k, wa := range w.edges {
		got, ok := edges[k]
		if !ok {
			t.Fatalf("%s: edge %s missing (have %v)", format, k, keys(edges))
		}
		if fmt.Sprint(got) != fmt.Sprint(wa) {
			t.Fatalf("%s: edge %s = %v, want %v", format, k, got, wa)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestExportsReadBack(t *testing.T) {
	st, cx := stack(t)
	scope, other := seed(t, st, cx)
	settle(cx)
	w := graphOf(t, cx, scope)
	// The graph itself, as the Cortex gives it: 5 memories, a knowledge page, an episode, a
	// facet and the two kernels; 4 associations, a reference, 2 memberships, a facet edge.
	kinds := map[string]int{}
	for _, a := range w.nodes {
		kinds[a["kind"]]++
	}
	ekinds := map[string]int{}
	for _, a := range w.edges {
		ekinds[a["kind"]]++
	}
	if got, want := fmt.Sprint(kinds), "map[AGENT_KERNEL:1 EPISODE:1 FACET:1 KNOWLEDGE:1 MEMORY:5 WORLD_KERNEL:1]"; got != want {
		t.Fatalf("node kinds = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(ekinds), "map[ASSOCIATION:4 EPISODE_MEMBER:2 FACET:1 REFERENCE:1]"; got != want {
		t.Fatalf("edge kinds = %s, want %s", got, want)
	}

	export := func(f web.Format) []byte {
		t.Helper()
		var b bytes.Buffer
		n, err := web.WriteGraph(context.Background(), cx, scope, f, &b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n.Nodes != len(w.nodes) || n.Edges != len(w.edges) {
			t.Fatalf("%s: counted %+v, want %d nodes and %d edges", f, n, len(w.nodes), len(w.edges))
		}
		if bytes.Contains(b.Bytes(), []byte(other)) || bytes.Contains(b.Bytes(), []byte("not exported")) {
			t.Fatalf("%s carries the other scope", f)
		}
		return b.Bytes()
	}

	t.Run("graphml", func(t *testing.T) {
		var doc struct {
			Keys []struct {
				ID   string `xml:"id,attr"`
				For  string `xml:"for,attr"`
				Name string `xml:"attr.name,attr"`
				Type string `xml:"attr.type,attr"`
			} `xml:"key"`
			Graph struct {
				ID    string `xml:"id,attr"`
				Nodes []struct {
					ID   string `xml:"id,attr"`
					Data []struct {
						Key   string `xml:"key,attr"`
						Value string `xml:",chardata"`
					} `xml:"data"`
				} `xml:"node"`
				Edges []struct {
					Source   string `xml:"source,attr"`
					Target   string `xml:"target,attr"`
					Directed string `xml:"directed,attr"`
					Data     []struct {
						Key   string `xml:"key,attr"`
						Value string `xml:",chardata"`
					} `xml:"data"`
				} `xml:"edge"`
			} `xml:"graph"`
		}
		if err := xml.Unmarshal(export(web.GraphML), &doc); err != nil {
			t.Fatal(err)
		}
		name := map[string]string{}
		for _, k := range doc.Keys {
			name[k.ID] = k.Name
		}
		nodes, edges := map[string]map[string]string{}, map[string]map[string]string{}
		for _, n := range doc.Graph.Nodes {
			a := map[string]string{}
			for _, d := range n.Data {
				a[name[d.Key]] = d.Value
			}
			nodes[n.ID] = a
		}
		for _, e := range doc.Graph.Edges {
			a := map[string]string{}
			for _, d := range e.Data {
				a[name[d.Key]] = d.Value
			}
			if (a["kind"] == "ASSOCIATION") != (e.Directed == "false") {
				t.Fatalf("edge %v directed=%q", a, e.Directed)
			}
			edges[e.Source+">"+e.Target+">"+a["kind"]+">"+a["type"]] = a
		}
		if doc.Graph.ID != scope {
			t.Fatalf("graph id = %s, want %s", doc.Graph.ID, scope)
		}
		compare(t, "graphml", w, nodes, edges, true)
	})

	t.Run("gexf", func(t *testing.T) {
		var doc gexf12.Content
		raw := export(web.GEXF)
		if err := xml.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != "1.2" || doc.Graph.Mode != "dynamic" || doc.Graph.TimeFormat != "dateTime" {
			t.Fatalf("gexf version %q mode %q timeformat %q", doc.Version, doc.Graph.Mode, doc.Graph.TimeFormat)
		}
		nodes, edges := map[string]map[string]string{}, map[string]map[string]string{}
		for _, n := range doc.Graph.Nodes.Nodes {
			a := map[string]string{"label": n.Label}
			for _, v := range n.AttValues.AttValues {
				a[v.For] = v.Value
			}
			// The timeline: a node with occurredAt starts then.
			if n.Start != a["occurredAt"] {
				t.Fatalf("node %s start %q, occurredAt %q", n.ID, n.Start, a["occurredAt"])
			}
			nodes[n.ID] = a
		}
		for _, e := range doc.Graph.Edges.Edges {
			a := map[string]string{}
			for _, v := range e.AttValues.AttValues {
				a[v.For] = v.Value
			}
			if (a["kind"] == "ASSOCIATION") != (e.Type == "undirected") {
				t.Fatalf("edge %v type %q", a, e.Type)
			}
			if a["strength"] != "" && strconv.FormatFloat(e.Weight, 'g', -1, 64) != a["strength"] {
				t.Fatalf("edge weight %v, strength %s", e.Weight, a["strength"])
			}
			edges[e.Source+">"+e.Target+">"+a["kind"]+">"+a["type"]] = a
		}
		compare(t, "gexf", w, nodes, edges, true)
		starts := 0
		for _, n := range doc.Graph.Nodes.Nodes {
			if n.Start != "" {
				starts++
			}
		}
		if starts != 6 { // five memories and the episode
			t.Fatalf("%d nodes on the timeline, want 6", starts)
		}
	})

	t.Run("cyjs", func(t *testing.T) {
		var doc cytoscapejs.GraphNodeEdge
		if err := json.Unmarshal(export(web.CYJS), &doc); err != nil {
			t.Fatal(err)
		}
		str := func(v any) string {
			if f, ok := v.(float64); ok {
				return strconv.FormatFloat(f, 'g', -1, 64)
			}
			return fmt.Sprint(v)
		}
		nodes, edges := map[string]map[string]string{}, map[string]map[string]string{}
		for _, n := range doc.Elements.Nodes {
			a := map[string]string{}
			for k, v := range n.Data.Attributes {
				a[k] = str(v)
			}
			nodes[n.Data.ID] = a
		}
		for _, e := range doc.Elements.Edges {
			a := map[string]string{}
			for k, v := range e.Data.Attributes {
				if k != "directed" {
					a[k] = str(v)
				}
			}
			if e.Data.Attributes["directed"] != (a["kind"] != "ASSOCIATION") {
				t.Fatalf("edge %v directed %v", a, e.Data.Attributes["directed"])
			}
			edges[e.Data.Source+">"+e.Data.Target+">"+a["kind"]+">"+a["type"]] = a
		}
		compare(t, "cyjs", w, nodes, edges, false)
	})

	t.Run("refusals", func(t *testing.T) {
		var b bytes.Buffer
		for _, tc := range []struct {
			scope string
			code  string
		}{{domain.NewID(), domain.ENOTFOUND}, {"not-an-id", domain.EINVALID}, {"", domain.EINVALID}} {
			_, err := web.WriteGraph(context.Background(), cx, tc.scope, web.GEXF, &b)
			if got := domain.ErrorCode(err); got != tc.code {
				t.Fatalf("scope %q: %v, want %s", tc.scope, err, tc.code)
			}
		}
		if b.Len() != 0 {
			t.Fatalf("a refused export wrote %q", b.String())
		}
		if _, err := web.ParseFormat("dot"); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("format dot: %v", err)
		}
		if f, err := web.ParseFormat("GEXF"); err != nil || f != web.GEXF {
			t.Fatalf("format GEXF: %v %v", f, err)
		}
	})
}
