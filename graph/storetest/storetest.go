// Package storetest is the conformance suite of domain.Store: every connector (the embedded
// engine, a Dgraph cluster) runs RunConformanceTests with a harness of its own and must pass
// every test. Tests check error codes, not messages, and promise only what the port promises.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Harness opens the store under test. The store may hold data from earlier subtests: every
// subtest works in scopes of its own. A harness that can open a second store on the same graph
// implements PeerHarness (multi.go).
type Harness interface {
	Store() domain.Store
}

// Nasty strings every string field must round-trip faithfully.
var Nasty = []string{
	`plain`,
	`"double" and 'single' quotes`,
	`back\slash \" \\n`,
	"line\nbreak\ttab\rcr",
	`<_:x> <p> "v" .`,
	`_:blank <0x1> * * .`,
	`{ q(func: has(tr.id)) { uid } }`,
	`@filter(eq(a, "b")) $var uid(x)`,
	"emoji 🧠💾 and CJK 記憶 and RTL ذاكرة",
	"zero\u200bwidth and combining e\u0301",
	"control \x01\x02\x7f chars",
	`# not a comment`,
	// Strings Dgraph's JSON mutations would not keep as strings: vectors and upsert functions.
	`[1, 2]`,
	" [0.5,\t0.25]\n",
	`uid(v)`,
	`val(x)`,
	`*`,
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// ctxFor returns a TransactionContext for a test message.
func ctxFor(typ string) domain.TransactionContext {
	id := domain.NewID()
	return domain.TransactionContext{SessionID: "s-" + typ, RequestID: domain.NewID(), MessageID: id,
		CausationID: id, Timestamp: t0, SourceContext: domain.CtxCortex}
}

// NewScope builds a scope with its kernels.
func NewScope(name string) *domain.Scope {
	id := domain.NewID()
	return &domain.Scope{ID: id, Name: name, CreatedAt: t0,
		AgentKernel: &domain.Kernel{ID: domain.NewID(), ScopeID: id, Family: domain.FamilyAgentKernel, UpdatedAt: t0},
		WorldKernel: &domain.Kernel{ID: domain.NewID(), ScopeID: id, Family: domain.FamilyWorldKernel, UpdatedAt: t0}}
}

// NewMemory builds a memory of scope with content.
func NewMemory(scopeID, content string) *domain.Memory {
	return &domain.Memory{ID: domain.NewID(), ScopeID: scopeID, Content: content, Kind: domain.KindEpisodic,
		Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext, Metadata: map[string]any{"k": "v"},
		Tags: []string{"t1"}, OccurredAt: t0, CreatedAt: t0, UpdatedAt: t0, Salience: 0.5,
		State: domain.StateActive, SessionID: "s", Version: 1}
}

func storedEvent(m *domain.Memory) *domain.Event {
	return &domain.Event{Type: domain.EvMemoryStored, ScopeID: m.ScopeID, MemoryID: m.ID, Context: ctxFor("store"),
		Payload: map[string]any{"content": m.Content}}
}

func mustScope(t *testing.T, st domain.Store) *domain.Scope {
	t.Helper()
	sc, err := st.CreateScope(context.Background(), domain.Request{}, NewScope("scope-"+t.Name()), nil)
	if err != nil {
		t.Fatalf("CreateScope: %v", err)
	}
	return sc
}

func mustInsert(t *testing.T, st domain.Store, ms ...*domain.Memory) {
	t.Helper()
	evs := make([]*domain.Event, len(ms))
	for i, m := range ms {
		evs[i] = storedEvent(m)
	}
	if _, err := st.InsertMemories(context.Background(), domain.Request{}, ms, evs); err != nil {
		t.Fatalf("InsertMemories: %v", err)
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := domain.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

// RunConformanceTests runs the whole suite against h's store.
func RunConformanceTests(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"ScopeWithKernels", testScopeWithKernels},
		{"ScopeNotFound", testScopeNotFound},
		{"InsertAndLoad", testInsertAndLoad},
		{"InsertIsAtomic", testInsertIsAtomic},
		{"NastyStringsRoundTrip", testNasty},
		{"ListFilterAndPages", testList},
		{"UpdateMemory", testUpdate},
		{"UpdateErrorWritesNothing", testUpdateError},
		{"ConcurrentUpdatesLoseNothing", testConcurrentUpdates},
		{"AssociationsBidirectional", testAssociations},
		{"CrossScopeReferenceRefused", testCrossScope},
		{"ConcurrentStrengthen", testConcurrentStrengthen},
		{"DeleteMemory", testDelete},
		{"RequestAppliedOnce", testRequestOnce},
		{"RequestConcurrentRetries", testRequestConcurrent},
		{"EventLog", testEventLog},
		{"Touches", testTouches},
		{"KernelUpdate", testKernel},
		{"HistoryBeyondOnePage", testLongHistory},
	}
	tests = append(tests, lifecycleTests()...)
	tests = append(tests, mnemonicTests()...)
	tests = append(tests, livingTests()...)
	tests = append(tests, noticeTests()...)
	tests = append(tests, exploreTests()...)
	tests = append(tests, synapseTests()...)
	tests = append(tests, storyTests()...)
	tests = append(tests, retentionTests()...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, h.Store()) })
	}
	// Two stores on one graph (multi.go).
	runMultiTests(t, h)
}

func testScopeWithKernels(t *testing.T, st domain.Store) {
	ctx := context.Background()
	in := NewScope(`scope "one" <_:x>`)
	if _, err := st.CreateScope(ctx, domain.Request{}, in, nil); err != nil {
		t.Fatal(err)
	}
	got, err := st.Scope(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != in.Name || got.AgentKernel == nil || got.WorldKernel == nil {
		t.Fatalf("scope = %+v, want name %q and both kernels", got, in.Name)
	}
	if got.AgentKernel.ID != in.AgentKernel.ID || got.WorldKernel.ID != in.WorldKernel.ID {
		t.Fatalf("kernels = %s/%s, want %s/%s", got.AgentKernel.ID, got.WorldKernel.ID, in.AgentKernel.ID, in.WorldKernel.ID)
	}
	all, err := st.Scopes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range all {
		found = found || s.ID == in.ID
	}
	if !found {
		t.Fatalf("Scopes does not list %s", in.ID)
	}
	// The same ids again: refused, nothing written.
	_, err = st.CreateScope(ctx, domain.Request{}, in, nil)
	wantCode(t, err, domain.ECONFLICT)
}

func testScopeNotFound(t *testing.T, st domain.Store) {
	for _, id := range []string{domain.NewID(), "not-a-uuid", `"); drop`, ""} {
		_, err := st.Scope(context.Background(), id)
		wantCode(t, err, domain.ENOTFOUND)
	}
}

func testInsertAndLoad(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "the user's birthday is March 3")
	m.Metadata = map[string]any{"source": "chat", "n": 3.0, "nested": map[string]any{"a": []any{"x", 1.0}}}
	m.Tags = []string{"birthday", "user"}
	claimed := t0.Add(time.Hour)
	m.ClaimedAt, m.Claimed = &claimed, true
	mustInsert(t, st, m)
	got, err := st.Memory(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != m.Content || got.ScopeID != sc.ID || got.Tier != m.Tier || got.Kind != m.Kind ||
		!got.OccurredAt.Equal(m.OccurredAt) || !got.Claimed || got.ClaimedAt == nil || !got.ClaimedAt.Equal(claimed) {
		t.Fatalf("loaded %+v, want %+v", got, m)
	}
	if fmt.Sprint(got.Metadata) != fmt.Sprint(m.Metadata) {
		t.Fatalf("metadata = %v, want %v", got.Metadata, m.Metadata)
	}
	if len(got.Tags) != 2 {
		t.Fatalf("tags = %v, want 2", got.Tags)
	}
	_, err = st.Memory(ctx, domain.NewID())
	wantCode(t, err, domain.ENOTFOUND)
	ms, err := st.Memories(ctx, []string{domain.NewID(), m.ID, "junk"})
	if err != nil || len(ms) != 1 || ms[0].ID != m.ID {
		t.Fatalf("Memories = %v, %v; want just %s", ms, err, m.ID)
	}
}

func testInsertIsAtomic(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	good := NewMemory(sc.ID, "good")
	orphan := NewMemory(domain.NewID(), "scope does not exist")
	_, err := st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{good, orphan}, nil)
	wantCode(t, err, domain.ENOTFOUND)
	if _, err := st.Memory(ctx, good.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a refused batch wrote %s (err %v)", good.ID, err)
	}
	dup := NewMemory(sc.ID, "dup")
	_, err = st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{dup, dup}, nil)
	wantCode(t, err, domain.ECONFLICT)
	mustInsert(t, st, good)
	_, err = st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{NewMemory(sc.ID, "x"), good}, nil)
	wantCode(t, err, domain.ECONFLICT)
	// An id any record holds is taken, its own scope's included.
	self := NewMemory(sc.ID, "named like its scope")
	self.ID = sc.ID
	_, err = st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{self}, nil)
	wantCode(t, err, domain.ECONFLICT)
	if got, err := st.Scope(ctx, sc.ID); err != nil || got.Name != sc.Name {
		t.Fatalf("the scope after a memory named like it was refused: %+v, %v", got, err)
	}
	// Ids drawn for the request are not looked up; one given to the memory and its scope is
	// still refused, and so is a scope that does not exist.
	fresh := domain.Request{FreshIDs: true}
	_, err = st.InsertMemories(ctx, fresh, []*domain.Memory{self}, nil)
	wantCode(t, err, domain.ECONFLICT)
	_, err = st.InsertMemories(ctx, fresh, []*domain.Memory{NewMemory(sc.ID, "x"), NewMemory(domain.NewID(), "y")}, nil)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = st.InsertMemories(ctx, fresh, []*domain.Memory{dup, dup}, nil)
	wantCode(t, err, domain.ECONFLICT)
	if got, err := st.Scope(ctx, sc.ID); err != nil || got.Name != sc.Name {
		t.Fatalf("the scope after a memory named like it was refused: %+v, %v", got, err)
	}
}

func testNasty(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	for i, s := range Nasty {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m := NewMemory(sc.ID, s)
			m.Tags = []string{s}
			m.Metadata = map[string]any{s: s}
			m.SessionID = s
			mustInsert(t, st, m)
			got, err := st.Memory(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != s || len(got.Tags) != 1 || got.Tags[0] != s || got.Metadata[s] != s || got.SessionID != s {
				t.Fatalf("round trip of %q gave content %q tags %q metadata %v session %q", s, got.Content, got.Tags, got.Metadata, got.SessionID)
			}
			page, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{Tags: []string{s}}, domain.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Memories) != 1 || page.Memories[0].ID != m.ID {
				t.Fatalf("tag filter %q found %d memories", s, len(page.Memories))
			}
		})
	}
}

func testList(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	other := mustScope(t, st)
	var ms []*domain.Memory
	for i := 0; i < 25; i++ {
		m := NewMemory(sc.ID, fmt.Sprintf("memory %d", i))
		m.OccurredAt = t0.Add(time.Duration(i%10) * time.Hour) // ties on purpose
		if i%2 == 0 {
			m.Tier = domain.TierLongTerm
			m.Tags = []string{"even"}
		}
		if i%5 == 0 {
			m.Kind = domain.KindSemantic
		}
		ms = append(ms, m)
	}
	mustInsert(t, st, ms...)
	mustInsert(t, st, NewMemory(other.ID, "other scope"))

	seen := map[string]bool{}
	var last time.Time
	after := ""
	pages := 0
	for {
		p, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 7, After: after})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if p.TotalCount != 25 {
			t.Fatalf("TotalCount = %d, want 25", p.TotalCount)
		}
		for _, m := range p.Memories {
			if seen[m.ID] {
				t.Fatalf("memory %s on two pages", m.ID)
			}
			if !last.IsZero() && m.OccurredAt.After(last) {
				t.Fatalf("not newest first: %v after %v", m.OccurredAt, last)
			}
			last = m.OccurredAt
			seen[m.ID] = true
		}
		if !p.HasNext {
			break
		}
		after = p.EndCursor
	}
	if len(seen) != 25 || pages != 4 {
		t.Fatalf("paged %d memories in %d pages, want 25 in 4", len(seen), pages)
	}
	cases := []struct {
		name string
		f    domain.MemoryFilter
		want int
	}{
		{"tier", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierLongTerm}}, 13},
		{"tiers", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierLongTerm, domain.TierActiveContext}}, 25},
		{"kind", domain.MemoryFilter{Kinds: []domain.MemoryKind{domain.KindSemantic}}, 5},
		{"tag", domain.MemoryFilter{Tags: []string{"even"}}, 13},
		{"tags all", domain.MemoryFilter{Tags: []string{"even", "t1"}}, 0},
		{"from", domain.MemoryFilter{From: ptr(t0.Add(5 * time.Hour))}, 10},
		{"to", domain.MemoryFilter{To: ptr(t0.Add(5 * time.Hour))}, 15},
		{"from to", domain.MemoryFilter{From: ptr(t0.Add(5 * time.Hour)), To: ptr(t0.Add(6 * time.Hour))}, 2},
		{"state", domain.MemoryFilter{States: []domain.LifecycleState{domain.StateArchived}}, 0},
		{"unclaimed", domain.MemoryFilter{Claimed: ptr(false)}, 25},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := st.ListMemories(ctx, sc.ID, c.f, domain.Page{First: 100})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(p.Memories); got != c.want || p.TotalCount != c.want {
				t.Fatalf("got %d (total %d), want %d", got, p.TotalCount, c.want)
			}
		})
	}
	_, err := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{After: "bogus"})
	wantCode(t, err, domain.EINVALID)
}

func ptr[T any](v T) *T { return &v }

func testUpdate(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "to claim")
	mustInsert(t, st, m)
	got, err := st.UpdateMemory(ctx, domain.Request{}, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
		x.Claimed, x.ClaimedAt, x.AccessCount = true, ptr(t0), x.AccessCount+1
		return []*domain.Event{{Type: domain.EvMemoryClaimed, ScopeID: x.ScopeID, MemoryID: x.ID, Context: ctxFor("claim")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Claimed || got.Version != m.Version+1 {
		t.Fatalf("updated = %+v", got)
	}
	again, _ := st.Memory(ctx, m.ID)
	if !again.Claimed || again.AccessCount != 1 || len(again.Tags) != 1 {
		t.Fatalf("reloaded = %+v", again)
	}
	_, err = st.UpdateMemory(ctx, domain.Request{}, domain.NewID(), func(*domain.Memory) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
	_, err = st.UpdateMemory(ctx, domain.Request{}, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
		x.ScopeID = domain.NewID()
		return nil, nil
	})
	wantCode(t, err, domain.EINVALID)
}

func testUpdateError(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "unchanged")
	mustInsert(t, st, m)
	before, _ := st.LastSeq(ctx)
	_, err := st.UpdateMemory(ctx, domain.Request{}, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
		x.Content = "changed"
		return nil, domain.Errorf(domain.EFORBIDDEN, "no")
	})
	wantCode(t, err, domain.EFORBIDDEN)
	got, _ := st.Memory(ctx, m.ID)
	if evs := scopeEventsSince(t, st, before, sc.ID); got.Content != "unchanged" || len(evs) != 0 {
		t.Fatalf("a refused update wrote: content %q, %d events", got.Content, len(evs))
	}
}

func testConcurrentUpdates(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "hot")
	mustInsert(t, st, m)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.UpdateMemory(ctx, domain.Request{}, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
				x.AccessCount++
				return []*domain.Event{{Type: domain.EvMemoryAccessed, ScopeID: x.ScopeID, MemoryID: x.ID, Context: ctxFor("a")}}, nil
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := st.Memory(ctx, m.ID)
	if got.AccessCount != n {
		t.Fatalf("access count = %d, want %d (lost updates)", got.AccessCount, n)
	}
	evs, _ := st.MemoryEvents(ctx, m.ID)
	if len(evs) != n+1 {
		t.Fatalf("%d events, want %d", len(evs), n+1)
	}
}

func strengthen(delta float64) domain.AssociationUpdate {
	return func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
		next := &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: src.ScopeID, Type: domain.AssocThematic, UpdatedAt: t0}
		if cur != nil {
			next.Strength = cur.Strength
		}
		next.Strength += delta
		if next.Strength > 1 {
			next.Strength = 1
		}
		return next, []*domain.Event{{Type: domain.EvAssociationStrengthened, ScopeID: src.ScopeID, MemoryID: src.ID, Context: ctxFor("assoc")}}, nil
	}
}

func testAssociations(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b, c := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c")
	mustInsert(t, st, a, b, c)
	if _, err := st.Associate(ctx, domain.Request{}, a.ID, b.ID, domain.AssocThematic, strengthen(0.25)); err != nil {
		t.Fatal(err)
	}
	// Strengthen from the other end: the same edge.
	if _, err := st.Associate(ctx, domain.Request{}, b.ID, a.ID, domain.AssocThematic, strengthen(0.5)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Associate(ctx, domain.Request{}, c.ID, a.ID, domain.AssocCausal, strengthen(0.1)); err != nil {
		t.Fatal(err)
	}
	for _, from := range []*domain.Memory{a, b} {
		got, err := st.Associations(ctx, from.ID, []domain.AssociationType{domain.AssocThematic}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Strength != 0.75 || got[0].SourceID != from.ID {
			t.Fatalf("from %s: %+v, want one THEMATIC edge of 0.75", from.Content, got)
		}
	}
	all, _ := st.Associations(ctx, a.ID, nil, 0)
	if len(all) != 2 || all[0].Strength < all[1].Strength {
		t.Fatalf("all from a = %+v, want 2 strongest first", all)
	}
	strong, _ := st.Associations(ctx, a.ID, nil, 0.5)
	if len(strong) != 1 {
		t.Fatalf("minStrength 0.5: %d, want 1", len(strong))
	}
	// Removing.
	if _, err := st.Associate(ctx, domain.Request{}, a.ID, c.ID, domain.AssocCausal,
		func(*domain.Association, *domain.Memory, *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return nil, nil, nil
		}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Associations(ctx, c.ID, nil, 0); len(got) != 0 {
		t.Fatalf("after removal c has %+v", got)
	}
	_, err := st.Associate(ctx, domain.Request{}, a.ID, a.ID, domain.AssocThematic, strengthen(0.1))
	wantCode(t, err, domain.EINVALID)
	_, err = st.Associate(ctx, domain.Request{}, a.ID, domain.NewID(), domain.AssocThematic, strengthen(0.1))
	wantCode(t, err, domain.ENOTFOUND)
}

func testCrossScope(t *testing.T, st domain.Store) {
	ctx := context.Background()
	s1, s2 := mustScope(t, st), mustScope(t, st)
	a, b := NewMemory(s1.ID, "mine"), NewMemory(s2.ID, "theirs")
	mustInsert(t, st, a, b)
	before, _ := st.LastSeq(ctx)
	_, err := st.Associate(ctx, domain.Request{}, a.ID, b.ID, domain.AssocPerson, strengthen(0.5))
	wantCode(t, err, domain.ECROSSSCOPE)
	_, err = st.Associate(ctx, domain.Request{}, b.ID, a.ID, domain.AssocPerson, strengthen(0.5))
	wantCode(t, err, domain.ECROSSSCOPE)
	for _, m := range []*domain.Memory{a, b} {
		if got, _ := st.Associations(ctx, m.ID, nil, 0); len(got) != 0 {
			t.Fatalf("cross-scope edge written: %+v", got)
		}
	}
	if evs := scopeEventsSince(t, st, before, s1.ID, s2.ID); len(evs) != 0 {
		t.Fatalf("refused reference wrote %d events", len(evs))
	}
}

func testConcurrentStrengthen(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b")
	mustInsert(t, st, a, b)
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			src, dst := a, b
			if i%2 == 1 {
				src, dst = b, a
			}
			_, err := st.Associate(ctx, domain.Request{}, src.ID, dst.ID, domain.AssocThematic, strengthen(1.0/64))
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, _ := st.Associations(ctx, a.ID, nil, 0)
	if len(got) != 1 || got[0].Strength != 0.5 {
		t.Fatalf("after %d concurrent strengthens of 1/64: %+v, want one edge of 0.5", n, got)
	}
}

func testDelete(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b := NewMemory(sc.ID, "doomed"), NewMemory(sc.ID, "survivor")
	mustInsert(t, st, a, b)
	if _, err := st.Associate(ctx, domain.Request{}, a.ID, b.ID, domain.AssocTemporal, strengthen(0.3)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Associate(ctx, domain.Request{}, b.ID, a.ID, domain.AssocCausal, strengthen(0.3)); err != nil {
		t.Fatal(err)
	}
	_, err := st.DeleteMemory(ctx, domain.Request{}, a.ID, func(m *domain.Memory) ([]*domain.Event, error) {
		return []*domain.Event{{Type: domain.EvMemoryDeleted, ScopeID: m.ScopeID, MemoryID: m.ID, Context: ctxFor("del")}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Memory(ctx, a.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("deleted memory still loads: %v", err)
	}
	if got, _ := st.Associations(ctx, b.ID, nil, 0); len(got) != 0 {
		t.Fatalf("associations to a deleted memory remain: %+v", got)
	}
	evs, _ := st.MemoryEvents(ctx, a.ID)
	if len(evs) != 3 || evs[2].Type != domain.EvMemoryDeleted {
		t.Fatalf("history of deleted memory = %d events", len(evs))
	}
	_, err = st.DeleteMemory(ctx, domain.Request{}, a.ID, func(*domain.Memory) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
}

func testRequestOnce(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	req := domain.Request{Op: "storeMemory", RequestID: domain.NewID(), Fingerprint: "f1"}
	m := NewMemory(sc.ID, "once")
	first, err := st.InsertMemories(ctx, req, []*domain.Memory{m}, []*domain.Event{storedEvent(m)})
	if err != nil {
		t.Fatal(err)
	}
	m2 := NewMemory(sc.ID, "once")
	again, err := st.InsertMemories(ctx, req, []*domain.Memory{m2}, []*domain.Event{storedEvent(m2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].ID != first[0].ID {
		t.Fatalf("retry returned %v, want the first result %s", again, first[0].ID)
	}
	if _, err := st.Memory(ctx, m2.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("retry was applied again")
	}
	req.Fingerprint = "different"
	_, err = st.InsertMemories(ctx, req, []*domain.Memory{NewMemory(sc.ID, "x")}, nil)
	wantCode(t, err, domain.ECONFLICT)
	// The same request id for another operation is another request.
	claim := domain.Request{Op: "claimMemory", RequestID: req.RequestID, Fingerprint: "c"}
	n := 0
	for i := 0; i < 3; i++ {
		if _, err := st.UpdateMemory(ctx, claim, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
			n++
			x.AccessCount++
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := st.Memory(ctx, m.ID); got.AccessCount != 1 || n != 1 {
		t.Fatalf("claim applied %d times (fn ran %d)", got.AccessCount, n)
	}
}

func testRequestConcurrent(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	req := domain.Request{Op: "storeMemory", RequestID: domain.NewID(), Fingerprint: "f"}
	const n = 8
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := NewMemory(sc.ID, "race")
			got, err := st.InsertMemories(ctx, req, []*domain.Memory{m}, []*domain.Event{storedEvent(m)})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- got[0].ID
		}()
	}
	wg.Wait()
	close(ids)
	distinct := map[string]bool{}
	for id := range ids {
		distinct[id] = true
	}
	p, _ := st.ListMemories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{})
	if len(distinct) != 1 || p.TotalCount != 1 {
		t.Fatalf("%d concurrent retries stored %d memories and returned %d ids", n, p.TotalCount, len(distinct))
	}
}

func testEventLog(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	before, err := st.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ms []*domain.Memory
	for i := 0; i < 5; i++ {
		ms = append(ms, NewMemory(sc.ID, fmt.Sprint(i)))
	}
	mustInsert(t, st, ms...)
	evs, err := st.EventsSince(ctx, before, 1000)
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	var prev uint64
	for _, e := range evs {
		if e.Seq <= prev {
			t.Fatalf("events not in Seq order: %d after %d", e.Seq, prev)
		}
		prev = e.Seq
		if e.ScopeID == sc.ID {
			mine++
			if !e.Context.Complete() {
				t.Fatalf("event with incomplete context: %+v", e.Context)
			}
		}
	}
	if mine != 5 && len(evs) < 1000 {
		t.Fatalf("%d events of the scope since %d, want 5", mine, before)
	}
	own := scopeEventsSince(t, st, before, sc.ID)
	if len(own) != 5 {
		t.Fatalf("%d events of the scope since %d, want 5", len(own), before)
	}
	last, _ := st.LastSeq(ctx)
	if last < before+5 {
		t.Fatalf("LastSeq %d, want ≥ %d", last, before+5)
	}
	limited, _ := st.EventsSince(ctx, before, 2)
	if len(limited) != 2 {
		t.Fatalf("limit 2 gave %d", len(limited))
	}
	reqEvs, _ := st.RequestEvents(ctx, own[0].Context.RequestID)
	if len(reqEvs) != 1 || reqEvs[0].ID() != own[0].ID() {
		t.Fatalf("RequestEvents = %v", reqEvs)
	}
	q := &domain.Event{Type: domain.MsgSearchQuery, ScopeID: sc.ID, Context: ctxFor("q"), Payload: map[string]any{"query": Nasty[4]}}
	if err := st.AppendEvents(ctx, []*domain.Event{q}); err != nil {
		t.Fatal(err)
	}
	got, _ := st.RequestEvents(ctx, q.Context.RequestID)
	if len(got) != 1 || got[0].Payload["query"] != Nasty[4] || got[0].Seq != q.Seq {
		t.Fatalf("appended query event = %+v", got)
	}
}

func testTouches(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "touched")
	ev := storedEvent(m)
	if _, err := st.InsertMemories(ctx, domain.Request{}, []*domain.Memory{m}, []*domain.Event{ev}); err != nil {
		t.Fatal(err)
	}
	err := st.RecordTouches(ctx, map[string][]domain.Touch{
		ev.ID():        {{Context: domain.CtxSalience, At: t0}, {Context: domain.CtxSynapse, At: t0.Add(time.Second)}},
		domain.NewID(): {{Context: domain.CtxIndex, At: t0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := st.MemoryEvents(ctx, m.ID)
	if len(evs) != 1 || len(evs[0].Touches) != 2 || evs[0].Touches[0].Context != domain.CtxSalience {
		t.Fatalf("touches = %+v", evs)
	}
}

func testKernel(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	k, err := st.UpdateKernel(ctx, domain.Request{}, sc.AgentKernel.ID, func(k *domain.Kernel) ([]*domain.Event, error) {
		k.Content = Nasty[4]
		return nil, nil
	})
	if err != nil || k.Content != Nasty[4] {
		t.Fatalf("UpdateKernel = %v, %v", k, err)
	}
	got, _ := st.Scope(ctx, sc.ID)
	if got.AgentKernel.Content != Nasty[4] || got.WorldKernel.Content != "" {
		t.Fatalf("kernels after update: %+v %+v", got.AgentKernel, got.WorldKernel)
	}
	_, err = st.UpdateKernel(ctx, domain.Request{}, domain.NewID(), func(*domain.Kernel) ([]*domain.Event, error) { return nil, nil })
	wantCode(t, err, domain.ENOTFOUND)
}

// Dgraph caps sorted results at 1000 nodes unless paged: a long history must still be whole.
func testLongHistory(t *testing.T, st domain.Store) {
	ctx := context.Background()
	sc := mustScope(t, st)
	m := NewMemory(sc.ID, "often recalled")
	mustInsert(t, st, m)
	const n = 2100
	req := ctxFor("long")
	_, err := st.UpdateMemory(ctx, domain.Request{}, m.ID, func(x *domain.Memory) ([]*domain.Event, error) {
		evs := make([]*domain.Event, n)
		for i := range evs {
			c := req
			c.MessageID = domain.NewID()
			evs[i] = &domain.Event{Type: domain.EvMemoryAccessed, ScopeID: x.ScopeID, MemoryID: x.ID, Context: c}
		}
		return evs, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.MemoryEvents(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != n+1 {
		t.Fatalf("history has %d events, want %d", len(h), n+1)
	}
	// One write's events are contiguous in the log (other servers may write between writes).
	for i := 2; i < len(h); i++ {
		if h[i].Seq != h[i-1].Seq+1 {
			t.Fatalf("history not whole and in order at %d: %d after %d", i, h[i].Seq, h[i-1].Seq)
		}
	}
	r, err := st.RequestEvents(ctx, req.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	// On a shared cluster other servers' consumers follow the log and may answer these events
	// (a SalienceScored keeps the request's id): such a message is caused by one of the request's.
	ids := map[string]bool{}
	accessed := 0
	for _, e := range r {
		ids[e.Context.MessageID] = true
		if e.Type == domain.EvMemoryAccessed {
			accessed++
		}
	}
	if accessed != n {
		t.Fatalf("request has %d MemoryAccessed messages of %d, want %d", accessed, len(r), n)
	}
	for _, e := range r {
		if e.Type != domain.EvMemoryAccessed && !ids[e.Context.CausationID] {
			t.Fatalf("request holds a %s not caused by any of its messages: %+v", e.Type, e.Context)
		}
	}
}

// scopeEventsSince returns the events of the given scopes after seq. Other writers may share
// the store (a cluster), so tests look at their own scopes, never at the global head.
func scopeEventsSince(t *testing.T, st domain.Store, seq uint64, scopes ...string) []*domain.Event {
	t.Helper()
	var out []*domain.Event
	for {
		evs, err := st.EventsSince(context.Background(), seq, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			for _, sc := range scopes {
				if e.ScopeID == sc {
					out = append(out, e)
				}
			}
		}
		if len(evs) < 1000 {
			return out
		}
		seq = evs[len(evs)-1].Seq
	}
}
