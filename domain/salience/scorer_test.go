package salience

import (
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func evAt(typ domain.EventType, memoryID string, at time.Time) *domain.Event {
	id := domain.NewID()
	return &domain.Event{Type: typ, ScopeID: "s", MemoryID: memoryID, Context: domain.TransactionContext{SessionID: "sess",
		RequestID: "req-" + string(typ), MessageID: id, CausationID: id, Timestamp: at, SourceContext: domain.CtxHippocampus}}
}

func TestScorerPlan(t *testing.T) {
	now := t0.Add(time.Hour)
	s := &Scorer{Params: DefaultParams(), Now: func() time.Time { return now }}
	stored := &domain.ScoreRow{ID: "m1", ScopeID: "s", Tier: domain.TierLongTerm, Importance: 1, Version: 1, Salience: Initial(1)}
	accessed := &domain.ScoreRow{ID: "m2", ScopeID: "s", Tier: domain.TierLongTerm, Importance: 1, AccessCount: 1, Version: 3,
		Scored: true, Potential: Initial(1), Recency: 0.2, ScoredAt: t0.Add(-30 * day), Salience: 0.1}
	assoc := &domain.ScoreRow{ID: "m3", ScopeID: "s", Tier: domain.TierActiveContext, Connectivity: 0.5, Version: 2,
		Scored: true, Potential: 0.25, Recency: 0.5, ScoredAt: t0.Add(-7 * day), Salience: 0.125}
	rows := map[string]*domain.ScoreRow{"m1": stored, "m2": accessed, "m3": assoc}
	evs := []*domain.Event{
		evAt(domain.EvMemoryStored, "m1", t0),
		evAt(domain.EvMemoryAccessed, "m2", t0),
		evAt(domain.EvAssociationWeakened, "m3", t0),
		evAt(domain.EvMemoryClaimed, "gone", t0), // deleted since: no row
		evAt(domain.EvTierDemoted, "m1", t0),     // not consumed
	}
	ch := s.Plan(evs, rows)
	if len(ch.Scores) != 3 {
		t.Fatalf("%d updates, want 3", len(ch.Scores))
	}
	by := map[string]domain.ScoreUpdate{}
	for _, u := range ch.Scores {
		by[u.MemoryID] = u
	}
	// Stored: reinforced, scored, never promoted by being stored.
	u := by["m1"]
	if u.Tier != "" || u.Recency == nil || *u.Recency != 1 || u.ReinforcedAt == nil || !u.ReinforcedAt.Equal(t0) || len(u.Events) != 1 {
		t.Fatalf("stored update = %+v", u)
	}
	if want := Initial(1) * s.Params.Decay(1, t0, now, domain.TierLongTerm, false); !near(u.Salience, want) {
		t.Fatalf("stored score %v, want %v", u.Salience, want)
	}
	sc := u.Events[0]
	if sc.Type != domain.EvSalienceScored || sc.Context.CausationID != evs[0].Context.MessageID || sc.Context.RequestID != evs[0].Context.RequestID ||
		sc.Context.SourceContext != domain.CtxSalience || !sc.Context.Complete() || sc.MemoryID != "" || sc.Payload["memoryId"] != "m1" {
		t.Fatalf("SalienceScored = %+v", sc)
	}
	// Accessed: the score rises past ACTIVE_CONTEXT's promotion threshold.
	u = by["m2"]
	if u.Tier != domain.TierActiveContext || u.ExpectVersion != 3 || len(u.Events) != 2 || u.Events[1].Type != domain.EvTierPromoted ||
		u.Events[1].Context.CausationID != u.Events[0].Context.MessageID || u.Events[1].MemoryID != "m2" {
		t.Fatalf("accessed update = %+v", u)
	}
	if u.Events[1].Touches[0].Context != domain.CtxHippocampus {
		t.Fatal("TierPromoted is applied by the Hippocampus in the same write")
	}
	// Association weakened: the potential changes, the recency keeps decaying from its checkpoint.
	u = by["m3"]
	if *u.Recency != 0.5 || !u.ScoredAt.Equal(t0.Add(-7*day)) || u.ReinforcedAt != nil || u.Tier != "" {
		t.Fatalf("association update must keep the checkpoint: %+v", u)
	}
	wantP := Potential(Features{Connectivity: 0.5})
	if want := wantP * s.Params.Decay(0.5, t0.Add(-7*day), now, domain.TierActiveContext, false); !near(u.Salience, want) || !near(*u.Potential, wantP) {
		t.Fatalf("association score %v (potential %v), want %v", u.Salience, *u.Potential, want)
	}
}

func TestScorerOneScorePerMemoryCausedByItsLastEvent(t *testing.T) {
	s := &Scorer{Params: DefaultParams(), Now: func() time.Time { return t0 }}
	rows := map[string]*domain.ScoreRow{"m": {ID: "m", ScopeID: "s", Tier: domain.TierActiveContext, Version: 1}}
	first, last := evAt(domain.EvMemoryStored, "m", t0), evAt(domain.EvMemoryClaimed, "m", t0.Add(time.Minute))
	ch := s.Plan([]*domain.Event{first, last}, rows)
	if len(ch.Scores) != 1 || ch.Scores[0].Events[0].Context.CausationID != last.Context.MessageID || !ch.Scores[0].ReinforcedAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("plan = %+v", ch.Scores)
	}
	if ids := MemoryIDs([]*domain.Event{first, last, evAt(domain.EvSalienceScored, "x", t0)}); len(ids) != 1 || ids[0] != "m" {
		t.Fatalf("MemoryIDs = %v", ids)
	}
}

// Retrievals scored where they are written: the rows are read before the write, which raises
// the counts and the version; the retrievals carry the Salience touch and each memory one
// SalienceScored caused by its last retrieval, after a promotion check against the version the
// write leaves.
func TestScorerPlanAccesses(t *testing.T) {
	now := t0.Add(time.Hour)
	s := &Scorer{Params: DefaultParams(), Now: func() time.Time { return now }}
	before := t0.Add(-30 * day)
	hot := &domain.ScoreRow{Ref: "0x1", ID: "hot", ScopeID: "s", Tier: domain.TierLongTerm, Importance: 1, AccessCount: 1, Version: 3,
		LastAccessedAt: &before, Scored: true, Potential: Initial(1), Recency: 0.2, ScoredAt: before, Salience: 0.1}
	cold := &domain.ScoreRow{Ref: "0x2", ID: "cold", ScopeID: "s", Tier: domain.TierLongTerm, Version: 7}
	a1, a2 := evAt(domain.EvMemoryAccessed, "hot", t0), evAt(domain.EvMemoryAccessed, "hot", t0.Add(time.Minute))
	c1 := evAt(domain.EvMemoryAccessed, "cold", t0)
	gone := evAt(domain.EvMemoryAccessed, "gone", t0) // deleted before the rows were read
	query := evAt("SearchQuery", "", t0)
	evs := []*domain.Event{query, a1, a2, c1, gone}
	acc := []domain.Access{{MemoryID: "hot", At: t0}, {MemoryID: "hot", At: t0.Add(time.Minute)}, {MemoryID: "cold", At: t0}, {MemoryID: "gone", At: t0}}
	ch := s.PlanAccesses(acc, evs, []*domain.ScoreRow{hot, cold})
	if len(ch.Accesses) != 4 || len(ch.Events) != 5 {
		t.Fatalf("the changes carry the accesses and events as given: %d, %d", len(ch.Accesses), len(ch.Events))
	}
	for _, e := range []*domain.Event{a1, a2, c1} {
		if !Handled(e) {
			t.Fatalf("%s of %s carries no Salience touch", e.Type, e.MemoryID)
		}
	}
	if Handled(gone) || Handled(query) {
		t.Fatal("only retrievals of memories with a row are scored here")
	}
	if hot.AccessCount != 1 || hot.Version != 3 {
		t.Fatal("the rows given are not changed")
	}
	by := map[string]domain.ScoreUpdate{}
	for _, u := range ch.Scores {
		by[u.MemoryID] = u
	}
	if len(by) != 2 {
		t.Fatalf("%d updates, want one per memory with a row", len(ch.Scores))
	}
	u := by["hot"]
	if u.Ref != "" {
		t.Fatal("the write reads the memory by id, with its retrievals")
	}
	// Three retrievals in all now: the potential is that of the count the write leaves.
	wantP := Potential(Features{Importance: 1, AccessCount: 3})
	if u.Potential == nil || !near(*u.Potential, wantP) {
		t.Fatalf("potential %v, want %v", u.Potential, wantP)
	}
	if u.ReinforcedAt == nil || !u.ReinforcedAt.Equal(a2.Context.Timestamp) {
		t.Fatalf("reinforced at %v, want the last retrieval", u.ReinforcedAt)
	}
	if u.Tier != domain.TierActiveContext || u.ExpectVersion != 4 {
		t.Fatalf("a promotion expects the version the retrievals leave (4): %+v", u)
	}
	sc := u.Events[0]
	if sc.Type != domain.EvSalienceScored || sc.Context.CausationID != a2.Context.MessageID || sc.Payload["lastAccessed"] != t0.Add(time.Minute).Format(time.RFC3339Nano) {
		t.Fatalf("SalienceScored = %+v", sc)
	}
	if u := by["cold"]; u.Potential == nil || !near(*u.Potential, Potential(Features{AccessCount: 1})) || u.Events[0].Context.CausationID != c1.Context.MessageID {
		t.Fatalf("cold update = %+v", u)
	}
	if Handled(evAt(domain.EvMemoryClaimed, "hot", t0)) {
		t.Fatal("an event no context touched is not handled")
	}
}

// New memories scored where they are stored: their rows are the memories themselves, each
// MemoryStored of one of them carries the Salience touch, and a high score does not promote a
// memory that was only stored.
func TestScorerPlanStored(t *testing.T) {
	now := t0.Add(time.Second)
	s := &Scorer{Params: DefaultParams(), Now: func() time.Time { return now }}
	a := &domain.Memory{ID: "a", ScopeID: "s", Tier: domain.TierLongTerm, Importance: 1, Version: 1, CreatedAt: t0, Salience: Initial(1)}
	b := &domain.Memory{ID: "b", ScopeID: "s", Tier: domain.TierActiveContext, Version: 1, CreatedAt: t0, Salience: Initial(0)}
	cmd := evAt("StoreCommand", "", t0)
	sa, sb := evAt(domain.EvMemoryStored, "a", t0), evAt(domain.EvMemoryStored, "b", t0)
	other := evAt(domain.EvMemoryStored, "elsewhere", t0)
	ups := s.PlanStored([]*domain.Memory{a, b}, []*domain.Event{cmd, sa, sb, other})
	if len(ups) != 2 || ups[0].MemoryID != "a" || ups[1].MemoryID != "b" {
		t.Fatalf("updates %+v, want a then b", ups)
	}
	if !Handled(sa) || !Handled(sb) || Handled(other) || Handled(cmd) {
		t.Fatal("only the MemoryStored of the memories planned carry the Salience touch")
	}
	for i, m := range []*domain.Memory{a, b} {
		u := ups[i]
		want := Initial(m.Importance) * s.Params.Decay(1, t0, now, m.Tier, false)
		if u.Ref != "" || u.Tier != "" || u.ExpectVersion != 0 || !near(u.Salience, want) || *u.Recency != 1 || !u.ScoredAt.Equal(t0) ||
			!u.ReinforcedAt.Equal(t0) || len(u.Events) != 1 || u.Events[0].Context.CausationID != []*domain.Event{sa, sb}[i].Context.MessageID {
			t.Fatalf("update of %s = %+v, want score %v", m.ID, u, want)
		}
	}
}
