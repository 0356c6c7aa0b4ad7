package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

// TestExportImportDataFolder moves a populated embedded data folder into a cluster (into another
// embedded folder when TOTALRECALL_TEST_DGRAPH is not set) with the real CLI — `totalrecall
// export` then `totalrecall import dump` — and reads every node of the folder, with every
// predicate and edge, on both sides through the store's raw queries: nothing is lost, every id
// is kept. The folder is filled through a real server and the CLI: memories with metadata, tags
// and vectors, associations, claims, a store with a requestId, sessions, working memory,
// knowledge and skills with references, a digest report, a consolidation, a deleted scope (its
// erased events), LoCoMo and agent imports with episodes, facets and analyses. The request then
// retried against the cluster replays its first answer, and a server there finds the memories.
// The cluster is shared with other tests: only the folder's nodes are compared, found by id.
func TestExportImportDataFolder(t *testing.T) {
	target, ok := backends(t)["cluster"]
	name := "cluster"
	if !ok {
		target, name = backends(t)["embedded"], "embedded"
	}
	t.Logf("moving an embedded data folder into the %s backend", name)
	ctx := context.Background()
	root := t.TempDir()
	src := storeFlags{store: "file://" + root}
	s := startServer(t, withLiving(src))
	pop := populateFolder(t, s)
	s.stop(t)
	var out bytes.Buffer
	// The real LoCoMo data (beside the repository, never copied into it), if present: a long
	// conversation imported with the CLI.
	if _, err := os.Stat(filepath.Join(locomoDir, "30.json")); err == nil {
		var errOut bytes.Buffer
		if err := run([]string{"import", "locomo", "--store", src.store, filepath.Join(locomoDir, "30.json")}, &out, &errOut); err != nil {
			t.Fatalf("import locomo: %v\n%s", err, errOut.String())
		}
		t.Logf("LoCoMo 30.json: %s", strings.TrimSpace(out.String()))
	} else {
		t.Logf("LoCoMo data not found at %s: the folder holds the inline conversation only", locomoDir)
	}
	// Vectors of the main scope's memories, from an embeddings server made up here.
	emb := httptest.NewServer(http.HandlerFunc(fakeEmbeddings))
	defer emb.Close()
	out.Reset()
	if err := run([]string{"embed", "--store", src.store, "--scope", pop.scope, "--embed-url", emb.URL, "--embed-model", "fake"}, &out, &out); err != nil {
		t.Fatalf("embed: %v\n%s", err, out.String())
	}
	t.Logf("%s", strings.TrimSpace(out.String()))

	dump := filepath.Join(t.TempDir(), "graph.jsonl")
	out.Reset()
	start := time.Now()
	if err := run([]string{"export", "--store", src.store, "--out", dump}, &out, &out); err != nil {
		t.Fatalf("export: %v\n%s", err, out.String())
	}
	t.Logf("%s in %v", strings.TrimSpace(out.String()), time.Since(start).Round(time.Millisecond))

	// The predicates to read: every one the store's schema declares, the dump names and the
	// engines' schemas list, and dgraph.type — so a predicate the export missed is still read.
	// The folder is asked only for those its engine knows (modusgraph crashes on a predicate it
	// never saw); the target, a cluster, for every predicate it lists besides.
	srcURI, _, err := src.paths()
	if err != nil {
		t.Fatal(err)
	}
	dst := target(t)
	dstURI, _, err := dst.paths()
	if err != nil {
		t.Fatal(err)
	}
	names := append(dumpPredicateNames(t, dump), declaredPredicates(graph.Schema())...)
	var before map[string]*node
	var srcSeq uint64
	withStore(t, srcURI, func(st *graph.Store) {
		names = append(names, schemaPredicates(t, st)...)
		before = readAllNodes(t, st, names)
		srcSeq, _ = st.LastSeq(ctx)
	})
	var head uint64
	var preexisting map[string]bool
	withStore(t, dstURI, func(st *graph.Store) {
		names = append(names, schemaPredicates(t, st)...)
		// The head of the target's log: imported events come after it.
		head, err = st.LastSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		preexisting = existingGlobals(t, st, before, names)
	})

	args := []string{"import", "dump", "--store", dst.store}
	if dst.index != "" {
		args = append(args, "--index", dst.index)
	}
	out.Reset()
	start = time.Now()
	if err := run(append(args, dump), &out, &out); err != nil {
		t.Fatalf("import dump: %v\n%s", err, out.String())
	}
	t.Logf("%s in %v", strings.TrimSpace(out.String()), time.Since(start).Round(time.Millisecond))
	// Importing the same dump again would duplicate everything: refused, nothing written.
	out.Reset()
	if err := run(append(args, dump), &out, &out); err == nil || !strings.Contains(err.Error(), "already") {
		t.Fatalf("a second import of the same dump: %v, want a refusal", err)
	}

	// After: the same nodes, found by their ids in the target; erased events, which have no id,
	// by where their neighbours in the log went.
	withStore(t, dstURI, func(st *graph.Store) {
		after := readNodesByKey(t, st, keyed(before), names)
		for k, n := range readErased(t, st, before, after, names) {
			after[k] = n
		}
		compareNodes(t, before, after, preexisting, head, srcSeq)
	})

	// The retried request replays its first answer on the target, and the index of a server
	// started on it catches up with the imported memories.
	srv := startServer(t, dst)
	defer srv.stop(t)
	again := srv.store(t, pop.requestInput)
	if !reflect.DeepEqual(again, pop.requestAnswer) {
		t.Fatalf("the retried request answered\n %+v\nfirst\n %+v", again, pop.requestAnswer)
	}
	var total struct{ Memories struct{ TotalCount int } }
	srv.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": pop.scope}, &total)
	if total.Memories.TotalCount != pop.memories {
		t.Fatalf("%d memories in the scope after the retry, want %d", total.Memories.TotalCount, pop.memories)
	}
	eventually(t, func() string {
		// The only memory with the word is the first hit, the only one found by it (others of
		// its episode may follow as CONTEXT).
		if hits := srv.search(t, pop.scope, "pangolin", false); len(hits) == 0 || hits[0].Memory.ID != pop.searchable ||
			hits[0].Reason != "TEXT" || (len(hits) > 1 && hits[1].Reason == "TEXT") {
			return fmt.Sprintf("search on the target = %+v, want %s", hits, pop.searchable)
		}
		return ""
	})
}

// populated is what populateFolder made that the test checks after the move.
type populated struct {
	scope         string
	memories      int // in scope
	requestInput  map[string]any
	requestAnswer memory
	searchable    string
}

func populateFolder(t *testing.T, s *server) populated {
	t.Helper()
	var p populated
	scope, agent, world := s.createScope(t, "export main")
	other, _, _ := s.createScope(t, "export other")
	p.scope = scope

	// Memories with metadata and tags, nasty strings included.
	var ms []memory
	for i, nasty := range storetest.Nasty {
		ms = append(ms, s.store(t, map[string]any{
			"scopeId":    scope,
			"content":    "export " + nasty,
			"tags":       []string{nasty, fmt.Sprint("t", i)},
			"metadata":   map[string]any{nasty: nasty, "n": i, "nested": map[string]any{"list": []any{1.5, true, nasty}}},
			"kind":       []string{"EPISODIC", "SEMANTIC", "OBSERVATIONAL"}[i%3],
			"occurredAt": fmt.Sprintf("2025-0%d-0%dT10:00:00Z", 1+i%9, 1+i%9),
			"importance": float64(i%10) / 10,
			"sessionId":  "export-session",
		}))
	}
	pangolin := s.store(t, map[string]any{"scopeId": scope, "content": "a pangolin rolled into a ball", "suggestedTier": "IDENTITY_CORE"})
	p.searchable = pangolin.ID
	// A store with a requestId: its record goes along, and a retry replays it.
	p.requestInput = map[string]any{"scopeId": scope, "content": "stored with a request id", "tags": []string{"req"},
		"requestId": "export-store-" + runID}
	p.requestAnswer = s.store(t, p.requestInput)
	s.store(t, map[string]any{"scopeId": other, "content": "in the other scope", "metadata": map[string]any{"where": "other"}})

	// Associations, claims (one with a requestId), a reclassification and a deletion.
	assoc := `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`
	for i := 1; i < 6; i++ {
		s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": ms[i-1].ID, "targetId": ms[i].ID,
			"type": []string{"TEMPORAL", "CAUSAL", "THEMATIC", "EMOTIONAL", "PERSON"}[i-1], "strength": float64(i) / 8}}, nil)
	}
	s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": ms[1].ID, "targetId": ms[0].ID, "type": "TEMPORAL",
		"strength": 0.25, "direction": "STRENGTHEN"}}, nil)
	claim := `mutation($id: ID!, $r: ID) { claimMemory(id: $id, requestId: $r) { id } }`
	s.ok(t, claim, map[string]any{"id": ms[2].ID, "r": "export-claim-" + runID}, nil)
	s.ok(t, claim, map[string]any{"id": ms[3].ID}, nil)
	s.ok(t, `mutation($id: ID!) { reclassifyMemory(input: {id: $id, tier: LONG_TERM, metadata: {why: "kept"}, reason: "export"}) { id } }`,
		map[string]any{"id": ms[4].ID}, nil)
	s.ok(t, `mutation($id: ID!) { deleteMemory(id: $id, reason: "export") { id } }`, map[string]any{"id": ms[len(ms)-1].ID}, nil)
	s.ok(t, `mutation($k: ID!) { updateKernel(kernelId: $k, content: "I keep what matters") { id } }`, map[string]any{"k": agent}, nil)

	// A consolidation: its sources point to it.
	var cons struct{ Consolidate struct{ ID string } }
	s.ok(t, `mutation($ids: [ID!]!, $r: ID) { consolidate(memoryIds: $ids, requestId: $r) { id } }`,
		map[string]any{"ids": []string{ms[6].ID, ms[7].ID}, "r": "export-consolidate-" + runID}, &cons)

	// Sessions of an instance, with memories stored in them, and the working memory.
	inst := "export-instance-" + runID
	first := s.sessionStart(t, inst, "claude", scope)
	s.store(t, map[string]any{"scopeId": scope, "content": "stored in a session", "sessionId": first.SessionID})
	s.boolMutation(t, `mutation($i: ID!) { heartbeat(instanceId: $i) }`, map[string]any{"i": inst})
	s.boolMutation(t, `mutation($i: ID!) { sessionEnd(instanceId: $i, reason: EXPLICIT) }`, map[string]any{"i": inst})
	s.sessionStart(t, inst, "claude", scope)
	s.ok(t, `mutation($s: ID!) { updateContext(scopeId: $s, text: "the pangolin and the export", capacity: 3) { capacity } }`,
		map[string]any{"s": scope}, nil)

	// Knowledge, skills and working state with references, and a digest report.
	k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "pangolins", "content": "pangolins roll up",
		"tags": []string{"animals"}, "metadata": map[string]any{"source": "export"}})
	s.saveKnowledge(t, map[string]any{"scopeId": scope, "id": k.ID, "type": "FACT", "title": "pangolins", "content": "pangolins roll up when afraid"})
	sk := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "PROCEDURE", "title": "calm a pangolin", "content": "wait",
		"steps": []string{"step back", "wait"}})
	ws := s.saveWorkingState(t, scope, "export scratch")
	s.ref(t, k.ID, "DERIVED_FROM", pangolin.ID)
	s.ref(t, sk.ID, "DEPENDS_ON", k.ID)
	s.ref(t, k.ID, "CITES", world)
	s.ref(t, ws.ID, "CITES", k.ID)
	s.ok(t, `mutation($in: DigestInput!) { runDigest(input: $in) { id } }`, map[string]any{"in": map[string]any{"scopeId": scope, "propose": true}}, nil)

	// LoCoMo and agent transcripts: threads, episodes, facets, analysis runs, agent sessions.
	locomo, _, _ := s.createScope(t, "export locomo")
	if res := s.importData(t, locomo, "LOCOMO", locomoConversation, "conv-export"); res.Episodes != 2 {
		t.Fatalf("LoCoMo import = %+v", res)
	}
	var def struct{ DefineEpisodes struct{ ID string } }
	s.ok(t, `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "per thread", strategy: THREAD}) { id } }`, map[string]any{"s": locomo}, &def)
	s.ok(t, `mutation($s: ID!) { chunkEpisodes(scopeId: $s, definition: "per thread") { episodes } }`, map[string]any{"s": locomo}, nil)
	s.ok(t, `mutation($s: ID!, $d: ID) { analyzeEpisodes(scopeId: $s, type: "entities", definitionId: $d) { id } }`,
		map[string]any{"s": locomo, "d": def.DefineEpisodes.ID}, nil)
	agents, _, _ := s.createScope(t, "export agents")
	if res := s.importData(t, agents, "AGENT_SESSIONS", agentTranscript, ""); res.Sessions != 2 {
		t.Fatalf("agent import = %+v", res)
	}

	// A deleted scope: its events stay in the log, erased (kind, Seq and type Erased only).
	doomed, _, _ := s.createScope(t, "export doomed")
	d1 := s.store(t, map[string]any{"scopeId": doomed, "content": "doomed one"})
	d2 := s.store(t, map[string]any{"scopeId": doomed, "content": "doomed two"})
	s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": d1.ID, "targetId": d2.ID, "type": "CAUSAL", "strength": 0.5}}, nil)
	s.ok(t, `mutation($id: ID!) { deleteScope(id: $id) { events } }`, map[string]any{"id": doomed}, nil)
	s.store(t, map[string]any{"scopeId": other, "content": "after the deletion"})

	var total struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &total)
	p.memories = total.Memories.TotalCount
	return p
}

// node is one graph node as read through the raw query: its scalar predicates, and its edges as
// "PREDICATE → key of the target {facets}", sorted.
type node struct {
	Key     string
	Kind    string
	Scalars map[string]any
	Edges   []string
}

// withStore opens the store at uri for fn and closes it (the embedded engine runs once per
// process, so the folder and an embedded target are opened in turn).
func withStore(t *testing.T, uri string, fn func(st *graph.Store)) {
	t.Helper()
	st, err := graph.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fn(st)
}

// dumpPredicateNames lists the predicates the dump's lines name.
func dumpPredicateNames(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var d struct {
			Set  map[string]any
			Edge string
		}
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("dump line %.200s: %v", line, err)
		}
		for p := range d.Set {
			names[p] = true
		}
		if d.Edge != "" {
			names[d.Edge] = true
		}
	}
	return keys(names)
}

// declaredPredicates lists the predicates a DQL schema declares ("name: type …" lines).
func declaredPredicates(schema string) []string {
	var out []string
	for _, line := range strings.Split(schema, "\n") {
		name, _, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && name != "" && !strings.ContainsAny(name, " {}") {
			out = append(out, name)
		}
	}
	return out
}

// schemaPredicates lists the predicates an engine's schema names: a cluster lists every one it
// holds, the embedded engine only the fields of DQL types.
func schemaPredicates(t *testing.T, st *graph.Store) []string {
	t.Helper()
	raw, err := st.RawQuery(context.Background(), `schema {}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sch struct {
		Schema []struct{ Predicate string }
		Types  []struct{ Fields []struct{ Name string } }
	}
	if err := json.Unmarshal(raw, &sch); err != nil {
		t.Fatal(err)
	}
	out := []string{"dgraph.type"}
	for _, p := range sch.Schema {
		out = append(out, p.Predicate)
	}
	for _, ty := range sch.Types {
		for _, f := range ty.Fields {
			out = append(out, f.Name)
		}
	}
	return out
}

// predicates types names as st's schema does; Dgraph's own bookkeeping (GraphQL schema, drop
// markers) is left out, and dgraph.type kept.
func predicates(t *testing.T, st *graph.Store, names []string) map[string]string {
	t.Helper()
	set := map[string]bool{}
	for _, n := range names {
		if !strings.HasPrefix(n, "dgraph.") || n == "dgraph.type" {
			set[n] = true
		}
	}
	q := `schema(pred: [` + strings.Join(keys(set), ", ") + `]) { type }`
	raw, err := st.RawQuery(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var typed struct {
		Schema []struct{ Predicate, Type string }
	}
	if err := json.Unmarshal(raw, &typed); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range typed.Schema {
		out[p.Predicate] = p.Type
	}
	for n := range set {
		if _, ok := out[n]; !ok {
			out[n] = "default" // not in this engine's schema: asked for all the same
		}
	}
	return out
}

// nodeQuery is the selection of every predicate: scalars as they are, edges with their facets
// and the keys of their targets.
func nodeQuery(preds map[string]string) string {
	var b strings.Builder
	b.WriteString("uid ")
	names := make([]string, 0, len(preds))
	for p := range preds {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if preds[p] == "uid" {
			fmt.Fprintf(&b, "<%s> @facets { tr.kind tr.id req.key ev.messageId ev.seq } ", p)
		} else {
			fmt.Fprintf(&b, "<%s> ", p)
		}
	}
	return b.String()
}

func keyOf(row map[string]any) string {
	for _, p := range []string{"tr.id", "req.key", "ev.messageId"} {
		if v, ok := row[p].(string); ok && v != "" {
			return p + "=" + v
		}
	}
	if v, ok := row["ev.seq"]; ok {
		return fmt.Sprintf("ev.seq=%v", v)
	}
	j, _ := json.Marshal(row)
	return "unkeyed " + string(j)
}

func toNode(row map[string]any, preds map[string]string) *node {
	n := &node{Key: keyOf(row), Scalars: map[string]any{}}
	n.Kind, _ = row["tr.kind"].(string)
	if _, ok := row["ev.seq"]; ok {
		n.Kind = "Event" // events carry no tr.kind (those written before, Event)
		delete(row, "tr.kind")
	}
	for p, v := range row {
		if p == "uid" {
			continue
		}
		if preds[p] != "uid" {
			if list, ok := v.([]any); ok {
				sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
			}
			n.Scalars[p] = v
			continue
		}
		var targets []any
		switch x := v.(type) {
		case []any:
			targets = x
		case map[string]any:
			targets = []any{x}
		}
		for _, tg := range targets {
			tm, _ := tg.(map[string]any)
			facets := map[string]any{}
			for k, fv := range tm {
				if f, ok := strings.CutPrefix(k, p+"|"); ok {
					facets[f] = fv
				}
			}
			fj, _ := json.Marshal(facets)
			n.Edges = append(n.Edges, fmt.Sprintf("%s → %s %s", p, keyOf(tm), fj))
		}
	}
	sort.Strings(n.Edges)
	return n
}

// readAllNodes reads every node of a store that holds only the folder's data.
func readAllNodes(t *testing.T, st *graph.Store, names []string) map[string]*node {
	t.Helper()
	preds := predicates(t, st, names)
	out := map[string]*node{}
	// The nodes with a kind, then the events (which carry none, or Event where written before).
	for _, root := range []string{"has(tr.kind)", "has(ev.seq)"} {
		after := "0x0"
		for {
			q := fmt.Sprintf(`{ q(func: %s, first: 1000, after: %s) { %s } }`, root, after, nodeQuery(preds))
			var r struct{ Q []map[string]any }
			raw, err := st.RawQuery(context.Background(), q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			for _, row := range r.Q {
				after = row["uid"].(string)
				if _, seen := row["tr.kind"]; seen && root != "has(tr.kind)" {
					continue // read in the first pass
				}
				n := toNode(row, preds)
				if _, dup := out[n.Key]; dup {
					t.Fatalf("two nodes with key %.3000s in the folder", n.Key)
				}
				out[n.Key] = n
			}
			if len(r.Q) < 1000 {
				break
			}
		}
	}
	kinds := map[string]int{}
	for _, n := range out {
		kinds[n.Kind]++
	}
	t.Logf("the folder holds %d nodes: %v", len(out), kinds)
	return out
}

// readNodesByKey reads the nodes of want from a store that may hold other data too, by their keys.
func readNodesByKey(t *testing.T, st *graph.Store, want map[string]*node, names []string) map[string]*node {
	t.Helper()
	preds := predicates(t, st, names)
	byPred := map[string][]string{}
	for k := range want {
		p, v, _ := strings.Cut(k, "=")
		byPred[p] = append(byPred[p], v)
	}
	out := map[string]*node{}
	for p, vals := range byPred {
		sort.Strings(vals)
		for start := 0; start < len(vals); start += 200 {
			chunk := vals[start:min(len(vals), start+200)]
			vars := map[string]string{}
			decl, list := []string{}, []string{}
			for i, v := range chunk {
				name := fmt.Sprintf("$v%d", i)
				vars[name] = v
				decl, list = append(decl, name+": string"), append(list, name)
			}
			typ := "string"
			if p == "ev.seq" {
				typ = "int"
				for i := range decl {
					decl[i] = strings.TrimSuffix(decl[i], "string") + typ
				}
			}
			q := fmt.Sprintf(`query q(%s) { q(func: eq(%s, [%s])) { %s } }`, strings.Join(decl, ", "), p, strings.Join(list, ", "), nodeQuery(preds))
			raw, err := st.RawQuery(context.Background(), q, vars)
			if err != nil {
				t.Fatal(err)
			}
			var r struct{ Q []map[string]any }
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			for _, row := range r.Q {
				n := toNode(row, preds)
				if _, dup := out[n.Key]; dup {
					t.Fatalf("two nodes with key %s in the target", n.Key)
				}
				out[n.Key] = n
			}
		}
	}
	return out
}

// keyed leaves out the erased events, known by their Seq only.
func keyed(nodes map[string]*node) map[string]*node {
	out := map[string]*node{}
	for k, n := range nodes {
		if !strings.HasPrefix(k, "ev.seq=") {
			out[k] = n
		}
	}
	return out
}

// existingGlobals returns the keys of the folder's nodes the target already holds before the
// import: the process-wide nodes (log consumers, the event counter) a cluster running servers
// has of its own. It holds no record of the folder.
func existingGlobals(t *testing.T, st *graph.Store, folder map[string]*node, names []string) map[string]bool {
	t.Helper()
	got := readNodesByKey(t, st, keyed(folder), names)
	out := map[string]bool{}
	for k := range got {
		if _, scoped := folder[k].Scalars["tr.scope"]; scoped || !strings.HasPrefix(k, "tr.id=") {
			t.Fatalf("the target holds %s of the folder before the import", k)
		}
		out[k] = true
	}
	t.Logf("the target already holds %d global nodes of its own: %v", len(out), keys(out))
	return out
}

// readErased finds the folder's erased events in the target: each moved as far as the keyed
// events around it (an import keeps the distances of the events it writes in one request).
func readErased(t *testing.T, st *graph.Store, before, after map[string]*node, names []string) map[string]*node {
	t.Helper()
	type pair struct{ old, new float64 }
	var moved []pair
	for k, b := range before {
		if a, ok := after[k]; ok && b.Kind == "Event" {
			moved = append(moved, pair{b.Scalars["ev.seq"].(float64), a.Scalars["ev.seq"].(float64)})
		}
	}
	sort.Slice(moved, func(i, j int) bool { return moved[i].old < moved[j].old })
	want := map[string]*node{}
	oldKey := map[string]string{}
	for k, b := range before {
		if !strings.HasPrefix(k, "ev.seq=") {
			continue
		}
		old := b.Scalars["ev.seq"].(float64)
		i := sort.Search(len(moved), func(i int) bool { return moved[i].old > old })
		var offsets []float64
		if i > 0 {
			offsets = append(offsets, moved[i-1].new-moved[i-1].old)
		}
		if i < len(moved) {
			offsets = append(offsets, moved[i].new-moved[i].old)
		}
		if len(offsets) == 0 || (len(offsets) == 2 && offsets[0] != offsets[1]) {
			t.Fatalf("erased event %v: its neighbours moved by %v; cannot tell where it went", old, offsets)
		}
		nk := fmt.Sprintf("ev.seq=%v", old+offsets[0])
		want[nk], oldKey[nk] = b, k
	}
	got := readNodesByKey(t, st, want, names)
	out := map[string]*node{}
	for nk, n := range got {
		n.Key = oldKey[nk]
		out[n.Key] = n
	}
	t.Logf("%d erased events of the folder found", len(out))
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compareNodes checks that every node of the folder arrived whole. Event sequence numbers are
// kept when the target had no events; otherwise the imported events follow its head, in their
// order. Global nodes the target had already keep the target's state.
func compareNodes(t *testing.T, before, after map[string]*node, preexisting map[string]bool, head, srcSeq uint64) {
	t.Helper()
	type seqPair struct{ old, new float64 }
	var seqs, consumers, notices []seqPair
	compared := 0
	for k, b := range before {
		if b.Key == "tr.id=counter:events" {
			continue // the target's own counter; checked through the event sequence below
		}
		a, ok := after[k]
		if preexisting[k] {
			if !ok {
				t.Errorf("global node %s of the target is gone", k)
			}
			continue
		}
		if !ok {
			t.Errorf("node %s (%s) was not imported", k, b.Kind)
			continue
		}
		bs, as := b.Scalars, a.Scalars
		if b.Kind == "Event" {
			bv, _ := bs["ev.seq"].(float64)
			av, _ := as["ev.seq"].(float64)
			seqs = append(seqs, seqPair{bv, av})
			bs, as = without(bs, "ev.seq"), without(as, "ev.seq")
		}
		if b.Kind == "Consumer" {
			// A consumer the target lacked comes along, its watermark moved with the events.
			consumers = append(consumers, seqPair{bs["consumer.seq"].(float64), as["consumer.seq"].(float64)})
			bs, as = without(bs, "consumer.seq"), without(as, "consumer.seq")
		}
		if b.Kind == "Notice" {
			// A queued notice names its notification's Seq, which moved with the events.
			notices = append(notices, seqPair{bs["notice.seq"].(float64), as["notice.seq"].(float64)})
			bs, as = without(bs, "notice.seq"), without(as, "notice.seq")
		}
		if !reflect.DeepEqual(bs, as) {
			bj, _ := json.Marshal(bs)
			aj, _ := json.Marshal(as)
			t.Errorf("node %s (%s) changed:\nbefore %s\nafter  %s", k, b.Kind, bj, aj)
		}
		if !reflect.DeepEqual(b.Edges, a.Edges) {
			t.Errorf("edges of node %s (%s) changed:\nbefore %q\nafter  %q", k, b.Kind, b.Edges, a.Edges)
		}
		compared++
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i].old < seqs[j].old })
	for i, p := range seqs {
		switch {
		case head == 0 && p.new != p.old:
			t.Fatalf("event Seq %v became %v in a target without events of its own", p.old, p.new)
		case p.new <= float64(head):
			t.Fatalf("event Seq %v became %v, not after the target's head %d", p.old, p.new, head)
		case i > 0 && p.new <= seqs[i-1].new:
			t.Fatalf("events reordered: Seq %v → %v after %v → %v", p.old, p.new, seqs[i-1].old, seqs[i-1].new)
		}
	}
	for _, c := range consumers {
		if c.old == 0 {
			// A consumer that had consumed nothing of the folder starts at the target's head.
			if c.new != float64(head) {
				t.Errorf("consumer watermark 0 became %v, want the target's head %d", c.new, head)
			}
			continue
		}
		// Where the last event the consumer had consumed went.
		i := sort.Search(len(seqs), func(i int) bool { return seqs[i].old > c.old }) - 1
		if i < 0 || c.new != c.old+seqs[i].new-seqs[i].old {
			t.Errorf("consumer watermark %v became %v", c.old, c.new)
		}
	}
	for _, n := range notices {
		// Exactly where its notification went.
		i := sort.Search(len(seqs), func(i int) bool { return seqs[i].old >= n.old })
		if i == len(seqs) || seqs[i].old != n.old || seqs[i].new != n.new {
			t.Errorf("a notice of the event of Seq %v names Seq %v after the import", n.old, n.new)
		}
	}
	if len(seqs) == 0 || seqs[len(seqs)-1].old != float64(srcSeq) {
		t.Fatalf("the folder's events end at %v, its head is %d", seqs[len(seqs)-1].old, srcSeq)
	}
	t.Logf("%d nodes compared with every predicate and edge (%d events, Seq %v..%v → %v..%v); %d global nodes the target had of its own",
		compared, len(seqs), seqs[0].old, seqs[len(seqs)-1].old, seqs[0].new, seqs[len(seqs)-1].new, len(preexisting))
}

func without(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// fakeEmbeddings answers an OpenAI-style embeddings request with vectors made from the texts. They
// have 4 dimensions like every other vector the tests write: a Dgraph vector index cannot compare
// vectors of different lengths, and the test cluster is shared.
func fakeEmbeddings(w http.ResponseWriter, r *http.Request) {
	var in struct{ Input []string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Data []item `json:"data"`
	}{}
	for i, text := range in.Input {
		v := make([]float32, 4)
		for j := range v {
			h := fnv.New32a()
			fmt.Fprint(h, j, text)
			v[j] = float32(h.Sum32()%1000)/1000 + 0.001
		}
		out.Data = append(out.Data, item{Index: i, Embedding: v})
	}
	_ = json.NewEncoder(w).Encode(out)
}
