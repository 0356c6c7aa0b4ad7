package graph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Sweeps list a scope's tier by its mem.scopeTier key, page by page, and a tier change moves
// the key with the memory.
func TestSweepListsByScopeTier(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var ms []*domain.Memory
	for i := range 7 {
		tier := domain.TierLongTerm
		if i%2 == 0 {
			tier = domain.TierActiveContext
		}
		ms = append(ms, &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: fmt.Sprintf("memory %d", i),
			Kind: domain.KindEpisodic, Tier: tier, SuggestedTier: tier, OccurredAt: at, CreatedAt: at, UpdatedAt: at,
			Salience: 0.5, State: domain.StateActive, Version: 1})
	}
	if _, err := s.InsertMemories(ctx, domain.Request{}, ms, nil); err != nil {
		t.Fatal(err)
	}
	count := func(s *Store, tier domain.Tier) int {
		t.Helper()
		rows, next, err := s.SweepPage(ctx, scope.ID, tier, "", 3)
		for err == nil && next != "" {
			var more []*domain.ScoreRow
			more, next, err = s.SweepPage(ctx, scope.ID, tier, next, 3)
			rows = append(rows, more...)
		}
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if a, l := count(s, domain.TierActiveContext), count(s, domain.TierLongTerm); a != 4 || l != 3 {
		t.Fatalf("sweep lists %d active and %d long-term memories, want 4 and 3", a, l)
	}
	// A tier change moves the key with it.
	pot, rec := 0.1, 0.1
	if _, err := s.Apply(ctx, nil, &domain.Changes{Scores: []domain.ScoreUpdate{{MemoryID: ms[0].ID, Salience: 0.05,
		Tier: domain.TierLongTerm, Potential: &pot, Recency: &rec, ScoredAt: &at}}}, nil); err != nil {
		t.Fatal(err)
	}
	if a, l := count(s, domain.TierActiveContext), count(s, domain.TierLongTerm); a != 3 || l != 4 {
		t.Fatalf("after a demotion the sweep lists %d active and %d long-term memories, want 3 and 4", a, l)
	}
}
