package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The conformance tests of seed 001's ports: ingest writes, episodes, facets, the agents ledger,
// the recall context and vectors.

func mnemonicTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"IngestIdempotent", testIngestIdempotent},
		{"IngestRefusesOtherScopes", testIngestCrossScope},
		{"IngestErrorWritesNothing", testIngestErrorWritesNothing},
		{"EpisodesRechunked", testEpisodesRechunked},
		{"ConcurrentIngestCreatesOnce", testConcurrentIngest},
		{"FacetsReplacedPerRun", testFacetsReplaced},
		{"SharedFacets", testSharedFacets},
		{"AgentsLedger", testAgentsLedger},
		{"RecallContext", testRecallContext},
		{"Vectors", testVectors},
		{"MnemonicNastyStrings", testMnemonicNasty},
	}
}

func ingestStore(t *testing.T, st domain.Store) domain.IngestStore {
	t.Helper()
	is, ok := st.(domain.IngestStore)
	if !ok {
		t.Fatal("store does not implement domain.IngestStore")
	}
	return is
}

// conversation builds a batch: one thread of n events chained by TEMPORAL associations, one
// episode definition and one episode over them.
func conversation(sc string, n int, tag string) *domain.IngestBatch {
	th := &domain.Thread{ID: domain.DeriveID(sc, "thread", tag), ScopeID: sc, Channel: "chat", Name: "thread " + tag,
		SourceAdapter: "test", SourceID: tag, CreatedAt: t0, UpdatedAt: t0}
	b := &domain.IngestBatch{Threads: []*domain.Thread{th}}
	var items []string
	for i := 0; i < n; i++ {
		m := NewMemory(sc, fmt.Sprintf("%s turn %d", tag, i))
		m.ID = domain.DeriveID(sc, "event", tag, fmt.Sprint(i))
		m.OccurredAt = t0.Add(time.Duration(i) * time.Minute)
		e := &domain.LedgerEvent{Memory: m, ThreadID: th.ID, Channel: "chat", Direction: domain.DirectionSent,
			Speaker: []string{"Ada", "Bob"}[i%2], SourceAdapter: "test", SourceID: fmt.Sprintf("%s/%d", tag, i), Seq: int64(i)}
		e.Stamp()
		b.Events = append(b.Events, e)
		items = append(items, m.ID)
		if i > 0 {
			b.Associations = append(b.Associations, &domain.Association{SourceID: items[i-1], TargetID: m.ID, ScopeID: sc,
				Type: domain.AssocTemporal, Strength: 0.9, UpdatedAt: t0})
		}
	}
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(sc, "def", tag), ScopeID: sc, Name: "per thread " + tag,
		Strategy: domain.StrategyThread, Config: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
	ep := &domain.Episode{ID: domain.DeriveID(sc, "episode", tag), ScopeID: sc, DefinitionID: def.ID, Channel: "chat",
		ThreadID: th.ID, StartTime: t0, EndTime: t0.Add(time.Duration(n) * time.Minute), EventCount: n,
		FirstEventID: items[0], LastEventID: items[n-1], CreatedAt: t0, Items: items}
	b.Definitions = []*domain.EpisodeDefinition{def}
	b.Episodes = []*domain.Episode{ep}
	return b
}

func analysed(sc string, ep *domain.Episode, values ...string) (*domain.AnalysisType, *domain.AnalysisRun, []*domain.Facet) {
	at := &domain.AnalysisType{ID: domain.DeriveID(sc, "type", "persons"), ScopeID: sc, Name: "persons", Version: "1",
		OutputType: "structured", CreatedAt: t0, UpdatedAt: t0}
	run := &domain.AnalysisRun{ID: domain.DeriveID(sc, "run", at.ID, ep.ID), ScopeID: sc, TypeID: at.ID, TypeName: at.Name,
		EpisodeID: ep.ID, Status: domain.RunCompleted, CreatedAt: t0}
	var fs []*domain.Facet
	for i, v := range values {
		fs = append(fs, &domain.Facet{ID: domain.DeriveID(sc, "facet", run.ID, v), ScopeID: sc, RunID: run.ID,
			EpisodeID: ep.ID, MemoryID: ep.Items[i%len(ep.Items)], Type: domain.FacetPerson, Value: v,
			Confidence: 1 - float64(i)/10, Metadata: map[string]any{"role": "speaker"}, CreatedAt: t0})
	}
	return at, run, fs
}

func storedEvents(w *domain.IngestWritten) ([]*domain.Event, error) {
	var evs []*domain.Event
	for _, e := range w.NewEvents {
		evs = append(evs, &domain.Event{Type: domain.EvMemoryStored, ScopeID: e.Memory.ScopeID, MemoryID: e.Memory.ID,
			Context: ctxFor("ingest"), Payload: map[string]any{"content": e.Memory.Content}})
	}
	return evs, nil
}

func testIngestIdempotent(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	b := conversation(sc.ID, 5, "idem")
	at, run, fs := analysed(sc.ID, b.Episodes[0], "Ada", "Bob")
	b.AnalysisTypes, b.Runs, b.Facets = []*domain.AnalysisType{at}, []*domain.AnalysisRun{run}, fs
	before, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, storedEvents)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.NewEvents) != 5 || w.Skipped != 0 || len(w.NewAssociations) != 4 {
		t.Fatalf("first ingest wrote %d events (%d skipped), %d associations; want 5, 0, 4", len(w.NewEvents), w.Skipped, len(w.NewAssociations))
	}
	if evs := scopeEventsSince(t, st, before, sc.ID); len(evs) != 5 {
		t.Fatalf("events: %d new in the scope, want 5", len(evs))
	}
	mid, _ := st.LastSeq(ctx)
	// The same batch again: nothing new, no events.
	w, err = is.Ingest(ctx, domain.Request{}, sc.ID, conversation(sc.ID, 5, "idem"), storedEvents)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.NewEvents) != 0 || w.Skipped != 5 || len(w.NewAssociations) != 0 {
		t.Fatalf("second ingest wrote %d events (%d skipped), %d associations; want 0, 5, 0", len(w.NewEvents), w.Skipped, len(w.NewAssociations))
	}
	if evs := scopeEventsSince(t, st, mid, sc.ID); len(evs) != 0 {
		t.Fatalf("a repeated ingest emitted %d events", len(evs))
	}
	page, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{})
	if err != nil || page.TotalCount != 5 {
		t.Fatalf("memories = %d (%v), want 5", page.TotalCount, err)
	}
	es := st.(domain.EpisodeStore)
	evs, err := es.LedgerEvents(ctx, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 5 {
		t.Fatalf("ledger events = %d, want 5", len(evs))
	}
	for i, e := range evs {
		if e.Seq != int64(i) || e.ThreadID != b.Threads[0].ID || e.SourceID != fmt.Sprintf("idem/%d", i) || e.Speaker == "" {
			t.Fatalf("ledger event %d = %+v", i, e)
		}
	}
	ep, err := es.Episode(ctx, b.Episodes[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ep.Items) != fmt.Sprint(b.Episodes[0].Items) || ep.EventCount != 5 || ep.DefinitionID != b.Definitions[0].ID {
		t.Fatalf("episode = %+v, want items %v", ep, b.Episodes[0].Items)
	}
	defs, err := es.EpisodeDefinitions(ctx, sc.ID)
	if err != nil || len(defs) != 1 || defs[0].Strategy != domain.StrategyThread {
		t.Fatalf("definitions = %+v, %v", defs, err)
	}
	byMem, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{MemoryID: b.Episodes[0].Items[2]})
	if err != nil || len(byMem) != 1 || byMem[0].ID != ep.ID {
		t.Fatalf("episodes of a memory = %+v, %v", byMem, err)
	}
	fst := st.(domain.FacetStore)
	got, err := fst.Facets(ctx, sc.ID, domain.FacetFilter{EpisodeID: ep.ID})
	if err != nil || len(got) != 2 || got[0].Value != "Ada" || got[0].Metadata["role"] != "speaker" {
		t.Fatalf("facets = %+v, %v", got, err)
	}
	runs, err := fst.AnalysisRuns(ctx, sc.ID, domain.RunFilter{EpisodeID: ep.ID, Status: domain.RunCompleted})
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	as, err := st.Associations(ctx, b.Episodes[0].Items[2], []domain.AssociationType{domain.AssocTemporal}, 0)
	if err != nil || len(as) != 2 {
		t.Fatalf("a middle turn has %d temporal associations (%v), want 2", len(as), err)
	}
}

func testIngestCrossScope(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	a, b := mustScope(t, st), mustScope(t, st)
	if _, err := is.Ingest(ctx, domain.Request{}, a.ID, conversation(a.ID, 2, "mine"), nil); err != nil {
		t.Fatal(err)
	}
	foreign := conversation(a.ID, 2, "mine").Events[0].Memory.ID
	// A batch of scope b associating one of its memories with a memory of scope a.
	batch := conversation(b.ID, 2, "theirs")
	batch.Associations = append(batch.Associations, &domain.Association{SourceID: batch.Events[0].Memory.ID, TargetID: foreign,
		ScopeID: b.ID, Type: domain.AssocThematic, Strength: 0.7, UpdatedAt: t0})
	_, err := is.Ingest(ctx, domain.Request{}, b.ID, batch, nil)
	wantCode(t, err, domain.ECROSSSCOPE)
	// An episode of scope b grouping a memory of scope a.
	batch = conversation(b.ID, 2, "theirs")
	batch.Episodes[0].Items = append(batch.Episodes[0].Items, foreign)
	_, err = is.Ingest(ctx, domain.Request{}, b.ID, batch, nil)
	wantCode(t, err, domain.ECROSSSCOPE)
	// A record claiming another scope.
	batch = conversation(b.ID, 2, "theirs")
	batch.Threads[0].ScopeID = a.ID
	_, err = is.Ingest(ctx, domain.Request{}, b.ID, batch, nil)
	wantCode(t, err, domain.ECROSSSCOPE)
	ids := referencedIDsOf(conversation(b.ID, 2, "theirs"))
	got, err := is.ExistingIDs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("refused batches wrote %d records", len(got))
	}
}

func referencedIDsOf(b *domain.IngestBatch) []string {
	var ids []string
	for _, e := range b.Events {
		ids = append(ids, e.Memory.ID)
	}
	for _, x := range b.Threads {
		ids = append(ids, x.ID)
	}
	for _, x := range b.Episodes {
		ids = append(ids, x.ID)
	}
	for _, x := range b.Definitions {
		ids = append(ids, x.ID)
	}
	return ids
}

func testIngestErrorWritesNothing(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	before, _ := st.LastSeq(ctx)
	boom := errors.New("domain refused")
	_, err := is.Ingest(ctx, domain.Request{}, sc.ID, conversation(sc.ID, 3, "err"), func(*domain.IngestWritten) ([]*domain.Event, error) {
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the domain's", err)
	}
	nowhere := domain.NewID()
	_, err = is.Ingest(ctx, domain.Request{}, nowhere, conversation(nowhere, 3, "err"), nil)
	wantCode(t, err, domain.ENOTFOUND)
	// An episode grouping a memory that exists nowhere.
	b := conversation(sc.ID, 3, "err")
	b.Episodes[0].Items = append(b.Episodes[0].Items, domain.NewID())
	_, err = is.Ingest(ctx, domain.Request{}, sc.ID, b, nil)
	wantCode(t, err, domain.ENOTFOUND)
	got, _ := is.ExistingIDs(ctx, referencedIDsOf(conversation(sc.ID, 3, "err")))
	if evs := scopeEventsSince(t, st, before, sc.ID, nowhere); len(got) != 0 || len(evs) != 0 {
		t.Fatalf("failed ingests wrote %d records and %d events", len(got), len(evs))
	}
	// At most once: the same request id answers the first result.
	req := domain.Request{Op: "ingest", RequestID: domain.NewID(), Fingerprint: "f1"}
	w1, err := is.Ingest(ctx, req, sc.ID, conversation(sc.ID, 2, "once"), storedEvents)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := is.Ingest(ctx, req, sc.ID, conversation(sc.ID, 2, "once"), storedEvents)
	if err != nil || len(w2.NewEvents) != len(w1.NewEvents) {
		t.Fatalf("replayed ingest = %+v, %v; want the first result", w2, err)
	}
	req.Fingerprint = "f2"
	_, err = is.Ingest(ctx, req, sc.ID, conversation(sc.ID, 2, "once"), storedEvents)
	wantCode(t, err, domain.ECONFLICT)
}

func testEpisodesRechunked(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	b := conversation(sc.ID, 4, "chunk")
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
		t.Fatal(err)
	}
	// Chunk again with a different grouping: the first two events only, then the last two.
	ep := *b.Episodes[0]
	ep.Items, ep.EventCount = ep.Items[:2], 2
	second := ep
	second.ID = domain.DeriveID(sc.ID, "episode", "chunk", "2")
	second.Items = b.Episodes[0].Items[2:]
	for i := 0; i < 2; i++ { // twice: re-chunking is idempotent
		if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Episodes: []*domain.Episode{&ep, &second}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	es := st.(domain.EpisodeStore)
	got, err := es.Episode(ctx, ep.ID)
	if err != nil || fmt.Sprint(got.Items) != fmt.Sprint(ep.Items) {
		t.Fatalf("re-chunked episode items = %v (%v), want %v", got.Items, err, ep.Items)
	}
	all, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{DefinitionID: ep.DefinitionID})
	if err != nil || len(all) != 2 {
		t.Fatalf("episodes = %d (%v), want 2", len(all), err)
	}
	of, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{MemoryID: b.Episodes[0].Items[3]})
	if err != nil || len(of) != 1 || of[0].ID != second.ID {
		t.Fatalf("episodes of the last event = %+v, %v", of, err)
	}
	// By ids: only this scope's episodes among them, with their items in order; a memory id, an
	// unknown id, another scope's episode and a malformed id are not episodes of this scope.
	other := mustScope(t, st)
	ob := conversation(other.ID, 2, "chunk")
	if _, err := is.Ingest(ctx, domain.Request{}, other.ID, ob, nil); err != nil {
		t.Fatal(err)
	}
	byIDs, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{WithItems: true,
		IDs: []string{second.ID, ob.Episodes[0].ID, ep.Items[0], domain.NewID(), `x") } q(func: has(tr.id)) {`, ep.ID}})
	items := map[string]string{}
	for _, e := range byIDs {
		items[e.ID] = fmt.Sprint(e.Items)
	}
	if err != nil || len(byIDs) != 2 || items[ep.ID] != fmt.Sprint(ep.Items) || items[second.ID] != fmt.Sprint(second.Items) {
		t.Fatalf("episodes by ids = %+v, %v", byIDs, err)
	}
	if none, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{IDs: []string{"not an id"}}); err != nil || len(none) != 0 {
		t.Fatalf("episodes of malformed ids = %+v, %v", none, err)
	}
	// By threads: the episodes of any of them in this scope (the other scope's thread names the
	// other scope's episodes), of the definition when one is given.
	threads := []string{ep.ThreadID, ob.Episodes[0].ThreadID, domain.NewID(), `x") } q(func: has(tr.id)) {`}
	for _, f := range []domain.EpisodeFilter{{ThreadIDs: threads}, {ThreadIDs: threads, DefinitionID: ep.DefinitionID}} {
		byThreads, err := es.Episodes(ctx, sc.ID, f)
		got := map[string]bool{}
		for _, e := range byThreads {
			got[e.ID] = true
		}
		if err != nil || len(byThreads) != 2 || !got[ep.ID] || !got[second.ID] {
			t.Fatalf("episodes of threads %+v = %+v, %v", f, byThreads, err)
		}
	}
	if none, err := es.Episodes(ctx, sc.ID, domain.EpisodeFilter{ThreadIDs: threads, DefinitionID: domain.NewID()}); err != nil || len(none) != 0 {
		t.Fatalf("episodes of the threads and another definition = %+v, %v", none, err)
	}
	// An episode a re-chunking no longer makes goes, with its runs and facets.
	at, run, fs := analysed(sc.ID, &second, "Ada")
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{AnalysisTypes: []*domain.AnalysisType{at},
		Runs: []*domain.AnalysisRun{run}, Facets: fs}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{RemoveEpisodes: []string{second.ID, domain.NewID()}}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = es.Episode(ctx, second.ID)
	wantCode(t, err, domain.ENOTFOUND)
	left, err := st.(domain.FacetStore).Facets(ctx, sc.ID, domain.FacetFilter{EpisodeID: second.ID})
	runs, rerr := st.(domain.FacetStore).AnalysisRuns(ctx, sc.ID, domain.RunFilter{EpisodeID: second.ID})
	if err != nil || rerr != nil || len(left) != 0 || len(runs) != 0 {
		t.Fatalf("after removing the episode: %d facets, %d runs (%v, %v)", len(left), len(runs), err, rerr)
	}
	if got, err := es.Episode(ctx, ep.ID); err != nil || len(got.Items) != 2 {
		t.Fatalf("the other episode = %+v, %v", got, err)
	}
	// Removing a record that is no episode is refused.
	_, err = is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{RemoveEpisodes: []string{b.Episodes[0].Items[0]}}, nil)
	wantCode(t, err, domain.EINVALID)
}

func testConcurrentIngest(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	// The same source imported four times at once: every memory exists once, created once.
	var wg sync.WaitGroup
	created := make([]int, 4)
	errs := make([]error, 4)
	for i := range created {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			w, err := is.Ingest(ctx, domain.Request{}, sc.ID, conversation(sc.ID, 20, "race"), storedEvents)
			errs[i] = err
			if err == nil {
				created[i] = len(w.NewEvents)
			}
		}(i)
	}
	wg.Wait()
	total := 0
	for i := range created {
		if errs[i] != nil {
			t.Fatalf("ingest %d: %v", i, errs[i])
		}
		total += created[i]
	}
	page, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{})
	if err != nil || page.TotalCount != 20 || total != 20 {
		t.Fatalf("%d memories, %d created in all (%v); want 20 and 20", page.TotalCount, total, err)
	}
}

func testFacetsReplaced(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	b := conversation(sc.ID, 2, "facets")
	at, run, fs := analysed(sc.ID, b.Episodes[0], "Ada", "Bob", "Cy")
	b.AnalysisTypes, b.Runs, b.Facets = []*domain.AnalysisType{at}, []*domain.AnalysisRun{run}, fs
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
		t.Fatal(err)
	}
	_, run2, fs2 := analysed(sc.ID, b.Episodes[0], "Ada", "Dee")
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Runs: []*domain.AnalysisRun{run2}, Facets: fs2}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := st.(domain.FacetStore).Facets(ctx, sc.ID, domain.FacetFilter{RunID: run.ID, Type: domain.FacetPerson})
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, f := range got {
		vals = append(vals, f.Value)
	}
	if fmt.Sprint(vals) != "[Ada Dee]" {
		t.Fatalf("facets after the re-run = %v, want [Ada Dee]", vals)
	}
	persons, err := st.(domain.RecallContextReader).ScopePersons(ctx, sc.ID)
	if err != nil || fmt.Sprint(persons) != "[Ada Dee]" {
		t.Fatalf("scope persons = %v, %v", persons, err)
	}
	one, err := st.(domain.FacetStore).Facets(ctx, sc.ID, domain.FacetFilter{Value: "Dee"})
	if err != nil || len(one) != 1 {
		t.Fatalf("facets by value = %+v, %v", one, err)
	}
}

// sharedNasty is a facet value with the metacharacters of DQL and N-Quads.
const sharedNasty = `Quote "Bar" \ {x} <y> . _:b # $v`

// topicRun is a run of the topics analysis over ep with facets "type:value@confidence", each
// found in the episode's first memory.
func topicRun(sc string, ep *domain.Episode, facets ...[3]string) (*domain.AnalysisType, *domain.AnalysisRun, []*domain.Facet) {
	at := &domain.AnalysisType{ID: domain.DeriveID(sc, "type", "topics"), ScopeID: sc, Name: "topics", Version: "1",
		OutputType: "structured", CreatedAt: t0, UpdatedAt: t0}
	run := &domain.AnalysisRun{ID: domain.DeriveID(sc, "run", at.ID, ep.ID), ScopeID: sc, TypeID: at.ID, TypeName: at.Name,
		EpisodeID: ep.ID, Status: domain.RunCompleted, CreatedAt: t0}
	var fs []*domain.Facet
	for _, f := range facets {
		var conf float64
		fmt.Sscan(f[2], &conf)
		fs = append(fs, &domain.Facet{ID: domain.DeriveID(sc, "facet", run.ID, f[0], f[1]), ScopeID: sc, RunID: run.ID,
			EpisodeID: ep.ID, MemoryID: ep.Items[0], Type: f[0], Value: f[1], Confidence: conf, CreatedAt: t0})
	}
	return at, run, fs
}

// testSharedFacets: the entity and topic facets of episodes, and the other episodes of the same
// scope holding their values — not other types, not other scopes; values with quotes, DQL and
// N-Quad metacharacters and non-ASCII text match exactly; a re-run's facets are seen at once.
func testSharedFacets(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	fr, ok := st.(domain.SharedFacetReader)
	if !ok {
		t.Fatal("store does not implement domain.SharedFacetReader")
	}
	sc, other := mustScope(t, st), mustScope(t, st)
	ingest := func(scope string, b *domain.IngestBatch, facets ...[3]string) *domain.Episode {
		t.Helper()
		at, run, fs := topicRun(scope, b.Episodes[0], facets...)
		b.AnalysisTypes, b.Runs, b.Facets = []*domain.AnalysisType{at}, []*domain.AnalysisRun{run}, fs
		if _, err := is.Ingest(ctx, domain.Request{}, scope, b, nil); err != nil {
			t.Fatal(err)
		}
		return b.Episodes[0]
	}
	uni := "日本語 ☃ café"
	e1 := ingest(sc.ID, conversation(sc.ID, 2, "shared-1"), [3]string{"topic", "lighthouse", "1"},
		[3]string{"entity", sharedNasty, "0.8"}, [3]string{"person", "Ada", "1"}, [3]string{"topic", uni, "0.5"})
	e2 := ingest(sc.ID, conversation(sc.ID, 2, "shared-2"), [3]string{"topic", "lighthouse", "0.5"},
		[3]string{"entity", sharedNasty, "0.6"}, [3]string{"person", "Ada", "1"})
	e3 := ingest(sc.ID, conversation(sc.ID, 2, "shared-3"), [3]string{"topic", "garden", "1"},
		[3]string{"topic", uni, "0.4"}, [3]string{"entity", "Quote", "1"})
	ingest(other.ID, conversation(other.ID, 2, "shared-4"), [3]string{"topic", "lighthouse", "1"}, [3]string{"entity", sharedNasty, "1"})
	types := []string{domain.FacetEntity, domain.FacetTopic}
	show := func(fs []*domain.Facet) string {
		var out []string
		for _, f := range fs {
			ep := map[string]string{e1.ID: "e1", e2.ID: "e2", e3.ID: "e3"}[f.EpisodeID]
			if f.ScopeID != sc.ID {
				ep = "other scope"
			}
			out = append(out, fmt.Sprintf("%s:%s:%s:%g:%v", ep, f.Type, f.Value, f.Confidence, f.MemoryID != ""))
		}
		slices.Sort(out)
		return strings.Join(out, " | ")
	}
	check := func(wantOwn, wantShared string) {
		t.Helper()
		for round := 0; round < 2; round++ { // the second from the read cache, where there is one
			own, shared, err := fr.SharedFacets(ctx, sc.ID, []string{e1.ID, "not-an-id", ""}, types)
			if err != nil {
				t.Fatal(err)
			}
			if got := show(own); got != wantOwn {
				t.Fatalf("round %d: own =\n%s\nwant\n%s", round, got, wantOwn)
			}
			if got := show(shared); got != wantShared {
				t.Fatalf("round %d: shared =\n%s\nwant\n%s", round, got, wantShared)
			}
		}
	}
	wantOwn := "e1:entity:" + sharedNasty + ":0.8:true | e1:topic:lighthouse:1:true | e1:topic:" + uni + ":0.5:true"
	check(wantOwn, "e2:entity:"+sharedNasty+":0.6:true | e2:topic:lighthouse:0.5:true | e3:topic:"+uni+":0.4:true")
	// The second episode's topics analysed again: its lighthouse is gone.
	ingest(sc.ID, &domain.IngestBatch{Episodes: []*domain.Episode{e2}}, [3]string{"entity", sharedNasty, "0.7"})
	check(wantOwn, "e2:entity:"+sharedNasty+":0.7:true | e3:topic:"+uni+":0.4:true")
	if own, shared, err := fr.SharedFacets(ctx, other.ID, []string{e1.ID}, types); err != nil || len(own)+len(shared) != 0 {
		t.Fatalf("another scope's episode: %v %v %v", own, shared, err)
	}
	if _, _, err := fr.SharedFacets(ctx, sc.ID, []string{e1.ID}, []string{`topic"]) { x }`}); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("a bad type: %v, want INVALID_ARGUMENT", err)
	}
}

func testAgentsLedger(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	id := func(parts ...string) string { return domain.DeriveID(sc.ID, parts...) }
	at := t0
	parent := &domain.AgentSession{ID: id("s", "p"), ScopeID: sc.ID, SourceID: "p", Source: "codex", Model: "m1", CreatedAt: &at,
		MessageCount: 2, Raw: map[string]any{"x": 1.0}}
	child := &domain.AgentSession{ID: id("s", "c"), ScopeID: sc.ID, SourceID: "c", Source: "codex", ParentSessionID: parent.ID,
		IsSubagent: true, TaskDescription: "look things up"}
	msgs := []*domain.AgentMessage{
		{ID: id("m", "1"), ScopeID: sc.ID, SessionID: parent.ID, SourceID: "1", Role: "user", Content: "fix the build", Sequence: 1, Timestamp: &at},
		{ID: id("m", "2"), ScopeID: sc.ID, SessionID: parent.ID, SourceID: "2", Role: "assistant", Content: "done", Sequence: 2, Timestamp: &at},
	}
	turn := &domain.AgentTurn{ID: id("t", "2"), ScopeID: sc.ID, SessionID: parent.ID, SourceID: "2",
		QueryMessageIDs: []string{msgs[0].ID}, ResponseMessageID: msgs[1].ID, MessageIDs: []string{msgs[0].ID, msgs[1].ID},
		ToolCallCount: 1, HasChildren: true, Sequence: 1}
	call := &domain.AgentToolCall{ID: id("tc", "1"), ScopeID: sc.ID, SessionID: parent.ID, MessageID: msgs[1].ID, SourceID: "tc1",
		ToolName: "task", ToolNumber: 1, Params: map[string]any{"q": "x"}, ChildSessionID: child.ID, Status: "ok"}
	b := &domain.IngestBatch{Sessions: []*domain.AgentSession{parent, child}, Messages: msgs, Turns: []*domain.AgentTurn{turn},
		ToolCalls: []*domain.AgentToolCall{call}}
	for i := 0; i < 2; i++ {
		if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	as := st.(domain.AgentStore)
	ss, err := as.ScopeAgentSessions(ctx, sc.ID)
	if err != nil || len(ss) != 2 {
		t.Fatalf("sessions = %d, %v", len(ss), err)
	}
	got, err := as.AgentSessions(ctx, []string{child.ID})
	if err != nil || len(got) != 1 || got[0].ParentSessionID != parent.ID || !got[0].IsSubagent {
		t.Fatalf("child session = %+v, %v", got, err)
	}
	turns, err := as.SessionTurns(ctx, []string{parent.ID})
	if err != nil || len(turns) != 1 || turns[0].ResponseMessageID != msgs[1].ID || !turns[0].HasChildren {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	ms, err := as.SessionMessages(ctx, []string{parent.ID})
	if err != nil || len(ms) != 2 || ms[0].Content != "fix the build" || ms[1].Role != "assistant" {
		t.Fatalf("messages = %+v, %v", ms, err)
	}
	calls, err := as.SessionToolCalls(ctx, []string{parent.ID})
	if err != nil || len(calls) != 1 || calls[0].ChildSessionID != child.ID {
		t.Fatalf("tool calls = %+v, %v", calls, err)
	}
	// An agent_session episode groups agent messages.
	def := &domain.EpisodeDefinition{ID: id("def"), ScopeID: sc.ID, Name: "sessions", Strategy: domain.StrategyAgentSession,
		Config: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
	ep := &domain.Episode{ID: id("ep"), ScopeID: sc.ID, DefinitionID: def.ID, ThreadID: parent.ID, StartTime: t0, EndTime: t0,
		EventCount: 2, Items: []string{msgs[0].ID, msgs[1].ID}, CreatedAt: t0}
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Definitions: []*domain.EpisodeDefinition{def},
		Episodes: []*domain.Episode{ep}}, nil); err != nil {
		t.Fatal(err)
	}
	e, err := st.(domain.EpisodeStore).Episode(ctx, ep.ID)
	if err != nil || len(e.Items) != 2 {
		t.Fatalf("agent episode = %+v, %v", e, err)
	}
}

func testRecallContext(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	b := conversation(sc.ID, 3, "ctx")
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
		t.Fatal(err)
	}
	ids := b.Episodes[0].Items
	other := mustScope(t, st)
	got, err := st.(domain.RecallContextReader).MemoryContexts(ctx, sc.ID, append([]string{"junk", domain.NewID()}, ids...))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("contexts for %d memories, want 3", len(got))
	}
	mid := got[ids[1]]
	if len(mid.Episodes) != 1 || mid.Episodes[0] != b.Episodes[0].ID || len(mid.Temporal) != 2 {
		t.Fatalf("context of the middle event = %+v", mid)
	}
	for _, n := range mid.Temporal {
		if (n.ID != ids[0] && n.ID != ids[2]) || math.Abs(n.Strength-0.9) > 1e-9 {
			t.Fatalf("temporal neighbour %+v", n)
		}
	}
	none, err := st.(domain.RecallContextReader).MemoryContexts(ctx, other.ID, ids)
	if err != nil || len(none) != 0 {
		t.Fatalf("contexts asked in another scope = %d, %v; want none", len(none), err)
	}
}

func testVectors(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	vs, ok := st.(domain.VectorStore)
	if !ok {
		t.Fatal("store does not implement domain.VectorStore")
	}
	sc, other := mustScope(t, st), mustScope(t, st)
	b := conversation(sc.ID, 3, "vec")
	ob := conversation(other.ID, 1, "vec")
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := is.Ingest(ctx, domain.Request{}, other.ID, ob, nil); err != nil {
		t.Fatal(err)
	}
	if has, err := vs.HasEmbeddings(ctx, sc.ID); err != nil || has {
		t.Fatalf("HasEmbeddings before any = %v, %v", has, err)
	}
	missing, err := vs.MissingEmbeddings(ctx, sc.ID, 10)
	if err != nil || len(missing) != 3 {
		t.Fatalf("missing = %d, %v; want 3", len(missing), err)
	}
	vecs := [][]float32{{1, 0, 0, 0}, {0.9, 0.1, 0, 0}, {0, 0, 1, 0}}
	var embs []*domain.Embedding
	for i, e := range b.Events {
		embs = append(embs, &domain.Embedding{ScopeID: sc.ID, MemoryID: e.Memory.ID, Vector: vecs[i], CreatedAt: t0})
	}
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Embeddings: embs}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := is.Ingest(ctx, domain.Request{}, other.ID, &domain.IngestBatch{Embeddings: []*domain.Embedding{
		{ScopeID: other.ID, MemoryID: ob.Events[0].Memory.ID, Vector: []float32{1, 0, 0, 0}}}}, nil); err != nil {
		t.Fatal(err)
	}
	// A vector for a memory of another scope is refused.
	_, err = is.Ingest(ctx, domain.Request{}, sc.ID, &domain.IngestBatch{Embeddings: []*domain.Embedding{
		{ScopeID: sc.ID, MemoryID: ob.Events[0].Memory.ID, Vector: []float32{1, 0, 0, 0}}}}, nil)
	wantCode(t, err, domain.ECROSSSCOPE)
	if has, err := vs.HasEmbeddings(ctx, sc.ID); err != nil || !has {
		t.Fatalf("HasEmbeddings = %v, %v", has, err)
	}
	hits, err := vs.SimilarMemories(ctx, sc.ID, []float32{1, 0.05, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].MemoryID != b.Events[0].Memory.ID || hits[1].MemoryID != b.Events[1].Memory.ID ||
		hits[0].Similarity < hits[1].Similarity || hits[0].Similarity > 1.0001 {
		t.Fatalf("nearest = %+v", hits)
	}
	if missing, _ := vs.MissingEmbeddings(ctx, sc.ID, 10); len(missing) != 0 {
		t.Fatalf("missing after embedding = %d", len(missing))
	}
}

func testMnemonicNasty(t *testing.T, st domain.Store) {
	ctx := context.Background()
	is := ingestStore(t, st)
	sc := mustScope(t, st)
	b := conversation(sc.ID, len(Nasty), "nasty")
	for i, s := range Nasty {
		b.Events[i].Memory.Content = s
		b.Events[i].Speaker = s
		b.Events[i].Stamp()
	}
	b.Threads[0].Name = Nasty[4]
	at, run, fs := analysed(sc.ID, b.Episodes[0], Nasty...)
	b.AnalysisTypes, b.Runs, b.Facets = []*domain.AnalysisType{at}, []*domain.AnalysisRun{run}, fs
	if _, err := is.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
		t.Fatal(err)
	}
	evs, err := st.(domain.EpisodeStore).LedgerEvents(ctx, sc.ID)
	if err != nil || len(evs) != len(Nasty) {
		t.Fatalf("ledger events = %d, %v", len(evs), err)
	}
	for i, e := range evs {
		if e.Memory.Content != Nasty[i] || e.Speaker != Nasty[i] {
			t.Fatalf("event %d = %q / %q, want %q", i, e.Memory.Content, e.Speaker, Nasty[i])
		}
	}
	for _, s := range Nasty {
		got, err := st.(domain.FacetStore).Facets(ctx, sc.ID, domain.FacetFilter{Value: s, Type: domain.FacetPerson})
		if err != nil || len(got) != 1 || got[0].Value != s {
			t.Fatalf("facet %q = %+v, %v", s, got, err)
		}
	}
}
