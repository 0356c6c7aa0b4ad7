package salience

import (
	"context"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// SweepResult is the response of a DecaySweep.
type SweepResult struct {
	ScopeID   string        `json:"scopeId"`
	Tier      domain.Tier   `json:"tier,omitempty"`
	Evaluated int           `json:"memoriesEvaluated"`
	Demotions int           `json:"demotions"`
	Rescored  int           `json:"rescored"`
	Duration  time.Duration `json:"duration"`
}

// Sweeper runs decay sweeps (MSG-0004): it recalculates the scores of a scope's memories at the
// clock's now, demotes those below their tier's threshold (publishing TierDemoted, which the
// Hippocampus applies in the same write) and rewrites stored scores that drifted. It only ever
// moves memories down and rewrites scores: decay removes nothing. Safe for concurrent use.
type Sweeper struct {
	Store  domain.LivingStore
	Params Params
	Now    domain.Clock
	// PageSize is how many memories a page lists (default 50,000; the store reads their scores in
	// smaller chunks); BatchSize how many updates go in one write (default 5,000).
	PageSize  int
	BatchSize int
}

// Sweep sweeps one tier of a scope, or every tier when tier is "". command is the DecaySweep
// message (persisted first; the sweep's events derive from its context); req, when it has a
// RequestID, makes the sweep at-most-once (a retry gets the first result). Errors: the store's.
func (s *Sweeper) Sweep(ctx context.Context, req domain.Request, scopeID string, tier domain.Tier, command *domain.Event) (SweepResult, error) {
	res := SweepResult{ScopeID: scopeID, Tier: tier}
	if req.RequestID != "" {
		if ok, err := s.Store.Replay(ctx, req, &res); err != nil || ok {
			return res, err
		}
	}
	if _, err := s.Store.Apply(ctx, nil, &domain.Changes{Events: []*domain.Event{command}}, nil); err != nil {
		return res, err
	}
	cmd := command.Context
	start := time.Now()
	now := s.Now().UTC()
	page, batch := s.PageSize, s.BatchSize
	if page <= 0 {
		// Large pages: listing a page costs a pass over the tier's index, whatever its size.
		page = 50000
	}
	if batch <= 0 {
		batch = 5000
	}
	tiers := []domain.Tier{tier}
	if tier == "" {
		// Bottom up: a demoted memory lands in a tier already swept and is not evaluated twice.
		tiers = []domain.Tier{domain.TierArchive, domain.TierLongTerm, domain.TierActiveContext, domain.TierIdentityCore}
	}
	var pending []domain.ScoreUpdate
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		r, err := s.Store.Apply(ctx, nil, &domain.Changes{Scores: pending}, nil)
		if err != nil {
			return err
		}
		res.Demotions += r.Moved
		res.Rescored += r.Applied - r.Moved
		pending = pending[:0]
		return nil
	}
	for _, t := range tiers {
		cursor := ""
		for {
			rows, next, err := s.Store.SweepPage(ctx, scopeID, t, cursor, page)
			if err != nil {
				return res, err
			}
			// Every memory is judged by its stored checkpoint; those that would sink, and those
			// never scored, are read in full and judged exactly before anything moves.
			var exact []string
			for _, r := range rows {
				res.Evaluated++
				if !r.Scored {
					exact = append(exact, r.Ref)
					continue
				}
				score, _, _ := s.Params.Current(r, now)
				if _, sinks := s.Params.Demotion(r.Tier, score); sinks {
					exact = append(exact, r.Ref)
				} else if drifted(score, r.Salience, s.Params.Refresh) {
					pending = append(pending, domain.ScoreUpdate{Ref: r.Ref, Salience: score})
				}
			}
			// A checkpoint taken at the memory's current version is exact (every change that
			// could move the score bumps the version and is re-scored); the others are read in full.
			light, err := s.Store.ScoreRowsByRef(ctx, exact, false)
			if err != nil {
				return res, err
			}
			var stale []string
			for _, r := range light {
				if !r.Scored || r.ScoredVersion != r.Version || r.ScoredClaimed != r.Claimed {
					stale = append(stale, r.Ref)
				} else if up, ok := s.evaluate(r, now, cmd); ok {
					pending = append(pending, up)
				}
			}
			full, err := s.Store.ScoreRowsByRef(ctx, stale, true)
			if err != nil {
				return res, err
			}
			for _, r := range full {
				if up, ok := s.evaluate(r, now, cmd); ok {
					pending = append(pending, up)
				}
			}
			if len(pending) >= batch {
				if err := flush(); err != nil {
					return res, err
				}
			}
			if next == "" {
				break
			}
			cursor = next
		}
	}
	if err := flush(); err != nil {
		return res, err
	}
	res.Duration = time.Since(start)
	done := &domain.Event{Type: domain.EvDecaySweepCompleted, ScopeID: scopeID, Context: cmd.Derive(domain.CtxSalience, s.Now().UTC()),
		Payload: map[string]any{"scopeId": scopeID, "tier": string(tier), "memoriesEvaluated": res.Evaluated,
			"demotions": res.Demotions, "rescored": res.Rescored},
		// The response goes back to whoever commanded the sweep (the Subconscious's timer, or the Cortex).
		Touches: []domain.Touch{{Context: cmd.SourceContext, At: now}}}
	var rq *domain.Request
	if req.RequestID != "" {
		rq = &req
	}
	if _, err := s.Store.Apply(ctx, rq, &domain.Changes{Events: []*domain.Event{done}}, res); err != nil {
		return res, err
	}
	if rq != nil {
		// A concurrent retry may have recorded its result first: answer that one.
		if ok, err := s.Store.Replay(ctx, req, &res); err != nil || ok {
			return res, err
		}
	}
	return res, nil
}

func drifted(score, stored, refresh float64) bool {
	d := score - stored
	return d >= refresh || -d >= refresh
}

// evaluate decides what the sweep does with one memory read again: in full, or light with a
// checkpoint taken at its current version.
func (s *Sweeper) evaluate(r *domain.ScoreRow, now time.Time, cmd domain.TransactionContext) (domain.ScoreUpdate, bool) {
	score, recency, potential := s.Params.Current(r, now)
	n := now
	if to, ok := s.Params.Demotion(r.Tier, score); ok {
		ev := &domain.Event{Type: domain.EvTierDemoted, ScopeID: r.ScopeID, MemoryID: r.ID,
			Context: cmd.Derive(domain.CtxSalience, now),
			Payload: map[string]any{"memoryId": r.ID, "oldTier": string(r.Tier), "newTier": string(to), "score": score,
				"decayRate": s.Params.Rate(r.Tier, r.Claimed), "claimed": r.Claimed},
			// The Hippocampus consumes TierDemoted and moves the memory down in the same write.
			Touches: []domain.Touch{{Context: domain.CtxHippocampus, At: now}}}
		// Recency is checkpointed at now: from here on it decays at the new tier's rate.
		return domain.ScoreUpdate{MemoryID: r.ID, Ref: r.Ref, Salience: score, Potential: &potential, Recency: &recency, ScoredAt: &n,
			Tier: to, ExpectVersion: r.Version, Events: []*domain.Event{ev}}, true
	}
	if !r.Scored || r.ScoredVersion != r.Version || r.ScoredClaimed != r.Claimed {
		// Never scored, or changed since: checkpoint it, so later sweeps judge it right.
		return domain.ScoreUpdate{MemoryID: r.ID, Ref: r.Ref, Salience: score, Potential: &potential, Recency: &recency, ScoredAt: &n,
			ExpectVersion: r.Version}, true
	}
	if drifted(score, r.Salience, s.Params.Refresh) {
		return domain.ScoreUpdate{Ref: r.Ref, Salience: score}, true
	}
	return domain.ScoreUpdate{}, false
}
