package synapse

import (
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func TestRetier(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	assocs := []*domain.Association{
		{SourceID: "m", TargetID: "x", Type: domain.AssocCausal, Strength: 0.8},
		{SourceID: "m", TargetID: "y", Type: domain.AssocPerson, Strength: 0.015},
		{SourceID: "m", TargetID: "z", Type: domain.AssocThematic, Strength: 0.95},
	}
	ev := func(old, new domain.Tier) *domain.Event {
		return &domain.Event{Type: domain.EvMemoryReclassified, ScopeID: "s", MemoryID: "m", Payload: map[string]any{"oldTier": string(old), "newTier": string(new)},
			Context: domain.TransactionContext{SessionID: "s", RequestID: "r", MessageID: "mc", CausationID: "c", Timestamp: now, SourceContext: domain.CtxHippocampus}}
	}
	sets, evs := Retier(ev(domain.TierLongTerm, domain.TierArchive), assocs, now)
	if len(sets) != 3 || sets[0].Strength != 0.4 || sets[1].Strength != 0.01 || sets[2].Strength != 0.475 || len(evs) != 6 {
		t.Fatalf("into ARCHIVE: %+v", sets)
	}
	if evs[0].Type != domain.EvAssociationWeakened || evs[0].Context.CausationID != "mc" || evs[1].MemoryID != "x" {
		t.Fatalf("events = %+v", evs[:2])
	}
	sets, _ = Retier(ev(domain.TierActiveContext, domain.TierIdentityCore), assocs, now)
	if len(sets) != 3 || sets[0].Strength != 0.9 || sets[2].Strength != 1 {
		t.Fatalf("into IDENTITY_CORE: %+v", sets)
	}
	for _, e := range []*domain.Event{ev(domain.TierLongTerm, domain.TierActiveContext), ev(domain.TierArchive, domain.TierArchive)} {
		if sets, evs := Retier(e, assocs, now); len(sets) != 0 || len(evs) != 0 {
			t.Fatalf("%v: %+v", e.Payload, sets)
		}
	}
}
