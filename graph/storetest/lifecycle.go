package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/digest"
)

// The conformance tests of domain.LifecycleStore (seed 004's lifecycle).

func lifecycleTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"LifecycleArtifactsRoundTrip", testArtifactsRoundTrip},
		{"LifecycleArtifactListAndUpdate", testArtifactListAndUpdate},
		{"LifecycleReferences", testReferences},
		{"LifecycleReferenceCrossScopeRefused", testReferenceCrossScope},
		{"LifecycleDigestArchiveRestoreRemove", testDigestWrites},
		{"LifecycleDigestRefusalWritesNothing", testDigestRefusal},
		{"LifecycleDeleteLeavesBrokenReferences", testDeleteTombstone},
		{"LifecycleScanRefgraph", testScanRefgraph},
		{"LifecycleDeleteScopeTouchesNoOtherScope", testDeleteScope},
		{"LifecycleNoInsertIntoADeletedScope", testInsertAfterDeleteScope},
		{"LifecycleRequestRecordsGoWithTheirScope", testRequestRecordsScoped},
		{"LifecycleDigestRemovesOnlyWhatADigestArchived", testDigestRemoveRule},
		{"LifecycleLastProposal", testLastProposal},
		{"LifecycleEventAboutArtifacts", testEventAbout},
	}
}

func lifecycle(t *testing.T, st domain.Store) domain.LifecycleStore {
	t.Helper()
	ls, ok := st.(domain.LifecycleStore)
	if !ok {
		t.Fatal("store does not implement domain.LifecycleStore")
	}
	return ls
}

// NewArtifact builds an artifact of family in scope.
func NewArtifact(scopeID string, family domain.ArtifactFamily, title string) *domain.Artifact {
	a := &domain.Artifact{ID: domain.NewID(), ScopeID: scopeID, Family: family, Title: title, Content: "content of " + title,
		Tags: []string{"t1"}, Metadata: map[string]any{"k": "v"}, State: domain.StateActive, CreatedAt: t0, UpdatedAt: t0, Version: 1}
	switch family {
	case domain.FamKnowledge:
		a.Type = string(domain.KnowConcept)
	case domain.FamSkill:
		a.Type = string(domain.SkillProcedure)
		a.Steps = []string{"first", "second"}
	}
	return a
}

func savedEvent(a *domain.Artifact) *domain.Event {
	return &domain.Event{Type: domain.EvArtifactSaved, ScopeID: a.ScopeID, MemoryID: a.ID, Context: ctxFor("save"),
		Payload: map[string]any{"family": string(a.Family)}}
}

func mustArtifacts(t *testing.T, st domain.Store, as ...*domain.Artifact) {
	t.Helper()
	evs := make([]*domain.Event, len(as))
	for i, a := range as {
		evs[i] = savedEvent(a)
	}
	if _, err := lifecycle(t, st).InsertArtifacts(context.Background(), domain.Request{}, as, evs); err != nil {
		t.Fatalf("InsertArtifacts: %v", err)
	}
}

func mustRef(t *testing.T, st domain.Store, src string, rt domain.RefType, dst string) {
	t.Helper()
	_, err := lifecycle(t, st).Reference(context.Background(), domain.Request{}, src, rt, dst, true, t0,
		func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) { return nil, nil })
	if err != nil {
		t.Fatalf("Reference %s %s %s: %v", src, rt, dst, err)
	}
}

func mustNode(t *testing.T, st domain.Store, id string) *domain.RefNode {
	t.Helper()
	n, err := lifecycle(t, st).Node(context.Background(), id)
	if err != nil {
		t.Fatalf("Node %s: %v", id, err)
	}
	return n
}

func testArtifactsRoundTrip(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	var all []*domain.Artifact
	for _, fam := range []domain.ArtifactFamily{domain.FamKnowledge, domain.FamSkill, domain.FamWorkingState} {
		for _, s := range Nasty {
			a := NewArtifact(sc.ID, fam, s)
			a.Content, a.Tags, a.Metadata = s, []string{s}, map[string]any{s: s}
			if fam == domain.FamSkill {
				a.Steps = []string{s, s + "2"}
			}
			all = append(all, a)
		}
	}
	mustArtifacts(t, st, all...)
	ids := make([]string, len(all))
	for i, a := range all {
		ids[i] = a.ID
	}
	got, err := ls.Artifacts(ctx, append([]string{domain.NewID(), "junk"}, ids...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("loaded %d artifacts, want %d", len(got), len(all))
	}
	for i, a := range all {
		g := got[i]
		if g.ID != a.ID || g.Family != a.Family || g.Title != a.Title || g.Content != a.Content || g.Type != a.Type ||
			len(g.Tags) != 1 || g.Tags[0] != a.Tags[0] || g.Metadata[a.Title] != a.Title || g.State != domain.StateActive ||
			strings.Join(g.Steps, "|") != strings.Join(a.Steps, "|") || !g.UpdatedAt.Equal(t0) || !g.CreatedAt.Equal(t0) {
			t.Fatalf("artifact %d round trip:\n got %+v\nwant %+v", i, g, a)
		}
	}
	// Not a memory, and no memory is an artifact.
	if ms, _ := st.Memories(ctx, ids); len(ms) != 0 {
		t.Fatalf("artifacts load as memories")
	}
	// All or none; unknown scope; taken id.
	bad := NewArtifact(domain.NewID(), domain.FamKnowledge, "orphan")
	_, err = ls.InsertArtifacts(ctx, domain.Request{}, []*domain.Artifact{NewArtifact(sc.ID, domain.FamKnowledge, "fine"), bad}, nil)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = ls.InsertArtifacts(ctx, domain.Request{}, []*domain.Artifact{all[0]}, nil)
	wantCode(t, err, domain.ECONFLICT)
	page, err := ls.ListArtifacts(ctx, sc.ID, domain.FamKnowledge, domain.ArtifactFilter{}, domain.Page{First: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if page.TotalCount != len(Nasty) {
		t.Fatalf("knowledge pages = %d, want %d (a refused batch wrote something?)", page.TotalCount, len(Nasty))
	}
}

func testArtifactListAndUpdate(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	var ks []*domain.Artifact
	for i := 0; i < 12; i++ {
		a := NewArtifact(sc.ID, domain.FamKnowledge, fmt.Sprint("page ", i))
		a.UpdatedAt = t0.Add(time.Duration(i) * time.Minute)
		if i%3 == 0 {
			a.Type = string(domain.KnowFact)
			a.Tags = []string{"t1", "fact"}
		}
		ks = append(ks, a)
	}
	mustArtifacts(t, st, ks...)
	mustArtifacts(t, st, NewArtifact(sc.ID, domain.FamSkill, "a skill"))
	// Pages: newest update first, no overlap, all of them.
	var seen []string
	after := ""
	for {
		p, err := ls.ListArtifacts(ctx, sc.ID, domain.FamKnowledge, domain.ArtifactFilter{}, domain.Page{First: 5, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range p.Artifacts {
			seen = append(seen, a.Title)
		}
		if !p.HasNext {
			break
		}
		after = p.EndCursor
	}
	if len(seen) != 12 || seen[0] != "page 11" || seen[11] != "page 0" {
		t.Fatalf("pages = %v", seen)
	}
	for _, c := range []struct {
		f    domain.ArtifactFilter
		want int
	}{
		{domain.ArtifactFilter{Types: []string{string(domain.KnowFact)}}, 4},
		{domain.ArtifactFilter{Tags: []string{"fact"}}, 4},
		{domain.ArtifactFilter{Tags: []string{"fact", "t1"}}, 4},
		{domain.ArtifactFilter{States: []domain.LifecycleState{domain.StateArchived}}, 0},
		{domain.ArtifactFilter{States: []domain.LifecycleState{domain.StateActive}}, 12},
	} {
		p, err := ls.ListArtifacts(ctx, sc.ID, domain.FamKnowledge, c.f, domain.Page{First: 100})
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalCount != c.want || len(p.Artifacts) != c.want {
			t.Fatalf("filter %+v: %d (%d), want %d", c.f, p.TotalCount, len(p.Artifacts), c.want)
		}
	}
	_, err := ls.ListArtifacts(ctx, sc.ID, domain.FamKnowledge, domain.ArtifactFilter{}, domain.Page{After: "bogus"})
	wantCode(t, err, domain.EINVALID)

	// Update: tags replaced (not added to), version grows; an error writes nothing.
	a := ks[0]
	upd, err := ls.UpdateArtifact(ctx, domain.Request{}, a.ID, func(x *domain.Artifact) ([]*domain.Event, error) {
		x.Tags = []string{"fact", "new"}
		x.Content = "changed"
		x.UpdatedAt = t0.Add(time.Hour)
		return []*domain.Event{savedEvent(x)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := ls.Artifacts(ctx, []string{a.ID})
	sort.Strings(got[0].Tags)
	if upd.Version != 2 || got[0].Version != 2 || got[0].Content != "changed" || strings.Join(got[0].Tags, ",") != "fact,new" {
		t.Fatalf("after update: %+v", got[0])
	}
	_, err = ls.UpdateArtifact(ctx, domain.Request{}, a.ID, func(x *domain.Artifact) ([]*domain.Event, error) {
		x.Content = "never"
		return nil, domain.Errorf(domain.ECONFLICT, "refused")
	})
	wantCode(t, err, domain.ECONFLICT)
	if got, _ := ls.Artifacts(ctx, []string{a.ID}); got[0].Content != "changed" {
		t.Fatalf("a refused update wrote %q", got[0].Content)
	}
	_, err = ls.UpdateArtifact(ctx, domain.Request{}, domain.NewID(), func(*domain.Artifact) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
}

func refByID(rs []*domain.Reference, id string) *domain.Reference {
	for _, r := range rs {
		if r.RefID() == id {
			return r
		}
	}
	return nil
}

func testReferences(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "the user's birthday is March 3")
	mustInsert(t, st, m)
	k := NewArtifact(sc.ID, domain.FamKnowledge, "birthdays")
	sk := NewArtifact(sc.ID, domain.FamSkill, "send greetings")
	ws := NewArtifact(sc.ID, domain.FamWorkingState, "scratch")
	mustArtifacts(t, st, k, sk, ws)
	mustRef(t, st, k.ID, domain.RefDerivedFrom, m.ID)
	mustRef(t, st, sk.ID, domain.RefDependsOn, k.ID)
	mustRef(t, st, ws.ID, domain.RefCites, m.ID)
	mustRef(t, st, k.ID, domain.RefCites, sc.WorldKernel.ID)

	mn := mustNode(t, st, m.ID)
	if mn.Family != domain.FamMemory || mn.State != domain.EndActive || len(mn.In) != 2 || len(mn.Out) != 0 {
		t.Fatalf("memory node = %+v", mn)
	}
	r := refByID(mn.In, domain.ReferenceID(k.ID, domain.RefDerivedFrom, m.ID))
	if r == nil || r.SourceFamily != domain.FamKnowledge || r.SourceState != domain.EndActive || !r.Supports() || !r.CreatedAt.Equal(t0) {
		t.Fatalf("incoming derived_from = %+v", r)
	}
	if w := refByID(mn.In, domain.ReferenceID(ws.ID, domain.RefCites, m.ID)); w == nil || w.SourceState != domain.EndTransient || w.Supports() {
		t.Fatalf("a working state's reference must not count as support: %+v", w)
	}
	kn := mustNode(t, st, k.ID)
	if len(kn.Out) != 2 || len(kn.In) != 1 || kn.In[0].SourceID != sk.ID || kn.In[0].Type != domain.RefDependsOn {
		t.Fatalf("knowledge node = %+v", kn)
	}
	if kr := refByID(kn.Out, domain.ReferenceID(k.ID, domain.RefCites, sc.WorldKernel.ID)); kr == nil || kr.TargetFamily != domain.FamWorldKernel || kr.TargetState != domain.EndActive {
		t.Fatalf("reference to the world kernel = %+v", kr)
	}
	if kern := mustNode(t, st, sc.AgentKernel.ID); kern.Family != domain.FamAgentKernel {
		t.Fatalf("kernel node = %+v", kern)
	}
	noop := func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) { return nil, nil }
	_, err := ls.Reference(ctx, domain.Request{}, k.ID, domain.RefDerivedFrom, m.ID, true, t0, noop)
	wantCode(t, err, domain.ECONFLICT)
	_, err = ls.Reference(ctx, domain.Request{}, k.ID, domain.RefCites, k.ID, true, t0, noop)
	wantCode(t, err, domain.EINVALID)
	_, err = ls.Reference(ctx, domain.Request{}, k.ID, domain.RefCites, domain.NewID(), true, t0, noop)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = ls.Reference(ctx, domain.Request{}, k.ID, domain.RefType("LIKES"), m.ID, true, t0, noop)
	wantCode(t, err, domain.EINVALID)
	// fn refuses: nothing written.
	_, err = ls.Reference(ctx, domain.Request{}, k.ID, domain.RefSupports, m.ID, true, t0,
		func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) {
			return nil, domain.Errorf(domain.EFORBIDDEN, "no")
		})
	wantCode(t, err, domain.EFORBIDDEN)
	if n := mustNode(t, st, m.ID); len(n.In) != 2 {
		t.Fatalf("a refused reference was written: %d incoming", len(n.In))
	}
	// Removal.
	if _, err := ls.Reference(ctx, domain.Request{}, ws.ID, domain.RefCites, m.ID, false, t0, noop); err != nil {
		t.Fatal(err)
	}
	if n := mustNode(t, st, m.ID); len(n.In) != 1 {
		t.Fatalf("after removing a reference: %d incoming", len(n.In))
	}
	_, err = ls.Reference(ctx, domain.Request{}, ws.ID, domain.RefCites, m.ID, false, t0, noop)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = ls.Node(ctx, domain.NewID())
	wantCode(t, err, domain.ENOTFOUND)
}

func testReferenceCrossScope(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	s1, s2 := mustScope(t, st), mustScope(t, st)
	a := NewArtifact(s1.ID, domain.FamKnowledge, "mine")
	x := NewArtifact(s2.ID, domain.FamKnowledge, "foreign")
	mustArtifacts(t, st, a, x)
	m2 := NewMemory(s2.ID, "foreign memory")
	mustInsert(t, st, m2)
	ran := false
	fn := func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) {
		ran = true
		return nil, nil
	}
	for _, c := range []struct{ src, dst string }{{a.ID, x.ID}, {a.ID, m2.ID}, {m2.ID, a.ID}, {a.ID, s2.AgentKernel.ID}} {
		for _, rt := range domain.RefTypes {
			_, err := ls.Reference(ctx, domain.Request{}, c.src, rt, c.dst, true, t0, fn)
			wantCode(t, err, domain.ECROSSSCOPE)
		}
	}
	if ran {
		t.Fatal("the cross-scope check must come before fn")
	}
	for _, id := range []string{a.ID, x.ID, m2.ID} {
		if n := mustNode(t, st, id); len(n.In)+len(n.Out) != 0 {
			t.Fatalf("a refused cross-scope reference was written on %s: %+v", id, n)
		}
	}
}

// plan returns a DigestDecide that archives and removes as told.
func plan(scopeID string, archive, remove []string) (domain.DigestDecide, string) {
	id := domain.NewID()
	return func(nodes map[string]*domain.RefNode) (*domain.DigestPlan, error) {
		p := &domain.DigestPlan{Report: &domain.DigestReport{ID: id, ScopeID: scopeID, At: t0, Archived: archive, Removed: remove},
			Archive: map[string]*domain.ArchiveRecord{}, Remove: remove}
		for _, a := range archive {
			if nodes[a] == nil {
				return nil, domain.Errorf(domain.ENOTFOUND, "%s", a)
			}
			p.Archive[a] = &domain.ArchiveRecord{ReportID: id, ArchivedAt: t0, Reasons: []domain.Reason{
				{Code: domain.ReasonStale, Detail: "test", ReferenceIDs: []string{}}}}
		}
		for _, a := range append(append([]string{}, archive...), remove...) {
			p.Events = append(p.Events, &domain.Event{Type: domain.EvArtifactArchived, ScopeID: scopeID, MemoryID: a, Context: ctxFor("digest")})
		}
		return p, nil
	}, id
}

func testDigestWrites(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "stale memory")
	mustInsert(t, st, m)
	k := NewArtifact(sc.ID, domain.FamKnowledge, "stale page")
	cite := NewArtifact(sc.ID, domain.FamSkill, "cites the page")
	mustArtifacts(t, st, k, cite)
	mustRef(t, st, cite.ID, domain.RefCites, k.ID)

	fn, reportID := plan(sc.ID, []string{m.ID, k.ID}, nil)
	rep, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{m.ID, k.ID}, fn)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != reportID {
		t.Fatalf("report %s, want %s", rep.ID, reportID)
	}
	stored, err := ls.DigestReport(ctx, reportID)
	if err != nil || stored.ScopeID != sc.ID || len(stored.Archived) != 2 {
		t.Fatalf("stored report = %+v, %v", stored, err)
	}
	// Archived: still loadable, state ARCHIVED, archive record readable, references see it.
	gm, err := st.Memory(ctx, m.ID)
	if err != nil || gm.State != domain.StateArchived || gm.Version != m.Version+1 {
		t.Fatalf("archived memory = %+v, %v", gm, err)
	}
	ga, _ := ls.Artifacts(ctx, []string{k.ID})
	if len(ga) != 1 || ga[0].State != domain.StateArchived || ga[0].Archive == nil || ga[0].Archive.ReportID != reportID {
		t.Fatalf("archived knowledge = %+v", ga)
	}
	kn := mustNode(t, st, k.ID)
	if kn.State != domain.EndArchived || kn.Archive == nil || len(kn.Archive.Reasons) != 1 {
		t.Fatalf("archived node = %+v", kn)
	}
	if cn := mustNode(t, st, cite.ID); len(cn.Out) != 1 || cn.Out[0].TargetState != domain.EndArchived || cn.Out[0].Healthy() {
		t.Fatalf("a reference to an archived artifact must read as broken: %+v", cn.Out)
	}
	if p, _ := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{States: []domain.LifecycleState{domain.StateArchived}}, domain.Page{}); p.TotalCount != 1 {
		t.Fatalf("archived memories listed = %d", p.TotalCount)
	}

	// Restore: active again, record kept with RestoredAt.
	restoredAt := t0.Add(time.Hour)
	if _, err := ls.Restore(ctx, domain.Request{}, m.ID, func(n *domain.RefNode) ([]*domain.Event, error) {
		n.Archive.RestoredAt = &restoredAt
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if gm, _ := st.Memory(ctx, m.ID); gm.State != domain.StateActive {
		t.Fatalf("restored memory state %s", gm.State)
	}
	if n := mustNode(t, st, m.ID); n.Archive == nil || n.Archive.RestoredAt == nil || !n.LastUsed.Equal(restoredAt) {
		t.Fatalf("restored node = %+v", n)
	}

	// Remove (a later pass): the page has an incoming reference, so a tombstone keeps it named.
	fn2, _ := plan(sc.ID, nil, []string{k.ID})
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{k.ID}, fn2); err != nil {
		t.Fatal(err)
	}
	if ga, _ := ls.Artifacts(ctx, []string{k.ID}); len(ga) != 0 {
		t.Fatalf("removed artifact still loads")
	}
	cn := mustNode(t, st, cite.ID)
	if len(cn.Out) != 1 || cn.Out[0].TargetState != domain.EndRemoved || cn.Out[0].TargetID != k.ID || cn.Out[0].TargetFamily != domain.FamKnowledge {
		t.Fatalf("reference to a removed artifact = %+v", cn.Out)
	}
	if evs, _ := st.MemoryEvents(ctx, k.ID); len(evs) < 3 {
		t.Fatalf("history of the removed artifact = %d events", len(evs))
	}
}

func testDigestRefusal(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "keep me")
	mustInsert(t, st, m)
	seq0, _ := st.LastSeq(ctx)
	// A plan that archives and removes m in one pass (made without the digest's Check): the
	// store refuses it itself.
	same, sameReport := plan(sc.ID, []string{m.ID}, []string{m.ID})
	_, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{m.ID}, same)
	wantCode(t, err, domain.ESAMEPASS)
	// The digest's own rule (digest.Decide over the nodes read inside the write) refuses to
	// remove an active memory: its error aborts the write.
	notArchived, notArchivedReport := rulePlan(digest.Pass{ScopeID: sc.ID, Remove: []string{m.ID}, StaleAfter: 30 * 24 * time.Hour})
	_, err = ls.Digest(ctx, domain.Request{}, sc.ID, []string{m.ID}, notArchived)
	wantCode(t, err, domain.ENOTARCHIVED)
	if gm, _ := st.Memory(ctx, m.ID); gm.State != domain.StateActive {
		t.Fatal("a refused pass archived")
	}
	if evs := scopeEventsSince(t, st, seq0, sc.ID); len(evs) != 0 {
		t.Fatalf("a refused pass wrote %d events", len(evs))
	}
	for _, id := range []string{sameReport, notArchivedReport} {
		_, err := ls.DigestReport(ctx, id)
		wantCode(t, err, domain.ENOTFOUND)
	}
	fn, _ := plan(sc.ID, []string{m.ID}, nil)
	_, err = ls.Digest(ctx, domain.Request{}, domain.NewID(), []string{m.ID}, fn)
	wantCode(t, err, domain.ENOTFOUND)
	// The store refuses a plan that touches another scope's artifact or a kernel.
	other := mustScope(t, st)
	fn, _ = plan(other.ID, []string{m.ID}, nil)
	if _, err := ls.Digest(ctx, domain.Request{}, other.ID, []string{m.ID}, fn); err == nil {
		t.Fatal("a plan archiving another scope's artifact was applied")
	}
	fn, _ = plan(sc.ID, []string{sc.AgentKernel.ID}, nil)
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{sc.AgentKernel.ID}, fn); err == nil {
		t.Fatal("a plan archiving a kernel was applied")
	}
	if gm, _ := st.Memory(ctx, m.ID); gm.State != domain.StateActive {
		t.Fatal("a refused plan archived")
	}
}

func testDeleteTombstone(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc := mustScope(t, st)
	m, peer := NewMemory(sc.ID, "referenced memory"), NewMemory(sc.ID, "peer")
	mustInsert(t, st, m, peer)
	if _, err := st.Associate(ctx, domain.Request{}, m.ID, peer.ID, domain.AssocThematic, strengthen(0.7)); err != nil {
		t.Fatal(err)
	}
	k := NewArtifact(sc.ID, domain.FamKnowledge, "cites the memory")
	lone := NewArtifact(sc.ID, domain.FamSkill, "nobody cites me")
	dep := NewArtifact(sc.ID, domain.FamSkill, "depends on the page")
	mustArtifacts(t, st, k, lone, dep)
	mustRef(t, st, k.ID, domain.RefCites, m.ID)
	mustRef(t, st, m.ID, domain.RefSupports, lone.ID)
	mustRef(t, st, dep.ID, domain.RefDependsOn, k.ID)

	var seen *domain.RefNode
	n, err := ls.DeleteArtifact(ctx, domain.Request{}, m.ID, func(n *domain.RefNode) ([]*domain.Event, error) {
		seen = n
		return []*domain.Event{{Type: domain.EvMemoryDeleted, ScopeID: sc.ID, MemoryID: m.ID, Context: ctxFor("del")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == nil || len(seen.In) != 1 || seen.In[0].SourceID != k.ID || seen.Memory == nil || seen.Memory.Content != m.Content || n.Memory == nil {
		t.Fatalf("fn saw %+v", seen)
	}
	if _, err := st.Memory(ctx, m.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("deleted memory loads: %v", err)
	}
	if as, _ := st.Associations(ctx, peer.ID, nil, 0); len(as) != 0 {
		t.Fatalf("associations of a deleted memory remain: %+v", as)
	}
	kn := mustNode(t, st, k.ID)
	if len(kn.Out) != 1 || kn.Out[0].TargetID != m.ID || kn.Out[0].TargetState != domain.EndRemoved || kn.Out[0].TargetFamily != domain.FamMemory {
		t.Fatalf("the reference to the deleted memory = %+v", kn.Out)
	}
	if ln := mustNode(t, st, lone.ID); len(ln.In) != 0 {
		t.Fatalf("the deleted memory's own references remain: %+v", ln.In)
	}
	_, err = ls.DeleteArtifact(ctx, domain.Request{}, m.ID, func(*domain.RefNode) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
	// The dependents rule of an explicit delete (domain.CheckDependents, as the Cortex applies
	// it) over the node read inside the write. Nothing references the skill any more (the memory
	// that supported it is gone): it goes entirely.
	noCascade := func(n *domain.RefNode) ([]*domain.Event, error) { return nil, domain.CheckDependents(n, false) }
	if _, err := ls.DeleteArtifact(ctx, domain.Request{}, lone.ID, noCascade); err != nil {
		t.Fatal(err)
	}
	_, err = ls.Node(ctx, lone.ID)
	wantCode(t, err, domain.ENOTFOUND)
	// The page has a dependent: refused, and the refusal writes nothing; kernels are never removed.
	_, err = ls.DeleteArtifact(ctx, domain.Request{}, k.ID, noCascade)
	wantCode(t, err, domain.EHASDEPENDENTS)
	if kn := mustNode(t, st, k.ID); kn.State != domain.EndActive || len(kn.In) != 1 || kn.In[0].SourceID != dep.ID || len(kn.Out) != 1 {
		t.Fatalf("the page after a refused delete = %+v", kn)
	}
	_, err = ls.DeleteArtifact(ctx, domain.Request{}, sc.AgentKernel.ID, func(*domain.RefNode) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.EFORBIDDEN)
	if got, _ := st.Scope(ctx, sc.ID); got.AgentKernel == nil || got.WorldKernel == nil {
		t.Fatal("a kernel was removed")
	}
	// With cascade the page goes and its dependent's reference stays, broken.
	if _, err := ls.DeleteArtifact(ctx, domain.Request{}, k.ID, func(n *domain.RefNode) ([]*domain.Event, error) {
		return nil, domain.CheckDependents(n, true)
	}); err != nil {
		t.Fatal(err)
	}
	if dn := mustNode(t, st, dep.ID); len(dn.Out) != 1 || dn.Out[0].TargetID != k.ID || dn.Out[0].TargetState != domain.EndRemoved {
		t.Fatalf("the dependent's reference after a cascade = %+v", dn.Out)
	}
}

func testScanRefgraph(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc, other := mustScope(t, st), mustScope(t, st)
	var ms []*domain.Memory
	for i := 0; i < 40; i++ {
		ms = append(ms, NewMemory(sc.ID, fmt.Sprint("memory ", i)))
	}
	mustInsert(t, st, ms...)
	mustInsert(t, st, NewMemory(other.ID, "not in the scan"))
	k := NewArtifact(sc.ID, domain.FamKnowledge, "hub")
	ws := NewArtifact(sc.ID, domain.FamWorkingState, "scratch")
	mustArtifacts(t, st, k, ws)
	for i := 0; i < 10; i++ {
		mustRef(t, st, k.ID, domain.RefDerivedFrom, ms[i].ID)
	}
	mustRef(t, st, ws.ID, domain.RefCites, k.ID)
	mustRef(t, st, k.ID, domain.RefCites, sc.AgentKernel.ID)
	byID := map[string]*domain.RefNode{}
	pages := 0
	if err := ls.ScanRefgraph(ctx, sc.ID, func(page []*domain.RefNode) error {
		pages++
		for _, n := range page {
			if byID[n.ID] != nil {
				t.Fatalf("%s scanned twice", n.ID)
			}
			byID[n.ID] = n
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(byID) != 42 {
		t.Fatalf("scan found %d artifacts, want 42 (kernels are not handed out)", len(byID))
	}
	for _, n := range byID {
		if n.ScopeID != sc.ID {
			t.Fatalf("scan crossed scopes: %+v", n)
		}
	}
	if h := byID[k.ID]; len(h.Out) != 11 || len(h.In) != 1 || h.In[0].SourceState != domain.EndTransient {
		t.Fatalf("hub = out %d in %d", len(h.Out), len(h.In))
	}
	if m := byID[ms[3].ID]; len(m.In) != 1 || m.In[0].SourceID != k.ID || m.In[0].RefID() != domain.ReferenceID(k.ID, domain.RefDerivedFrom, ms[3].ID) || m.LastUsed.IsZero() {
		t.Fatalf("memory 3 = %+v", m)
	}
	// The scan and the point read agree on every reference.
	pn := mustNode(t, st, k.ID)
	for _, r := range pn.Out {
		if refByID(byID[k.ID].Out, r.ID) == nil {
			t.Fatalf("scan misses %+v", r)
		}
	}
}

func testDeleteScope(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	doomed, kept := mustScope(t, st), mustScope(t, st)
	fill := func(sc *domain.Scope) []string {
		a, b := NewMemory(sc.ID, "memory a"), NewMemory(sc.ID, "memory b")
		mustInsert(t, st, a, b)
		if _, err := st.Associate(ctx, domain.Request{}, a.ID, b.ID, domain.AssocCausal, strengthen(0.6)); err != nil {
			t.Fatal(err)
		}
		k := NewArtifact(sc.ID, domain.FamKnowledge, "page")
		sk := NewArtifact(sc.ID, domain.FamSkill, "skill")
		ws := NewArtifact(sc.ID, domain.FamWorkingState, "ws")
		mustArtifacts(t, st, k, sk, ws)
		mustRef(t, st, k.ID, domain.RefDerivedFrom, a.ID)
		mustRef(t, st, sk.ID, domain.RefDependsOn, k.ID)
		fn, _ := plan(sc.ID, []string{b.ID}, nil)
		if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{b.ID}, fn); err != nil {
			t.Fatal(err)
		}
		// An event about several artifacts (a propose pass's) is erased with the scope too.
		if err := st.AppendEvents(ctx, []*domain.Event{{Type: domain.EvDigestProposed, ScopeID: sc.ID, Context: ctxFor("digest"),
			About: map[string]any{a.ID: map[string]any{"artifactId": a.ID}, k.ID: map[string]any{"artifactId": k.ID}}}}); err != nil {
			t.Fatal(err)
		}
		return []string{a.ID, b.ID, k.ID, sk.ID, ws.ID, sc.AgentKernel.ID, sc.WorldKernel.ID, sc.ID}
	}
	seq0, _ := st.LastSeq(ctx)
	gone, stay := fill(doomed), fill(kept)
	keptEvents, _ := st.MemoryEvents(ctx, stay[0])
	req := domain.Request{Op: "deleteScope", RequestID: domain.NewID(), Fingerprint: doomed.ID}
	evFn := func(d *domain.ScopeDeletion) []*domain.Event {
		return []*domain.Event{{Type: domain.EvScopeDeleted, ScopeID: doomed.ID, Context: ctxFor("scope"),
			Payload: map[string]any{"nodes": d.Nodes}}}
	}
	del, err := ls.DeleteScope(ctx, req, doomed.ID, evFn)
	if err != nil {
		t.Fatal(err)
	}
	if del.Artifacts["memory"] != 2 || del.Artifacts["knowledge"] != 1 || del.Artifacts["skill"] != 1 ||
		del.Artifacts["working_state"] != 1 || del.Artifacts["agent_model_kernel"] != 1 || del.Artifacts["world_model_kernel"] != 1 || del.Events == 0 {
		t.Fatalf("deletion = %+v", del)
	}
	// Retried: the first result, nothing more.
	again, err := ls.DeleteScope(ctx, req, doomed.ID, evFn)
	if err != nil || again.Nodes != del.Nodes {
		t.Fatalf("retried deletion = %+v, %v", again, err)
	}
	_, err = ls.DeleteScope(ctx, domain.Request{}, doomed.ID, evFn)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = st.Scope(ctx, doomed.ID)
	wantCode(t, err, domain.ENOTFOUND)
	for _, id := range gone[:5] {
		if _, err := ls.Node(ctx, id); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Fatalf("%s of the deleted scope remains: %v", id, err)
		}
		if evs, _ := st.MemoryEvents(ctx, id); len(evs) != 0 {
			t.Fatalf("events of %s remain: %d", id, len(evs))
		}
	}
	out, err := mustRaw(t, st).RawQuery(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) { tr.kind ev.type } }`, map[string]string{"$s": doomed.ID})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Q []struct {
			Kind string `json:"tr.kind"`
			Type string `json:"ev.type"`
		} `json:"q"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Q) != 1 || r.Q[0].Type != string(domain.EvScopeDeleted) {
		t.Fatalf("nodes of the deleted scope remain besides its deletion record: %+v", r.Q)
	}
	// The log keeps its Seq without a gap: erased events remain as empty placeholders.
	evs, err := st.EventsSince(ctx, seq0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq != evs[i-1].Seq+1 {
			t.Fatalf("the log has a gap after %d", evs[i-1].Seq)
		}
	}
	// Nothing of the other scope changed.
	if _, err := st.Scope(ctx, kept.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range stay[:5] {
		mustNode(t, st, id)
	}
	if evs, _ := st.MemoryEvents(ctx, stay[0]); len(evs) != len(keptEvents) {
		t.Fatalf("the kept scope's history changed: %d events, want %d", len(evs), len(keptEvents))
	}
	if as, _ := st.Associations(ctx, stay[0], nil, 0); len(as) != 1 {
		t.Fatalf("the kept scope's association = %+v", as)
	}
	if k := mustNode(t, st, stay[2]); len(k.Out) != 1 || len(k.In) != 1 || !k.Out[0].Healthy() {
		t.Fatalf("the kept scope's references = %+v", k)
	}
}

// rulePlan returns a DigestDecide that plans the pass p by the digest's own rule (digest.Decide)
// over the nodes the store reads inside the write, judged a year after t0, and the report id.
func rulePlan(p digest.Pass) (domain.DigestDecide, string) {
	id := domain.NewID()
	at := t0.Add(365 * 24 * time.Hour)
	return func(nodes map[string]*domain.RefNode) (*domain.DigestPlan, error) {
		records, err := digest.Decide(p, nodes, id, at)
		if err != nil {
			return nil, err
		}
		pl := &domain.DigestPlan{Report: &domain.DigestReport{ID: id, ScopeID: p.ScopeID, At: at, Archived: p.Archive, Removed: p.Remove},
			Archive: records, Remove: p.Remove}
		for _, a := range p.Archive {
			pl.Events = append(pl.Events, &domain.Event{Type: domain.EvArtifactArchived, ScopeID: p.ScopeID, MemoryID: a, Context: ctxFor("digest")})
		}
		for _, a := range p.Remove {
			pl.Events = append(pl.Events, &domain.Event{Type: domain.EvArtifactRemoved, ScopeID: p.ScopeID, MemoryID: a, Context: ctxFor("digest")})
		}
		return pl, nil
	}, id
}

type rawQuerier interface {
	RawQuery(ctx context.Context, q string, vars map[string]string) ([]byte, error)
}

// mustRaw returns st's raw reads: the suite checks with them what no port method shows (the
// nodes and request records a deletion leaves), so a store without them fails rather than
// passing those checks unchecked.
func mustRaw(t *testing.T, st domain.Store) rawQuerier {
	t.Helper()
	raw, ok := st.(rawQuerier)
	if !ok {
		t.Fatalf("%T offers no RawQuery: the suite cannot check what is left in the graph", st)
	}
	return raw
}

// requestRecord is a request record as the graph holds it.
type requestRecord struct {
	Scope  string   `json:"tr.scope"`
	Scopes []string `json:"req.scopes"`
}

// requestRecords reads the records of req (by its key) and those carrying scope.
func requestRecords(t *testing.T, raw rawQuerier, req domain.Request, scope string) (byKey, ofScope []requestRecord) {
	t.Helper()
	out, err := raw.RawQuery(context.Background(), `query q($k: string, $s: string) {
		k(func: eq(req.key, $k)) { tr.scope req.scopes }
		s(func: eq(tr.scope, $s)) @filter(eq(tr.kind, "Request")) { tr.scope req.scopes }
		l(func: eq(req.scopes, $s)) { tr.scope req.scopes } }`,
		map[string]string{"$k": req.Op + "|" + req.RequestID, "$s": scope})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ K, S, L []requestRecord }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r.K, append(r.S, r.L...)
}

// testRequestRecordsScoped: the record of a request (kept to answer its retries) belongs to the
// scope the request wrote in, so deleting the scope deletes it: a retry after the deletion is
// applied afresh — and refused, the scope being gone — instead of replaying deleted data.
func testRequestRecordsScoped(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	a, b := mustScope(t, st), mustScope(t, st)
	req := func(fp string) domain.Request {
		return domain.Request{Op: "requestScopeTest", RequestID: domain.NewID(), Fingerprint: fp}
	}
	insert := func(r domain.Request, ms ...*domain.Memory) []*domain.Memory {
		t.Helper()
		out, err := st.InsertMemories(ctx, r, ms, []*domain.Event{storedEvent(ms[0])})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ma, mb := NewMemory(a.ID, "a's secret"), NewMemory(b.ID, "b's memory")
	reqA, reqB := req("a"), req("b")
	insert(reqA, ma)
	insert(reqB, mb)
	// Writes of every kind the store attributes to their scope itself, each with a request.
	k := NewArtifact(a.ID, domain.FamKnowledge, "a's page")
	reqArt, reqRef, reqUpd, reqDig, reqRes := req("art"), req("ref"), req("upd"), req("dig"), req("res")
	if _, err := ls.InsertArtifacts(ctx, reqArt, []*domain.Artifact{k}, []*domain.Event{savedEvent(k)}); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Reference(ctx, reqRef, k.ID, domain.RefCites, ma.ID, true, t0,
		func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateMemory(ctx, reqUpd, ma.ID, func(m *domain.Memory) ([]*domain.Event, error) {
		m.Content = "a's secret, changed"
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	fn, _ := plan(a.ID, []string{k.ID}, nil)
	if _, err := ls.Digest(ctx, reqDig, a.ID, []string{k.ID}, fn); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Restore(ctx, reqRes, k.ID, func(*domain.RefNode) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	aReqs := []domain.Request{reqA, reqArt, reqRef, reqUpd, reqDig, reqRes}
	// A write the store cannot attribute (events only): the caller names the scope.
	if lv, ok := st.(domain.LivingStore); ok {
		reqApply := req("apply")
		reqApply.ScopeID = a.ID
		if _, err := lv.Apply(ctx, &reqApply, &domain.Changes{Events: []*domain.Event{ev(domain.EvTotalRecallAdvisory, a.ID, "")}}, "a's result"); err != nil {
			t.Fatal(err)
		}
		aReqs = append(aReqs, reqApply)
	}
	// A batch over both scopes belongs to both.
	reqAB := req("ab")
	insert(reqAB, NewMemory(a.ID, "batch in a"), NewMemory(b.ID, "batch in b"))
	aReqs = append(aReqs, reqAB)

	raw := mustRaw(t, st)
	for _, r := range aReqs {
		byKey, _ := requestRecords(t, raw, r, a.ID)
		want := r == reqAB && len(byKey) == 1 && len(byKey[0].Scopes) == 2 ||
			r != reqAB && len(byKey) == 1 && byKey[0].Scope == a.ID
		if !want {
			t.Fatalf("the record of request %s = %+v, want it in scope %s", r.Fingerprint, byKey, a.ID)
		}
	}

	delReq := domain.Request{Op: "deleteScope", RequestID: domain.NewID(), Fingerprint: a.ID}
	evFn := func(d *domain.ScopeDeletion) []*domain.Event {
		return []*domain.Event{{Type: domain.EvScopeDeleted, ScopeID: a.ID, Context: ctxFor("scope")}}
	}
	del, err := ls.DeleteScope(ctx, delReq, a.ID, evFn)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range aReqs {
		if byKey, ofScope := requestRecords(t, raw, r, a.ID); len(byKey) != 0 || len(ofScope) != 0 {
			t.Fatalf("request %s of the deleted scope is still recorded: %+v %+v", r.Fingerprint, byKey, ofScope)
		}
	}
	if byKey, _ := requestRecords(t, raw, reqB, b.ID); len(byKey) != 1 || byKey[0].Scope != b.ID {
		t.Fatalf("the other scope's request record = %+v", byKey)
	}
	// Retried after the deletion: applied afresh, so refused — the scope is gone — and never
	// answered with the deleted memory.
	got, err := st.InsertMemories(ctx, reqA, []*domain.Memory{NewMemory(a.ID, "a's secret")}, nil)
	wantCode(t, err, domain.ENOTFOUND)
	if len(got) > 0 {
		t.Fatalf("a retry after the scope's deletion replayed %+v", got[0])
	}
	_, err = ls.Restore(ctx, reqRes, k.ID, func(*domain.RefNode) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
	// The other scope's request still replays its first result.
	again, err := st.InsertMemories(ctx, reqB, []*domain.Memory{NewMemory(b.ID, "b's memory")}, nil)
	if err != nil || len(again) != 1 || again[0].ID != mb.ID {
		t.Fatalf("the other scope's retried request = %+v, %v; want the first result", again, err)
	}
	// The deletion's own record outlives the scope: its retry gets the first result.
	if d, err := ls.DeleteScope(ctx, delReq, a.ID, evFn); err != nil || d.Nodes != del.Nodes {
		t.Fatalf("retried deletion = %+v, %v", d, err)
	}
}

// testDigestRemoveRule: a pass removes only what an earlier digest pass archived — not a
// consolidation's sources (archived, but by no pass), not what was restored since — checked by
// the digest's rule and again by the store against the nodes it reads inside the write.
func testDigestRemoveRule(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	lv, ok := st.(domain.LivingStore)
	if !ok {
		t.Fatal("the store does not implement domain.LivingStore")
	}
	sc := mustScope(t, st)
	a, b, d, e := NewMemory(sc.ID, "merged away a"), NewMemory(sc.ID, "merged away b"), NewMemory(sc.ID, "stale d"), NewMemory(sc.ID, "stale e")
	mustInsert(t, st, a, b, d, e)
	if _, err := lv.Consolidate(ctx, domain.Request{}, []string{a.ID, b.ID}, func(src []*domain.Memory) (*domain.Memory, []*domain.Event, error) {
		m := NewMemory(sc.ID, "a and b")
		return m, []*domain.Event{ev(domain.EvMemoryStored, sc.ID, m.ID)}, nil
	}); err != nil {
		t.Fatal(err)
	}
	pass := func(archive, remove []string) digest.Pass {
		return digest.Pass{ScopeID: sc.ID, Archive: archive, Remove: remove, StaleAfter: 30 * 24 * time.Hour}
	}
	refused := func(what, code string, ids []string, fn domain.DigestDecide, reportID string) {
		t.Helper()
		seq0, _ := st.LastSeq(ctx)
		_, err := ls.Digest(ctx, domain.Request{}, sc.ID, ids, fn)
		if domain.ErrorCode(err) != code {
			t.Fatalf("%s: error %v, want %s", what, err, code)
		}
		if evs := scopeEventsSince(t, st, seq0, sc.ID); len(evs) != 0 {
			t.Fatalf("%s: the refused pass wrote %d events", what, len(evs))
		}
		_, err = ls.DigestReport(ctx, reportID)
		wantCode(t, err, domain.ENOTFOUND)
	}
	if n := mustNode(t, st, a.ID); n.State != domain.EndArchived || n.ArchivedBy != "" {
		t.Fatalf("a consolidation's source = %+v, want archived by no digest pass", n)
	}
	fn, id := rulePlan(pass(nil, []string{a.ID}))
	refused("the rule removing a consolidation's source", domain.ENOTARCHIVED, []string{a.ID}, fn, id)
	fn, id = plan(sc.ID, nil, []string{a.ID})
	refused("a plan removing a consolidation's source", domain.ENOTARCHIVED, []string{a.ID}, fn, id)
	if got := mustLoad(t, st, a.ID); got.State != domain.StateArchived {
		t.Fatalf("the source after refused removals: %s", got.State)
	}

	// Archived by a digest pass: the node names the pass.
	fn, arch := rulePlan(pass([]string{d.ID}, nil))
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{d.ID}, fn); err != nil {
		t.Fatal(err)
	}
	if n := mustNode(t, st, d.ID); n.State != domain.EndArchived || n.ArchivedBy != arch {
		t.Fatalf("archived by a pass = %+v, want archivedBy %s", n, arch)
	}
	// A plan naming the archiving pass as its own is no later pass.
	refused("a remove in the archiving pass", domain.ENOTARCHIVED, []string{d.ID}, func(map[string]*domain.RefNode) (*domain.DigestPlan, error) {
		return &domain.DigestPlan{Report: &domain.DigestReport{ID: arch, ScopeID: sc.ID, At: t0}, Remove: []string{d.ID}}, nil
	}, domain.NewID())
	// Restored: the pass is forgotten, so no later pass removes it before archiving it again.
	if _, err := ls.Restore(ctx, domain.Request{}, d.ID, func(*domain.RefNode) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if n := mustNode(t, st, d.ID); n.State != domain.EndActive || n.ArchivedBy != "" || n.Archive == nil || n.Archive.ReportID != arch {
		t.Fatalf("restored = %+v, want active, no archiving pass, the archive record kept", n)
	}
	fn, id = rulePlan(pass(nil, []string{d.ID}))
	refused("the rule removing a restored memory", domain.ENOTARCHIVED, []string{d.ID}, fn, id)
	fn, id = plan(sc.ID, nil, []string{d.ID})
	refused("a plan removing a restored memory", domain.ENOTARCHIVED, []string{d.ID}, fn, id)
	// Archived again by a pass, removed by a later one.
	fn, arch2 := rulePlan(pass([]string{d.ID}, nil))
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{d.ID}, fn); err != nil {
		t.Fatal(err)
	}
	if n := mustNode(t, st, d.ID); n.ArchivedBy != arch2 {
		t.Fatalf("archived again = %+v, want archivedBy %s", n, arch2)
	}
	fn, _ = rulePlan(pass(nil, []string{d.ID}))
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{d.ID}, fn); err != nil {
		t.Fatal(err)
	}
	_, err := ls.Node(ctx, d.ID)
	wantCode(t, err, domain.ENOTFOUND)

	// Archive and remove in one pass, handed straight to the store: refused by the store.
	fn, id = plan(sc.ID, []string{e.ID}, []string{e.ID})
	refused("a plan archiving and removing in one pass", domain.ESAMEPASS, []string{e.ID}, fn, id)
	if n := mustNode(t, st, e.ID); n.State != domain.EndActive {
		t.Fatalf("after a refused same-pass plan: %s", n.State)
	}
}

// testLastProposal: the report of a scope's latest propose pass (a plan marked Proposed) is
// found again; other passes do not replace it. A pass's proposals are written ahead a page at a
// time and read back in artifact id order from any point; the payloads of the new ones are
// steps in their artifacts' histories, under the pass's one event.
func testLastProposal(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	sc, other := mustScope(t, st), mustScope(t, st)
	if rep, err := ls.LastProposal(ctx, sc.ID); rep != nil || err != nil {
		t.Fatalf("a fresh scope's last proposal = %+v, %v", rep, err)
	}
	_, err := ls.LastProposal(ctx, domain.NewID())
	wantCode(t, err, domain.ENOTFOUND)
	m := NewMemory(sc.ID, "proposed")
	mustInsert(t, st, m)
	// propose writes proposals chunk at a time, with the payloads of about, and commits them
	// with a pass whose report counts proposals+miscount of them.
	propose := func(proposals []domain.Proposal, about map[string]any, chunk, miscount int) (string, *domain.Event, error) {
		t.Helper()
		fn, id := plan(sc.ID, nil, nil)
		ev := &domain.Event{Type: domain.EvDigestProposed, ScopeID: sc.ID, Context: ctxFor("digest"),
			Payload: map[string]any{"proposals": len(proposals)}}
		var w domain.ProposalWriter
		if len(proposals) > 0 {
			w = ls.ProposalWriter(sc.ID, id, ev.Context.MessageID)
			for lo := 0; lo < len(proposals); lo += chunk {
				part := proposals[lo:min(len(proposals), lo+chunk)]
				pl := map[string]any{}
				for _, pr := range part {
					if v, ok := about[pr.ArtifactID]; ok {
						pl[pr.ArtifactID] = v
					}
				}
				if err := w.Add(ctx, part, pl); err != nil {
					t.Fatal(err)
				}
				// Add commits its pages as they fill a commit. Some passes also commit the
				// rest they packed ahead; the others leave it to the pass's write.
				if chunk > 500 && lo%(3*chunk) == 0 {
					if err := w.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			if chunk > 300 {
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		_, err := ls.Digest(ctx, domain.Request{}, sc.ID, nil, func(nodes map[string]*domain.RefNode) (*domain.DigestPlan, error) {
			p, err := fn(nodes)
			if err != nil {
				return nil, err
			}
			p.Report.ProposalCount, p.Proposed, p.Proposals = len(proposals)+miscount, true, w
			p.Events = append(p.Events, ev)
			return p, nil
		})
		return id, ev, err
	}
	mustPropose := func(proposals []domain.Proposal, about map[string]any, chunk int) (string, *domain.Event) {
		t.Helper()
		id, ev, err := propose(proposals, about, chunk, 0)
		if err != nil {
			t.Fatal(err)
		}
		return id, ev
	}
	read := func(id, after string, limit int) []domain.Proposal {
		t.Helper()
		got, err := ls.DigestProposals(ctx, id, after, limit)
		if err != nil {
			t.Fatalf("proposals of %s after %q, %d: %v", id, after, limit, err)
		}
		return got
	}
	first, _ := mustPropose(nil, nil, 1)
	if got := read(first, "", 10); got == nil || len(got) != 0 {
		t.Fatalf("an empty pass's proposals = %#v", got)
	}
	one := []domain.Proposal{{ArtifactID: m.ID, Family: domain.FamMemory, Reasons: []domain.Reason{{Code: domain.ReasonStale, ReferenceIDs: []string{}}}}}
	second, _ := mustPropose(one, nil, 1)
	// An archive pass is no proposal.
	fn, _ := plan(sc.ID, []string{m.ID}, nil)
	if _, err := ls.Digest(ctx, domain.Request{}, sc.ID, []string{m.ID}, fn); err != nil {
		t.Fatal(err)
	}
	rep, err := ls.LastProposal(ctx, sc.ID)
	if err != nil || rep == nil || rep.ID != second || rep.ProposalCount != 1 || !reflect.DeepEqual(read(second, "", 10), one) {
		t.Fatalf("last proposal = %+v, %v; want report %s with its one proposal", rep, err, second)
	}
	if rep, err := ls.LastProposal(ctx, other.ID); rep != nil || err != nil {
		t.Fatalf("another scope's last proposal = %+v, %v", rep, err)
	}

	// More proposals than ten pages, with strings of every kind, written in chunks across pages;
	// every other one is new to its artifact's history.
	var many []domain.Proposal
	about := map[string]any{}
	for i := range 12345 {
		refs := []string{}
		if i%3 == 0 {
			refs = []string{domain.NewID(), domain.NewID()}
		}
		pr := domain.Proposal{ArtifactID: domain.NewID(), Family: domain.FamMemory, Reasons: []domain.Reason{
			{Code: domain.ReasonUnsupported, Detail: Nasty[i%len(Nasty)], ReferenceIDs: refs},
			{Code: domain.ReasonStale, Detail: fmt.Sprintf("unused since %d", i), ReferenceIDs: []string{}}}}
		many = append(many, pr)
	}
	sort.Slice(many, func(i, j int) bool { return many[i].ArtifactID < many[j].ArtifactID })
	for i, pr := range many {
		if i%2 == 0 {
			about[pr.ArtifactID] = map[string]any{"artifactId": pr.ArtifactID, "family": "memory", "detail": pr.Reasons[0].Detail}
		}
	}
	seq0, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	third, ev := mustPropose(many, about, 333)
	rep, err = ls.LastProposal(ctx, sc.ID)
	if err != nil || rep == nil || rep.ID != third || rep.ProposalCount != len(many) || rep.ScopeID != sc.ID {
		t.Fatalf("last proposal of %d = %+v, %v; want report %s counting them", len(many), rep, err, third)
	}
	if got, err := ls.DigestReport(ctx, third); err != nil || !reflect.DeepEqual(got, rep) {
		t.Fatalf("report %s = %+v, %v; want %+v", third, got, err, rep)
	}
	// Read whole at every page size, and from any point.
	for _, limit := range []int{1000, 999, 1001, domain.MaxProposalPage} {
		var all []domain.Proposal
		for after := ""; ; {
			page := read(third, after, limit)
			if len(page) == 0 {
				break
			}
			if len(page) > limit {
				t.Fatalf("%d proposals asked, %d read", limit, len(page))
			}
			all = append(all, page...)
			after = page[len(page)-1].ArtifactID
		}
		if !reflect.DeepEqual(all, many) {
			i := 0
			for i < min(len(all), len(many)) && reflect.DeepEqual(all[i], many[i]) {
				i++
			}
			t.Fatalf("read %d at a time: %d proposals, not those written (%d); the first to differ, %d: %+v, want %+v",
				limit, len(all), len(many), i, all[min(i, len(all)-1)], many[min(i, len(many)-1)])
		}
	}
	for _, i := range []int{0, 1, 998, 999, 1000, 1001, 5000, 9999, 10000, 12343} {
		if got := read(third, many[i].ArtifactID, 2); !reflect.DeepEqual(got, many[i+1:min(len(many), i+3)]) {
			t.Fatalf("2 after proposal %d: %+v", i, got)
		}
	}
	if got := read(third, many[len(many)-1].ArtifactID, 5); len(got) != 0 {
		t.Fatalf("after the last proposal: %+v", got)
	}
	// An id between two proposals' ids: the reading starts at the next.
	between := many[2000].ArtifactID[:len(many[2000].ArtifactID)-1] + "0"
	if between >= many[2000].ArtifactID {
		between = many[1999].ArtifactID
	}
	if got := read(third, between, 1); len(got) != 1 || got[0].ArtifactID <= between || got[0].ArtifactID > many[2000].ArtifactID {
		t.Fatalf("1 after %s: %+v", between, got)
	}
	for _, bad := range []struct {
		after string
		limit int
	}{{"", 0}, {"", -1}, {"", domain.MaxProposalPage + 1}, {"not an id", 10}, {`"} . _:x <a> "b" .`, 10}} {
		_, err := ls.DigestProposals(ctx, third, bad.after, bad.limit)
		wantCode(t, err, domain.EINVALID)
	}
	_, err = ls.DigestProposals(ctx, domain.NewID(), "", 10)
	wantCode(t, err, domain.ENOTFOUND)
	// The pass is one event in the log; each new proposal a step in its artifact's history.
	logged, err := st.EventsSince(ctx, seq0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var proposed []*domain.Event
	for _, e := range logged {
		if e.Type == domain.EvDigestProposed {
			proposed = append(proposed, e)
		}
	}
	if len(proposed) != 1 || proposed[0].ID() != ev.ID() || proposed[0].Payload["proposals"] != float64(len(many)) {
		t.Fatalf("the log holds %+v, want the pass's one proposed event", proposed)
	}
	for _, i := range []int{0, 1, 2, 999, 1000, 5000, 10000, 12344} {
		h, err := st.MemoryEvents(ctx, many[i].ArtifactID)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if len(h) != 0 {
				t.Fatalf("the history of proposal %d, not new, = %+v", i, h)
			}
			continue
		}
		if len(h) != 1 || h[0].ID() != ev.ID() || h[0].Seq != proposed[0].Seq || h[0].Payload["artifactId"] != many[i].ArtifactID ||
			h[0].Payload["detail"] != many[i].Reasons[0].Detail {
			t.Fatalf("the history of proposal %d = %+v", i, h)
		}
	}

	// What the writer refuses, and passes that do not commit, leave the last proposal as it was.
	w := ls.ProposalWriter(sc.ID, domain.NewID(), "")
	if err := w.Add(ctx, many[10:12], nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Add(ctx, many[5:6], nil), domain.EINTERNAL)
	wantCode(t, w.Add(ctx, many[12:12], map[string]any{many[0].ArtifactID: map[string]any{}}), domain.EINTERNAL)
	wantCode(t, w.Add(ctx, []domain.Proposal{{ArtifactID: "zzz-not-an-id"}}, nil), domain.EINTERNAL)
	miscounted, _, err := propose(many[:1500], about, 700, 1)
	wantCode(t, err, domain.EINTERNAL)
	if _, err := ls.DigestReport(ctx, miscounted); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a refused pass's report: %v", err)
	}
	if rep, err := ls.LastProposal(ctx, sc.ID); err != nil || rep == nil || rep.ID != third {
		t.Fatalf("after refused passes the last proposal = %+v, %v; want %s", rep, err, third)
	}
}

// testEventAbout: an event about several artifacts (Event.About: a propose pass's proposals) is
// one event in the log and in its request's trace, and a step in the history of each artifact,
// with that artifact's payload.
func testEventAbout(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "proposed memory")
	mustInsert(t, st, m)
	k := NewArtifact(sc.ID, domain.FamKnowledge, "proposed page")
	other := NewArtifact(sc.ID, domain.FamSkill, "not proposed")
	mustArtifacts(t, st, k, other)
	seq0, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Payload text that looks like the stored form of another artifact's entry.
	tricky := "tab\there\nnewline\n" + k.ID + "\t{}\n" + strings.Join(Nasty, "|")
	about := map[string]map[string]any{
		m.ID: {"artifactId": m.ID, "family": "memory", "reasons": []any{map[string]any{"code": "STALE", "detail": tricky}}},
		k.ID: {"artifactId": k.ID, "family": "knowledge", "reasons": []any{}},
	}
	// Besides, ids of artifacts not in the store, more than one page of an event holds.
	var more []string
	for i := 0; i < 1201; i++ {
		id := domain.NewID()
		more = append(more, id)
		about[id] = map[string]any{"artifactId": id, "family": "skill"}
	}
	// A payload is a map or any value that encodes as a JSON object (read back, a map).
	evAbout := make(map[string]any, len(about))
	for id, pl := range about {
		evAbout[id] = pl
	}
	evAbout[more[600]] = struct {
		ArtifactID string `json:"artifactId"`
		Family     string `json:"family"`
	}{more[600], "skill"}
	ev := &domain.Event{Type: domain.EvDigestProposed, ScopeID: sc.ID, Context: ctxFor("digest"),
		Payload: map[string]any{"proposals": len(about)}, About: evAbout}
	if err := st.AppendEvents(ctx, []*domain.Event{ev}); err != nil {
		t.Fatal(err)
	}
	logged, err := st.EventsSince(ctx, seq0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) != 1 || logged[0].MemoryID != "" || logged[0].Payload["proposals"] != float64(len(about)) || logged[0].About != nil {
		t.Fatalf("the log holds %+v, want the one event as it was written", logged)
	}
	if trace, err := st.RequestEvents(ctx, ev.Context.RequestID); err != nil || len(trace) != 1 || trace[0].MemoryID != "" {
		t.Fatalf("the request's events = %+v, %v", trace, err)
	}
	for _, id := range []string{m.ID, k.ID, more[0], more[600], more[1200]} {
		want := about[id]
		h, err := st.MemoryEvents(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []*domain.Event
		for _, e := range h {
			if e.Type == domain.EvDigestProposed {
				got = append(got, e)
			}
		}
		if len(got) != 1 || got[0].MemoryID != id || got[0].Seq != logged[0].Seq || got[0].ID() != ev.ID() ||
			got[0].ScopeID != sc.ID || got[0].Payload["artifactId"] != id || got[0].Payload["family"] != want["family"] {
			t.Fatalf("the history of %s holds %+v", id, got)
		}
		if (id == m.ID || id == k.ID) && h[0].Type == domain.EvDigestProposed {
			t.Fatalf("the history of %s starts with the proposal: %+v", id, h)
		}
	}
	h, _ := st.MemoryEvents(ctx, m.ID)
	rs, _ := h[len(h)-1].Payload["reasons"].([]any)
	if r, _ := rs[0].(map[string]any); len(rs) != 1 || r["detail"] != tricky {
		t.Fatalf("the memory's reasons = %+v", rs)
	}
	if h, _ := st.MemoryEvents(ctx, other.ID); len(h) != 1 || h[0].Type == domain.EvDigestProposed {
		t.Fatalf("the history of an artifact the event is not about = %+v", h)
	}
}

// testInsertAfterDeleteScope: a scope memories were stored in, and are being stored in while it
// is deleted, refuses them once deleted, and keeps none of them.
func testInsertAfterDeleteScope(t *testing.T, st domain.Store) {
	ctx := context.Background()
	ls := lifecycle(t, st)
	doomed := mustScope(t, st)
	fresh := domain.Request{FreshIDs: true}
	insert := func() (*domain.Memory, error) {
		m := NewMemory(doomed.ID, "stored while the scope goes")
		_, err := st.InsertMemories(ctx, fresh, []*domain.Memory{m}, []*domain.Event{{Type: domain.EvMemoryStored,
			ScopeID: doomed.ID, MemoryID: m.ID, Context: ctxFor("store")}})
		return m, err
	}
	for range 3 {
		if _, err := insert(); err != nil {
			t.Fatal(err)
		}
	}
	evFn := func(d *domain.ScopeDeletion) []*domain.Event {
		return []*domain.Event{{Type: domain.EvScopeDeleted, ScopeID: doomed.ID, Context: ctxFor("scope")}}
	}
	stop := make(chan struct{})
	stored := make(chan int)
	go func() {
		n := 0
		defer func() { stored <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := insert(); err == nil {
				n++
			} else if domain.ErrorCode(err) != domain.ENOTFOUND {
				t.Errorf("an insert during the deletion: %v", err)
				return
			}
		}
	}()
	_, err := ls.DeleteScope(ctx, domain.Request{}, doomed.ID, evFn)
	close(stop)
	n := <-stored
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d memories stored while the scope was deleted", n)
	for range 2 {
		m, err := insert()
		wantCode(t, err, domain.ENOTFOUND)
		if _, err := st.Memory(ctx, m.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Fatalf("a refused memory of the deleted scope was written: %v", err)
		}
	}
	out, err := mustRaw(t, st).RawQuery(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) @filter(NOT has(ev.seq)) { uid tr.kind } }`,
		map[string]string{"$s": doomed.ID})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "tr.kind") {
		t.Fatalf("nodes of the deleted scope remain: %s", out)
	}
}
