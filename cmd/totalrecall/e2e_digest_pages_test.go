package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A propose pass over more memories than a page of proposals, over HTTP: the report counts its
// proposals and gives them a page at a time in artifact id order from any point; bad pages are
// refused with INVALID_ARGUMENT; a second pass finds the same proposals and names none of them
// in the histories again; and `totalrecall digest` prints and archives every proposal.
func TestDigestProposalsInPages(t *testing.T) {
	s := startServer(t, backends(t)["embedded"](t))
	defer s.stop(t)
	scope, agent, _ := s.createScope(t, "digest pages")
	const n = 2345
	var ids []string
	for lo := 0; lo < n; lo += 800 {
		var batch []map[string]any
		for i := lo; i < min(n, lo+800); i++ {
			batch = append(batch, map[string]any{"scopeId": scope, "content": fmt.Sprintf("ancient ibis number %d", i),
				"occurredAt": "2001-01-01T00:00:00Z"})
		}
		var r struct{ StoreMemories []memory }
		s.ok(t, `mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id } }`, map[string]any{"ins": batch}, &r)
		for _, m := range r.StoreMemories {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	type page struct {
		ID            string
		ProposalCount int
		Proposals     []proposal
	}
	var pass struct{ RunDigest page }
	s.ok(t, `mutation($s: ID!) { runDigest(input: {scopeId: $s, propose: true}) { id proposalCount proposals { artifactId family reasons { code } } } }`,
		map[string]any{"s": scope}, &pass)
	rep := pass.RunDigest
	if rep.ProposalCount != n || len(rep.Proposals) != 1000 {
		t.Fatalf("the pass counts %d proposals and answers %d; want %d and a first page of 1000", rep.ProposalCount, len(rep.Proposals), n)
	}
	artifacts := func(ps []proposal) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.ArtifactID
		}
		return out
	}
	if got := artifacts(rep.Proposals); !slices.Equal(got, ids[:1000]) {
		t.Fatal("the first page is not the first 1000 memories in id order")
	}
	const pageQ = `query($id: ID!, $first: Int, $after: ID) { digestReport(id: $id) { proposalCount proposals(first: $first, after: $after) { artifactId family reasons { code detail } } } }`
	read := func(first int, after string) []proposal {
		t.Helper()
		vars := map[string]any{"id": rep.ID, "first": first}
		if after != "" {
			vars["after"] = after
		}
		var r struct{ DigestReport page }
		s.ok(t, pageQ, vars, &r)
		return r.DigestReport.Proposals
	}
	var all []string
	for after := ""; ; {
		p := read(700, after)
		if len(p) == 0 {
			break
		}
		if len(p) > 700 || p[0].Family != "MEMORY" || p[0].Reasons[len(p[0].Reasons)-1].Code != "STALE" {
			t.Fatalf("a page of %d: %+v", len(p), p[0])
		}
		all = append(all, artifacts(p)...)
		after = p[len(p)-1].ArtifactID
		if len(all) > n {
			t.Fatalf("read 700 at a time: more than the %d proposals", n)
		}
	}
	if !slices.Equal(all, ids) {
		t.Fatalf("read 700 at a time: %d proposals, want the %d memories in id order", len(all), n)
	}
	if got := artifacts(read(10000, ids[1500])); !slices.Equal(got, ids[1501:]) {
		t.Fatalf("after the 1501st: %d proposals", len(got))
	}
	for _, bad := range []map[string]any{
		{"id": rep.ID, "first": 0}, {"id": rep.ID, "first": -3}, {"id": rep.ID, "first": 10001},
		{"id": rep.ID, "after": "not an id"}, {"id": rep.ID, "after": `"} . _:x <tr.kind> "Memory" .`}, {"id": rep.ID, "after": "ibis ✓ 🦩"},
	} {
		s.fails(t, "INVALID_ARGUMENT", pageQ, bad)
	}
	// The pass named each proposal once in its memory's history; a second pass finds the same
	// proposals and names none again.
	historyProposals := func(id string) int {
		var h struct{ History []struct{ Type string } }
		s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": id}, &h)
		k := 0
		for _, e := range h.History {
			if e.Type == "DigestProposed" {
				k++
			}
		}
		return k
	}
	probe := []string{ids[0], ids[999], ids[1000], ids[n-1]}
	for _, id := range probe {
		if k := historyProposals(id); k != 1 {
			t.Fatalf("the history of %s names %d proposals, want 1", id, k)
		}
	}
	s.ok(t, `mutation($s: ID!) { runDigest(input: {scopeId: $s, propose: true}) { id proposalCount } }`, map[string]any{"s": scope}, &pass)
	if pass.RunDigest.ProposalCount != n {
		t.Fatalf("the second pass counts %d proposals", pass.RunDigest.ProposalCount)
	}
	for _, id := range probe {
		if k := historyProposals(id); k != 1 {
			t.Fatalf("after a second pass the history of %s names %d proposals, want 1", id, k)
		}
	}

	// A pass that proposes and archives what it may not is refused before any page of its
	// proposals is written.
	for _, c := range []struct{ code, id string }{{"FORBIDDEN", agent}, {"NOT_FOUND", "00000000-0000-4000-8000-000000000000"}} {
		s.fails(t, c.code, `mutation($s: ID!, $a: [ID!]) { runDigest(input: {scopeId: $s, propose: true, archive: $a}) { id } }`,
			map[string]any{"s": scope, "a": []string{ids[0], c.id}})
	}
	// A pass asked again with its request id answers as it did and writes nothing, not even
	// pages of proposals.
	const withRequest = `mutation($s: ID!, $r: ID) { runDigest(input: {scopeId: $s, propose: true, requestId: $r}) { id proposalCount } }`
	req := map[string]any{"s": scope, "r": "e2e-digest-pages-replay"}
	var again struct{ RunDigest page }
	if w := s.okWrites(t, withRequest, req, &pass); w < 2 {
		t.Fatalf("a pass of %d proposals committed %d writes", n, w)
	}
	if w := s.okWrites(t, withRequest, req, &again); w != 0 || again.RunDigest.ID != pass.RunDigest.ID || again.RunDigest.ProposalCount != n {
		t.Fatalf("the pass asked again committed %d writes and answered %+v; want none and %+v", w, again.RunDigest, pass.RunDigest)
	}

	// The command prints every proposal, as text and as JSON, and archives them all.
	srv := "http://" + s.addr
	var out strings.Builder
	if err := run([]string{"digest", "--server", srv, "--scope", scope}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n  propose MEMORY "); got != n || !strings.Contains(out.String(), fmt.Sprintf("proposed %d,", n)) {
		t.Fatalf("the command printed %d proposals:\n%.300s", got, out.String())
	}
	out.Reset()
	if err := run([]string{"digest", "--server", srv, "--scope", scope, "--json"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var printed struct {
		ID            string
		ProposalCount int
		Proposals     []proposal
	}
	if err := json.Unmarshal([]byte(out.String()), &printed); err != nil {
		t.Fatalf("--json printed no JSON object: %v\n%.300s", err, out.String())
	}
	if printed.ProposalCount != n || !slices.Equal(artifacts(printed.Proposals), ids) {
		t.Fatalf("--json printed %d of %d proposals", len(printed.Proposals), printed.ProposalCount)
	}
	out.Reset()
	if err := run([]string{"digest", "--server", srv, "--scope", scope, "--archive", "proposed"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("archived %d,", n)) {
		t.Fatalf("digest --archive proposed said:\n%.500s", out.String())
	}
	for _, id := range probe {
		if st := s.memoryState(t, id); st != "ARCHIVED" {
			t.Fatalf("%s is %s after --archive proposed", id, st)
		}
	}
}
