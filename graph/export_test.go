package graph_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

// snapshot is what a store holds, as the domain sees it.
type snapshot struct {
	Scopes       []*domain.Scope
	Memories     []*domain.Memory
	Associations []*domain.Association
	Events       []*domain.Event
}

func takeSnapshot(t *testing.T, st *graph.Store) snapshot {
	t.Helper()
	ctx := context.Background()
	var s snapshot
	var err error
	if s.Scopes, err = st.Scopes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, sc := range s.Scopes {
		p, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Memories {
			s.Memories = append(s.Memories, m)
			as, err := st.Associations(ctx, m.ID, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			s.Associations = append(s.Associations, as...)
		}
	}
	if s.Events, err = st.EventsSince(ctx, 0, 100000); err != nil {
		t.Fatal(err)
	}
	sort.Slice(s.Scopes, func(i, j int) bool { return s.Scopes[i].ID < s.Scopes[j].ID })
	sort.Slice(s.Memories, func(i, j int) bool { return s.Memories[i].ID < s.Memories[j].ID })
	sort.Slice(s.Associations, func(i, j int) bool {
		a, b := s.Associations[i], s.Associations[j]
		return a.SourceID+a.TargetID+string(a.Type) < b.SourceID+b.TargetID+string(b.Type)
	})
	return s
}

func populate(t *testing.T, st domain.Store) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		sc, err := st.CreateScope(ctx, domain.Request{Op: "createScope", RequestID: domain.NewID(), Fingerprint: "f"}, storetest.NewScope(fmt.Sprint("scope ", i)),
			[]*domain.Event{{Type: domain.EvScopeCreated, ScopeID: "", Context: domain.TransactionContext{SessionID: "s", RequestID: "r", MessageID: domain.NewID(), CausationID: "c", Timestamp: storetest.NewMemory("", "").CreatedAt, SourceContext: "Cortex"}}})
		if err != nil {
			t.Fatal(err)
		}
		var ms []*domain.Memory
		for j, n := range storetest.Nasty {
			m := storetest.NewMemory(sc.ID, n)
			m.Tags = []string{n, fmt.Sprint(j)}
			m.Metadata = map[string]any{n: []any{1.5, true, n}}
			ms = append(ms, m)
		}
		if _, err := st.InsertMemories(ctx, domain.Request{}, ms, nil); err != nil {
			t.Fatal(err)
		}
		for j := 1; j < len(ms); j++ {
			strength := float64(j) / 16
			if _, err := st.Associate(ctx, domain.Request{}, ms[j-1].ID, ms[j].ID, domain.AssocTemporal,
				func(cur *domain.Association, a, b *domain.Memory) (*domain.Association, []*domain.Event, error) {
					return &domain.Association{SourceID: a.ID, TargetID: b.ID, ScopeID: a.ScopeID, Type: domain.AssocTemporal, Strength: strength, UpdatedAt: a.CreatedAt}, nil, nil
				}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestExportImportRoundTrip moves a populated store through a dump into an empty store and
// finds everything again: scopes, kernels, memories with every field, associations, events with
// their Seq and contexts — ids preserved.
func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	populate(t, st)
	before := takeSnapshot(t, st)
	var dump bytes.Buffer
	n, err := st.Export(ctx, &dump)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	if got := takeSnapshot(t, st); len(got.Memories) != 0 {
		t.Fatalf("DropAll left %d memories", len(got.Memories))
	}
	m, err := st.Import(ctx, bytes.NewReader(dump.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if m != n {
		t.Fatalf("imported %d lines of %d", m, n)
	}
	after := takeSnapshot(t, st)
	if len(before.Memories) == 0 || len(before.Associations) == 0 || len(before.Events) == 0 {
		t.Fatalf("populate wrote too little: %d memories %d associations %d events", len(before.Memories), len(before.Associations), len(before.Events))
	}
	for i := range before.Memories {
		if i < len(after.Memories) && !reflect.DeepEqual(before.Memories[i], after.Memories[i]) {
			t.Errorf("memory %d:\nbefore %+v\nafter  %+v", i, before.Memories[i], after.Memories[i])
			break
		}
	}
	for i := range before.Associations {
		if i < len(after.Associations) && !reflect.DeepEqual(before.Associations[i], after.Associations[i]) {
			t.Errorf("association %d:\nbefore %+v\nafter  %+v", i, before.Associations[i], after.Associations[i])
			break
		}
	}
	for i := range before.Events {
		if i < len(after.Events) && !reflect.DeepEqual(before.Events[i], after.Events[i]) {
			t.Errorf("event %d:\nbefore %+v\nafter  %+v", i, before.Events[i], after.Events[i])
			break
		}
	}
	if !reflect.DeepEqual(before.Scopes, after.Scopes) {
		t.Errorf("scopes:\nbefore %+v\nafter  %+v", before.Scopes, after.Scopes)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("round trip changed the store:\nbefore %d memories %d associations %d events\nafter  %d memories %d associations %d events",
			len(before.Memories), len(before.Associations), len(before.Events), len(after.Memories), len(after.Associations), len(after.Events))
	}
	// The event counter came along: a new write continues the sequence.
	last, _ := st.LastSeq(ctx)
	if want := before.Events[len(before.Events)-1].Seq; last != want {
		t.Fatalf("LastSeq after import = %d, want %d", last, want)
	}
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

// TestImportIntoStoreWithData imports a dump into a store that holds other scopes and events: the
// dump's records arrive whole, its events follow the store's own in their order, and a second
// import of the same dump is refused without writing anything.
func TestImportIntoStoreWithData(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	populate(t, st)
	before := takeSnapshot(t, st)
	var dump bytes.Buffer
	if _, err := st.Export(ctx, &dump); err != nil {
		t.Fatal(err)
	}
	if err := st.DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	// The store's own data: a scope with events.
	own := storetest.NewScope("own")
	ev := &domain.Event{Type: domain.EvScopeCreated, Context: domain.TransactionContext{SessionID: "s", RequestID: "own", MessageID: domain.NewID(),
		CausationID: "c", Timestamp: storetest.NewMemory("", "").CreatedAt, SourceContext: "Cortex"}}
	if _, err := st.CreateScope(ctx, domain.Request{}, own, []*domain.Event{ev}); err != nil {
		t.Fatal(err)
	}
	m := storetest.NewMemory(own.ID, "own memory")
	if _, err := st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{m}, []*domain.Event{{Type: domain.EvMemoryStored, ScopeID: own.ID,
		MemoryID: m.ID, Context: domain.TransactionContext{SessionID: "s", RequestID: "own", MessageID: domain.NewID(), CausationID: "c",
			Timestamp: m.CreatedAt, SourceContext: "Cortex"}}}); err != nil {
		t.Fatal(err)
	}
	head, _ := st.LastSeq(ctx)
	if _, err := st.Import(ctx, bytes.NewReader(dump.Bytes())); err != nil {
		t.Fatal(err)
	}
	after := takeSnapshot(t, st)
	// The store's own scope and events are still there, first.
	if len(after.Scopes) != len(before.Scopes)+1 || len(after.Events) != len(before.Events)+int(head) {
		t.Fatalf("after the import: %d scopes, %d events; want %d and %d", len(after.Scopes), len(after.Events), len(before.Scopes)+1, len(before.Events)+int(head))
	}
	var imported []*domain.Event
	for _, e := range after.Events {
		if e.Seq > head {
			imported = append(imported, e)
		}
	}
	for i, e := range before.Events {
		got := imported[i]
		if got.Seq != e.Seq+head {
			t.Fatalf("event %d: Seq %d, want %d (after the store's %d)", i, got.Seq, e.Seq+head, head)
		}
		moved := *e
		moved.Seq = got.Seq
		if !reflect.DeepEqual(&moved, got) {
			t.Fatalf("event %d:\nbefore %+v\nafter  %+v", i, e, got)
		}
	}
	mine := snapshot{}
	for _, sc := range after.Scopes {
		if sc.ID != own.ID {
			mine.Scopes = append(mine.Scopes, sc)
		}
	}
	for _, x := range after.Memories {
		if x.ScopeID != own.ID {
			mine.Memories = append(mine.Memories, x)
		}
	}
	if !reflect.DeepEqual(before.Scopes, mine.Scopes) || !reflect.DeepEqual(before.Memories, mine.Memories) ||
		!reflect.DeepEqual(before.Associations, after.Associations) {
		t.Fatalf("the dump's records changed: %d/%d scopes, %d/%d memories, %d/%d associations", len(mine.Scopes), len(before.Scopes),
			len(mine.Memories), len(before.Memories), len(after.Associations), len(before.Associations))
	}
	// The log goes on after the imported events.
	last, _ := st.LastSeq(ctx)
	if want := head + before.Events[len(before.Events)-1].Seq; last != want {
		t.Fatalf("LastSeq = %d, want %d", last, want)
	}
	// Once only: a second import is refused and writes nothing.
	_, err = st.Import(ctx, bytes.NewReader(dump.Bytes()))
	if err == nil || !strings.Contains(err.Error(), "already holds") {
		t.Fatalf("second import: %v, want a refusal", err)
	}
	if again := takeSnapshot(t, st); !reflect.DeepEqual(again, after) {
		t.Fatal("a refused import wrote")
	}
}

// TestImportMovesEventsAndConsumers imports a log of several batches into a store with events of
// its own: every event moves by the store's head, in order, and a log consumer's watermark
// moves with the events it had consumed.
func TestImportMovesEventsAndConsumers(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := st.CreateScope(ctx, domain.Request{}, storetest.NewScope("log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	query := func(scope string) *domain.Event {
		return &domain.Event{Type: domain.MsgSearchQuery, ScopeID: scope, Payload: map[string]any{"query": "q"},
			Context: domain.TransactionContext{SessionID: "s", RequestID: domain.NewID(), MessageID: domain.NewID(), CausationID: "c",
				Timestamp: storetest.NewMemory("", "").CreatedAt, SourceContext: "Cortex"}}
	}
	const n = 700 // three import batches
	for i := 0; i < n; i += 100 {
		evs := make([]*domain.Event, 100)
		for j := range evs {
			evs[j] = query(sc.ID)
		}
		if err := st.AppendEvents(ctx, evs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Consume(ctx, "salience", 420, func(uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	before, err := st.EventsSince(ctx, 0, 10000)
	if err != nil || len(before) != n {
		t.Fatalf("%d events (%v), want %d", len(before), err, n)
	}
	var dump bytes.Buffer
	if _, err := st.Export(ctx, &dump); err != nil {
		t.Fatal(err)
	}
	if err := st.DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	own, err := st.CreateScope(ctx, domain.Request{}, storetest.NewScope("own"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AppendEvents(ctx, []*domain.Event{query(own.ID), query(own.ID), query(own.ID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Import(ctx, bytes.NewReader(dump.Bytes())); err != nil {
		t.Fatal(err)
	}
	after, err := st.EventsSince(ctx, 3, 10000)
	if err != nil || len(after) != n {
		t.Fatalf("%d imported events (%v), want %d", len(after), err, n)
	}
	for i, e := range before {
		moved := *e
		moved.Seq += 3
		if !reflect.DeepEqual(&moved, after[i]) {
			t.Fatalf("event %d:\nbefore %+v\nafter  %+v", i, e, after[i])
		}
	}
	if last, _ := st.LastSeq(ctx); last != n+3 {
		t.Fatalf("LastSeq = %d, want %d", last, n+3)
	}
	w, found, err := st.ConsumerWatermark(ctx, "salience")
	if err != nil || !found || w != 423 {
		t.Fatalf("consumer watermark = %d, %v, %v; want 423", w, found, err)
	}
}
