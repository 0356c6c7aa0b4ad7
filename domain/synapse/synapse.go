// Package synapse is the Synapse context: it creates, strengthens and weakens the typed,
// bidirectional associations between memories of one scope.
//
// Strength stays in 0..1: CREATE sets it (an existing association is a CONFLICT), STRENGTHEN adds
// the given amount (creating the association when there is none), WEAKEN subtracts it; an
// association weakened to 0 is removed.
package synapse

import (
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Associate returns the AssociationUpdate of one AssociateCommand.
func Associate(dir domain.Direction, t domain.AssociationType, amount float64, cmd domain.TransactionContext, now time.Time) domain.AssociationUpdate {
	return func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
		next := &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: src.ScopeID, Type: t, UpdatedAt: now}
		evType := domain.EvAssociationCreated
		old := 0.0
		if cur != nil {
			old = cur.Strength
		}
		switch dir {
		case domain.DirCreate:
			if cur != nil {
				return nil, nil, domain.Errorf(domain.ECONFLICT,
					"a %s association between %s and %s exists already (strength %.3f); strengthen or weaken it", t, src.ID, dst.ID, cur.Strength)
			}
			next.Strength = amount
		case domain.DirStrengthen:
			next.Strength = min(1, old+amount)
			if cur != nil {
				evType = domain.EvAssociationStrengthened
			}
		case domain.DirWeaken:
			if cur == nil {
				return nil, nil, domain.Errorf(domain.ENOTFOUND, "no %s association between %s and %s", t, src.ID, dst.ID)
			}
			next.Strength = max(0, old-amount)
			evType = domain.EvAssociationWeakened
		default:
			return nil, nil, domain.FieldErrorf("direction", "unknown direction %q", dir)
		}
		ctx := cmd.Derive(domain.CtxSynapse, now)
		payload := map[string]any{"sourceId": src.ID, "targetId": dst.ID, "type": string(t),
			"strength": next.Strength, "previousStrength": old, "direction": string(dir), "bidirectional": true}
		evs := []*domain.Event{
			{Type: evType, ScopeID: src.ScopeID, MemoryID: src.ID, Context: ctx, Payload: payload},
			// The other end's history shows the same association.
			{Type: evType, ScopeID: src.ScopeID, MemoryID: dst.ID, Context: ctx.Derive(domain.CtxSynapse, now), Payload: payload},
		}
		if next.Strength == 0 {
			payload["removed"] = true
			return nil, evs, nil
		}
		return next, evs, nil
	}
}
