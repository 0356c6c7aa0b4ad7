package digest

import (
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// ids are readable stand-ins; the digest never parses them.
func node(id string, f domain.ArtifactFamily, st domain.EndState, lastUsed time.Time) *domain.RefNode {
	return &domain.RefNode{ID: id, ScopeID: "s", Family: f, State: st, LastUsed: lastUsed}
}

// link adds the reference src -t-> dst to both nodes.
func link(src *domain.RefNode, t domain.RefType, dst *domain.RefNode) *domain.Reference {
	r := &domain.Reference{ID: domain.ReferenceID(src.ID, t, dst.ID), ScopeID: "s", Type: t,
		SourceID: src.ID, SourceFamily: src.Family, SourceState: src.State,
		TargetID: dst.ID, TargetFamily: dst.Family, TargetState: dst.State}
	src.Out = append(src.Out, r)
	dst.In = append(dst.In, r)
	return r
}

func codes(rs []domain.Reason) []domain.ReasonCode {
	out := make([]domain.ReasonCode, len(rs))
	for i, r := range rs {
		out[i] = r.Code
	}
	return out
}

func eqCodes(a []domain.ReasonCode, b ...domain.ReasonCode) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEligibility(t *testing.T) {
	old := now.Add(-365 * day)
	for _, c := range []struct {
		f    domain.ArtifactFamily
		st   domain.EndState
		want bool
	}{
		{domain.FamAgentKernel, domain.EndActive, false},
		{domain.FamWorldKernel, domain.EndActive, false},
		{domain.FamWorkingState, domain.EndTransient, false},
		{domain.FamMemory, domain.EndActive, true},
		{domain.FamKnowledge, domain.EndActive, true},
		{domain.FamSkill, domain.EndActive, true},
		{domain.FamMemory, domain.EndArchived, false}, // already archived
		{domain.FamKnowledge, domain.EndRemoved, false},
	} {
		got := len(Evaluate(node("a", c.f, c.st, old), now, 30*day)) > 0
		if got != c.want {
			t.Errorf("%s %s stale for a year: candidate=%v, want %v", c.f, c.st, got, c.want)
		}
	}
}

func TestStaleness(t *testing.T) {
	if DefaultStaleAfter != 30*24*time.Hour {
		t.Fatalf("the default staleness window is %v, want 30 days", DefaultStaleAfter)
	}
	fresh := node("fresh", domain.FamMemory, domain.EndActive, now.Add(-29*day))
	if rs := Evaluate(fresh, now, 30*day); rs != nil {
		t.Fatalf("used 29 days ago with a 30-day window: %v", rs)
	}
	stale := node("stale", domain.FamMemory, domain.EndActive, now.Add(-31*day))
	rs := Evaluate(stale, now, 30*day)
	if !eqCodes(codes(rs), domain.ReasonUnsupported, domain.ReasonStale) {
		t.Fatalf("stale = %v", codes(rs))
	}
	stale.Claimed = true
	if rs := Evaluate(stale, now, 30*day); rs != nil {
		t.Fatalf("a claimed memory is never stale: %v", rs)
	}
	if rs := Evaluate(fresh, now, 0); len(rs) == 0 {
		t.Fatal("a zero window makes everything unused stale")
	}
}

func TestSupportProtects(t *testing.T) {
	old := now.Add(-365 * day)
	m := node("m", domain.FamMemory, domain.EndActive, old)
	for _, typ := range []domain.RefType{domain.RefSupports, domain.RefDerivedFrom, domain.RefDependsOn, domain.RefCites} {
		m.In = nil
		k := node("k", domain.FamKnowledge, domain.EndActive, now)
		link(k, typ, m)
		if rs := Evaluate(m, now, 30*day); rs != nil {
			t.Errorf("an active %s reference must keep it in service: %v", typ, codes(rs))
		}
	}
	// Neither a contradiction, nor working state, nor an archived source supports.
	for _, src := range []*domain.RefNode{
		node("ws", domain.FamWorkingState, domain.EndTransient, now),
		node("arch", domain.FamKnowledge, domain.EndArchived, now),
	} {
		m.In = nil
		link(src, domain.RefSupports, m)
		if rs := Evaluate(m, now, 30*day); len(rs) == 0 {
			t.Errorf("support from %s %s must not protect", src.Family, src.State)
		}
	}
	m.In = nil
	dead := link(node("arch", domain.FamSkill, domain.EndArchived, now), domain.RefCites, m)
	rs := Evaluate(m, now, 30*day)
	if rs[0].Code != domain.ReasonUnsupported || len(rs[0].ReferenceIDs) != 1 || rs[0].ReferenceIDs[0] != dead.ID {
		t.Fatalf("UNSUPPORTED must point at the reference from the archived source: %+v", rs[0])
	}
}

func TestBrokenReferencesAndDependencies(t *testing.T) {
	k := node("k", domain.FamKnowledge, domain.EndActive, now) // fresh: only the refgraph speaks
	gone := node("gone", domain.FamMemory, domain.EndRemoved, time.Time{})
	arch := node("arch", domain.FamKnowledge, domain.EndArchived, now)
	live := node("live", domain.FamMemory, domain.EndActive, now)
	kernel := node("kern", domain.FamWorldKernel, domain.EndActive, now)
	r1 := link(k, domain.RefCites, gone)
	r2 := link(k, domain.RefDependsOn, arch)
	link(k, domain.RefCites, live)
	link(k, domain.RefDerivedFrom, kernel)
	rs := Evaluate(k, now, 30*day)
	if !eqCodes(codes(rs), domain.ReasonUnsupported, domain.ReasonBrokenReference, domain.ReasonUnhealthyDependency) {
		t.Fatalf("reasons = %v", codes(rs))
	}
	if rs[1].ReferenceIDs[0] != r1.ID || rs[2].ReferenceIDs[0] != r2.ID {
		t.Fatalf("reasons must point at the specific references: %+v", rs)
	}
	// Healthy references alone make no candidate.
	h := node("h", domain.FamSkill, domain.EndActive, now)
	link(h, domain.RefDependsOn, live)
	link(h, domain.RefCites, kernel)
	if rs := Evaluate(h, now, 30*day); rs != nil {
		t.Fatalf("healthy references: %v", codes(rs))
	}
}

func TestContradicted(t *testing.T) {
	m := node("m", domain.FamMemory, domain.EndActive, now)
	c := link(node("c", domain.FamKnowledge, domain.EndActive, now), domain.RefContradicts, m)
	rs := Evaluate(m, now, 30*day)
	if !eqCodes(codes(rs), domain.ReasonUnsupported, domain.ReasonContradicted) || rs[1].ReferenceIDs[0] != c.ID {
		t.Fatalf("contradicted = %+v", rs)
	}
	// An archived contradiction says nothing.
	m.In = nil
	link(node("c", domain.FamKnowledge, domain.EndArchived, now), domain.RefContradicts, m)
	if rs := Evaluate(m, now, 30*day); rs != nil {
		t.Fatalf("archived contradiction: %v", codes(rs))
	}
}

func TestCheck(t *testing.T) {
	s := domain.NewID()
	a, b := domain.NewID(), domain.NewID()
	for _, c := range []struct {
		name string
		p    Pass
		code string
	}{
		{"nothing asked", Pass{ScopeID: s}, domain.EINVALID},
		{"bad scope", Pass{ScopeID: "x", Propose: true}, domain.EINVALID},
		{"bad id", Pass{ScopeID: s, Archive: []string{`"); drop`}}, domain.EINVALID},
		{"duplicate", Pass{ScopeID: s, Archive: []string{a, a}}, domain.EINVALID},
		{"negative window", Pass{ScopeID: s, Propose: true, StaleAfter: -1}, domain.EINVALID},
		{"same pass", Pass{ScopeID: s, Archive: []string{a, b}, Remove: []string{b}}, domain.ESAMEPASS},
		{"fine", Pass{ScopeID: s, Propose: true, Archive: []string{a}, Remove: []string{b}}, ""},
	} {
		if got := domain.ErrorCode(Check(c.p)); got != c.code {
			t.Errorf("%s: code %q, want %q", c.name, got, c.code)
		}
	}
}

func TestDecide(t *testing.T) {
	old := now.Add(-365 * day)
	stale := node("stale", domain.FamMemory, domain.EndActive, old)
	fresh := node("fresh", domain.FamKnowledge, domain.EndActive, now)
	archived := node("archived", domain.FamSkill, domain.EndArchived, old)
	archived.Archive = &domain.ArchiveRecord{ReportID: "earlier"}
	archived.ArchivedBy = "earlier"
	// Archived, but by a consolidation: its sources are no digest pass's to remove.
	merged := node("merged", domain.FamMemory, domain.EndArchived, old)
	// Archived by the very pass that asks to remove it (a plan made around Check).
	same := node("same", domain.FamKnowledge, domain.EndArchived, old)
	same.ArchivedBy = "rep"
	kernel := node("kernel", domain.FamAgentKernel, domain.EndActive, old)
	ws := node("ws", domain.FamWorkingState, domain.EndTransient, old)
	foreign := node("foreign", domain.FamMemory, domain.EndActive, old)
	foreign.ScopeID = "other"
	nodes := map[string]*domain.RefNode{}
	for _, n := range []*domain.RefNode{stale, fresh, archived, merged, same, kernel, ws, foreign} {
		nodes[n.ID] = n
	}
	for _, c := range []struct {
		name            string
		archive, remove []string
		code            string
	}{
		{"archive a candidate, remove an archived one", []string{"stale"}, []string{"archived"}, ""},
		{"archive a kernel", []string{"kernel"}, nil, domain.EFORBIDDEN},
		{"remove a kernel", nil, []string{"kernel"}, domain.EFORBIDDEN},
		{"archive working state", []string{"ws"}, nil, domain.EFORBIDDEN},
		{"remove working state", nil, []string{"ws"}, domain.EFORBIDDEN},
		{"remove what was not archived", nil, []string{"stale"}, domain.ENOTARCHIVED},
		{"remove what a consolidation archived", nil, []string{"merged"}, domain.ENOTARCHIVED},
		{"remove what this pass archived", nil, []string{"same"}, domain.ENOTARCHIVED},
		{"archive what the refgraph finds nothing against", []string{"fresh"}, nil, domain.ENOTCANDIDATE},
		{"archive twice", []string{"archived"}, nil, domain.ECONFLICT},
		{"another scope", []string{"foreign"}, nil, domain.ECROSSSCOPE},
		{"unknown", []string{"nope"}, nil, domain.ENOTFOUND},
	} {
		recs, err := Decide(Pass{ScopeID: "s", Archive: c.archive, Remove: c.remove, StaleAfter: 30 * day}, nodes, "rep", now)
		if got := domain.ErrorCode(err); got != c.code {
			t.Errorf("%s: code %q (%v), want %q", c.name, got, err, c.code)
			continue
		}
		if c.code == "" {
			r := recs["stale"]
			if r == nil || r.ReportID != "rep" || !r.ArchivedAt.Equal(now) || !eqCodes(codes(r.Reasons), domain.ReasonUnsupported, domain.ReasonStale) {
				t.Errorf("%s: record %+v", c.name, r)
			}
		}
	}
}

func TestEvaluateSkips(t *testing.T) {
	old := now.Add(-365 * day)
	for _, c := range []struct {
		n    *domain.RefNode
		want bool
	}{
		{node("c", domain.FamSkill, domain.EndActive, old), true},
		{node("a", domain.FamMemory, domain.EndActive, old), true},
		{node("k", domain.FamAgentKernel, domain.EndActive, old), false},
		{node("w", domain.FamWorkingState, domain.EndTransient, old), false},
		{node("b", domain.FamKnowledge, domain.EndActive, now), false},
		{node("x", domain.FamMemory, domain.EndArchived, old), false},
	} {
		if got := len(Evaluate(c.n, now, 30*day)) > 0; got != c.want {
			t.Errorf("%s (%s, %s): a candidate %v, want %v", c.n.ID, c.n.Family, c.n.State, got, c.want)
		}
	}
}

func TestFreshProposals(t *testing.T) {
	old := now.Add(-365 * day)
	stale := []domain.Reason{{Code: domain.ReasonUnsupported, ReferenceIDs: []string{}}, {Code: domain.ReasonStale, ReferenceIDs: []string{}}}
	broken := []domain.Reason{{Code: domain.ReasonUnsupported, ReferenceIDs: []string{}}, {Code: domain.ReasonBrokenReference, ReferenceIDs: []string{"r1"}}}
	prev := []domain.Proposal{{ArtifactID: "changed", Reasons: stale}, {ArtifactID: "gone", Reasons: stale},
		{ArtifactID: "same", Reasons: stale}, {ArtifactID: "used", Reasons: broken}}
	cur := []domain.Proposal{
		{ArtifactID: "changed", Reasons: broken}, // other reasons
		{ArtifactID: "new", Reasons: stale},      // not proposed before
		{ArtifactID: "same", Reasons: stale},     // as before: nothing new
		{ArtifactID: "used", Reasons: broken},    // restored or retrieved since, proposed again
		{ArtifactID: "young", Reasons: stale},    // after every previous one
	}
	lastUsed := map[string]time.Time{"same": old, "changed": old, "used": now.Add(-time.Hour), "new": old, "young": old}
	// The previous pass's proposals come a page at a time, whatever the page's size.
	for size := 1; size <= len(prev)+1; size++ {
		fetches := 0
		prior := NewPrior(now.Add(-day), func(after string) ([]domain.Proposal, error) {
			fetches++
			i := sort.Search(len(prev), func(i int) bool { return prev[i].ArtifactID > after })
			return prev[i:min(len(prev), i+size)], nil
		})
		var got []string
		for _, p := range cur {
			fresh, err := prior.Fresh(p, lastUsed[p.ArtifactID])
			if err != nil {
				t.Fatal(err)
			}
			if fresh {
				got = append(got, p.ArtifactID)
			}
		}
		if !reflect.DeepEqual(got, []string{"changed", "new", "used", "young"}) {
			t.Fatalf("pages of %d: fresh = %v, want [changed new used young]", size, got)
		}
		if want := (len(prev)+size-1)/size + 1; fetches != want {
			t.Fatalf("pages of %d: %d fetches, want %d", size, fetches, want)
		}
	}
	var none *Prior
	for _, p := range cur {
		if fresh, err := none.Fresh(p, old); !fresh || err != nil {
			t.Fatalf("without a previous pass every proposal is fresh: %s %v %v", p.ArtifactID, fresh, err)
		}
	}
	failed := errors.New("read failed")
	prior := NewPrior(now, func(string) ([]domain.Proposal, error) { return nil, failed })
	if _, err := prior.Fresh(cur[0], old); !errors.Is(err, failed) {
		t.Fatalf("a failed read: %v", err)
	}
}
