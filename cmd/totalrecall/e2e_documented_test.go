package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// What the manual (docs/concepts.md, docs/api.md) promises a caller, end to end on a real
// server, each number written out as the manual states it: the limits of a memory, the tiers and
// the salience a new memory gets, the defaults and bounds of searches and lists, the
// checkpoint of recency when a sweep moves a memory, and a retried sweep answered from its
// first run.

func init() {
	e2eTests = append(e2eTests,
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"DocumentedMemoryLimits", testDocumentedMemoryLimits},
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"DocumentedTiersAndInitialSalience", testDocumentedTiersAndInitialSalience},
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"DocumentedPagesAndResults", testDocumentedPagesAndResults},
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"DocumentedAssociationDirections", testDocumentedAssociationDirections},
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"SweepCheckpointsRecencyAtATierChange", testSweepCheckpointsRecencyAtATierChange},
		struct {
			name string
			fn   func(*testing.T, *server)
		}{"RetriedSweepAnswersItsFirstRun", testRetriedSweepAnswersItsFirstRun},
	)
}

// refused runs query and checks that it fails with code naming field (extensions.field) and
// that the store committed nothing for it.
func (s *server) refused(t *testing.T, code, field, query string, vars map[string]any) {
	t.Helper()
	marked, marker := s.writes.mark(query)
	r := s.do(t, marked, vars)
	if len(r.Errors) == 0 {
		t.Fatalf("succeeded, want %s on %s", code, field)
	}
	if got, f := r.Errors[0].Extensions["code"], r.Errors[0].Extensions["field"]; got != code || f != field {
		t.Fatalf("code %v field %v (%s), want %s on %s", got, f, r.Errors[0].Message, code, field)
	}
	if n := s.writes.commits(marker); n != 0 {
		t.Fatalf("refused, yet the store committed %d writes for it", n)
	}
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// sameScore compares a salience to 4 decimals: a new memory is scored a few milliseconds after
// it was formed, and its recency has decayed by that much (a millionth of the score a second).
func sameScore(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

// testDocumentedMemoryLimits: at most 64 tags of 1..256 bytes, metadata of at most 64 KiB of
// JSON, at most 10,000 memories a batch, ids of at most 128 bytes, scope names of at most 256.
func testDocumentedMemoryLimits(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "limits")
	const store = `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id tags } }`
	in := func(extra map[string]any) map[string]any {
		m := map[string]any{"scopeId": scope, "content": "within the limits"}
		for k, v := range extra {
			m[k] = v
		}
		return map[string]any{"in": m}
	}
	tags := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", size, i)
		}
		return out
	}
	var r struct{ StoreMemory memory }
	s.ok(t, store, in(map[string]any{"tags": tags(64, 8)}), &r)
	if len(r.StoreMemory.Tags) != 64 {
		t.Fatalf("64 tags stored as %d", len(r.StoreMemory.Tags))
	}
	s.refused(t, "INVALID_ARGUMENT", "tags", store, in(map[string]any{"tags": tags(65, 8)}))
	s.ok(t, store, in(map[string]any{"tags": tags(1, 256)}), nil)
	s.refused(t, "INVALID_ARGUMENT", "tags", store, in(map[string]any{"tags": tags(1, 257)}))
	// {"k":"xx…"} is 8 bytes of JSON around the value.
	s.ok(t, store, in(map[string]any{"metadata": map[string]any{"k": strings.Repeat("x", 64<<10-8)}}), nil)
	s.refused(t, "INVALID_ARGUMENT", "metadata", store, in(map[string]any{"metadata": map[string]any{"k": strings.Repeat("x", 64<<10-7)}}))
	s.ok(t, store, in(map[string]any{"requestId": strings.Repeat("r", 128)}), nil)
	s.refused(t, "INVALID_ARGUMENT", "requestId", store, in(map[string]any{"requestId": strings.Repeat("r", 129)}))
	s.ok(t, `mutation($n: String!) { createScope(name: $n) { id } }`, map[string]any{"n": strings.Repeat("n", 256)}, nil)
	s.refused(t, "INVALID_ARGUMENT", "name", `mutation($n: String!) { createScope(name: $n) { id } }`, map[string]any{"n": strings.Repeat("n", 257)})
	batch := make([]map[string]any, 10001)
	for i := range batch {
		batch[i] = map[string]any{"scopeId": scope, "content": "one of too many"}
	}
	s.refused(t, "INVALID_ARGUMENT", "inputs", `mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id } }`, map[string]any{"ins": batch})
	// Tags are a set and read back sorted.
	s.ok(t, store, in(map[string]any{"content": "tagged twice", "tags": []string{"zeta", "alpha", "zeta"}}), nil)
	var l struct{ Memories struct{ Nodes []memory } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {tags: ["zeta"]}) { nodes { content tags } } }`, map[string]any{"s": scope}, &l)
	if len(l.Memories.Nodes) != 1 || fmt.Sprint(l.Memories.Nodes[0].Tags) != "[alpha zeta]" {
		t.Fatalf("tags read back as %+v, want [alpha zeta]", l.Memories.Nodes)
	}
}

// testDocumentedTiersAndInitialSalience: a new memory starts at 0.25 + 0.30 × importance
// (importance 0 unless given); SEMANTIC memories go to LONG_TERM, the others to ACTIVE_CONTEXT; a
// suggested tier is honoured except ARCHIVE.
func testDocumentedTiersAndInitialSalience(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "tiers")
	cases := []struct {
		in       map[string]any
		tier     string
		salience float64
	}{
		{map[string]any{}, "ACTIVE_CONTEXT", 0.25},
		{map[string]any{"importance": 0.8}, "ACTIVE_CONTEXT", 0.49},
		{map[string]any{"importance": 1, "kind": "SEMANTIC"}, "LONG_TERM", 0.55},
		{map[string]any{"kind": "OBSERVATIONAL"}, "ACTIVE_CONTEXT", 0.25},
		{map[string]any{"suggestedTier": "IDENTITY_CORE", "importance": 0.5}, "IDENTITY_CORE", 0.4},
		{map[string]any{"suggestedTier": "ARCHIVE"}, "LONG_TERM", 0.25},
	}
	for i, c := range cases {
		in := map[string]any{"scopeId": scope, "content": fmt.Sprintf("memory %d", i)}
		for k, v := range c.in {
			in[k] = v
		}
		m := s.store(t, in)
		if m.Tier != c.tier || !sameScore(m.Salience, c.salience) {
			t.Errorf("%v: tier %s salience %v, want %s %v", c.in, m.Tier, m.Salience, c.tier, c.salience)
		}
	}
}

// testDocumentedPagesAndResults: lists page by 50 unless asked (at most 1,000); searches answer
// 10 unless asked (at most 1,000).
func testDocumentedPagesAndResults(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "pages")
	batch := make([]map[string]any, 51)
	for i := range batch {
		batch[i] = map[string]any{"scopeId": scope, "content": fmt.Sprintf("pangolin number %d", i)}
	}
	s.ok(t, `mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id } }`, map[string]any{"ins": batch}, nil)
	list := `query($s: ID!, $f: Int) { memories(scopeId: $s, first: $f) { totalCount hasNextPage nodes { id } } }`
	var p struct {
		Memories struct {
			TotalCount  int
			HasNextPage bool
			Nodes       []memory
		}
	}
	s.ok(t, list, map[string]any{"s": scope}, &p)
	if p.Memories.TotalCount != 51 || len(p.Memories.Nodes) != 50 || !p.Memories.HasNextPage {
		t.Fatalf("default page: %d of %d, next %v; want 50 of 51, next true", len(p.Memories.Nodes), p.Memories.TotalCount, p.Memories.HasNextPage)
	}
	s.ok(t, list, map[string]any{"s": scope, "f": 1000}, nil)
	s.refused(t, "INVALID_ARGUMENT", "first", list, map[string]any{"s": scope, "f": 1001})
	search := `query($s: ID!, $n: Int) { searchMemory(scopeId: $s, query: "pangolin", maxResults: $n) { score } }`
	var r struct{ SearchMemory []struct{ Score float64 } }
	s.ok(t, search, map[string]any{"s": scope}, &r)
	if len(r.SearchMemory) != 10 {
		t.Fatalf("default search answered %d, want 10", len(r.SearchMemory))
	}
	s.ok(t, search, map[string]any{"s": scope, "n": 1000}, &r)
	if len(r.SearchMemory) != 51 {
		t.Fatalf("maxResults 1000 answered %d, want all 51", len(r.SearchMemory))
	}
	s.refused(t, "INVALID_ARGUMENT", "maxResults", search, map[string]any{"s": scope, "n": 1001})
	// A query is at most 4,096 bytes.
	byText := `query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q) { score } }`
	s.ok(t, byText, map[string]any{"s": scope, "q": "pangolin " + strings.Repeat("x", 4096-9)}, nil)
	s.refused(t, "INVALID_ARGUMENT", "query", byText, map[string]any{"s": scope, "q": "pangolin " + strings.Repeat("x", 4096-8)})
	// Flashbacks: 3 unless asked, at most 10.
	resonate := `query($s: ID!, $n: Int) { resonate(scopeId: $s, message: "a pangolin", maxResults: $n) { score } }`
	var f struct{ Resonate []struct{ Score float64 } }
	s.ok(t, resonate, map[string]any{"s": scope}, &f)
	if len(f.Resonate) != 3 {
		t.Fatalf("resonate answered %d, want 3", len(f.Resonate))
	}
	s.ok(t, resonate, map[string]any{"s": scope, "n": 10}, &f)
	if len(f.Resonate) != 10 {
		t.Fatalf("resonate with maxResults 10 answered %d", len(f.Resonate))
	}
	s.refused(t, "INVALID_ARGUMENT", "maxResults", resonate, map[string]any{"s": scope, "n": 11})
	// The working memory holds 12 unless asked, at most 100.
	update := `mutation($s: ID!, $c: Int) { updateContext(scopeId: $s, text: "pangolin", capacity: $c) { capacity items { relevance } } }`
	var u struct {
		UpdateContext struct {
			Capacity int
			Items    []struct{ Relevance float64 }
		}
	}
	s.ok(t, update, map[string]any{"s": scope}, &u)
	if u.UpdateContext.Capacity != 12 || len(u.UpdateContext.Items) != 12 {
		t.Fatalf("working memory of capacity %d with %d items, want 12 and 12", u.UpdateContext.Capacity, len(u.UpdateContext.Items))
	}
	s.refused(t, "INVALID_ARGUMENT", "capacity", update, map[string]any{"s": scope, "c": 101})
	// A context is at most 64 KiB of text.
	byContext := `mutation($s: ID!, $x: String!) { updateContext(scopeId: $s, text: $x) { capacity } }`
	s.ok(t, byContext, map[string]any{"s": scope, "x": "pangolin " + strings.Repeat("x", 64<<10-9)}, nil)
	s.refused(t, "INVALID_ARGUMENT", "text", byContext, map[string]any{"s": scope, "x": "pangolin " + strings.Repeat("x", 64<<10-8)})
	// A consolidation takes 2..100 memories.
	consolidate := `mutation($ids: [ID!]!) { consolidate(memoryIds: $ids) { id } }`
	ids := make([]string, 101)
	for i := range ids {
		ids[i] = fmt.Sprintf("6f1c7f0e-1d2b-4c1a-9e55-%012d", i)
	}
	s.refused(t, "INVALID_ARGUMENT", "memoryIds", consolidate, map[string]any{"ids": ids})
	s.refused(t, "INVALID_ARGUMENT", "memoryIds", consolidate, map[string]any{"ids": ids[:1]})
	// A total recall starts from 1..100 memories.
	s.refused(t, "INVALID_ARGUMENT", "sourceMemoryIds", `mutation($ids: [ID!]!) { totalRecallAdvisory(sourceMemoryIds: $ids) }`, map[string]any{"ids": ids})
}

// scored waits until the Salience context has scored the request's memory (its SalienceScored
// is in the request's trace).
func (s *server) scored(t *testing.T, requestID string) {
	t.Helper()
	eventually(t, func() string {
		var tr struct {
			Trace struct{ Messages []struct{ Type string } }
		}
		s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": requestID}, &tr)
		if !strings.Contains(fmt.Sprint(tr.Trace.Messages), "SalienceScored") {
			return "request " + requestID + " not scored yet"
		}
		return ""
	})
}

// listed returns a memory as a listing reads it (a listing records no retrieval).
func (s *server) listed(t *testing.T, scope, id string) memory {
	t.Helper()
	var l struct{ Memories struct{ Nodes []memory } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {states: [ACTIVE, ARCHIVED]}, first: 1000) { nodes { `+memFields+` } } }`,
		map[string]any{"s": scope}, &l)
	for _, m := range l.Memories.Nodes {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("memory %s is not listed", id)
	return memory{}
}

const sweepQuery = `mutation($s: ID!, $r: ID, $t: Tier) { decaySweep(scopeId: $s, requestId: $r, tier: $t) { memoriesEvaluated demotions rescored } }`

type sweepResult struct{ MemoriesEvaluated, Demotions, Rescored int }

func (s *server) sweepAs(t *testing.T, scope, requestID string) sweepResult {
	t.Helper()
	var r struct{ DecaySweep sweepResult }
	s.ok(t, sweepQuery, map[string]any{"s": scope, "r": requestID}, &r)
	return r.DecaySweep
}

// testSweepCheckpointsRecencyAtATierChange: a memory of potential 0.25 in ACTIVE_CONTEXT
// (half-life 7 days) scores 0.25 × 2^(−10/7) = 0.093 ten days on, below 0.10: the sweep moves it
// to LONG_TERM and checkpoints its recency there, so a day later in LONG_TERM (half-life 60
// days) it scores 0.093 × 2^(−1/60) = 0.092 — not 0.25 × 2^(−11/60) = 0.220, which decaying from
// the store at the slower rate would give: sinking never raises a score.
func testSweepCheckpointsRecencyAtATierChange(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "checkpoint")
	rid := "checkpoint-" + runID
	m := s.store(t, map[string]any{"scopeId": scope, "content": "a passing remark", "requestId": rid})
	s.scored(t, rid)
	e2eClock.advance(10 * 24 * time.Hour)
	if got := s.sweepAs(t, scope, ""); got.MemoriesEvaluated != 1 || got.Demotions != 1 {
		t.Fatalf("sweep on day 10 = %+v, want 1 evaluated, 1 demoted", got)
	}
	after := s.listed(t, scope, m.ID)
	if after.Tier != "LONG_TERM" || fmt.Sprintf("%.3f", after.Salience) != "0.093" {
		t.Fatalf("on day 10: %s %.4f, want LONG_TERM 0.093", after.Tier, after.Salience)
	}
	e2eClock.advance(24 * time.Hour)
	if got := s.sweepAs(t, scope, ""); got.MemoriesEvaluated != 1 || got.Demotions != 0 || got.Rescored != 0 {
		t.Fatalf("sweep on day 11 = %+v, want 1 evaluated, nothing demoted or rescored", got)
	}
	// The stored score moves only when it drifts by 0.05 or more; ask the memory for its score
	// through the sweep's own judgement by drifting it: 60 more days halve it to 0.046.
	e2eClock.advance(60 * 24 * time.Hour)
	if got := s.sweepAs(t, scope, ""); got.Demotions != 0 || got.Rescored != 0 {
		t.Fatalf("sweep on day 71 = %+v: 0.092 → 0.046 drifts by less than 0.05, nothing to write", got)
	}
	e2eClock.advance(30 * 24 * time.Hour)
	got := s.sweepAs(t, scope, "")
	after = s.listed(t, scope, m.ID)
	// Day 101 in LONG_TERM: 0.0929 × 2^(−91/60) = 0.0324 < 0.04 → ARCHIVE.
	if got.Demotions != 1 || after.Tier != "ARCHIVE" || fmt.Sprintf("%.3f", after.Salience) != "0.032" {
		t.Fatalf("day 101: sweep %+v, memory %s %.4f; want ARCHIVE at 0.032", got, after.Tier, after.Salience)
	}
}

// testRetriedSweepAnswersItsFirstRun: a decaySweep retried with its requestId answers the first
// run's result and sweeps nothing again, even when a fresh sweep would now find more to do.
func testRetriedSweepAnswersItsFirstRun(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "retried sweep")
	rid := "retried-sweep-store-" + runID
	m := s.store(t, map[string]any{"scopeId": scope, "content": "soon forgotten", "requestId": rid})
	s.scored(t, rid)
	e2eClock.advance(10 * 24 * time.Hour)
	sweep := "retried-sweep-" + runID
	first := s.sweepAs(t, scope, sweep)
	if first.MemoriesEvaluated != 1 || first.Demotions != 1 {
		t.Fatalf("first sweep = %+v, want 1 evaluated, 1 demoted", first)
	}
	// 300 days on the memory would sink to ARCHIVE: a new sweep would demote it.
	e2eClock.advance(300 * 24 * time.Hour)
	again := s.sweepAs(t, scope, sweep)
	if again != first {
		t.Fatalf("retried sweep = %+v, want the first run's %+v", again, first)
	}
	if got := s.listed(t, scope, m.ID); got.Tier != "LONG_TERM" {
		t.Fatalf("the retry swept again: the memory is in %s, want LONG_TERM", got.Tier)
	}
	var tr struct {
		Trace struct{ Messages []struct{ Type string } }
	}
	s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": sweep}, &tr)
	count := map[string]int{}
	for _, e := range tr.Trace.Messages {
		count[e.Type]++
	}
	if count["DecaySweep"] != 1 || count["DecaySweepCompleted"] != 1 || count["TierDemoted"] != 1 {
		t.Fatalf("the sweep's trace = %v, want one DecaySweep, one TierDemoted, one DecaySweepCompleted", count)
	}
	s.fails(t, "CONFLICT", sweepQuery, map[string]any{"s": scope, "r": sweep, "t": "LONG_TERM"})
	// A fresh sweep does the work the retry did not.
	if fresh := s.sweepAs(t, scope, ""); fresh.Demotions != 1 {
		t.Fatalf("a fresh sweep = %+v, want the memory demoted", fresh)
	}
}

// testDocumentedAssociationDirections: STRENGTHEN adds (at most 1) and creates a missing
// association, WEAKEN subtracts and removes one weakened to 0, CREATE refuses an existing one;
// both ends read the same association.
func testDocumentedAssociationDirections(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "association directions")
	a := s.store(t, map[string]any{"scopeId": scope, "content": "the harbour"})
	b := s.store(t, map[string]any{"scopeId": scope, "content": "the lighthouse"})
	assoc := `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`
	step := func(dir string, strength float64) float64 {
		t.Helper()
		var r struct{ AssociateMemories struct{ Strength float64 } }
		s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "THEMATIC",
			"strength": strength, "direction": dir}}, &r)
		return r.AssociateMemories.Strength
	}
	read := func(from string) []float64 {
		t.Helper()
		var r struct{ Associations []struct{ Strength float64 } }
		s.ok(t, `query($m: ID!) { associations(memoryId: $m) { strength } }`, map[string]any{"m": from}, &r)
		var out []float64
		for _, x := range r.Associations {
			out = append(out, x.Strength)
		}
		return out
	}
	if got := step("STRENGTHEN", 0.25); got != 0.25 {
		t.Fatalf("STRENGTHEN of a missing association made it %v strong, want 0.25", got)
	}
	if got := step("STRENGTHEN", 0.9); got != 1 {
		t.Fatalf("0.25 strengthened by 0.9 is %v, want 1 (the cap)", got)
	}
	if got := step("WEAKEN", 0.25); got != 0.75 {
		t.Fatalf("1 weakened by 0.25 is %v, want 0.75", got)
	}
	if fmt.Sprint(read(a.ID), read(b.ID)) != "[0.75] [0.75]" {
		t.Fatalf("read from both ends: %v %v, want 0.75 twice", read(a.ID), read(b.ID))
	}
	s.fails(t, "CONFLICT", assoc, map[string]any{"in": map[string]any{"sourceId": b.ID, "targetId": a.ID, "type": "THEMATIC", "strength": 0.5}})
	step("WEAKEN", 0.75)
	if len(read(a.ID)) != 0 || len(read(b.ID)) != 0 {
		t.Fatalf("an association weakened to 0 remains: %v %v", read(a.ID), read(b.ID))
	}
	if got := step("CREATE", 0.5); got != 0.5 {
		t.Fatalf("created again at %v, want 0.5", got)
	}
}
