package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// explorerScope is a scope of every node and edge kind, built through the API as a user would:
// a LoCoMo conversation (memories, temporal associations, an episode per session, person
// facets), memories stored and associated by hand, a knowledge page with references, and two
// memories consolidated into a third (both archived).
type explorerScope struct {
	id       string
	climbing string // "Ada climbs at the gym on Baker Street every Tuesday"
	coffee   string // "Coffee with Ada after climbing"
	book     string // "Ada lent me a book about memory palaces"
	lisbon   string // "Trip to Lisbon in June"
	merged   string // the consolidation of two memories
	page     string // knowledge page "Ada"
	comet    string // an imported turn about Ada's dog Comet, in an episode, with facets
}

func seedExplorerScope(t *testing.T, s *server) explorerScope {
	t.Helper()
	var e explorerScope
	e.id, _, _ = s.createScope(t, "explorer")
	res := s.importData(t, e.id, "LOCOMO", locomoConversation, "conv-explorer")
	if res.Imported == 0 || res.Episodes == 0 {
		t.Fatalf("import: %+v", res)
	}
	s.ok(t, `mutation($s: ID!) { analyzeEpisodes(scopeId: $s, type: "persons") { id status } }`, map[string]any{"s": e.id}, nil)
	day := func(d int) string { return fmt.Sprintf("2024-05-%02dT10:00:00Z", d) }
	e.climbing = s.store(t, map[string]any{"scopeId": e.id, "content": "Ada climbs at the gym on Baker Street every Tuesday", "occurredAt": day(1), "tags": []string{"ada", "climbing"}, "metadata": map[string]any{"place": "Baker Street"}}).ID
	e.coffee = s.store(t, map[string]any{"scopeId": e.id, "content": "Coffee with Ada after climbing", "occurredAt": day(2)}).ID
	e.book = s.store(t, map[string]any{"scopeId": e.id, "content": "Ada lent me a book about memory palaces", "occurredAt": day(3)}).ID
	e.lisbon = s.store(t, map[string]any{"scopeId": e.id, "content": "Trip to Lisbon in June", "occurredAt": day(20)}).ID
	old1 := s.store(t, map[string]any{"scopeId": e.id, "content": "Lisbon flights are cheaper on Tuesdays", "occurredAt": day(4)}).ID
	old2 := s.store(t, map[string]any{"scopeId": e.id, "content": "Book the Lisbon flight early", "occurredAt": day(5)}).ID
	assoc := func(a, b, typ string, w float64) {
		s.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`,
			map[string]any{"in": map[string]any{"sourceId": a, "targetId": b, "type": typ, "strength": w}}, nil)
	}
	assoc(e.climbing, e.coffee, "CAUSAL", 0.9)
	assoc(e.coffee, e.book, "PERSON", 0.7)
	assoc(e.climbing, e.book, "THEMATIC", 0.2)
	assoc(e.lisbon, old1, "THEMATIC", 0.6)
	// The book leads into the imported conversation: its first turn, episode and facets.
	var comet struct{ SearchArtifacts []struct{ ID string } }
	s.ok(t, `query($s: ID!) { searchArtifacts(scopeId: $s, query: "Comet", maxResults: 1) { id } }`, map[string]any{"s": e.id}, &comet)
	if len(comet.SearchArtifacts) != 1 {
		t.Fatalf("the imported conversation has no memory about Comet: %+v", comet)
	}
	e.comet = comet.SearchArtifacts[0].ID
	assoc(e.book, e.comet, "TEMPORAL", 0.4)
	var k struct{ SaveKnowledge struct{ ID string } }
	s.ok(t, `mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"scopeId": e.id, "type": "ENTITY", "title": "Ada", "content": "A friend who climbs and reads"}}, &k)
	e.page = k.SaveKnowledge.ID
	for _, src := range []string{e.climbing, e.book} {
		s.ok(t, `mutation($in: ReferenceInput!) { addReference(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"sourceId": src, "type": "SUPPORTS", "targetId": e.page}}, nil)
	}
	var c struct{ Consolidate struct{ ID string } }
	s.ok(t, `mutation($ids: [ID!]!) { consolidate(memoryIds: $ids) { id } }`, map[string]any{"ids": []string{old1, old2}}, &c)
	e.merged = c.Consolidate.ID
	return e
}

type subgraph struct {
	Nodes []struct {
		ID, Kind, Label, State string
		Tier                   *string
		Salience               *float64
		OccurredAt             *string
	}
	Edges []struct {
		Source, Target, Kind string
		Type                 *string
		Strength             *float64
	}
	Truncated bool
}

const subgraphFields = `nodes { id kind label tier salience state occurredAt } edges { source target kind type strength } truncated`

func (s *server) neighborhood(t *testing.T, scope string, seeds []string, depth int) subgraph {
	t.Helper()
	var r struct{ Neighborhood subgraph }
	s.ok(t, `query($s: ID!, $seeds: [ID!]!, $d: Int) { neighborhood(scopeId: $s, seeds: $seeds, depth: $d) { `+subgraphFields+` } }`,
		map[string]any{"s": scope, "seeds": seeds, "d": depth}, &r)
	return r.Neighborhood
}

// TestExploreAPI: neighborhood, path and graphNode over HTTP, their refusals, and the exports.
func TestExploreAPI(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, storeFlags{store: "file://" + data})
	defer s.stop(t)
	e := seedExplorerScope(t, s)
	other, _, _ := s.createScope(t, "another")
	foreign := s.store(t, map[string]any{"scopeId": other, "content": "a memory of another scope"}).ID

	t.Run("Neighborhood", func(t *testing.T) {
		g := s.neighborhood(t, e.id, []string{e.climbing}, 1)
		got := map[string]string{}
		for _, n := range g.Nodes {
			got[n.ID] = n.Kind
		}
		want := map[string]string{e.climbing: "MEMORY", e.coffee: "MEMORY", e.book: "MEMORY", e.page: "KNOWLEDGE"}
		if fmt.Sprint(got) != fmt.Sprint(want) || g.Truncated {
			t.Fatalf("depth 1 from climbing = %v (truncated %v), want %v", got, g.Truncated, want)
		}
		kinds := map[string]int{}
		for _, ed := range g.Edges {
			kinds[ed.Kind]++
		}
		if fmt.Sprint(kinds) != "map[ASSOCIATION:3 REFERENCE:2]" {
			t.Fatalf("edges = %v, want 3 associations and 2 references", kinds)
		}
		// An episode and its facets, from the imported conversation.
		var eps struct{ Episodes []struct{ ID string } }
		s.ok(t, `query($s: ID!) { episodes(scopeId: $s) { id } }`, map[string]any{"s": e.id}, &eps)
		// The facets hang on the memories they were found in: two edges from the episode.
		g = s.neighborhood(t, e.id, []string{eps.Episodes[0].ID}, 2)
		kinds = map[string]int{}
		for _, n := range g.Nodes {
			kinds[n.Kind]++
		}
		if kinds["EPISODE"] != 1 || kinds["MEMORY"] == 0 || kinds["FACET"] == 0 {
			t.Fatalf("from an episode: %v, want the episode, its memories and facets", kinds)
		}
		// Another scope's memory as a seed is left out; the other scope sees none of ours.
		g = s.neighborhood(t, e.id, []string{foreign, e.lisbon}, 1)
		for _, n := range g.Nodes {
			if n.ID == foreign {
				t.Fatal("a seed of another scope came back")
			}
		}
		g = s.neighborhood(t, other, []string{e.climbing, e.lisbon}, 2)
		if len(g.Nodes) != 0 || len(g.Edges) != 0 {
			t.Fatalf("another scope's walk from our memories = %+v", g)
		}
	})

	t.Run("Path", func(t *testing.T) {
		var r struct{ Path subgraph }
		s.ok(t, `query($a: ID!, $b: ID!) { path(fromId: $a, toId: $b) { `+subgraphFields+` } }`, map[string]any{"a": e.climbing, "b": e.book}, &r)
		var chain []string
		for _, n := range r.Path.Nodes {
			chain = append(chain, n.ID)
		}
		// climbing –CAUSAL .9– coffee –PERSON .7– book costs 0.4; the direct THEMATIC .2 costs 0.8.
		if fmt.Sprint(chain) != fmt.Sprint([]string{e.climbing, e.coffee, e.book}) || len(r.Path.Edges) != 2 ||
			*r.Path.Edges[0].Strength != 0.9 || *r.Path.Edges[1].Strength != 0.7 {
			t.Fatalf("path = %v %+v", chain, r.Path.Edges)
		}
		s.ok(t, `query($a: ID!, $b: ID!) { path(fromId: $a, toId: $b, maxDepth: 1) { `+subgraphFields+` } }`, map[string]any{"a": e.climbing, "b": e.book}, &r)
		if len(r.Path.Nodes) != 2 || *r.Path.Edges[0].Type != "THEMATIC" {
			t.Fatalf("path within 1 = %+v", r.Path)
		}
		s.ok(t, `query($a: ID!, $b: ID!) { path(fromId: $a, toId: $b) { `+subgraphFields+` } }`, map[string]any{"a": e.climbing, "b": e.lisbon}, &r)
		if len(r.Path.Nodes) != 0 {
			t.Fatalf("path to an unconnected memory = %+v", r.Path)
		}
	})

	t.Run("GraphNode", func(t *testing.T) {
		var before, after struct {
			GraphNode struct {
				Node   struct{ Kind, Label string }
				Memory struct {
					Content     string
					AccessCount int
					Version     int
				}
			}
		}
		q := `query($s: ID!, $id: ID!) { graphNode(scopeId: $s, id: $id) { node { kind label } memory { content accessCount version } } }`
		s.ok(t, q, map[string]any{"s": e.id, "id": e.climbing}, &before)
		s.ok(t, q, map[string]any{"s": e.id, "id": e.climbing}, &after)
		if after.GraphNode.Memory.Content != "Ada climbs at the gym on Baker Street every Tuesday" || after.GraphNode.Node.Kind != "MEMORY" {
			t.Fatalf("graphNode = %+v", after)
		}
		// Looking records no retrieval.
		if after.GraphNode.Memory.AccessCount != before.GraphNode.Memory.AccessCount || after.GraphNode.Memory.Version != before.GraphNode.Memory.Version {
			t.Fatalf("graphNode changed the memory: %+v then %+v", before, after)
		}
		var none struct {
			GraphNode *struct{ Node struct{ ID string } }
		}
		s.ok(t, `query($s: ID!, $id: ID!) { graphNode(scopeId: $s, id: $id) { node { id } } }`, map[string]any{"s": other, "id": e.climbing}, &none)
		if none.GraphNode != nil {
			t.Fatal("graphNode answered a node of another scope")
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		nq := `query($s: ID!, $seeds: [ID!]!, $d: Int, $l: Int, $m: Float, $t: [String!]) { neighborhood(scopeId: $s, seeds: $seeds, depth: $d, limit: $l, minStrength: $m, types: $t) { truncated } }`
		for _, tc := range []struct {
			name string
			vars map[string]any
			code string
		}{
			{"unknown scope", map[string]any{"s": "00000000-0000-4000-8000-000000000000", "seeds": []string{e.climbing}}, "NOT_FOUND"},
			{"scope not an id", map[string]any{"s": `"); drop <_:x> *`, "seeds": []string{}}, "INVALID_ARGUMENT"},
			{"seed not an id", map[string]any{"s": e.id, "seeds": []string{"uid(0x1)"}}, "INVALID_ARGUMENT"},
			{"depth too deep", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "d": 5}, "INVALID_ARGUMENT"},
			{"negative depth", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "d": -1}, "INVALID_ARGUMENT"},
			{"limit 0", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "l": 0}, "INVALID_ARGUMENT"},
			{"limit huge", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "l": 1 << 30}, "INVALID_ARGUMENT"},
			{"strength above 1", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "m": 1.5}, "INVALID_ARGUMENT"},
			{"unknown edge type", map[string]any{"s": e.id, "seeds": []string{e.climbing}, "t": []string{`THEMATIC") { uid }`}}, "INVALID_ARGUMENT"},
		} {
			t.Run(tc.name, func(t *testing.T) { s.fails(t, tc.code, nq, tc.vars) })
		}
		pq := `query($a: ID!, $b: ID!, $d: Int) { path(fromId: $a, toId: $b, maxDepth: $d) { truncated } }`
		s.fails(t, "CROSS_SCOPE_REFERENCE", pq, map[string]any{"a": e.climbing, "b": foreign})
		s.fails(t, "NOT_FOUND", pq, map[string]any{"a": e.climbing, "b": "00000000-0000-4000-8000-000000000000"})
		s.fails(t, "NOT_FOUND", pq, map[string]any{"a": e.page, "b": e.climbing})
		s.fails(t, "INVALID_ARGUMENT", pq, map[string]any{"a": e.climbing, "b": e.book, "d": 0})
		s.fails(t, "INVALID_ARGUMENT", pq, map[string]any{"a": e.climbing, "b": e.book, "d": 13})
		s.fails(t, "INVALID_ARGUMENT", pq, map[string]any{"a": "", "b": e.book})
	})

	t.Run("Exports", func(t *testing.T) { testExportsOverHTTPAndCLI(t, s, e, data) })
}

// testExportsOverHTTPAndCLI: GET /export/{scope}.{format} and `totalrecall export --format`
// (from the server, with --server) write the scope's graph; refusals are clean statuses.
func testExportsOverHTTPAndCLI(t *testing.T, s *server, e explorerScope, data string) {
	// The Synapse connects the seeded memories in the background: the formats are compared once
	// the scope's graph has stopped changing (the same export a second apart).
	prev := ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		resp, err := http.Get("http://" + s.addr + "/export/" + e.id + ".graphml")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) == prev {
			break
		}
		prev = string(b)
	}
	var all struct {
		Memories struct{ TotalCount int }
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {states: [ACTIVE, ARCHIVED]}) { totalCount } }`, map[string]any{"s": e.id}, &all)
	get := func(path string) (*http.Response, []byte) {
		resp, err := http.Get("http://" + s.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, body := get("/export/" + e.id + ".graphml")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/graphml+xml") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "totalrecall-"+e.id+".graphml") {
		t.Fatalf("graphml: %s %v", resp.Status, resp.Header)
	}
	var doc struct {
		Graph struct {
			Nodes []struct {
				ID   string `xml:"id,attr"`
				Data []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"node"`
			Edges []struct{} `xml:"edge"`
		} `xml:"graph"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	memories := 0
	for _, n := range doc.Graph.Nodes {
		for _, d := range n.Data {
			if d.Key == "n_kind" && d.Value == "MEMORY" {
				memories++
			}
		}
	}
	if memories != all.Memories.TotalCount || len(doc.Graph.Edges) == 0 {
		t.Fatalf("graphml has %d memories and %d edges; the scope has %d memories", memories, len(doc.Graph.Edges), all.Memories.TotalCount)
	}
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"/export/00000000-0000-4000-8000-000000000000.gexf", 404, "NOT_FOUND"},
		{"/export/" + e.id + ".dot", 400, "INVALID_ARGUMENT"},
		{"/export/" + e.id, 400, "INVALID_ARGUMENT"},
		{"/export/not-a-scope.cyjs", 400, "INVALID_ARGUMENT"},
	} {
		resp, body := get(tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("X-Error-Code") != tc.code || len(body) < 10 || strings.Contains(string(body), "goroutine") {
			t.Fatalf("%s: %s %q (code %q), want %d %s", tc.path, resp.Status, body, resp.Header.Get("X-Error-Code"), tc.status, tc.code)
		}
	}

	// The CLI: from the server, to a file; the same bytes as the HTTP export.
	dir := t.TempDir()
	for _, f := range []string{"graphml", "gexf", "cyjs"} {
		out := filepath.Join(dir, "g."+f)
		var stdout bytes.Buffer
		if err := run([]string{"export", "--scope", e.id, "--format", f, "--server", "http://" + s.addr, "--out", out}, &stdout, io.Discard); err != nil {
			t.Fatalf("export --format %s: %v", f, err)
		}
		if got := stdout.String(); got != fmt.Sprintf("exported scope %s as %s to %s\n", e.id, f, out) {
			t.Fatalf("export said %q", got)
		}
		file, _ := os.ReadFile(out)
		_, want := get("/export/" + e.id + "." + f)
		if !bytes.Equal(file, want) {
			t.Fatalf("export --format %s wrote %d bytes, the server serves %d", f, len(file), len(want))
		}
		if f == "cyjs" {
			var cy struct {
				Elements struct {
					Nodes []json.RawMessage
					Edges []json.RawMessage
				}
			}
			if err := json.Unmarshal(file, &cy); err != nil || len(cy.Elements.Nodes) != len(doc.Graph.Nodes) || len(cy.Elements.Edges) != len(doc.Graph.Edges) {
				t.Fatalf("cyjs: %v, %d nodes %d edges; graphml has %d and %d", err, len(cy.Elements.Nodes), len(cy.Elements.Edges), len(doc.Graph.Nodes), len(doc.Graph.Edges))
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--scope", e.id, "--format", "dot", "--server", "http://" + s.addr}, `export --format "dot": want graphml, gexf or cyjs`},
		{[]string{"export", "--scope", "nope", "--format", "gexf", "--server", "http://" + s.addr}, "export --scope: scope: is not a valid UUID"},
		{[]string{"export", "--scope", "00000000-0000-4000-8000-000000000000", "--format", "gexf", "--server", "http://" + s.addr}, "export: scope 00000000-0000-4000-8000-000000000000 not found"},
		{[]string{"export", "--scope", e.id, "--format", "gexf", "--server", "http://127.0.0.1:1"}, "export: no totalrecall server answers at http://127.0.0.1:1"},
		{[]string{"export", "--scope", e.id, "--format", "gexf", "--server", "http://" + s.addr, "--store", "file://" + dir}, "export: give --server or --store, not both"},
		// The server holds its data folder: one line, not the engine's fatal stack trace.
		{[]string{"export", "--scope", e.id, "--format", "gexf", "--store", "file://" + data}, "export: the data folder " + data + " is held by a running server: export from it with --server URL instead of --store"},
	} {
		err := run(tc.args, io.Discard, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Fatalf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	out := filepath.Join(dir, "refused.gexf")
	if err := run([]string{"export", "--scope", "00000000-0000-4000-8000-000000000000", "--format", "gexf", "--server", "http://" + s.addr, "--out", out}, io.Discard, io.Discard); err == nil {
		t.Fatal("export of a missing scope succeeded")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused export left %s behind", out)
	}
}
