package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// The artifact lifecycle's audited rules end to end: request records die with their scope, a
// pass removes only what an earlier digest pass archived, skills through list, proposal,
// archive and restore, the audit events in history, and refused passes leaving nothing behind.

type historyEvent struct {
	Type    string
	Payload map[string]any
}

func (s *server) history(t testing.TB, id string) []historyEvent {
	t.Helper()
	var h struct{ History []historyEvent }
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type payload } }`, map[string]any{"id": id}, &h)
	return h.History
}

func eventsOf(h []historyEvent, typ string) []historyEvent {
	var out []historyEvent
	for _, e := range h {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// reasonCodes reads the codes of a payload's typed reasons.
func reasonCodes(t testing.TB, v any) []string {
	t.Helper()
	raw, _ := json.Marshal(v)
	var rs []reason
	if err := json.Unmarshal(raw, &rs); err != nil {
		t.Fatalf("reasons %s: %v", raw, err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Code)
	}
	return out
}

func (s *server) removable(t testing.TB, id string) bool {
	t.Helper()
	var dv struct {
		DerivedView struct{ Cleanup struct{ Removable bool } }
	}
	s.ok(t, `query($id: ID!) { derivedView(artifactId: $id) { cleanup { removable } } }`, map[string]any{"id": id}, &dv)
	return dv.DerivedView.Cleanup.Removable
}

const runDigestID = `mutation($in: DigestInput!) { runDigest(input: $in) { id } }`

// testRequestReplayDiesWithScope: a request's record (kept to answer its retries) is deleted
// with its scope, so a retry after the deletion never answers with the deleted data; another
// scope's requests still replay.
func testRequestReplayDiesWithScope(t *testing.T, s *server) {
	doomed, _, _ := s.createScope(t, "replay doomed")
	kept, _, _ := s.createScope(t, "replay kept")
	inA := map[string]any{"scopeId": doomed, "content": "the doomed scope's secret", "requestId": "replay-a-" + runID}
	inB := map[string]any{"scopeId": kept, "content": "the kept scope's memory", "requestId": "replay-b-" + runID}
	skillIn := map[string]any{"scopeId": doomed, "type": "HEURISTIC", "title": "secret skill", "content": "never say it",
		"requestId": "replay-skill-" + runID}
	ma, mb := s.store(t, inA), s.store(t, inB)
	sk := s.saveSkill(t, skillIn)
	if again := s.store(t, inA); again.ID != ma.ID {
		t.Fatalf("retry before the deletion stored %s, want the first result %s", again.ID, ma.ID)
	}
	s.ok(t, `mutation($id: ID!) { deleteScope(id: $id) { nodes } }`, map[string]any{"id": doomed}, nil)

	// Retried after the deletion: applied afresh, so refused (the scope is gone).
	for _, c := range []struct {
		query, gone string
		in          map[string]any
	}{
		{`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id content } }`, ma.ID, inA},
		{`mutation($in: SaveSkillInput!) { saveSkill(input: $in) { id content } }`, sk.ID, skillIn},
	} {
		r := s.do(t, c.query, map[string]any{"in": c.in})
		if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("retry after the scope's deletion answered %s %+v, want NOT_FOUND", r.Data, r.Errors)
		}
		if strings.Contains(string(r.Data), c.gone) || strings.Contains(string(r.Data), "secret") {
			t.Fatalf("retry after the scope's deletion replayed deleted data: %s", r.Data)
		}
	}
	if again := s.store(t, inB); again.ID != mb.ID {
		t.Fatalf("the kept scope's retry stored %s, want the first result %s", again.ID, mb.ID)
	}
	var r struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": kept}, &r)
	if r.Memories.TotalCount != 1 {
		t.Fatalf("the kept scope has %d memories, want 1", r.Memories.TotalCount)
	}
}

// testDigestRemovesOnlyWhatADigestArchived: a consolidation's sources are archived, but by no
// digest pass, so no pass removes them; a restore forgets the archiving pass.
func testDigestRemovesOnlyWhatADigestArchived(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "remove rule")
	longAgo := e2eClock.now().Add(-400 * 24 * time.Hour).UTC().Format(time.RFC3339)
	a := s.store(t, map[string]any{"scopeId": scope, "content": "heron at dawn", "occurredAt": longAgo})
	b := s.store(t, map[string]any{"scopeId": scope, "content": "heron at dusk", "occurredAt": longAgo})
	c := s.store(t, map[string]any{"scopeId": scope, "content": "egret in the reeds", "occurredAt": longAgo})
	s.ok(t, `mutation($ids: [ID!]!) { consolidate(memoryIds: $ids) { id } }`, map[string]any{"ids": []string{a.ID, b.ID}}, nil)
	if st := s.listedState(t, scope, a.ID); st != "ARCHIVED" {
		t.Fatalf("a consolidation's source is %s, want ARCHIVED", st)
	}
	if s.removable(t, a.ID) {
		t.Fatal("a consolidation's source reads as removable")
	}
	s.fails(t, "NOT_ARCHIVED", runDigestID, map[string]any{"in": map[string]any{"scopeId": scope, "remove": []string{a.ID}}})
	if st := s.listedState(t, scope, a.ID); st != "ARCHIVED" {
		t.Fatalf("after a refused removal the source is %q", st)
	}
	var l struct {
		Memory struct{ ConsolidatedInto string }
	}
	s.ok(t, `query($id: ID!) { memory(id: $id) { consolidatedInto } }`, map[string]any{"id": a.ID}, &l)
	if l.Memory.ConsolidatedInto == "" {
		t.Fatal("the source lost its lineage")
	}

	// Archived by a pass: removable; restored: no longer, until a pass archives it again.
	s.digest(t, map[string]any{"scopeId": scope, "archive": []string{c.ID}})
	if !s.removable(t, c.ID) {
		t.Fatal("archived by a pass, yet not removable")
	}
	s.ok(t, `mutation($id: ID!) { restoreMemory(id: $id) { id } }`, map[string]any{"id": c.ID}, nil)
	if s.removable(t, c.ID) {
		t.Fatal("a restored memory reads as removable")
	}
	s.fails(t, "NOT_ARCHIVED", runDigestID, map[string]any{"in": map[string]any{"scopeId": scope, "remove": []string{c.ID}}})
	e2eClock.advance(60 * 24 * time.Hour)
	s.digest(t, map[string]any{"scopeId": scope, "archive": []string{c.ID}})
	if rem := s.digest(t, map[string]any{"scopeId": scope, "remove": []string{c.ID}}); len(rem.Removed) != 1 {
		t.Fatalf("remove pass = %+v", rem)
	}
	if st := s.listedState(t, scope, c.ID); st != "" {
		t.Fatalf("removed memory still listed as %s", st)
	}
}

const skillList = `query($s: ID!, $f: SkillFilter, $n: Int, $a: String) { skills(scopeId: $s, filter: $f, first: $n, after: $a) {
	totalCount hasNextPage endCursor nodes { id scopeId type title steps tags state } } }`

type skillPage struct {
	Skills struct {
		TotalCount  int
		HasNextPage bool
		EndCursor   string
		Nodes       []artifact
	}
}

func (s *server) skills(t testing.TB, scope string, filter map[string]any, first int, after string) skillPage {
	t.Helper()
	vars := map[string]any{"s": scope, "n": first}
	if filter != nil {
		vars["f"] = filter
	}
	if after != "" {
		vars["a"] = after
	}
	var p skillPage
	s.ok(t, skillList, vars, &p)
	return p
}

func listedIDs(p skillPage) map[string]bool {
	out := map[string]bool{}
	for _, n := range p.Skills.Nodes {
		out[n.ID] = true
	}
	return out
}

// testSkillsListProposeArchiveRestore: the skills(...) list; a stale skill proposed with typed
// reasons (a DigestProposed in its history, once however often a pass finds it unchanged),
// archived by a pass, restored by restoreSkill (ArtifactRestored in its history with the
// archive's reasons), listed and searchable again.
func testSkillsListProposeArchiveRestore(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, agent, _ := s.createScope(t, "skills")
	other, _, _ := s.createScope(t, "skills other")
	var made []artifact
	for i := 0; i < 5; i++ {
		typ, tags := "PROCEDURE", []string{"kiwi"}
		if i%2 == 0 {
			typ, tags = "HEURISTIC", []string{"kiwi", "even"}
		}
		made = append(made, s.saveSkill(t, map[string]any{"scopeId": scope, "type": typ, "title": fmt.Sprint("kiwi skill ", i),
			"content": fmt.Sprint("how to tend kiwis, way ", i), "steps": []string{"look", fmt.Sprint("act ", i)}, "tags": tags}))
	}
	foreign := s.saveSkill(t, map[string]any{"scopeId": other, "type": "PROCEDURE", "title": "kiwi elsewhere", "content": "kiwi", "tags": []string{"kiwi"}})
	page := s.saveKnowledge(t, map[string]any{"scopeId": scope, "type": "FACT", "title": "kiwi page", "content": "kiwis are birds"})

	// Pages: newest update first, no overlap, all of them, never another scope's.
	var seen []string
	after := ""
	for {
		p := s.skills(t, scope, nil, 2, after)
		if p.Skills.TotalCount != 5 {
			t.Fatalf("totalCount %d, want 5", p.Skills.TotalCount)
		}
		for _, n := range p.Skills.Nodes {
			if n.ScopeID != scope || n.State != "ACTIVE" || len(n.Steps) != 2 {
				t.Fatalf("listed %+v", n)
			}
			seen = append(seen, n.ID)
		}
		if !p.Skills.HasNextPage {
			break
		}
		after = p.Skills.EndCursor
	}
	if len(seen) != 5 || seen[0] != made[4].ID || seen[4] != made[0].ID {
		t.Fatalf("pages %v, want the five skills newest first", seen)
	}
	for _, c := range []struct {
		f    map[string]any
		want int
	}{
		{map[string]any{"types": []string{"HEURISTIC"}}, 3},
		{map[string]any{"types": []string{"PROCEDURE", "HEURISTIC"}}, 5},
		{map[string]any{"tags": []string{"even"}}, 3},
		{map[string]any{"tags": []string{"kiwi", "even"}}, 3},
		{map[string]any{"states": []string{"ARCHIVED"}}, 0},
	} {
		if p := s.skills(t, scope, c.f, 100, ""); p.Skills.TotalCount != c.want || len(p.Skills.Nodes) != c.want {
			t.Fatalf("filter %v: %d (%d), want %d", c.f, p.Skills.TotalCount, len(p.Skills.Nodes), c.want)
		}
	}
	if p := s.skills(t, other, nil, 100, ""); p.Skills.TotalCount != 1 || p.Skills.Nodes[0].ID != foreign.ID {
		t.Fatalf("the other scope's skills = %+v", p.Skills)
	}
	s.fails(t, "INVALID_ARGUMENT", skillList, map[string]any{"s": scope, "a": "bogus"})

	// Two months later the skills are stale: proposed, with their reasons in their history.
	e2eClock.advance(60 * 24 * time.Hour)
	fresh := s.saveSkill(t, map[string]any{"scopeId": scope, "type": "TOOL_USE", "title": "kiwi tool", "content": "use the kiwi tool"})
	rep := s.digest(t, map[string]any{"scopeId": scope, "propose": true})
	props := map[string]proposal{}
	for _, p := range rep.Proposals {
		props[p.ArtifactID] = p
	}
	for _, m := range made {
		p, ok := props[m.ID]
		if !ok || p.Family != "SKILL" || len(p.Reasons) != 2 || p.Reasons[0].Code != "UNSUPPORTED" || p.Reasons[1].Code != "STALE" {
			t.Fatalf("proposal for skill %s = %+v", m.Title, p)
		}
	}
	if _, ok := props[fresh.ID]; ok {
		t.Fatal("a skill saved today was proposed")
	}
	target := made[0]
	proposed := eventsOf(s.history(t, target.ID), "DigestProposed")
	if len(proposed) != 1 || proposed[0].Payload["reportId"] != rep.ID || proposed[0].Payload["family"] != "skill" ||
		strings.Join(reasonCodes(t, proposed[0].Payload["reasons"]), ",") != "UNSUPPORTED,STALE" {
		t.Fatalf("the proposal in the skill's history = %+v", proposed)
	}
	if ps := eventsOf(s.history(t, page.ID), "DigestProposed"); len(ps) != 1 || ps[0].Payload["family"] != "knowledge" {
		t.Fatalf("the page's proposal in its history = %+v", ps)
	}
	// A pass finding the same again records nothing new.
	s.digest(t, map[string]any{"scopeId": scope, "propose": true})
	if ps := eventsOf(s.history(t, target.ID), "DigestProposed"); len(ps) != 1 {
		t.Fatalf("%d DigestProposed after a second pass that found nothing new, want 1", len(ps))
	}

	// Archived: out of the list and search, still loadable.
	arch := s.digest(t, map[string]any{"scopeId": scope, "archive": []string{target.ID}})
	if p := s.skills(t, scope, nil, 100, ""); p.Skills.TotalCount != 5 || listedIDs(p)[target.ID] {
		t.Fatalf("after archiving: %d listed, archived one listed %v", p.Skills.TotalCount, listedIDs(p)[target.ID])
	}
	if p := s.skills(t, scope, map[string]any{"states": []string{"ARCHIVED"}}, 100, ""); p.Skills.TotalCount != 1 || p.Skills.Nodes[0].State != "ARCHIVED" {
		t.Fatalf("archived skills = %+v", p.Skills)
	}
	if got := hitIDs(s.searchAll(t, scope, "kiwis", "")); got[target.ID] != "" {
		t.Fatal("an archived skill is searchable")
	}
	var sq struct{ Skill *artifact }
	s.ok(t, `query($id: ID!) { skill(id: $id) { id state } }`, map[string]any{"id": target.ID}, &sq)
	if sq.Skill == nil || sq.Skill.State != "ARCHIVED" {
		t.Fatalf("archived skill loads as %+v", sq.Skill)
	}

	// restoreSkill: active, listed and searchable again; the restore audited with the archive's reasons.
	restore := `mutation($id: ID!) { restoreSkill(id: $id) { id state steps version } }`
	var rs struct{ RestoreSkill artifact }
	s.ok(t, restore, map[string]any{"id": target.ID}, &rs)
	if rs.RestoreSkill.State != "ACTIVE" || len(rs.RestoreSkill.Steps) != 2 || rs.RestoreSkill.Steps[1] != "act 0" {
		t.Fatalf("restored %+v", rs.RestoreSkill)
	}
	if p := s.skills(t, scope, nil, 100, ""); p.Skills.TotalCount != 6 || !listedIDs(p)[target.ID] {
		t.Fatalf("after the restore: %d listed, restored one listed %v", p.Skills.TotalCount, listedIDs(p)[target.ID])
	}
	if got := hitIDs(s.searchAll(t, scope, "kiwis", "")); got[target.ID] != "SKILL" {
		t.Fatalf("the restored skill is not searchable: %v", got)
	}
	h := s.history(t, target.ID)
	restored := eventsOf(h, "ArtifactRestored")
	if len(restored) != 1 || restored[0].Payload["archivedBy"] != arch.ID || restored[0].Payload["family"] != "skill" ||
		strings.Join(reasonCodes(t, restored[0].Payload["archiveReasons"]), ",") != "UNSUPPORTED,STALE" {
		t.Fatalf("the restore in the skill's history = %+v", restored)
	}
	if h[len(h)-1].Type != "ArtifactRestored" {
		t.Fatalf("history ends with %s", h[len(h)-1].Type)
	}
	s.fails(t, "NOT_ARCHIVED", restore, map[string]any{"id": target.ID})
	s.fails(t, "NOT_FOUND", restore, map[string]any{"id": page.ID})
	s.fails(t, "FORBIDDEN", restore, map[string]any{"id": agent})
	s.fails(t, "INVALID_ARGUMENT", restore, map[string]any{"id": "not-a-uuid"})
	// Restored is used: the next pass does not propose it.
	rep = s.digest(t, map[string]any{"scopeId": scope, "propose": true})
	for _, p := range rep.Proposals {
		if p.ArtifactID == target.ID {
			t.Fatal("a skill restored just now was proposed")
		}
	}
}

// testRefusedDigestPassLeavesNothing: every refused pass — SAME_PASS_ARCHIVE_REMOVE,
// NOT_ARCHIVED, FORBIDDEN, with or without a proposal — leaves no event: its request has no
// messages, and the scope's subscribers see nothing of it.
func testRefusedDigestPassLeavesNothing(t *testing.T, s *server) {
	scope, agent, world := s.createScope(t, "refused passes")
	longAgo := e2eClock.now().Add(-400 * 24 * time.Hour).UTC().Format(time.RFC3339)
	m := s.store(t, map[string]any{"scopeId": scope, "content": "old ibis", "occurredAt": longAgo})
	a := s.store(t, map[string]any{"scopeId": scope, "content": "ibis one", "occurredAt": longAgo})
	b := s.store(t, map[string]any{"scopeId": scope, "content": "ibis two", "occurredAt": longAgo})
	s.ok(t, `mutation($ids: [ID!]!) { consolidate(memoryIds: $ids) { id } }`, map[string]any{"ids": []string{a.ID, b.ID}}, nil)
	ws := s.saveWorkingState(t, scope, "ibis scratch")

	conn, events := subscribeWS(t, s.addr, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }`, map[string]any{"s": scope})
	defer conn.Close()
	time.Sleep(200 * time.Millisecond) // let the subscription register

	for i, c := range []struct {
		code string
		in   map[string]any
	}{
		{"SAME_PASS_ARCHIVE_REMOVE", map[string]any{"archive": []string{m.ID}, "remove": []string{m.ID}}},
		{"SAME_PASS_ARCHIVE_REMOVE", map[string]any{"propose": true, "archive": []string{m.ID}, "remove": []string{m.ID}}},
		{"NOT_ARCHIVED", map[string]any{"remove": []string{m.ID}}},
		{"NOT_ARCHIVED", map[string]any{"propose": true, "remove": []string{a.ID}}},
		{"FORBIDDEN", map[string]any{"archive": []string{m.ID, agent}}},
		{"FORBIDDEN", map[string]any{"propose": true, "remove": []string{world}}},
		{"FORBIDDEN", map[string]any{"archive": []string{ws.ID}}},
	} {
		rid := fmt.Sprintf("refused-pass-%d-%s", i, runID)
		in := map[string]any{"scopeId": scope, "requestId": rid}
		for k, v := range c.in {
			in[k] = v
		}
		s.fails(t, c.code, runDigestID, map[string]any{"in": in})
		s.fails(t, "NOT_FOUND", `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": rid})
	}
	if st := s.listedState(t, scope, m.ID); st != "ACTIVE" {
		t.Fatalf("a refused pass changed the memory: %s", st)
	}
	if h := s.history(t, m.ID); len(eventsOf(h, "DigestProposed"))+len(eventsOf(h, "ArtifactArchived")) != 0 {
		t.Fatalf("a refused pass left events in the history: %+v", h)
	}
	// Subscribers saw nothing of the passes: the next event of the scope is the sentinel's.
	sentinel := s.store(t, map[string]any{"scopeId": scope, "content": "sentinel ibis"})
	timeout := time.After(10 * time.Second)
	for {
		select {
		case p, ok := <-events:
			if !ok {
				t.Fatal("subscription closed")
			}
			ev := p["data"].(map[string]any)["memoryEvents"].(map[string]any)
			typ, _ := ev["type"].(string)
			if strings.HasPrefix(typ, "Digest") || strings.HasPrefix(typ, "ArtifactArchived") || strings.HasPrefix(typ, "ArtifactRemoved") {
				t.Fatalf("a refused pass published %v", ev)
			}
			if typ == "MemoryStored" && ev["memoryId"] == sentinel.ID {
				return
			}
		case <-timeout:
			t.Fatal("the sentinel's MemoryStored did not arrive within 10s")
		}
	}
}

// TestRefusedDigestPassLeavesNoReport counts, on a real graph behind a Cortex, the scope's
// digest reports and events before and after every kind of refused pass: none is added.
func TestRefusedDigestPassLeavesNoReport(t *testing.T) {
	sf := backends(t)["embedded"](t)
	ctx := context.Background()
	st, _, cx := openStack(t, sf)
	sc, err := cx.CreateScope(ctx, "refusals", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	mem := func(content string) *domain.Memory {
		m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: content, OccurredAt: &long}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m, a, b := mem("old stork"), mem("stork one"), mem("stork two")
	if _, err := cx.Consolidate(ctx, []string{a.ID, b.ID}, "", cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	ws, err := cx.SaveArtifact(ctx, domain.FamWorkingState, cortex.SaveArtifactInput{ScopeID: sc.ID, Content: "scratch"})
	if err != nil {
		t.Fatal(err)
	}
	// A pass that succeeds is counted, so the counts can see a pass at all.
	if _, err := cx.RunDigest(ctx, cortex.DigestInput{ScopeID: sc.ID, Propose: true}); err != nil {
		t.Fatal(err)
	}
	// events counts the scope's events, or with request only those of that request: the living
	// memory's consumers go on adding events of earlier requests (SalienceScored, ...) while the
	// refused passes run, so what a refused pass wrote is counted by its own request id.
	count := func(request string) (reports, events int) {
		t.Helper()
		raw, err := st.RawQuery(ctx, `query q($s: string) { r(func: eq(tr.scope, $s)) @filter(eq(tr.kind, "DigestReport")) { uid } }`,
			map[string]string{"$s": sc.ID})
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ R []struct{ UID string } }
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		evs, err := st.EventsSince(ctx, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.ScopeID == sc.ID && (request == "" || e.Context.RequestID == request) {
				events++
			}
		}
		return len(r.R), events
	}
	reports0, events0 := count("")
	if reports0 != 1 || events0 == 0 {
		t.Fatalf("after one pass: %d reports, %d events", reports0, events0)
	}
	for _, c := range []struct {
		code string
		in   cortex.DigestInput
	}{
		{domain.ESAMEPASS, cortex.DigestInput{Archive: []string{m.ID}, Remove: []string{m.ID}}},
		{domain.ESAMEPASS, cortex.DigestInput{Propose: true, Archive: []string{m.ID}, Remove: []string{m.ID}}},
		{domain.ENOTARCHIVED, cortex.DigestInput{Remove: []string{m.ID}}},
		{domain.ENOTARCHIVED, cortex.DigestInput{Propose: true, Remove: []string{a.ID}}},
		{domain.EFORBIDDEN, cortex.DigestInput{Archive: []string{m.ID, sc.AgentKernel.ID}}},
		{domain.EFORBIDDEN, cortex.DigestInput{Propose: true, Remove: []string{sc.WorldKernel.ID}}},
		{domain.EFORBIDDEN, cortex.DigestInput{Archive: []string{ws.ID}}},
	} {
		in := c.in
		in.ScopeID = sc.ID
		in.RequestID = domain.NewID()
		_, err := cx.RunDigest(ctx, in)
		if got := domain.ErrorCode(err); got != c.code {
			t.Fatalf("pass %+v: code %q (%v), want %s", c.in, got, err, c.code)
		}
		if reports, events := count(in.RequestID); reports != reports0 || events != 0 {
			t.Fatalf("pass %+v refused with %s left %d reports and %d events of its request, want %d and 0",
				c.in, c.code, reports, events, reports0)
		}
		// Its request is not recorded either: a retry is refused again.
		if _, err := cx.RunDigest(ctx, in); domain.ErrorCode(err) != c.code {
			t.Fatalf("retried refused pass: %v", err)
		}
	}
	if got, _ := st.Memory(ctx, m.ID); got.State != domain.StateActive {
		t.Fatalf("refused passes left the memory %s", got.State)
	}
}
