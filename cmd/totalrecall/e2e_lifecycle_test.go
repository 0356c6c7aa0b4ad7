package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/graph/storetest"
	"github.com/totalrecall/totalrecall/search"
)

// Seed 004's lifecycle end to end: the six families, the refgraph, derived views, the digest's
// passes, restore, explicit deletion and scope deletion, over a real server.

const artFields = `id scopeId type title content tags metadata state version`

type artifact struct {
	ID       string
	ScopeID  string
	Type     string
	Title    string
	Content  string
	Steps    []string
	Tags     []string
	Metadata map[string]any
	State    string
	Version  int
}

type reference struct {
	ID, Type, SourceID, SourceFamily, SourceState, TargetID, TargetFamily, TargetState string
	Healthy                                                                            bool
}

const refFields = `id type sourceId sourceFamily sourceState targetId targetFamily targetState healthy`

type reason struct {
	Code         string
	Detail       string
	ReferenceIDs []string
}

type proposal struct {
	ArtifactID string
	Family     string
	Reasons    []reason
}

type digestReport struct {
	ID            string
	Evaluated     int
	ProposalCount int
	Proposals     []proposal
	Archived      []string
	Removed       []string
}

const reportFields = `id evaluated proposalCount archived removed proposals { artifactId family reasons { code detail referenceIds } }`

func (s *server) saveKnowledge(t testing.TB, in map[string]any) artifact {
	t.Helper()
	var r struct{ SaveKnowledge artifact }
	s.ok(t, `mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { `+artFields+` } }`, map[string]any{"in": in}, &r)
	return r.SaveKnowledge
}

func (s *server) saveSkill(t testing.TB, in map[string]any) artifact {
	t.Helper()
	var r struct{ SaveSkill artifact }
	s.ok(t, `mutation($in: SaveSkillInput!) { saveSkill(input: $in) { steps `+artFields+` } }`, map[string]any{"in": in}, &r)
	return r.SaveSkill
}

func (s *server) saveWorkingState(t testing.TB, scope, content string) artifact {
	t.Helper()
	var r struct{ SaveWorkingState artifact }
	s.ok(t, `mutation($in: SaveWorkingStateInput!) { saveWorkingState(input: $in) { id scopeId content version } }`,
		map[string]any{"in": map[string]any{"scopeId": scope, "content": content}}, &r)
	return r.SaveWorkingState
}

const addRef = `mutation($in: ReferenceInput!) { addReference(input: $in) { ` + refFields + ` } }`

func (s *server) ref(t testing.TB, src, typ, dst string) reference {
	t.Helper()
	var r struct{ AddReference reference }
	s.ok(t, addRef, map[string]any{"in": map[string]any{"sourceId": src, "type": typ, "targetId": dst}}, &r)
	return r.AddReference
}

func (s *server) digest(t testing.TB, in map[string]any) digestReport {
	t.Helper()
	var r struct{ RunDigest digestReport }
	s.ok(t, `mutation($in: DigestInput!) { runDigest(input: $in) { `+reportFields+` } }`, map[string]any{"in": in}, &r)
	if r.RunDigest.ProposalCount != len(r.RunDigest.Proposals) {
		t.Fatalf("a report counts %d proposals and gives %d", r.RunDigest.ProposalCount, len(r.RunDigest.Proposals))
	}
	return r.RunDigest
}

func (s *server) refs(t testing.TB, id string) (out, in []reference) {
	t.Helper()
	var r struct {
		References struct{ Outgoing, Incoming []reference }
	}
	s.ok(t, `query($id: ID!) { references(artifactId: $id) { outgoing { `+refFields+` } incoming { `+refFields+` } } }`,
		map[string]any{"id": id}, &r)
	return r.References.Outgoing, r.References.Incoming
}

type hit struct {
	Family    string
	ID        string
	Score     float64
	Memory    *struct{ ID string }
	Knowledge *struct{ ID string }
	Skill     *struct{ ID string }
}

func (s *server) searchAll(t testing.TB, scope, q string, extra string) []hit {
	t.Helper()
	var r struct{ SearchArtifacts []hit }
	s.ok(t, `query($s: ID!, $q: String!) { searchArtifacts(scopeId: $s, query: $q, maxResults: 50 `+extra+`) {
		family id score memory { id } knowledge { id } skill { id } } }`, map[string]any{"s": scope, "q": q}, &r)
	return r.SearchArtifacts
}

func hitIDs(hs []hit) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.ID] = h.Family
	}
	return out
}

func (s *server) memoryState(t testing.TB, id string) string {
	t.Helper()
	var r struct{ Memory *memory }
	s.ok(t, `query($id: ID!) { memory(id: $id) { id state } }`, map[string]any{"id": id}, &r)
	if r.Memory == nil {
		return ""
	}
	return r.Memory.State
}

// listedState is a memory's state read from the list (loading it would record a retrieval).
func (s *server) listedState(t testing.TB, scope, id string) string {
	t.Helper()
	var r struct {
		Memories struct{ Nodes []memory }
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 1000, filter: {states: [ACTIVE, ARCHIVED]}) { nodes { id state } } }`, map[string]any{"s": scope}, &r)
	for _, m := range r.Memories.Nodes {
		if m.ID == id {
			return m.State
		}
	}
	return ""
}

func (s *server) historyTypes(t testing.TB, id string) []string {
	t.Helper()
	var h struct{ History []struct{ Type string } }
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": id}, &h)
	var out []string
	for _, e := range h.History {
		out = append(out, e.Type)
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// testArtifactFamilies: save / load / list / search for knowledge and skills, working state
// never served by search, derived fields never written by callers.
func testArtifactFamilies(t *testing.T, s *server) {
	scope, agent, world := s.createScope(t, "families")
	for i, nasty := range storetest.Nasty {
		k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "CONCEPT", "title": "okapi page " + nasty,
			"content": "okapi facts " + nasty, "tags": []string{nasty}, "metadata": map[string]any{nasty: nasty}})
		if k.Title != "okapi page "+nasty || k.Tags[0] != nasty || k.Metadata[nasty] != nasty || k.State != "ACTIVE" || k.Version != 1 {
			t.Fatalf("nasty %d: saved %+v", i, k)
		}
	}
	sk := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "PROCEDURE", "title": "feed the okapi",
		"content": "how to feed an okapi", "steps": []string{"fetch leaves", "offer them"}})
	if len(sk.Steps) != 2 || sk.Type != "PROCEDURE" {
		t.Fatalf("skill %+v", sk)
	}
	ws := s.saveWorkingState(t, scope, "okapi scratch notes")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "I saw an okapi today"})

	// Load by family; another family's id loads nothing.
	var l struct {
		Knowledge    *artifact
		Skill        *artifact
		WorkingState *artifact
	}
	s.ok(t, `query($s: ID!, $w: ID!) { knowledge(id: $s) { id } skill(id: $s) { id steps } workingState(id: $w) { id content } }`,
		map[string]any{"s": sk.ID, "w": ws.ID}, &l)
	if l.Knowledge != nil || l.Skill == nil || l.Skill.Steps[1] != "offer them" || l.WorkingState == nil || l.WorkingState.Content != "okapi scratch notes" {
		t.Fatalf("loads: %+v %+v %+v", l.Knowledge, l.Skill, l.WorkingState)
	}
	// A new version.
	k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "okapi diet", "content": "okapis eat leaves"})
	k2 := s.saveKnowledge(t, map[string]any{"scopeId": scope, "id": k.ID, "type": "FACT", "title": "okapi diet", "content": "okapis eat leaves and fruit"})
	if k2.ID != k.ID || k2.Version != 2 || k2.Content != "okapis eat leaves and fruit" {
		t.Fatalf("updated %+v", k2)
	}
	s.fails(t, "NOT_FOUND", `mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"scopeId": scope, "id": sk.ID, "type": "FACT", "title": "x", "content": "x"}})
	other, _, _ := s.createScope(t, "families other")
	s.fails(t, "CROSS_SCOPE_REFERENCE", `mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"scopeId": other, "id": k.ID, "type": "FACT", "title": "x", "content": "x"}})

	// Lists.
	var pages struct {
		KnowledgePages struct {
			TotalCount int
			Nodes      []artifact
		}
	}
	s.ok(t, `query($s: ID!) { knowledgePages(scopeId: $s, filter: {types: [FACT]}) { totalCount nodes { id version } } }`, map[string]any{"s": scope}, &pages)
	if pages.KnowledgePages.TotalCount != 1 || pages.KnowledgePages.Nodes[0].Version != 2 {
		t.Fatalf("FACT pages = %+v", pages.KnowledgePages)
	}
	s.ok(t, `query($s: ID!) { knowledgePages(scopeId: $s, first: 1000) { totalCount nodes { id } } }`, map[string]any{"s": scope}, &pages)
	if pages.KnowledgePages.TotalCount != len(storetest.Nasty)+1 {
		t.Fatalf("pages = %d", pages.KnowledgePages.TotalCount)
	}

	// Search across families says which family each hit is.
	got := hitIDs(s.searchAll(t, scope, "okapi", ""))
	if got[m.ID] != "MEMORY" || got[sk.ID] != "SKILL" || got[k.ID] != "KNOWLEDGE" || len(got) != len(storetest.Nasty)+3 {
		t.Fatalf("search hits = %v", got)
	}
	if _, ok := got[ws.ID]; ok {
		t.Fatal("working state was served by search")
	}
	for _, h := range s.searchAll(t, scope, "okapi", "") {
		if (h.Family == "MEMORY") != (h.Memory != nil) || (h.Family == "SKILL") != (h.Skill != nil) || (h.Family == "KNOWLEDGE") != (h.Knowledge != nil) {
			t.Fatalf("hit %+v", h)
		}
	}
	if only := hitIDs(s.searchAll(t, scope, "okapi", ", families: [SKILL]")); len(only) != 1 || only[sk.ID] != "SKILL" {
		t.Fatalf("skills only = %v", only)
	}
	// Memory search sees memories only; other scopes see nothing.
	if hs := s.search(t, scope, "okapi", false); len(hs) != 1 || hs[0].Memory.ID != m.ID {
		t.Fatalf("searchMemory = %d hits", len(hs))
	}
	if hs := s.searchAll(t, other, "okapi", ""); len(hs) != 0 {
		t.Fatalf("another scope found %d", len(hs))
	}
	for _, fam := range []string{"WORKING_STATE", "AGENT_MODEL_KERNEL"} {
		s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { searchArtifacts(scopeId: $s, query: "okapi", families: [`+fam+`]) { id } }`, map[string]any{"s": scope})
	}

	// Service-derived metadata is never written by callers.
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { saveKnowledge(input: {scopeId: $s, type: FACT, title: "t", content: "c", support: 3}) { id } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { saveSkill(input: {scopeId: $s, type: HEURISTIC, title: "t", content: "c", metadata: {cleanup: "never"}}) { id } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { storeMemory(input: {scopeId: $s, content: "c", metadata: {Lineage: []}}) { id } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($id: ID!) { reclassifyMemory(input: {id: $id, metadata: {invalidation: true}}) { id } }`, map[string]any{"id": m.ID})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { storeMemory(input: {scopeId: $s, content: "c", lineage: "x"}) { id } }`, map[string]any{"s": scope})
	// Bad input writes nothing.
	for _, in := range []map[string]any{
		{"scopeId": scope, "type": "FACT", "title": "", "content": "c"},
		{"scopeId": scope, "type": "FACT", "title": "t", "content": " "},
		{"scopeId": scope, "type": "FACT", "title": "t\x00", "content": "c"},
		{"scopeId": "nope", "type": "FACT", "title": "t", "content": "c"},
		{"scopeId": scope, "type": "FACT", "title": "t", "content": strings.Repeat("x", 1<<20+1)},
		{"scopeId": scope, "type": "FACT", "title": "t", "content": "c", "tags": []string{" "}},
	} {
		s.fails(t, "INVALID_ARGUMENT", `mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { id } }`, map[string]any{"in": in})
	}
	s.ok(t, `query($s: ID!) { knowledgePages(scopeId: $s, first: 1000) { totalCount } }`, map[string]any{"s": scope}, &pages)
	if pages.KnowledgePages.TotalCount != len(storetest.Nasty)+1 {
		t.Fatalf("refused input wrote: %d pages", pages.KnowledgePages.TotalCount)
	}
	// The scope still has exactly its two kernels.
	var sc struct {
		Scope struct{ AgentKernel, WorldKernel struct{ ID string } }
	}
	s.ok(t, `query($id: ID!) { scope(id: $id) { agentKernel { id } worldKernel { id } } }`, map[string]any{"id": scope}, &sc)
	if sc.Scope.AgentKernel.ID != agent || sc.Scope.WorldKernel.ID != world {
		t.Fatalf("kernels changed: %+v", sc.Scope)
	}
}

// testRefgraphAndDerivedView: typed references within a scope, the cross-scope ban, working state
// never a target, and the service-derived view.
func testRefgraphAndDerivedView(t *testing.T, s *server) {
	scope, _, world := s.createScope(t, "refgraph")
	other, otherAgent, _ := s.createScope(t, "refgraph other")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "the user's birthday is March 3"})
	k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "birthdays", "content": "the user: March 3"})
	sk := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "BLUEPRINT", "title": "congratulate", "content": "send wishes on the day"})
	ws := s.saveWorkingState(t, scope, "draft wishes")
	x := s.store(t, map[string]any{"scopeId": other, "content": "foreign"})

	r1 := s.ref(t, k.ID, "DERIVED_FROM", m.ID)
	s.ref(t, sk.ID, "DEPENDS_ON", k.ID)
	s.ref(t, k.ID, "CITES", world)
	s.ref(t, ws.ID, "CITES", k.ID)
	if r1.ID == "" || !r1.Healthy || r1.SourceFamily != "KNOWLEDGE" || r1.TargetFamily != "MEMORY" {
		t.Fatalf("reference %+v", r1)
	}
	for _, c := range []struct{ src, dst string }{{k.ID, x.ID}, {x.ID, m.ID}, {m.ID, otherAgent}} {
		s.fails(t, "CROSS_SCOPE_REFERENCE", addRef, map[string]any{"in": map[string]any{"sourceId": c.src, "type": "SUPPORTS", "targetId": c.dst}})
	}
	s.fails(t, "FORBIDDEN", addRef, map[string]any{"in": map[string]any{"sourceId": k.ID, "type": "CITES", "targetId": ws.ID}})
	s.fails(t, "FORBIDDEN", addRef, map[string]any{"in": map[string]any{"sourceId": world, "type": "CITES", "targetId": k.ID}})
	s.fails(t, "CONFLICT", addRef, map[string]any{"in": map[string]any{"sourceId": k.ID, "type": "DERIVED_FROM", "targetId": m.ID}})
	s.fails(t, "INVALID_ARGUMENT", addRef, map[string]any{"in": map[string]any{"sourceId": k.ID, "type": "LIKES", "targetId": m.ID}})
	s.fails(t, "INVALID_ARGUMENT", addRef, map[string]any{"in": map[string]any{"sourceId": k.ID, "type": "CITES", "targetId": k.ID}})
	if out, in := s.refs(t, x.ID); len(out)+len(in) != 0 {
		t.Fatal("a refused cross-scope reference was written")
	}
	out, in := s.refs(t, k.ID)
	if len(out) != 2 || len(in) != 2 {
		t.Fatalf("knowledge references: out %d in %d", len(out), len(in))
	}
	var kq struct {
		Knowledge struct{ References, ReferencedBy []reference }
	}
	s.ok(t, `query($id: ID!) { knowledge(id: $id) { references { id } referencedBy { id sourceState } } }`, map[string]any{"id": k.ID}, &kq)
	if len(kq.Knowledge.References) != 2 || len(kq.Knowledge.ReferencedBy) != 2 {
		t.Fatalf("knowledge relations: %+v", kq.Knowledge)
	}

	var dv struct {
		DerivedView struct {
			Family  string
			Support struct {
				Supported  bool
				Active     int
				References []reference
			}
			Lineage struct {
				DerivedFrom []reference
				Derivatives []reference
				Origin      struct{ Type string }
			}
			Invalidation struct{ Valid bool }
			Cleanup      struct {
				State, Eligibility string
				Candidate          bool
			}
		}
	}
	const dvq = `query($id: ID!) { derivedView(artifactId: $id) { family
		support { supported active references { id sourceFamily sourceState } }
		lineage { derivedFrom { id targetId } derivatives { id sourceId } origin { type } }
		invalidation { valid } cleanup { state eligibility candidate } } }`
	s.ok(t, dvq, map[string]any{"id": k.ID}, &dv)
	v := dv.DerivedView
	// The skill depends on the page (support); the working state's citation is no support.
	if v.Family != "KNOWLEDGE" || !v.Support.Supported || v.Support.Active != 1 || len(v.Support.References) != 2 ||
		len(v.Lineage.DerivedFrom) != 1 || v.Lineage.DerivedFrom[0].TargetID != m.ID || v.Lineage.Origin.Type != "ArtifactSaved" ||
		!v.Invalidation.Valid || v.Cleanup.State != "ACTIVE" || v.Cleanup.Eligibility != "DIGEST" || v.Cleanup.Candidate {
		t.Fatalf("derived view of the page = %+v", v)
	}
	s.ok(t, dvq, map[string]any{"id": m.ID}, &dv)
	if len(dv.DerivedView.Lineage.Derivatives) != 1 || dv.DerivedView.Lineage.Derivatives[0].SourceID != k.ID || dv.DerivedView.Lineage.Origin.Type != "MemoryStored" {
		t.Fatalf("derived view of the memory = %+v", dv.DerivedView)
	}
	for id, want := range map[string]string{world: "NEVER", ws.ID: "EXPLICIT_CLEAR"} {
		s.ok(t, dvq, map[string]any{"id": id}, &dv)
		if dv.DerivedView.Cleanup.Eligibility != want || dv.DerivedView.Cleanup.Candidate {
			t.Fatalf("eligibility of %s = %+v", id, dv.DerivedView.Cleanup)
		}
	}
	// Both ends' histories show the reference.
	if !contains(s.historyTypes(t, m.ID), "ReferenceAdded") {
		t.Fatal("the memory's history misses the reference")
	}
	// Removing a reference.
	s.ok(t, `mutation($in: ReferenceInput!) { removeReference(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"sourceId": ws.ID, "type": "CITES", "targetId": k.ID}}, nil)
	if _, in := s.refs(t, k.ID); len(in) != 1 {
		t.Fatalf("after removal: %d incoming", len(in))
	}
	s.fails(t, "NOT_FOUND", `query { derivedView(artifactId: "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10") { family } }`, nil)
}

// testDigestPasses: propose with typed reasons, archive (reversible), restore, remove in a later
// pass, and every refusal of the contract writing nothing.
func testDigestPasses(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, agent, world := s.createScope(t, "digest")
	longAgo := time.Now().Add(-400 * 24 * time.Hour).UTC().Format(time.RFC3339)
	stale := s.store(t, map[string]any{"scopeId": scope, "content": "walrus sighting long ago", "occurredAt": longAgo})
	kept := s.store(t, map[string]any{"scopeId": scope, "content": "walrus facts long ago", "occurredAt": longAgo})
	claimed := s.store(t, map[string]any{"scopeId": scope, "content": "walrus memory I claimed", "occurredAt": longAgo})
	s.ok(t, `mutation($id: ID!) { claimMemory(id: $id) { id } }`, map[string]any{"id": claimed.ID}, nil)
	fresh := s.store(t, map[string]any{"scopeId": scope, "content": "walrus seen today"})
	page := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "SUMMARY", "title": "walruses", "content": "walrus summary"})
	s.ref(t, page.ID, "SUPPORTS", kept.ID)
	doomed := s.store(t, map[string]any{"scopeId": scope, "content": "walrus rumour"})
	citer := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "rumours", "content": "walrus rumours"})
	broken := s.ref(t, citer.ID, "CITES", doomed.ID)
	ws := s.saveWorkingState(t, scope, "walrus scratch")
	s.ok(t, `mutation($id: ID!) { deleteMemory(id: $id, cascade: true) { id } }`, map[string]any{"id": doomed.ID}, nil)

	// Propose: typed reasons pointing at the references behind them.
	rep := s.digest(t, map[string]any{"scopeId": scope, "propose": true})
	props := map[string]proposal{}
	for _, p := range rep.Proposals {
		props[p.ArtifactID] = p
	}
	if rep.Evaluated != 6 {
		t.Fatalf("evaluated %d, want 6 (memories, knowledge and skills only)", rep.Evaluated)
	}
	if len(props) != 2 {
		t.Fatalf("proposals = %+v", rep.Proposals)
	}
	if p := props[stale.ID]; p.Family != "MEMORY" || len(p.Reasons) != 2 || p.Reasons[0].Code != "UNSUPPORTED" || p.Reasons[1].Code != "STALE" {
		t.Fatalf("stale memory proposal = %+v", p)
	}
	if p := props[citer.ID]; p.Family != "KNOWLEDGE" || len(p.Reasons) != 2 || p.Reasons[1].Code != "BROKEN_REFERENCE" ||
		len(p.Reasons[1].ReferenceIDs) != 1 || p.Reasons[1].ReferenceIDs[0] != broken.ID || !strings.Contains(p.Reasons[1].Detail, doomed.ID) {
		t.Fatalf("broken-reference proposal = %+v", p)
	}
	for _, id := range []string{kept.ID, claimed.ID, fresh.ID, page.ID, ws.ID, agent, world} {
		if _, ok := props[id]; ok {
			t.Fatalf("%s proposed", id)
		}
	}
	var stored struct{ DigestReport *digestReport }
	s.ok(t, `query($id: ID!) { digestReport(id: $id) { `+reportFields+` } }`, map[string]any{"id": rep.ID}, &stored)
	if stored.DigestReport == nil || len(stored.DigestReport.Proposals) != 2 {
		t.Fatalf("stored report = %+v", stored.DigestReport)
	}

	// Refusals write nothing.
	run := `mutation($in: DigestInput!) { runDigest(input: $in) { id } }`
	s.fails(t, "SAME_PASS_ARCHIVE_REMOVE", run, map[string]any{"in": map[string]any{"scopeId": scope, "archive": []string{stale.ID, citer.ID}, "remove": []string{stale.ID}}})
	s.fails(t, "NOT_ARCHIVED", run, map[string]any{"in": map[string]any{"scopeId": scope, "remove": []string{stale.ID}}})
	s.fails(t, "FORBIDDEN", run, map[string]any{"in": map[string]any{"scopeId": scope, "archive": []string{stale.ID, agent}}})
	s.fails(t, "FORBIDDEN", run, map[string]any{"in": map[string]any{"scopeId": scope, "remove": []string{world}}})
	s.fails(t, "FORBIDDEN", run, map[string]any{"in": map[string]any{"scopeId": scope, "archive": []string{ws.ID}}})
	s.fails(t, "NOT_A_CANDIDATE", run, map[string]any{"in": map[string]any{"scopeId": scope, "archive": []string{stale.ID, kept.ID}}})
	s.fails(t, "INVALID_ARGUMENT", run, map[string]any{"in": map[string]any{"scopeId": scope}})
	s.fails(t, "INVALID_ARGUMENT", run, map[string]any{"in": map[string]any{"scopeId": scope, "propose": true, "staleAfterDays": -1}})
	s.fails(t, "NOT_FOUND", run, map[string]any{"in": map[string]any{"scopeId": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", "propose": true}})
	if st := s.listedState(t, scope, stale.ID); st != "ACTIVE" {
		t.Fatalf("a refused pass archived: %s", st)
	}
	if contains(s.historyTypes(t, stale.ID), "ArtifactArchived") {
		t.Fatal("a refused pass left an event")
	}

	// Archive (retried with the same request id: applied once).
	rid := "digest-archive-" + runID
	in := map[string]any{"scopeId": scope, "archive": []string{stale.ID, citer.ID}, "requestId": rid}
	arch := s.digest(t, in)
	again := s.digest(t, in)
	if again.ID != arch.ID || len(arch.Archived) != 2 {
		t.Fatalf("archive pass %+v, retry %+v", arch, again)
	}
	if st := s.memoryState(t, stale.ID); st != "ARCHIVED" {
		t.Fatalf("archived memory loads as %q (it must stay loadable)", st)
	}
	if hs := s.search(t, scope, "walrus", false); len(hs) != 3 {
		t.Fatalf("searchMemory finds %d walruses, want 3 (archived ones leave search)", len(hs))
	}
	if got := hitIDs(s.searchAll(t, scope, "walrus", "")); got[stale.ID] != "" || got[citer.ID] != "" {
		t.Fatalf("archived artifacts in searchArtifacts: %v", got)
	}
	if got := hitIDs(s.searchAll(t, scope, "walrus", ", includeArchived: true")); got[stale.ID] != "MEMORY" || got[citer.ID] != "KNOWLEDGE" {
		t.Fatalf("includeArchived: %v", got)
	}
	var list struct {
		Memories       struct{ Nodes []memory }
		KnowledgePages struct{ Nodes []artifact }
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { nodes { id } } knowledgePages(scopeId: $s) { nodes { id } } }`, map[string]any{"s": scope}, &list)
	for _, n := range list.Memories.Nodes {
		if n.ID == stale.ID {
			t.Fatal("archived memory listed by default")
		}
	}
	if len(list.KnowledgePages.Nodes) != 1 {
		t.Fatalf("knowledge listed: %d, want 1 (the archived page leaves the list)", len(list.KnowledgePages.Nodes))
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {states: [ARCHIVED]}) { nodes { id } } knowledgePages(scopeId: $s, filter: {states: [ARCHIVED]}) { nodes { id } } }`,
		map[string]any{"s": scope}, &list)
	if len(list.Memories.Nodes) != 1 || list.Memories.Nodes[0].ID != stale.ID || len(list.KnowledgePages.Nodes) != 1 {
		t.Fatalf("archived lists = %+v", list)
	}

	// Why was it archived? The derived view and the history answer with typed reasons.
	var dv struct {
		DerivedView struct {
			Cleanup struct {
				State     string
				Removable bool
				Archive   struct {
					ReportID string
					Reasons  []reason
				}
				History []struct {
					Type    string
					Payload map[string]any
				}
			}
		}
	}
	const why = `query($id: ID!) { derivedView(artifactId: $id) { cleanup { state removable archive { reportId reasons { code detail referenceIds } } history { type payload } } } }`
	s.ok(t, why, map[string]any{"id": citer.ID}, &dv)
	c := dv.DerivedView.Cleanup
	if c.State != "ARCHIVED" || !c.Removable || c.Archive.ReportID != arch.ID || len(c.Archive.Reasons) != 2 ||
		c.Archive.Reasons[1].Code != "BROKEN_REFERENCE" || c.Archive.Reasons[1].ReferenceIDs[0] != broken.ID {
		t.Fatalf("why archived = %+v", c)
	}
	if len(c.History) != 1 || c.History[0].Type != "ArtifactArchived" || c.History[0].Payload["reportId"] != arch.ID {
		t.Fatalf("cleanup history = %+v", c.History)
	}
	var h struct {
		History []struct {
			Type    string
			Payload map[string]any
		}
	}
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type payload } }`, map[string]any{"id": stale.ID}, &h)
	var archivedEv map[string]any
	for _, e := range h.History {
		if e.Type == "ArtifactArchived" {
			archivedEv = e.Payload
		}
	}
	raw, _ := json.Marshal(archivedEv["reasons"])
	if archivedEv["reportId"] != arch.ID || !strings.Contains(string(raw), "STALE") || !strings.Contains(string(raw), "UNSUPPORTED") {
		t.Fatalf("the history's archival = %+v", archivedEv)
	}

	// Restore: back in search and lists; restoring an active memory is NOT_ARCHIVED.
	var rm struct{ RestoreMemory memory }
	s.ok(t, `mutation($id: ID!) { restoreMemory(id: $id) { id state } }`, map[string]any{"id": stale.ID}, &rm)
	if rm.RestoreMemory.State != "ACTIVE" {
		t.Fatalf("restored %+v", rm.RestoreMemory)
	}
	if hs := s.search(t, scope, "walrus", false); len(hs) != 4 {
		t.Fatalf("after restore: %d hits", len(hs))
	}
	s.fails(t, "NOT_ARCHIVED", `mutation($id: ID!) { restoreMemory(id: $id) { id } }`, map[string]any{"id": stale.ID})
	s.fails(t, "NOT_FOUND", `mutation($id: ID!) { restoreMemory(id: $id) { id } }`, map[string]any{"id": citer.ID})
	s.fails(t, "FORBIDDEN", `mutation($id: ID!) { restoreMemory(id: $id) { id } }`, map[string]any{"id": agent})
	// Restored means used: not stale again at once.
	if rep := s.digest(t, map[string]any{"scopeId": scope, "propose": true}); len(rep.Proposals) != 0 {
		t.Fatalf("after restore: proposals %+v", rep.Proposals)
	}
	// A month later it is stale again.
	e2eClock.advance(45 * 24 * time.Hour)
	rep = s.digest(t, map[string]any{"scopeId": scope, "propose": true})
	found := false
	for _, p := range rep.Proposals {
		found = found || p.ArtifactID == stale.ID
	}
	if !found {
		t.Fatalf("45 days after its restore the memory is not proposed: %+v", rep.Proposals)
	}

	// A later pass removes the archived page; archived-and-removed in one pass was refused above.
	rem := s.digest(t, map[string]any{"scopeId": scope, "remove": []string{citer.ID}})
	if len(rem.Removed) != 1 {
		t.Fatalf("remove pass %+v", rem)
	}
	var kq struct{ Knowledge *artifact }
	s.ok(t, `query($id: ID!) { knowledge(id: $id) { id } }`, map[string]any{"id": citer.ID}, &kq)
	if kq.Knowledge != nil {
		t.Fatal("removed page still loads")
	}
	if ht := s.historyTypes(t, citer.ID); ht[len(ht)-1] != "ArtifactRemoved" {
		t.Fatalf("history of the removed page ends with %v", ht)
	}
	if got := hitIDs(s.searchAll(t, scope, "walrus", ", includeArchived: true")); got[citer.ID] != "" {
		t.Fatal("removed page still searchable")
	}
	s.fails(t, "NOT_FOUND", run, map[string]any{"in": map[string]any{"scopeId": scope, "remove": []string{citer.ID}}})
	// Restore after removal is impossible: removal is final.
	s.fails(t, "NOT_FOUND", `mutation($id: ID!) { restoreKnowledge(id: $id) { id } }`, map[string]any{"id": citer.ID})

	// Knowledge restore round trip.
	lone := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "lonely walrus", "content": "nobody cites it"})
	e2eClock.advance(60 * 24 * time.Hour)
	s.digest(t, map[string]any{"scopeId": scope, "archive": []string{lone.ID}})
	var rk struct{ RestoreKnowledge artifact }
	s.ok(t, `mutation($id: ID!) { restoreKnowledge(id: $id) { id state version } }`, map[string]any{"id": lone.ID}, &rk)
	if rk.RestoreKnowledge.State != "ACTIVE" {
		t.Fatalf("restored page %+v", rk.RestoreKnowledge)
	}
}

// testExplicitDelete: dependents first, cascade decides, the deletion is audited; kernels never,
// working state only by explicit clear.
func testExplicitDelete(t *testing.T, s *server) {
	scope, agent, _ := s.createScope(t, "explicit delete")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "a memory others rely on"})
	k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "CONCEPT", "title": "reliance", "content": "built on the memory"})
	sk := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "HEURISTIC", "title": "rely", "content": "use the page"})
	r := s.ref(t, k.ID, "DEPENDS_ON", m.ID)
	s.ref(t, sk.ID, "CITES", k.ID)

	del := `mutation($id: ID!, $c: Boolean) { deleteMemory(id: $id, reason: "user asked", cascade: $c) { id content } }`
	resp := s.do(t, del, map[string]any{"id": m.ID})
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "HAS_DEPENDENTS" || !strings.Contains(resp.Errors[0].Message, k.ID) {
		t.Fatalf("delete of a referenced memory without cascade: %+v", resp.Errors)
	}
	if st := s.memoryState(t, m.ID); st != "ACTIVE" {
		t.Fatal("a refused delete wrote")
	}
	var d struct{ DeleteMemory memory }
	s.ok(t, del, map[string]any{"id": m.ID, "c": true}, &d)
	if d.DeleteMemory.Content != m.Content {
		t.Fatalf("deleted %+v", d.DeleteMemory)
	}
	if st := s.memoryState(t, m.ID); st != "" {
		t.Fatal("deleted memory still loads")
	}
	out, _ := s.refs(t, k.ID)
	if len(out) != 1 || out[0].ID != r.ID || out[0].TargetState != "REMOVED" || out[0].Healthy {
		t.Fatalf("the dependent's reference after cascade = %+v", out)
	}
	var h struct {
		History []struct {
			Type    string
			Payload map[string]any
		}
	}
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type payload } }`, map[string]any{"id": m.ID}, &h)
	last := h.History[len(h.History)-1]
	if last.Type != "MemoryDeleted" || last.Payload["cascade"] != true || last.Payload["reason"] != "user asked" {
		t.Fatalf("deletion audit = %+v", last)
	}
	// The page now rests on something removed.
	var dv struct {
		DerivedView struct {
			Invalidation struct {
				Valid                 bool
				UnhealthyDependencies []reference
			}
		}
	}
	s.ok(t, `query($id: ID!) { derivedView(artifactId: $id) { invalidation { valid unhealthyDependencies { id targetId targetState } } } }`, map[string]any{"id": k.ID}, &dv)
	if dv.DerivedView.Invalidation.Valid || len(dv.DerivedView.Invalidation.UnhealthyDependencies) != 1 || dv.DerivedView.Invalidation.UnhealthyDependencies[0].TargetID != m.ID {
		t.Fatalf("invalidation = %+v", dv.DerivedView.Invalidation)
	}
	// Knowledge: same rule.
	s.fails(t, "HAS_DEPENDENTS", `mutation($id: ID!) { deleteKnowledge(id: $id) { id } }`, map[string]any{"id": k.ID})
	s.ok(t, `mutation($id: ID!) { deleteKnowledge(id: $id, cascade: true) { id } }`, map[string]any{"id": k.ID}, nil)
	s.ok(t, `mutation($id: ID!) { deleteSkill(id: $id) { id } }`, map[string]any{"id": sk.ID}, nil)
	s.fails(t, "NOT_FOUND", `mutation($id: ID!) { deleteSkill(id: $id) { id } }`, map[string]any{"id": sk.ID})
	if ht := s.historyTypes(t, sk.ID); ht[len(ht)-1] != "ArtifactDeleted" {
		t.Fatalf("skill history ends %v", ht)
	}
	// Kernels are never deleted; working state only by explicit clear.
	s.fails(t, "FORBIDDEN", `mutation($id: ID!) { deleteKnowledge(id: $id) { id } }`, map[string]any{"id": agent})
	s.fails(t, "FORBIDDEN", `mutation($id: ID!) { deleteMemory(id: $id) { id } }`, map[string]any{"id": agent})
	w1, w2, w3 := s.saveWorkingState(t, scope, "one"), s.saveWorkingState(t, scope, "two"), s.saveWorkingState(t, scope, "three")
	s.fails(t, "NOT_FOUND", `mutation($id: ID!) { deleteKnowledge(id: $id) { id } }`, map[string]any{"id": w1.ID})
	var cl struct{ ClearWorkingState []string }
	s.ok(t, `mutation($s: ID!, $ids: [ID!]) { clearWorkingState(scopeId: $s, ids: $ids) }`, map[string]any{"s": scope, "ids": []string{w1.ID}}, &cl)
	if len(cl.ClearWorkingState) != 1 || cl.ClearWorkingState[0] != w1.ID {
		t.Fatalf("cleared %v", cl.ClearWorkingState)
	}
	s.fails(t, "NOT_FOUND", `mutation($s: ID!, $ids: [ID!]) { clearWorkingState(scopeId: $s, ids: $ids) }`, map[string]any{"s": scope, "ids": []string{w1.ID}})
	s.ok(t, `mutation($s: ID!) { clearWorkingState(scopeId: $s) }`, map[string]any{"s": scope}, &cl)
	sort.Strings(cl.ClearWorkingState)
	want := []string{w2.ID, w3.ID}
	sort.Strings(want)
	if strings.Join(cl.ClearWorkingState, ",") != strings.Join(want, ",") {
		t.Fatalf("cleared all = %v, want %v", cl.ClearWorkingState, want)
	}
	var ws struct{ WorkingStates struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { workingStates(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &ws)
	if ws.WorkingStates.TotalCount != 0 {
		t.Fatalf("%d working states left", ws.WorkingStates.TotalCount)
	}
}

// testDeleteScopeTwoScopes: deleting one scope removes everything it owns, kernels included, and
// nothing of the other — through the API and in search.
func testDeleteScopeTwoScopes(t *testing.T, s *server) {
	fill := func(name string) (scope string, ids []string) {
		scope, agent, world := s.createScope(t, name)
		a := s.store(t, map[string]any{"scopeId": scope, "content": "pangolin memory one"})
		b := s.store(t, map[string]any{"scopeId": scope, "content": "pangolin memory two"})
		s.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { type } }`,
			map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "THEMATIC", "strength": 0.8}}, nil)
		k := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "ENTITY", "title": "pangolin", "content": "pangolin page"})
		sk := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "TOOL_USE", "title": "pangolin care", "content": "pangolin skill"})
		ws := s.saveWorkingState(t, scope, "pangolin scratch")
		s.ref(t, k.ID, "DERIVED_FROM", a.ID)
		s.ref(t, sk.ID, "DEPENDS_ON", k.ID)
		return scope, []string{a.ID, b.ID, k.ID, sk.ID, ws.ID, agent, world}
	}
	doomed, gone := fill("doomed")
	kept, stay := fill("kept")
	if got := hitIDs(s.searchAll(t, doomed, "pangolin", "")); len(got) != 4 {
		t.Fatalf("before: %d hits", len(got))
	}
	var d struct {
		DeleteScope struct {
			ScopeID   string
			Nodes     int
			Events    int
			Artifacts map[string]int
		}
	}
	rid := "delete-scope-" + runID
	del := `mutation($id: ID!, $r: ID) { deleteScope(id: $id, requestId: $r) { scopeId nodes events artifacts } }`
	s.ok(t, del, map[string]any{"id": doomed, "r": rid}, &d)
	a := d.DeleteScope.Artifacts
	if a["memory"] != 2 || a["knowledge"] != 1 || a["skill"] != 1 || a["working_state"] != 1 || a["agent_model_kernel"] != 1 ||
		a["world_model_kernel"] != 1 || d.DeleteScope.Events == 0 {
		t.Fatalf("deletion = %+v", d.DeleteScope)
	}
	again := d
	s.ok(t, del, map[string]any{"id": doomed, "r": rid}, &again)
	if again.DeleteScope.Nodes != d.DeleteScope.Nodes {
		t.Fatalf("retried deletion answered %+v", again.DeleteScope)
	}
	s.fails(t, "NOT_FOUND", del, map[string]any{"id": doomed})
	var sc struct{ Scope *struct{ ID string } }
	s.ok(t, `query($id: ID!) { scope(id: $id) { id } }`, map[string]any{"id": doomed}, &sc)
	if sc.Scope != nil {
		t.Fatal("deleted scope still loads")
	}
	for _, id := range gone {
		s.fails(t, "NOT_FOUND", `query($id: ID!) { references(artifactId: $id) { artifactId } }`, map[string]any{"id": id})
		s.fails(t, "NOT_FOUND", `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": id})
	}
	s.fails(t, "NOT_FOUND", `query($s: ID!) { searchArtifacts(scopeId: $s, query: "pangolin") { id } }`, map[string]any{"s": doomed})
	// The other scope: all there, searchable, its references and associations healthy.
	if got := hitIDs(s.searchAll(t, kept, "pangolin", "")); len(got) != 4 {
		t.Fatalf("kept scope: %d hits, want 4", len(got))
	}
	if hs := s.search(t, kept, "pangolin", true); len(hs) != 2 {
		t.Fatalf("kept scope memory search: %d", len(hs))
	}
	for _, id := range stay {
		s.ok(t, `query($id: ID!) { references(artifactId: $id) { artifactId } }`, map[string]any{"id": id}, nil)
	}
	out, _ := s.refs(t, stay[2])
	if len(out) != 1 || !out[0].Healthy {
		t.Fatalf("kept scope's reference = %+v", out)
	}
	var as struct{ Associations []any }
	s.ok(t, `query($m: ID!) { associations(memoryId: $m) { type } }`, map[string]any{"m": stay[0]}, &as)
	if len(as.Associations) != 1 {
		t.Fatalf("kept scope's associations = %d", len(as.Associations))
	}
}

// testDigestCommand runs `totalrecall digest` against the running server.
func testDigestCommand(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "digest command")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "ancient ibis", "occurredAt": "2001-01-01T00:00:00Z"})
	var out strings.Builder
	if err := run([]string{"digest", "--server", "http://" + s.addr, "--scope", scope, "--archive", "proposed"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "proposed 1") || !strings.Contains(out.String(), "archived 1") || !strings.Contains(out.String(), m.ID) {
		t.Fatalf("digest said:\n%s", out.String())
	}
	if st := s.memoryState(t, m.ID); st != "ARCHIVED" {
		t.Fatalf("state after the command: %s", st)
	}
	if err := run([]string{"digest", "--server", "http://" + s.addr, "--scope", scope, "--remove", m.ID}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st := s.memoryState(t, m.ID); st != "" {
		t.Fatalf("removed memory loads as %s", st)
	}
	if err := run([]string{"digest", "--server", "http://" + s.addr}, &out, io.Discard); err == nil {
		t.Fatal("--server without --scope accepted")
	}
}

// TestDeleteScopeIndex checks, on a real graph and a real Bleve index behind a Cortex, that
// deleting a scope removes its search documents of every family and none of another scope,
// and that a catch-up replaying the log does not bring them back. The index and the Cortex are
// the same over either store, and the rebuild replays the whole log, so it runs on the embedded
// engine only (on a shared cluster it would replay everyone's events); DeleteScopeTwoScopes
// checks search on the cluster through the API.
func TestDeleteScopeIndex(t *testing.T) {
	for _, name := range []string{"embedded"} {
		t.Run(name, func(t *testing.T) {
			sf := backends(t)[name](t)
			if sf.index == "" {
				sf.index = filepath.Join(t.TempDir(), "index")
			}
			ctx := context.Background()
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			st, idx, cx, err := sf.open(ctx, logger)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			defer idx.Close()
			scopes := map[string]*domain.Scope{}
			for _, n := range []string{"doomed", "kept"} {
				sc, err := cx.CreateScope(ctx, n, cortex.Meta{})
				if err != nil {
					t.Fatal(err)
				}
				scopes[n] = sc
				if _, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: "capybara memory"}}); err != nil {
					t.Fatal(err)
				}
				for _, f := range []domain.ArtifactFamily{domain.FamKnowledge, domain.FamSkill} {
					typ := string(domain.KnowFact)
					if f == domain.FamSkill {
						typ = string(domain.SkillHeuristic)
					}
					if _, err := cx.SaveArtifact(ctx, f, cortex.SaveArtifactInput{ScopeID: sc.ID, Type: typ, Title: "capybara", Content: "capybara " + string(f)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			count := func(scopeID string) int {
				n := 0
				for _, f := range []domain.ArtifactFamily{domain.FamMemory, domain.FamKnowledge, domain.FamSkill} {
					hs, err := idx.Search(ctx, domain.IndexQuery{ScopeID: indexScopeOf(scopeID, f), Text: "capybara", Limit: 10})
					if err != nil {
						t.Fatal(err)
					}
					n += len(hs)
				}
				return n
			}
			if count(scopes["doomed"].ID) != 3 || count(scopes["kept"].ID) != 3 {
				t.Fatalf("before: %d and %d documents", count(scopes["doomed"].ID), count(scopes["kept"].ID))
			}
			if _, err := cx.DeleteScope(ctx, scopes["doomed"].ID, cortex.Meta{}); err != nil {
				t.Fatal(err)
			}
			if n := count(scopes["doomed"].ID); n != 0 {
				t.Fatalf("%d search documents of the deleted scope remain", n)
			}
			if n := count(scopes["kept"].ID); n != 3 {
				t.Fatalf("the kept scope has %d documents, want 3", n)
			}
			// Rebuild the index from the log: the deleted scope's events are erased, so nothing returns.
			cx.Close()
			idx.Close()
			if err := os.RemoveAll(sf.index); err != nil {
				t.Fatal(err)
			}
			idx2, err := search.Open(sf.index)
			if err != nil {
				t.Fatal(err)
			}
			cx2, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx2, Logger: logger})
			if err != nil {
				t.Fatal(err)
			}
			defer cx2.Close()
			defer idx2.Close()
			idx = idx2
			if n := count(scopes["doomed"].ID); n != 0 {
				t.Fatalf("after a rebuild %d documents of the deleted scope are back", n)
			}
			if n := count(scopes["kept"].ID); n != 3 {
				t.Fatalf("after a rebuild the kept scope has %d documents", n)
			}
		})
	}
}

func indexScopeOf(scopeID string, f domain.ArtifactFamily) string {
	if f == domain.FamMemory {
		return scopeID
	}
	return fmt.Sprintf("%s/%s", scopeID, f)
}

// TestDigestSchedule runs serve's scheduled digest (propose, then archive what it proposed) on
// a real store until the stale memory it must find is archived, with its reasons recorded.
func TestDigestSchedule(t *testing.T) {
	sf := backends(t)["embedded"](t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	sc, err := cx.CreateScope(ctx, "scheduled", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	old, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: "old heron", OccurredAt: &long}})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: "fresh heron"}})
	if err != nil {
		t.Fatal(err)
	}
	wait := startDigestSchedule(ctx, cx, digestSchedule{Every: 10 * time.Millisecond, Archive: true, StaleAfter: 30 * 24 * time.Hour}, logger)
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, err := st.Memory(ctx, old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if m.State == domain.StateArchived {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the scheduled digest did not archive the stale memory within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wait()
	v, err := cx.DerivedView(context.Background(), old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Cleanup.Archive == nil || len(v.Cleanup.Archive.Reasons) != 2 || v.Cleanup.Archive.Reasons[1].Code != domain.ReasonStale {
		t.Fatalf("archive record = %+v", v.Cleanup.Archive)
	}
	if m, _ := st.Memory(context.Background(), fresh.ID); m.State != domain.StateActive {
		t.Fatal("the scheduled digest archived a fresh memory")
	}
	// Removal is never scheduled.
	if m, err := st.Memory(context.Background(), old.ID); err != nil || m.State != domain.StateArchived {
		t.Fatalf("after the schedule: %v %v", m, err)
	}
}
