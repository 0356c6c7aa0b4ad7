package salience

import (
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Consumes are the events the Salience context recomputes scores on.
var Consumes = []domain.EventType{
	domain.EvMemoryStored, domain.EvMemoryAccessed, domain.EvMemoryClaimed, domain.EvMemoryReclassified,
	domain.EvAssociationCreated, domain.EvAssociationStrengthened, domain.EvAssociationWeakened,
}

// Consumed reports whether the Salience context consumes events of type t.
func Consumed(t domain.EventType) bool {
	for _, c := range Consumes {
		if c == t {
			return true
		}
	}
	return false
}

// Handled reports whether the Salience context has already scored e where it was written: the
// retrievals recorded by PlanAccesses carry its touch and their SalienceScored in the same write,
// so the Salience consumer passes them by.
func Handled(e *domain.Event) bool {
	for _, t := range e.Touches {
		if t.Context == domain.CtxSalience {
			return true
		}
	}
	return false
}

// Automatic reports whether e is the Synapse's record of the associations it made by itself for a
// stored memory (payload automatic). The Salience does not re-score for it: a re-score per stored
// memory would double the writes of every store; the memory's connectivity counts the next time
// it is scored (a retrieval, a claim, a reclassification, an association a mind makes).
func Automatic(e *domain.Event) bool {
	a, _ := e.Payload["automatic"].(bool)
	return a && e.Type == domain.EvAssociationCreated
}

// reinforcing events reset a memory's recency; rising ones may lift it into a higher tier.
func reinforcing(t domain.EventType) bool {
	switch t {
	case domain.EvMemoryStored, domain.EvMemoryAccessed, domain.EvMemoryClaimed, domain.EvMemoryReclassified:
		return true
	}
	return false
}

func rising(t domain.EventType) bool {
	switch t {
	case domain.EvMemoryAccessed, domain.EvMemoryClaimed, domain.EvAssociationCreated, domain.EvAssociationStrengthened:
		return true
	}
	return false
}

// Scorer recomputes scores when memories are stored, retrieved, claimed, reclassified or
// (dis)associated. Safe for concurrent use.
type Scorer struct {
	Params Params
	Now    domain.Clock
}

// MemoryIDs returns the memories the consumed events among evs are about, in order of first
// appearance; association events name both ends.
func MemoryIDs(evs []*domain.Event) []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, e := range evs {
		if !Consumed(e.Type) {
			continue
		}
		add(e.MemoryID)
	}
	return out
}

// Plan returns the score updates for the consumed events among evs (in log order), given the
// current rows of the memories they touch. Each scored memory gets one SalienceScored, caused
// by the last event about it; a rise to a higher tier's threshold adds a TierPromoted that the
// Hippocampus applies in the same write.
func (s *Scorer) Plan(evs []*domain.Event, rows map[string]*domain.ScoreRow) *domain.Changes {
	now := s.Now().UTC()
	type acc struct {
		last       *domain.Event
		reinforced *time.Time
		canRise    bool
	}
	var order []string
	per := map[string]*acc{}
	for _, e := range evs {
		if !Consumed(e.Type) || e.MemoryID == "" {
			continue
		}
		a := per[e.MemoryID]
		if a == nil {
			a = &acc{}
			per[e.MemoryID] = a
			order = append(order, e.MemoryID)
		}
		a.last = e
		if reinforcing(e.Type) {
			at := e.Context.Timestamp.UTC()
			if a.reinforced == nil || at.After(*a.reinforced) {
				a.reinforced = &at
			}
		}
		a.canRise = a.canRise || rising(e.Type)
	}
	ch := &domain.Changes{}
	for _, id := range order {
		a, r := per[id], rows[id]
		if r == nil {
			continue // deleted since
		}
		potential := Potential(Features{Importance: r.Importance, AccessCount: r.AccessCount, Claimed: r.Claimed, Connectivity: r.Connectivity})
		// The checkpoint: recency 1 at the latest reinforcement, else the stored one (the new
		// potential goes with it), else one taken from the row's history.
		cpRec, cpAt := 1.0, LastReinforced(r)
		switch {
		case a.reinforced != nil:
			cpAt = *a.reinforced
		case r.Scored:
			cpRec, cpAt = r.Recency, r.ScoredAt
		}
		recency := s.Params.Decay(cpRec, cpAt, now, r.Tier, r.Claimed)
		up := domain.ScoreUpdate{MemoryID: id, Ref: r.Ref, Potential: &potential, Recency: &cpRec, ScoredAt: &cpAt, ReinforcedAt: a.reinforced}
		score := clamp(potential * recency)
		up.Salience = score
		scored := &domain.Event{Type: domain.EvSalienceScored, ScopeID: r.ScopeID,
			Context: a.last.Context.Derive(domain.CtxSalience, now),
			Payload: map[string]any{"memoryId": id, "score": score, "potential": potential, "recency": recency,
				"lastAccessed": timeOrNil(r.LastAccessedAt), "decayRate": s.Params.Rate(r.Tier, r.Claimed),
				"claimed": r.Claimed, "tier": string(r.Tier)}}
		if to, ok := s.Params.Promotion(r.Tier, score); ok && a.canRise {
			// The tier changes: checkpoint the recency at now, under the new tier's rate.
			nowRec := recency
			up.Recency, up.ScoredAt = &nowRec, &now
			up.Tier, up.ExpectVersion = to, r.Version
			promoted := &domain.Event{Type: domain.EvTierPromoted, ScopeID: r.ScopeID, MemoryID: id,
				Context: scored.Context.Derive(domain.CtxSalience, now),
				Payload: map[string]any{"memoryId": id, "oldTier": string(r.Tier), "newTier": string(to), "score": score},
				// The Hippocampus consumes it and moves the memory in the same write.
				Touches: []domain.Touch{{Context: domain.CtxHippocampus, At: now}}}
			up.Events = []*domain.Event{scored, promoted}
		} else {
			up.Events = []*domain.Event{scored}
		}
		ch.Scores = append(ch.Scores, up)
	}
	return ch
}

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// PlanAccesses scores the memories of recorded retrievals in the write that records them: rows
// are the memories as read before that write, which raises each one's access count by its
// retrievals, moves its last access to the latest one and its version by one. The MemoryAccessed
// events among evs whose memory has a row get the Salience context's touch (see Handled); the
// returned changes carry the accesses, evs and the score updates (by memory id, each with its
// SalienceScored, and a TierPromoted where the rise reaches a higher tier).
func (s *Scorer) PlanAccesses(acc []domain.Access, evs []*domain.Event, rows []*domain.ScoreRow) *domain.Changes {
	counts, last := domain.TallyAccesses(acc)
	byID := make(map[string]*domain.ScoreRow, len(rows))
	for _, r := range rows {
		c, ok := counts[r.ID]
		if !ok {
			continue
		}
		after := *r
		after.AccessCount += c
		if at := last[r.ID]; after.LastAccessedAt == nil || at.After(*after.LastAccessedAt) {
			after.LastAccessedAt = &at
		}
		after.Version++
		after.Ref = "" // the write reads the memory by id, as it does for the access
		byID[r.ID] = &after
	}
	ch := s.Plan(s.handle(evs, domain.EvMemoryAccessed, byID), byID)
	ch.Accesses, ch.Events = acc, evs
	return ch
}

// handle gives the events of type typ among evs whose memory has a row the Salience context's
// touch (see Handled) and returns them.
func (s *Scorer) handle(evs []*domain.Event, typ domain.EventType, rows map[string]*domain.ScoreRow) []*domain.Event {
	now := s.Now().UTC()
	var out []*domain.Event
	for _, e := range evs {
		if e.Type == typ && rows[e.MemoryID] != nil {
			e.Touches = append(e.Touches, domain.Touch{Context: domain.CtxSalience, At: now})
			out = append(out, e)
		}
	}
	return out
}

// PlanStored scores new memories in the write that stores them: what the Salience consumer would
// read of a memory it has just seen stored is the memory itself (no retrievals, claim or
// associations yet). Each MemoryStored among stored whose memory is in ms gets the Salience
// context's touch (see Handled); the returned updates (by memory id, each with its
// SalienceScored) are in the order of ms.
func (s *Scorer) PlanStored(ms []*domain.Memory, stored []*domain.Event) []domain.ScoreUpdate {
	rows := make(map[string]*domain.ScoreRow, len(ms))
	for _, m := range ms {
		rows[m.ID] = domain.ScoreRowOf(m)
	}
	return s.Plan(s.handle(stored, domain.EvMemoryStored, rows), rows).Scores
}

// PlanIngested scores memories ingested in bulk in the write that stores them, as the first
// decay sweep would score them from their features: each gets its potential (connectivity
// counting the strengths of the associations written with it, by memory id in conn) and its
// recency since it was last reinforced, checkpointed at now. Bulk ingest emits no event per
// memory, so neither does this: the updates carry none.
func (s *Scorer) PlanIngested(ms []*domain.Memory, conn map[string]float64) map[string]domain.ScoreUpdate {
	now := s.Now().UTC()
	out := make(map[string]domain.ScoreUpdate, len(ms))
	for _, m := range ms {
		r := domain.ScoreRowOf(m)
		r.Connectivity = conn[m.ID]
		score, recency, potential := s.Params.Current(r, now)
		at := now
		out[m.ID] = domain.ScoreUpdate{MemoryID: m.ID, Salience: score, Potential: &potential, Recency: &recency, ScoredAt: &at}
	}
	return out
}
