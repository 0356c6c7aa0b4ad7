package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The living memory's store capability (domain.LivingStore): scoring and tier moves,
// exactly-once consumers, sessions, traversal, reflection, consolidation and working memory.

func livingTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	wrap := func(fn func(*testing.T, domain.Store, domain.LivingStore)) func(*testing.T, domain.Store) {
		return func(t *testing.T, st domain.Store) {
			ls, ok := st.(domain.LivingStore)
			if !ok {
				t.Fatal("the store does not implement domain.LivingStore")
			}
			fn(t, st, ls)
		}
	}
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"LivingScoreRowsAndApply", wrap(testScoreRowsAndApply)},
		{"LivingSweepPages", wrap(testSweepPages)},
		{"LivingApplyAtMostOnce", wrap(testApplyAtMostOnce)},
		{"LivingConsumeExactlyOnce", wrap(testConsumeExactlyOnce)},
		{"LivingAccessesSkipDeleted", wrap(testAccessesSkipDeleted)},
		{"LivingAssociationSetsStayInScope", wrap(testAssociationSets)},
		{"LivingSessions", wrap(testSessions)},
		{"LivingNeighbours", wrap(testNeighbours)},
		{"LivingReflectRows", wrap(testReflectRows)},
		{"LivingConsolidate", wrap(testConsolidate)},
		{"LivingWorkingMemory", wrap(testWorkingMemory)},
	}
}

func associate(t *testing.T, st domain.Store, a, b *domain.Memory, at domain.AssociationType, strength float64) {
	t.Helper()
	if _, err := st.Associate(context.Background(), domain.Request{}, a.ID, b.ID, at,
		func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: src.ScopeID, Type: at, Strength: strength, UpdatedAt: t0}, nil, nil
		}); err != nil {
		t.Fatalf("Associate: %v", err)
	}
}

func mustLoad(t *testing.T, st domain.Store, id string) *domain.Memory {
	t.Helper()
	m, err := st.Memory(context.Background(), id)
	if err != nil {
		t.Fatalf("Memory(%s): %v", id, err)
	}
	return m
}

func ev(typ domain.EventType, scope, memory string) *domain.Event {
	return &domain.Event{Type: typ, ScopeID: scope, MemoryID: memory, Context: ctxFor(string(typ))}
}

func eventTypes(t *testing.T, st domain.Store, memoryID string) []string {
	t.Helper()
	evs, err := st.MemoryEvents(context.Background(), memoryID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type))
	}
	return out
}

func f64(v float64) *float64 { return &v }

func testScoreRowsAndApply(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b, c := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c")
	a.Importance, a.Claimed, a.ClaimedAt = 0.7, true, ptr(t0.Add(time.Hour))
	mustInsert(t, st, a, b, c)
	associate(t, st, a, b, domain.AssocCausal, 0.6)
	associate(t, st, c, a, domain.AssocThematic, 0.3)
	rows, err := ls.ScoreRows(ctx, []string{a.ID, b.ID, domain.NewID(), "junk"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2 (unknown ids left out)", len(rows))
	}
	byID := map[string]*domain.ScoreRow{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	ra := byID[a.ID]
	if ra == nil || ra.Importance != 0.7 || !ra.Claimed || ra.ClaimedAt == nil || ra.Scored || ra.Tier != a.Tier ||
		ra.ScopeID != sc.ID || !ra.CreatedAt.Equal(t0) || fmt.Sprintf("%.2f", ra.Connectivity) != "0.90" {
		t.Fatalf("row of a = %+v", ra)
	}
	cur := mustLoad(t, st, a.ID)
	scored := ev(domain.EvSalienceScored, sc.ID, "")
	moved := ev(domain.EvTierDemoted, sc.ID, a.ID)
	stale := ev(domain.EvTierDemoted, sc.ID, b.ID)
	at := t0.Add(48 * time.Hour)
	res, err := ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{
		{MemoryID: a.ID, Salience: 0.33, Potential: f64(0.5), Recency: f64(0.66), ScoredAt: &at, ReinforcedAt: &at,
			Tier: domain.TierLongTerm, ExpectVersion: cur.Version, Events: []*domain.Event{scored, moved}},
		{MemoryID: b.ID, Salience: 0.1, Tier: domain.TierArchive, ExpectVersion: 999, Events: []*domain.Event{stale}},
		{MemoryID: domain.NewID(), Salience: 0.2},
		{MemoryID: c.ID, Salience: 0.44},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 2 || res.Skipped != 2 || res.Moved != 1 {
		t.Fatalf("Apply = %+v, want 2 applied, 2 skipped, 1 moved", res)
	}
	got := mustLoad(t, st, a.ID)
	if got.Tier != domain.TierLongTerm || got.Salience != 0.33 || got.Version != cur.Version+1 || got.Content != "a" || !got.Claimed {
		t.Fatalf("a after apply = %+v", got)
	}
	if gb := mustLoad(t, st, b.ID); gb.Tier != b.Tier {
		t.Fatalf("b moved although its version did not match: %s", gb.Tier)
	}
	if gc := mustLoad(t, st, c.ID); gc.Salience != 0.44 || gc.Tier != c.Tier {
		t.Fatalf("c = %+v", gc)
	}
	rows, _ = ls.ScoreRows(ctx, []string{a.ID})
	if r := rows[0]; !r.Scored || r.Potential != 0.5 || r.Recency != 0.66 || !r.ScoredAt.Equal(at) {
		t.Fatalf("checkpoint of a = %+v", r)
	}
	if h := eventTypes(t, st, a.ID); h[len(h)-1] != string(domain.EvTierDemoted) {
		t.Fatalf("history of a = %v, want the applied TierDemoted last", h)
	}
	for _, e := range eventTypes(t, st, b.ID) {
		if e == string(domain.EvTierDemoted) {
			t.Fatal("the event of a skipped update was written")
		}
	}
	// Out-of-range values are refused and write nothing.
	_, err = ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{MemoryID: c.ID, Salience: 1.5}}}, nil)
	wantCode(t, err, domain.EINVALID)
	_, err = ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{MemoryID: c.ID, Salience: 0.9}, {MemoryID: a.ID, Salience: 0.5, Tier: "HEAVEN"}}}, nil)
	wantCode(t, err, domain.EINVALID)
	if gc := mustLoad(t, st, c.ID); gc.Salience != 0.44 {
		t.Fatalf("a refused Apply wrote c's salience %v", gc.Salience)
	}
}

func testSweepPages(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc, other := mustScope(t, st), mustScope(t, st)
	want := map[string]bool{}
	var ms []*domain.Memory
	for i := 0; i < 25; i++ {
		m := NewMemory(sc.ID, fmt.Sprint("active ", i))
		want[m.ID] = true
		ms = append(ms, m)
	}
	for i := 0; i < 5; i++ {
		m := NewMemory(sc.ID, fmt.Sprint("long ", i))
		m.Tier = domain.TierLongTerm
		ms = append(ms, m)
		ms = append(ms, NewMemory(other.ID, fmt.Sprint("other ", i)))
	}
	mustInsert(t, st, ms...)
	got := map[string]bool{}
	var refs []string
	cursor, pages := "", 0
	for {
		rows, next, err := ls.SweepPage(ctx, sc.ID, domain.TierActiveContext, cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range rows {
			if got[r.Ref] || r.Ref == "" || r.ScopeID != sc.ID || r.Tier != domain.TierActiveContext || r.Scored || r.Full {
				t.Fatalf("page %d: unexpected row %+v", pages, r)
			}
			got[r.Ref] = true
			refs = append(refs, r.Ref)
		}
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		cursor = next
	}
	full, err := ls.ScoreRowsByRef(ctx, append(refs, "0x7fffffffffffffff", "junk"), true)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, r := range full {
		if !want[r.ID] || !r.Full || r.Version != 1 {
			t.Fatalf("full row %+v", r)
		}
		ids[r.ID] = true
	}
	if len(ids) != 25 {
		t.Fatalf("swept %d memories, want 25", len(ids))
	}
	// A sweep's refresh addresses memories by ref; a memory deleted meanwhile stays deleted.
	gone := full[0]
	if _, err := st.DeleteMemory(ctx, domain.Request{}, gone.ID, func(*domain.Memory) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	res, err := ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{Ref: gone.Ref, Salience: 0.2}, {Ref: full[1].Ref, Salience: 0.2},
		{Ref: full[2].Ref, MemoryID: full[2].ID, Salience: 0.3, Potential: f64(0.6), Recency: f64(0.5), ScoredAt: &at}}}, nil)
	if err != nil || res.Applied != 2 || res.Skipped != 1 {
		t.Fatalf("refresh by ref = %+v, %v", res, err)
	}
	if m := mustLoad(t, st, full[1].ID); m.Salience != 0.2 {
		t.Fatalf("refreshed salience = %v", m.Salience)
	}
	if _, err := st.Memory(ctx, gone.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a refresh brought a deleted memory back: %v", err)
	}
	for _, whole := range []bool{true, false} {
		again, err := ls.ScoreRowsByRef(ctx, []string{full[2].Ref}, whole)
		if err != nil || len(again) != 1 {
			t.Fatalf("ScoreRowsByRef(full=%v) = %v, %v", whole, again, err)
		}
		r := again[0]
		if !r.Scored || r.Potential != 0.6 || r.Recency != 0.5 || !r.ScoredAt.Equal(at) || r.ScoredVersion != r.Version ||
			r.ScoredClaimed || r.ID != full[2].ID || r.Full != whole || r.Salience != 0.3 || r.Tier != domain.TierActiveContext {
			t.Fatalf("checkpoint (full=%v) = %+v", whole, r)
		}
	}
	// A page row carries the checkpoint and the score written with it; a refresh keeps the one
	// and changes the other.
	if _, err := ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{Ref: full[2].Ref, Salience: 0.25}}}, nil); err != nil {
		t.Fatal(err)
	}
	page, _, _ := ls.SweepPage(ctx, sc.ID, domain.TierActiveContext, "", 100)
	for _, r := range page {
		if r.Ref == full[2].Ref && (!r.Scored || r.Salience != 0.25 || r.Potential != 0.6 || !r.ScoredAt.Equal(at)) {
			t.Fatalf("page row after a refresh = %+v", r)
		}
	}
	if m := mustLoad(t, st, full[2].ID); m.Salience != 0.25 {
		t.Fatalf("refreshed salience = %v", m.Salience)
	}
	_, err = ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{Ref: "0x1) { q(func: has(tr.id)) { uid } }", Salience: 0.2}}}, nil)
	wantCode(t, err, domain.EINVALID)
	_, err = ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{Ref: full[3].Ref, Salience: 0.2, Potential: f64(0.5)}}}, nil)
	wantCode(t, err, domain.EINVALID)
	rows, _, err := ls.SweepPage(ctx, sc.ID, domain.TierLongTerm, "", 100)
	if err != nil || len(rows) != 5 {
		t.Fatalf("LONG_TERM page: %d rows, %v", len(rows), err)
	}
	for _, bad := range append([]string{"0xZZ", "1", "0x1) { q(func: has(tr.id)) { uid } }"}, Nasty...) {
		_, _, err := ls.SweepPage(ctx, sc.ID, domain.TierActiveContext, bad, 10)
		wantCode(t, err, domain.EINVALID)
	}
	_, _, err = ls.SweepPage(ctx, sc.ID, "HEAVEN", "", 10)
	wantCode(t, err, domain.EINVALID)
}

func testApplyAtMostOnce(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	req := domain.Request{Op: "livingTest", RequestID: domain.NewID(), Fingerprint: "f1"}
	type result struct{ N int }
	if ok, err := ls.Replay(ctx, req, &result{}); ok || err != nil {
		t.Fatalf("Replay before = %v, %v", ok, err)
	}
	e1 := ev("LivingTestEvent", sc.ID, "")
	if _, err := ls.Apply(ctx, &req, &domain.Changes{Events: []*domain.Event{e1}}, result{N: 7}); err != nil {
		t.Fatal(err)
	}
	e2 := ev("LivingTestEvent", sc.ID, "")
	if _, err := ls.Apply(ctx, &req, &domain.Changes{Events: []*domain.Event{e2}}, result{N: 8}); err != nil {
		t.Fatal(err)
	}
	var got result
	if ok, err := ls.Replay(ctx, req, &got); !ok || err != nil || got.N != 7 {
		t.Fatalf("Replay = %v %v %+v, want the first result 7", ok, err, got)
	}
	evs, err := st.RequestEvents(ctx, e2.Context.RequestID)
	if err != nil || len(evs) != 0 {
		t.Fatalf("a replayed Apply wrote events: %v %v", evs, err)
	}
	other := req
	other.Fingerprint = "f2"
	_, err = ls.Apply(ctx, &other, &domain.Changes{}, result{N: 9})
	wantCode(t, err, domain.ECONFLICT)
	_, err = ls.Replay(ctx, other, &got)
	wantCode(t, err, domain.ECONFLICT)
}

func testConsumeExactlyOnce(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	name := fmt.Sprintf("test-%d", time.Now().UnixNano()%1e9)
	if _, found, err := ls.ConsumerWatermark(ctx, name); found || err != nil {
		t.Fatalf("fresh consumer: found=%v err=%v", found, err)
	}
	// A consumer's first commit is recorded even at 0: a restart resumes from it.
	if _, err := ls.Consume(ctx, name+"-zero", 0, func(uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if w, found, err := ls.ConsumerWatermark(ctx, name+"-zero"); !found || w != 0 || err != nil {
		t.Fatalf("a consumer started at 0: %d %v %v", w, found, err)
	}
	// Several servers race to consume the same batches: each batch's event is written once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var written []string
	for server := 0; server < 4; server++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for upTo := uint64(1); upTo <= 5; upTo++ {
				var e *domain.Event
				if _, err := ls.Consume(ctx, name, upTo, func(w uint64) (*domain.Changes, error) {
					e = nil
					if w >= upTo {
						return nil, nil
					}
					e = ev("LivingConsumed", sc.ID, "")
					e.Payload = map[string]any{"batch": upTo}
					return &domain.Changes{Events: []*domain.Event{e}}, nil
				}); err != nil {
					t.Error(err)
					return
				}
				if e != nil {
					mu.Lock()
					written = append(written, e.Context.RequestID)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(written) != 5 {
		t.Fatalf("%d batches written, want exactly 5", len(written))
	}
	for _, rid := range written {
		if evs, _ := st.RequestEvents(ctx, rid); len(evs) != 1 {
			t.Fatalf("batch event %s persisted %d times", rid, len(evs))
		}
	}
	if w, found, err := ls.ConsumerWatermark(ctx, name); !found || err != nil || w != 5 {
		t.Fatalf("watermark = %d %v %v, want 5", w, found, err)
	}
	// The watermark never moves back.
	if _, err := ls.Consume(ctx, name, 3, func(w uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if w, _, _ := ls.ConsumerWatermark(ctx, name); w != 5 {
		t.Fatalf("watermark moved back to %d", w)
	}
	// A failing batch writes nothing.
	boom := domain.Errorf(domain.EINTERNAL, "boom")
	if _, err := ls.Consume(ctx, name, 9, func(w uint64) (*domain.Changes, error) { return nil, boom }); err != boom {
		t.Fatalf("Consume = %v, want fn's error", err)
	}
	if w, _, _ := ls.ConsumerWatermark(ctx, name); w != 5 {
		t.Fatalf("a failed batch moved the watermark to %d", w)
	}
	for _, bad := range append([]string{"", "UPPER", "a b"}, Nasty[1:]...) {
		_, err := ls.Consume(ctx, bad, 1, func(uint64) (*domain.Changes, error) { return nil, nil })
		wantCode(t, err, domain.EINVALID)
	}
}

func testAccessesSkipDeleted(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, gone := NewMemory(sc.ID, "kept"), NewMemory(sc.ID, "gone")
	mustInsert(t, st, a, gone)
	if _, err := st.DeleteMemory(ctx, domain.Request{}, gone.ID, func(*domain.Memory) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Hour)
	if _, err := ls.Apply(ctx, nil, &domain.Changes{
		Accesses: []domain.Access{{MemoryID: a.ID, At: at}, {MemoryID: a.ID, At: t0}, {MemoryID: gone.ID, At: at}},
		Events:   []*domain.Event{ev(domain.EvMemoryAccessed, sc.ID, a.ID), ev(domain.EvMemoryAccessed, sc.ID, gone.ID)},
		Scores:   []domain.ScoreUpdate{{MemoryID: gone.ID, Salience: 0.9}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	got := mustLoad(t, st, a.ID)
	if got.AccessCount != 2 || got.LastAccessedAt == nil || !got.LastAccessedAt.Equal(at) {
		t.Fatalf("accesses of a: count %d last %v", got.AccessCount, got.LastAccessedAt)
	}
	if _, err := st.Memory(ctx, gone.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a deleted memory came back: %v", err)
	}
	for _, e := range eventTypes(t, st, gone.ID) {
		if e == string(domain.EvMemoryAccessed) {
			t.Fatal("a retrieval of a deleted memory entered its history")
		}
	}
}

func testAssociationSets(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	s1, s2 := mustScope(t, st), mustScope(t, st)
	a, b := NewMemory(s1.ID, "a"), NewMemory(s1.ID, "b")
	x := NewMemory(s2.ID, "x")
	mustInsert(t, st, a, b, x)
	associate(t, st, a, b, domain.AssocEmotional, 0.4)
	if _, err := ls.Apply(ctx, nil, &domain.Changes{Associations: []domain.AssociationSet{
		{SourceID: b.ID, TargetID: a.ID, Type: domain.AssocEmotional, Strength: 0.8, UpdatedAt: t0}}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{a.ID, b.ID} {
		as, _ := st.Associations(ctx, from, nil, 0)
		if len(as) != 1 || as[0].Strength != 0.8 {
			t.Fatalf("from %s: %+v, want one edge of 0.8", from, as)
		}
	}
	_, err := ls.Apply(ctx, nil, &domain.Changes{Associations: []domain.AssociationSet{
		{SourceID: a.ID, TargetID: x.ID, Type: domain.AssocEmotional, Strength: 0.5, UpdatedAt: t0}},
		Events: []*domain.Event{ev("LivingShouldNotExist", s1.ID, a.ID)}}, nil)
	wantCode(t, err, domain.ECROSSSCOPE)
	if as, _ := st.Associations(ctx, x.ID, nil, 0); len(as) != 0 {
		t.Fatalf("cross-scope association written: %+v", as)
	}
	for _, e := range eventTypes(t, st, a.ID) {
		if e == "LivingShouldNotExist" {
			t.Fatal("a refused Apply wrote its events")
		}
	}
	_, err = ls.Apply(ctx, nil, &domain.Changes{Associations: []domain.AssociationSet{
		{SourceID: a.ID, TargetID: b.ID, Type: domain.AssocEmotional, Strength: 0, UpdatedAt: t0}}}, nil)
	wantCode(t, err, domain.EINVALID)
}

func testSessions(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	for i, inst := range Nasty {
		inst := fmt.Sprint(inst, " ", time.Now().UnixNano())
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sess := &domain.Session{ID: domain.NewID(), ScopeID: sc.ID, InstanceID: inst, MindType: Nasty[len(Nasty)-1-i],
				StartedAt: t0, LastHeartbeatAt: t0, Mode: domain.ModeTask, ModeSince: t0}
			req := domain.Request{Op: "livingSessionTest", RequestID: domain.NewID(), Fingerprint: "x"}
			var id string
			start := func(active []*domain.Session) (*domain.Changes, any, error) {
				if len(active) != 0 {
					return nil, nil, fmt.Errorf("%d active sessions before the start", len(active))
				}
				return &domain.Changes{Sessions: []*domain.Session{sess}, Events: []*domain.Event{ev(domain.MsgSessionStart, sc.ID, "")}}, sess.ID, nil
			}
			if err := ls.UpdateSessions(ctx, &req, inst, start, &id); err != nil || id != sess.ID {
				t.Fatalf("start: %v, id %q", err, id)
			}
			// Retried: the first result, nothing new.
			id = ""
			if err := ls.UpdateSessions(ctx, &req, inst, start, &id); err != nil || id != sess.ID {
				t.Fatalf("replayed start: %v, id %q", err, id)
			}
			got, err := ls.Session(ctx, sess.ID)
			if err != nil || got.InstanceID != inst || got.MindType != sess.MindType || !got.Active() || got.Mode != domain.ModeTask {
				t.Fatalf("Session = %+v, %v", got, err)
			}
			if ss, err := ls.Sessions(ctx, []string{sess.ID, domain.NewID(), "junk"}); err != nil || len(ss) != 1 || ss[0].ID != sess.ID {
				t.Fatalf("Sessions = %+v, %v", ss, err)
			}
			m1, m2 := domain.NewID(), domain.NewID()
			if _, err := ls.Apply(ctx, nil, &domain.Changes{SessionMemories: []domain.SessionMemories{
				{SessionID: sess.ID, MemoryIDs: []string{m1}}, {SessionID: sess.ID, MemoryIDs: []string{m2, m1}}}}, nil); err != nil {
				t.Fatal(err)
			}
			active, err := ls.ActiveSessions(ctx, 100000)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, s := range active {
				found = found || s.ID == sess.ID
			}
			if !found {
				t.Fatal("ActiveSessions does not list the session")
			}
			end := t0.Add(time.Duration(90+i) * time.Minute)
			if err := ls.UpdateSessions(ctx, nil, inst, func(active []*domain.Session) (*domain.Changes, any, error) {
				if len(active) != 1 || active[0].ID != sess.ID {
					return nil, nil, fmt.Errorf("active = %+v", active)
				}
				s := active[0].Clone()
				s.EndedAt, s.EndReason = &end, domain.EndTimeout
				return &domain.Changes{Sessions: []*domain.Session{s}}, nil, nil
			}, nil); err != nil {
				t.Fatal(err)
			}
			got, _ = ls.Session(ctx, sess.ID)
			sort.Strings(got.MemoryIDs)
			want := []string{m1, m2}
			sort.Strings(want)
			if got.Active() || got.EndReason != domain.EndTimeout || fmt.Sprint(got.MemoryIDs) != fmt.Sprint(want) {
				t.Fatalf("ended session = %+v", got)
			}
			last, err := ls.LastEndedSession(ctx, sc.ID)
			if err != nil || last == nil || last.ID != sess.ID {
				t.Fatalf("LastEndedSession = %+v, %v", last, err)
			}
		})
	}
	// The last ended session is the scope's own.
	other := mustScope(t, st)
	if last, err := ls.LastEndedSession(ctx, other.ID); last != nil || err != nil {
		t.Fatalf("a fresh scope's last session = %+v, %v", last, err)
	}
	// A session of an unknown scope, or of another instance, is refused and writes nothing.
	ghost := &domain.Session{ID: domain.NewID(), ScopeID: domain.NewID(), InstanceID: "ghost", StartedAt: t0, LastHeartbeatAt: t0}
	err := ls.UpdateSessions(ctx, nil, "ghost", func([]*domain.Session) (*domain.Changes, any, error) {
		return &domain.Changes{Sessions: []*domain.Session{ghost}}, nil, nil
	}, nil)
	wantCode(t, err, domain.ENOTFOUND)
	_, err = ls.Session(ctx, ghost.ID)
	wantCode(t, err, domain.ENOTFOUND)
	thief := &domain.Session{ID: domain.NewID(), ScopeID: sc.ID, InstanceID: "someone else", StartedAt: t0, LastHeartbeatAt: t0}
	err = ls.UpdateSessions(ctx, nil, "me", func([]*domain.Session) (*domain.Changes, any, error) {
		return &domain.Changes{Sessions: []*domain.Session{thief}}, nil, nil
	}, nil)
	wantCode(t, err, domain.EINVALID)
}

func testNeighbours(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	a, b, c, d := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c"), NewMemory(sc.ID, "d")
	d.State = domain.StateArchived
	mustInsert(t, st, a, b, c, d)
	associate(t, st, a, b, domain.AssocCausal, 0.8)
	associate(t, st, c, b, domain.AssocThematic, 0.2)
	associate(t, st, a, d, domain.AssocPerson, 0.9)
	edges, err := ls.Neighbours(ctx, []string{a.ID}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != 1 || edges[0].From != a.ID || edges[0].To != b.ID || edges[0].Type != domain.AssocCausal || edges[0].Strength != 0.8 {
		t.Fatalf("Neighbours(a, 0.3) = %+v, want only b (d is archived)", edges)
	}
	edges, _ = ls.Neighbours(ctx, []string{b.ID}, 0.1)
	got := map[string]float64{}
	for _, e := range edges {
		got[e.To] = e.Strength
	}
	if len(got) != 2 || got[a.ID] != 0.8 || got[c.ID] != 0.2 {
		t.Fatalf("Neighbours(b, 0.1) = %+v, want a and c from both directions", edges)
	}
	if edges, _ := ls.Neighbours(ctx, []string{b.ID}, 0.9); len(edges) != 0 {
		t.Fatalf("floor 0.9: %+v", edges)
	}
	if edges, err := ls.Neighbours(ctx, []string{domain.NewID(), "junk"}, 0); err != nil || len(edges) != 0 {
		t.Fatalf("unknown sources: %+v %v", edges, err)
	}
	_, err = ls.Neighbours(ctx, []string{a.ID}, 1.5)
	wantCode(t, err, domain.EINVALID)
}

func testReflectRows(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	old, fresh, lonely, span := NewMemory(sc.ID, "old"), NewMemory(sc.ID, "fresh"), NewMemory(sc.ID, "lonely"), NewMemory(sc.ID, "span")
	span.OccurredAt = t0.Add(-30 * 24 * time.Hour)
	span.Tier = domain.TierLongTerm
	archived := NewMemory(sc.ID, "archived")
	archived.State = domain.StateArchived
	mustInsert(t, st, old, fresh, lonely, span, archived)
	associate(t, st, old, fresh, domain.AssocCausal, 0.9)
	associate(t, st, old, span, domain.AssocCausal, 0.2)
	longAgo, recent := t0.Add(-60*24*time.Hour), t0.Add(-time.Hour)
	if _, err := ls.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{
		{MemoryID: old.ID, Salience: 0.5, ReinforcedAt: &longAgo},
		{MemoryID: fresh.ID, Salience: 0.5, ReinforcedAt: &recent},
		{MemoryID: lonely.ID, Salience: 0.5, ReinforcedAt: &recent},
		{MemoryID: span.ID, Salience: 0.5, ReinforcedAt: &recent},
	}}, nil); err != nil {
		t.Fatal(err)
	}
	rows := func(f domain.ReflectFilter) map[string]*domain.ReflectRow {
		t.Helper()
		out := map[string]*domain.ReflectRow{}
		cursor := ""
		for {
			rs, next, err := ls.ReflectRows(ctx, sc.ID, f, cursor, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				out[r.Memory.Content] = r
			}
			if next == "" {
				return out
			}
			cursor = next
		}
	}
	all := rows(domain.ReflectFilter{Weak: true})
	if len(all) != 4 || all["archived"] != nil {
		t.Fatalf("weak scan = %d rows, want the 4 active", len(all))
	}
	if r := all["old"]; r.Associations != 2 || r.Strongest != 0.9 || r.ReinforcedAt == nil || !r.ReinforcedAt.Equal(longAgo) {
		t.Fatalf("old = %+v", r)
	}
	if r := all["lonely"]; r.Associations != 0 || r.Strongest != 0 {
		t.Fatalf("lonely = %+v", r)
	}
	cut := t0.Add(-24 * time.Hour)
	if got := rows(domain.ReflectFilter{StaleBefore: &cut}); len(got) != 1 || got["old"] == nil {
		t.Fatalf("stale rows = %v, want old", keys(got))
	}
	from, to := t0.Add(-40*24*time.Hour), t0.Add(-20*24*time.Hour)
	if got := rows(domain.ReflectFilter{From: &from, To: &to}); len(got) != 1 || got["span"] == nil {
		t.Fatalf("span rows = %v, want span", keys(got))
	}
	if got := rows(domain.ReflectFilter{Weak: true, Tiers: []domain.Tier{domain.TierLongTerm}}); len(got) != 1 || got["span"] == nil {
		t.Fatalf("LONG_TERM rows = %v", keys(got))
	}
	_, _, err := ls.ReflectRows(ctx, sc.ID, domain.ReflectFilter{Tiers: []domain.Tier{"NOPE"}}, "", 10)
	wantCode(t, err, domain.EINVALID)
}

func keys(m map[string]*domain.ReflectRow) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func testConsolidate(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc, other := mustScope(t, st), mustScope(t, st)
	a, b, c, nb := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c"), NewMemory(sc.ID, "neighbour")
	x := NewMemory(other.ID, "x")
	mustInsert(t, st, a, b, c, nb, x)
	associate(t, st, a, nb, domain.AssocThematic, 0.3)
	associate(t, st, b, nb, domain.AssocThematic, 0.7)
	associate(t, st, a, b, domain.AssocCausal, 0.9) // between sources: not carried over
	merge := func(content string) domain.MemoryMerge {
		return func(src []*domain.Memory) (*domain.Memory, []*domain.Event, error) {
			m := NewMemory(src[0].ScopeID, content)
			return m, []*domain.Event{ev(domain.EvMemoryStored, m.ScopeID, m.ID), ev(domain.EvMemoryConsolidated, m.ScopeID, src[0].ID)}, nil
		}
	}
	// Refusals write nothing.
	_, err := ls.Consolidate(ctx, domain.Request{}, []string{a.ID, x.ID}, merge("nope"))
	wantCode(t, err, domain.ECROSSSCOPE)
	_, err = ls.Consolidate(ctx, domain.Request{}, []string{a.ID, domain.NewID()}, merge("nope"))
	wantCode(t, err, domain.ENOTFOUND)
	if ga := mustLoad(t, st, a.ID); ga.State != domain.StateActive {
		t.Fatalf("a refused consolidation changed a: %s", ga.State)
	}
	before := map[string]int64{a.ID: mustLoad(t, st, a.ID).Version, b.ID: mustLoad(t, st, b.ID).Version}
	req := domain.Request{Op: "livingConsolidate", RequestID: domain.NewID(), Fingerprint: "1"}
	m, err := ls.Consolidate(ctx, req, []string{a.ID, b.ID}, merge("a and b"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := ls.Consolidate(ctx, req, []string{a.ID, b.ID}, merge("a and b"))
	if err != nil || again.ID != m.ID {
		t.Fatalf("retried consolidation = %v, %v; want the first result", again, err)
	}
	if got := mustLoad(t, st, m.ID); got.Content != "a and b" || got.State != domain.StateActive {
		t.Fatalf("consolidated = %+v", got)
	}
	for _, src := range []*domain.Memory{a, b} {
		got := mustLoad(t, st, src.ID)
		if got.State != domain.StateArchived || got.Version != before[src.ID]+1 {
			t.Fatalf("source %s = %s v%d, want ARCHIVED v%d", src.Content, got.State, got.Version, before[src.ID]+1)
		}
		l, err := ls.Lineage(ctx, src.ID)
		if err != nil || l.Into != m.ID {
			t.Fatalf("lineage of %s = %+v, %v", src.Content, l, err)
		}
	}
	l, err := ls.Lineage(ctx, m.ID)
	sort.Strings(l.From)
	want := []string{a.ID, b.ID}
	sort.Strings(want)
	if err != nil || l.Into != "" || fmt.Sprint(l.From) != fmt.Sprint(want) {
		t.Fatalf("lineage of the result = %+v, %v", l, err)
	}
	as, _ := st.Associations(ctx, m.ID, nil, 0)
	if len(as) != 1 || as[0].TargetID != nb.ID || as[0].Strength != 0.7 || as[0].Type != domain.AssocThematic {
		t.Fatalf("consolidated associations = %+v, want the strongest to the neighbour only", as)
	}
	_, err = ls.Consolidate(ctx, domain.Request{}, []string{a.ID, c.ID}, merge("again"))
	wantCode(t, err, domain.ECONFLICT)
	_, err = ls.Lineage(ctx, domain.NewID())
	wantCode(t, err, domain.ENOTFOUND)
}

func testWorkingMemory(t *testing.T, st domain.Store, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	if wm, err := ls.WorkingMemory(ctx, sc.ID); wm != nil || err != nil {
		t.Fatalf("fresh scope's working memory = %+v, %v", wm, err)
	}
	for i, nasty := range Nasty {
		wm := &domain.WorkingMemory{ScopeID: sc.ID, Context: nasty, Capacity: i + 1, UpdatedAt: t0,
			Items: []domain.WorkingItem{{MemoryID: domain.NewID(), Relevance: 0.5, AddedAt: t0}}}
		if _, err := ls.Apply(ctx, nil, &domain.Changes{WorkingMemory: []*domain.WorkingMemory{wm}}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := ls.WorkingMemory(ctx, sc.ID)
		if err != nil || got.Context != nasty || got.Capacity != i+1 || len(got.Items) != 1 || got.Items[0].MemoryID != wm.Items[0].MemoryID {
			t.Fatalf("working memory = %+v, %v", got, err)
		}
	}
	_, err := ls.Apply(ctx, nil, &domain.Changes{WorkingMemory: []*domain.WorkingMemory{{ScopeID: domain.NewID()}}}, nil)
	wantCode(t, err, domain.ENOTFOUND)
}
