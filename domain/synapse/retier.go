package synapse

import (
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// How the Synapse updates a memory's associations when the mind reclassifies it (MSG-0006,
// MemoryReclassified): a memory moved into IDENTITY_CORE pulls its associations closer (each
// strengthened by CoreStrengthen, capped at 1); a memory moved into ARCHIVE loosens them (each
// weakened to ArchiveFactor of its strength, never below ArchiveMinStrength, so nothing is
// removed). Moves between other tiers leave associations as they are.
const (
	CoreStrengthen     = 0.1
	ArchiveFactor      = 0.5
	ArchiveMinStrength = 0.01
)

// Retier returns the association changes and events of one MemoryReclassified event, given the
// reclassified memory's associations (seen from it).
func Retier(ev *domain.Event, assocs []*domain.Association, now time.Time) ([]domain.AssociationSet, []*domain.Event) {
	oldTier, _ := ev.Payload["oldTier"].(string)
	newTier, _ := ev.Payload["newTier"].(string)
	if oldTier == newTier {
		return nil, nil
	}
	var sets []domain.AssociationSet
	var evs []*domain.Event
	for _, a := range assocs {
		var next float64
		evType := domain.EvAssociationStrengthened
		switch domain.Tier(newTier) {
		case domain.TierIdentityCore:
			next = min(1, a.Strength+CoreStrengthen)
		case domain.TierArchive:
			next = max(ArchiveMinStrength, a.Strength*ArchiveFactor)
			evType = domain.EvAssociationWeakened
		default:
			return nil, nil
		}
		if next == a.Strength {
			continue
		}
		sets = append(sets, domain.AssociationSet{SourceID: a.SourceID, TargetID: a.TargetID, Type: a.Type, Strength: next, UpdatedAt: now})
		ctx := ev.Context.Derive(domain.CtxSynapse, now)
		payload := map[string]any{"sourceId": a.SourceID, "targetId": a.TargetID, "type": string(a.Type),
			"strength": next, "previousStrength": a.Strength, "bidirectional": true,
			"reason": "memory reclassified from " + oldTier + " to " + newTier}
		evs = append(evs,
			&domain.Event{Type: evType, ScopeID: ev.ScopeID, MemoryID: a.SourceID, Context: ctx, Payload: payload},
			&domain.Event{Type: evType, ScopeID: ev.ScopeID, MemoryID: a.TargetID, Context: ctx.Derive(domain.CtxSynapse, now), Payload: payload})
	}
	return sets, evs
}
