package graph

import (
	"context"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// A scope the store has found is not looked up again, until something removes it: dropping the
// whole graph forgets it, so an insert into it is refused and writes nothing.
func TestDropAllForgetsTheScopesFound(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	insert := func() (*domain.Memory, error) {
		m := &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: "known scope", Kind: domain.KindEpisodic,
			Tier: domain.TierActiveContext, OccurredAt: at, CreatedAt: at, UpdatedAt: at, State: domain.StateActive, Version: 1}
		_, err := s.InsertMemories(ctx, domain.Request{FreshIDs: true}, []*domain.Memory{m}, nil)
		return m, err
	}
	if _, err := insert(); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	listed := s.knownScopes[scope.ID]
	s.mu.Unlock()
	if !listed {
		t.Fatal("the scope of a stored memory is not listed as found")
	}
	if err := s.DropAll(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := insert()
	if domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("insert into a dropped scope: %v, want NOT_FOUND", err)
	}
	if _, err := s.Memory(ctx, m.ID); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the refused memory was written: %v", err)
	}
}
