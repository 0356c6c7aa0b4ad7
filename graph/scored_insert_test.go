package graph

import (
	"context"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// A first score goes in with its memory; a score that is not a first score (by reference, with
// a tier move, an expected version or values out of range) refuses the whole write.
func TestInsertScoredMemories(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	mem := func() *domain.Memory {
		return &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: "scored", Kind: domain.KindEpisodic,
			Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext, OccurredAt: at, CreatedAt: at, UpdatedAt: at,
			Salience: 0.4, State: domain.StateActive, Version: 1}
	}
	p, r := 0.4, 1.0
	first := func(m *domain.Memory) domain.ScoreUpdate {
		return domain.ScoreUpdate{MemoryID: m.ID, Salience: 0.4, Potential: &p, Recency: &r, ScoredAt: &at, ReinforcedAt: &at,
			Events: []*domain.Event{{Type: domain.EvSalienceScored, ScopeID: scope.ID, Context: domain.TransactionContext{SessionID: "s",
				RequestID: "r", MessageID: domain.NewID(), CausationID: "c", Timestamp: at, SourceContext: domain.CtxSalience},
				Payload: map[string]any{"memoryId": m.ID}}}}
	}
	big := 1.5
	for name, bad := range map[string]func(u *domain.ScoreUpdate){
		"ref":       func(u *domain.ScoreUpdate) { u.Ref = "0x1" },
		"tier":      func(u *domain.ScoreUpdate) { u.Tier = domain.TierLongTerm },
		"version":   func(u *domain.ScoreUpdate) { u.ExpectVersion = 1 },
		"no time":   func(u *domain.ScoreUpdate) { u.ScoredAt = nil },
		"potential": func(u *domain.ScoreUpdate) { u.Potential = &big },
		"salience":  func(u *domain.ScoreUpdate) { u.Salience = -0.1 },
	} {
		m := mem()
		u := first(m)
		bad(&u)
		if _, err := s.InsertScoredMemories(ctx, domain.Request{}, []*domain.Memory{m}, nil, []domain.ScoreUpdate{u}); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("%s: err = %v, want INVALID_ARGUMENT", name, err)
		}
		if _, err := s.Memory(ctx, m.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
			t.Fatalf("%s: a refused write stored the memory: %v", name, err)
		}
	}
	m := mem()
	if _, err := s.InsertScoredMemories(ctx, domain.Request{}, []*domain.Memory{m}, nil, []domain.ScoreUpdate{first(m)}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.ScoreRows(ctx, []string{m.ID})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	if row := rows[0]; !row.Scored || row.Potential != p || row.Recency != r || !row.ScoredAt.Equal(at) || row.ScoredVersion != row.Version {
		t.Fatalf("row %+v, want the checkpoint given", row)
	}
	evs, err := s.RequestEvents(ctx, "r")
	if err != nil || len(evs) != 1 || evs[0].Type != domain.EvSalienceScored {
		t.Fatalf("events %v, %v: want the update's SalienceScored", evs, err)
	}
}
