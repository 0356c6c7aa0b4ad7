package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The Synapse's store capability (domain.SynapseStore, and Changes.Growth written by Consume):
// streams, episodes grown by appending, person facets upserted, and links read back.

func synapseTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	wrap := func(fn func(*testing.T, domain.Store, domain.LivingStore, domain.SynapseStore)) func(*testing.T, domain.Store) {
		return func(t *testing.T, st domain.Store) {
			ls, ok := st.(domain.LivingStore)
			if !ok {
				t.Fatal("the store does not implement domain.LivingStore")
			}
			ss, ok := st.(domain.SynapseStore)
			if !ok {
				t.Fatal("the store does not implement domain.SynapseStore")
			}
			fn(t, st, ls, ss)
		}
	}
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"SynapseGrowth", wrap(testSynapseGrowth)},
		{"SynapseGrowthStaysInScope", wrap(testSynapseGrowthScope)},
		{"SynapseMemoryLinks", wrap(testSynapseLinks)},
	}
}

func consumerName() string { return fmt.Sprintf("syn-%d", time.Now().UnixNano()%1e9) }

func testSynapseGrowth(t *testing.T, st domain.Store, ls domain.LivingStore, ss domain.SynapseStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	ms := []*domain.Memory{NewMemory(sc.ID, "one"), NewMemory(sc.ID, "two"), NewMemory(sc.ID, "three")}
	mustInsert(t, st, ms...)
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(sc.ID, "def"), ScopeID: sc.ID, Name: "grown " + Nasty[1], Strategy: domain.StrategyThread,
		Config: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
	ep := &domain.Episode{ID: domain.DeriveID(sc.ID, "ep"), ScopeID: sc.ID, DefinitionID: def.ID, StartTime: t0, EndTime: t0,
		EventCount: 2, FirstEventID: ms[0].ID, LastEventID: ms[1].ID, CreatedAt: t0}
	stream := &domain.SynapseStream{ID: domain.DeriveID(sc.ID, "stream"), ScopeID: sc.ID, Key: "session:" + Nasty[2], Last: ms[1].ID,
		LastAt: t0, Episode: ep.ID, EpisodeCount: 2, Persons: map[string]*domain.StreamPerson{"Ann": {First: ms[0].ID, Count: 1, Confidence: 1, Role: "speaker"}}}
	at := &domain.AnalysisType{ID: domain.DeriveID(sc.ID, "type"), ScopeID: sc.ID, Name: "persons", Version: "1", CreatedAt: t0, UpdatedAt: t0}
	run := &domain.AnalysisRun{ID: domain.DeriveID(sc.ID, "run"), ScopeID: sc.ID, TypeID: at.ID, TypeName: at.Name, EpisodeID: ep.ID,
		Status: domain.RunCompleted, CreatedAt: t0}
	facet := func(value string, conf float64) *domain.Facet {
		return &domain.Facet{ID: domain.DeriveID(sc.ID, "facet", value), ScopeID: sc.ID, RunID: run.ID, EpisodeID: ep.ID, MemoryID: ms[0].ID,
			Type: domain.FacetPerson, Value: value, Confidence: conf, CreatedAt: t0}
	}
	name := consumerName()
	if _, err := ls.Consume(ctx, name, 1, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Streams: []*domain.SynapseStream{stream}, Definitions: []*domain.EpisodeDefinition{def},
			Episodes:      []domain.EpisodeGrowth{{Episode: ep, Items: []string{ms[0].ID, ms[1].ID}}},
			AnalysisTypes: []*domain.AnalysisType{at}, Runs: []*domain.AnalysisRun{run}, Facets: []*domain.Facet{facet("Ann", 1)}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := ss.SynapseStreams(ctx, []string{stream.ID, ms[0].ID, "not-an-id"})
	if err != nil {
		t.Fatal(err)
	}
	if s := got[stream.ID]; len(got) != 1 || s == nil || s.Key != stream.Key || s.Last != ms[1].ID || s.EpisodeCount != 2 ||
		s.Persons["Ann"] == nil || s.Persons["Ann"].First != ms[0].ID {
		t.Fatalf("streams = %+v", got)
	}
	// The episode grows by appending: a second write adds the third memory after the two.
	ep2 := *ep
	ep2.EventCount, ep2.LastEventID, ep2.EndTime = 3, ms[2].ID, t0.Add(time.Minute)
	members := func() string {
		t.Helper()
		mr, ok := st.(domain.EpisodeMemberReader)
		if !ok {
			return ""
		}
		got, err := mr.EpisodeMembers(ctx, sc.ID, []string{ep.ID})
		if err != nil {
			t.Fatal(err)
		}
		list := append([]string(nil), got[ep.ID]...)
		sort.Strings(list)
		return strings.Join(list, ",")
	}
	sorted := func(ids ...string) string {
		sort.Strings(ids)
		return strings.Join(ids, ",")
	}
	if _, ok := st.(domain.EpisodeMemberReader); ok && members() != sorted(ms[0].ID, ms[1].ID) {
		t.Fatalf("members = %s", members())
	}
	if _, err := ls.Consume(ctx, name, 2, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Episodes: []domain.EpisodeGrowth{{Episode: &ep2, Items: []string{ms[2].ID}, FirstPos: 2}},
			Facets: []*domain.Facet{facet("Bo", 0.8)}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	es, ok := st.(domain.EpisodeStore)
	if !ok {
		t.Fatal("the store keeps no episodes")
	}
	e, err := es.Episode(ctx, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(e.Items, ",") != ms[0].ID+","+ms[1].ID+","+ms[2].ID || e.EventCount != 3 || e.LastEventID != ms[2].ID ||
		!e.EndTime.Equal(t0.Add(time.Minute)) || e.DefinitionID != def.ID {
		t.Fatalf("episode = %+v", e)
	}
	// Members read before the growth (and perhaps kept) are not served after it.
	if _, ok := st.(domain.EpisodeMemberReader); ok && members() != sorted(ms[0].ID, ms[1].ID, ms[2].ID) {
		t.Fatalf("members after the growth = %s", members())
	}
	defs, _ := es.EpisodeDefinitions(ctx, sc.ID)
	if len(defs) != 1 || defs[0].Name != def.Name {
		t.Fatalf("definitions = %+v", defs)
	}
	// Facets are upserted: Ann stays beside Bo.
	fs, ok := st.(domain.FacetStore)
	if !ok {
		t.Fatal("the store keeps no facets")
	}
	facets, err := fs.Facets(ctx, sc.ID, domain.FacetFilter{RunID: run.ID})
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, f := range facets {
		values = append(values, fmt.Sprintf("%s %.1f %v", f.Value, f.Confidence, f.EpisodeID == ep.ID))
	}
	sort.Strings(values)
	if strings.Join(values, "|") != "Ann 1.0 true|Bo 0.8 true" {
		t.Fatalf("facets = %v", values)
	}
	runs, _ := fs.AnalysisRuns(ctx, sc.ID, domain.RunFilter{EpisodeID: ep.ID})
	if len(runs) != 1 || runs[0].Status != domain.RunCompleted {
		t.Fatalf("runs = %+v", runs)
	}
	// A growth naming a memory deleted since leaves it out of the episode.
	if _, err := st.DeleteMemory(ctx, domain.Request{}, ms[2].ID, func(*domain.Memory) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Consume(ctx, name, 3, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Episodes: []domain.EpisodeGrowth{{Episode: &ep2, Items: []string{ms[2].ID}, FirstPos: 3}}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if e, _ := es.Episode(ctx, ep.ID); len(e.Items) != 2 {
		t.Fatalf("items after a deleted memory's growth: %v", e.Items)
	}
}

func testSynapseGrowthScope(t *testing.T, st domain.Store, ls domain.LivingStore, ss domain.SynapseStore) {
	ctx := context.Background()
	s1, s2 := mustScope(t, st), mustScope(t, st)
	a := NewMemory(s1.ID, "a")
	x := NewMemory(s2.ID, "x")
	mustInsert(t, st, a, x)
	ep := &domain.Episode{ID: domain.DeriveID(s1.ID, "ep"), ScopeID: s1.ID, DefinitionID: domain.DeriveID(s1.ID, "def"), StartTime: t0, EndTime: t0, CreatedAt: t0}
	stream := &domain.SynapseStream{ID: domain.DeriveID(s1.ID, "stream"), ScopeID: s1.ID, Key: "scope"}
	name := consumerName()
	// An episode of one scope may not take a memory of another; nothing of the write is kept.
	_, err := ls.Consume(ctx, name, 1, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Streams: []*domain.SynapseStream{stream},
			Episodes: []domain.EpisodeGrowth{{Episode: ep, Items: []string{a.ID, x.ID}}}}}, nil
	})
	wantCode(t, err, domain.ECROSSSCOPE)
	if got, _ := ss.SynapseStreams(ctx, []string{stream.ID}); len(got) != 0 {
		t.Fatalf("a refused growth wrote its stream: %+v", got)
	}
	if w, found, _ := ls.ConsumerWatermark(ctx, name); found || w != 0 {
		t.Fatalf("a refused growth moved the watermark to %d", w)
	}
	// A record named by an id of another scope's record is refused as well.
	other := &domain.SynapseStream{ID: stream.ID, ScopeID: s2.ID, Key: "scope"}
	if _, err := ls.Consume(ctx, name, 1, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Streams: []*domain.SynapseStream{stream}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	_, err = ls.Consume(ctx, name, 2, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Streams: []*domain.SynapseStream{other}}}, nil
	})
	wantCode(t, err, domain.ECROSSSCOPE)
	// Ids must be UUIDs.
	_, err = ls.Consume(ctx, name, 2, func(uint64) (*domain.Changes, error) {
		return &domain.Changes{Growth: &domain.Growth{Streams: []*domain.SynapseStream{{ID: Nasty[3], ScopeID: s1.ID}}}}, nil
	})
	wantCode(t, err, domain.EINVALID)
}

func testSynapseLinks(t *testing.T, st domain.Store, ls domain.LivingStore, ss domain.SynapseStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b, c, d := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c"), NewMemory(sc.ID, "d")
	mustInsert(t, st, a, b, c, d)
	associate(t, st, a, b, domain.AssocPerson, 0.7)
	associate(t, st, c, a, domain.AssocThematic, 0.5)
	associate(t, st, a, d, domain.AssocTemporal, 0.9)
	associate(t, st, a, d, domain.AssocCausal, 0.3)
	got, err := ss.MemoryLinks(ctx, []string{a.ID, b.ID, sc.ID, "nope"}, true)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := ss.MemoryLinks(ctx, []string{a.ID, b.ID, c.ID, d.ID, sc.ID}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 4 || counts[a.ID].Linked != 2 || counts[b.ID].Linked != 1 || counts[c.ID].Linked != 1 ||
		counts[d.ID].Linked != 0 || counts[a.ID].With != nil {
		t.Fatalf("counts = a %+v b %+v c %+v d %+v", counts[a.ID], counts[b.ID], counts[c.ID], counts[d.ID])
	}
	if len(got) != 2 {
		t.Fatalf("links of %d nodes, want the 2 memories", len(got))
	}
	la := got[a.ID]
	if la.Linked != 2 || len(la.With) != 3 || len(la.With[d.ID]) != 2 || la.With[b.ID][0] != domain.AssocPerson || la.With[c.ID][0] != domain.AssocThematic {
		t.Fatalf("links of a = %+v", la)
	}
	if lb := got[b.ID]; lb.Linked != 1 || len(lb.With) != 1 {
		t.Fatalf("links of b = %+v", lb)
	}
}
