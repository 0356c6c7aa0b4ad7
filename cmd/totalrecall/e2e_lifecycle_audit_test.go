package main

import (
	"strings"
	"testing"
)

// The artifact lifecycle's audited rules end to end: request records die with their scope, a
// pass removes only what an earlier digest pass archived, skills through list, proposal,
// archive and restore, the audit events in history, and refused passes leaving nothing behind.

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
