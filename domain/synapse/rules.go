package synapse

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Params are the rules by which the Synapse connects stored memories (docs/synapse.md). Zero
// values take the defaults (WithDefaults).
type Params struct {
	// Given says every value is as set (serve's flags set them all): WithDefaults leaves a 0 —
	// no THEMATIC or PERSON links, no strengthening on claims — as it is.
	Given bool
	// TemporalScale is the time over which a TEMPORAL association weakens from 1 to its floor.
	TemporalScale time.Duration
	// SessionGap splits the memories a scope stores without a session into episodes: the next
	// one opens when a memory occurred more than SessionGap after the one before.
	SessionGap time.Duration
	// EpisodeMax is the most memories an episode the Synapse forms holds; the next opens a new
	// episode of the same session.
	EpisodeMax int
	// Candidates is how many of the index's best matches for a new memory are weighed.
	Candidates int
	// ThematicThreshold is the text similarity from which two memories are THEMATIC.
	ThematicThreshold float64
	// ThematicMax is the most THEMATIC associations a new memory gets.
	ThematicMax int
	// PersonThreshold is the text similarity from which two memories naming the same person are
	// PERSON.
	PersonThreshold float64
	// PersonMax is the most PERSON associations a new memory gets per person it names.
	PersonMax int
	// VectorThreshold is the cosine similarity of two memories' vectors from which they are
	// THEMATIC (or, naming the same person, PERSON), where vectors exist.
	VectorThreshold float64
	// MaxAssociations is the most automatic associations a memory has: two are kept for its
	// TEMPORAL neighbours, PERSON and THEMATIC ones fill the rest.
	MaxAssociations int
	// ClaimStrengthen is what a claim adds to the strength of each association of the claimed
	// memory (capped at 1).
	ClaimStrengthen float64
	// Quiet and MaxDefer schedule the Synapse's work off the minds' path: while memories are being
	// stored (one came within Quiet), the Synapse waits, as long as nothing it has to connect was
	// stored more than MaxDefer ago. A negative Quiet never waits.
	Quiet    time.Duration
	MaxDefer time.Duration
}

// Defaults of Params.
const (
	DefaultTemporalScale     = 30 * time.Minute
	DefaultSessionGap        = 30 * time.Minute
	DefaultEpisodeMax        = 100
	DefaultCandidates        = 10
	DefaultThematicThreshold = 0.35
	DefaultThematicMax       = 3
	DefaultPersonThreshold   = 0.15
	DefaultPersonMax         = 2
	DefaultVectorThreshold   = 0.8
	DefaultMaxAssociations   = 12
	DefaultClaimStrengthen   = 0.1
	DefaultQuiet             = 250 * time.Millisecond
	DefaultMaxDefer          = 10 * time.Second

	// TemporalFloor is the strength of a TEMPORAL association between memories far apart in time.
	TemporalFloor = 0.5
	// temporalKept are the associations of MaxAssociations kept for the TEMPORAL neighbours.
	temporalKept = 2
)

// DefaultParams returns the default rules.
func DefaultParams() Params { return Params{}.WithDefaults() }

// WithDefaults fills unset values (none when the values are Given).
func (p Params) WithDefaults() Params {
	if p.Given {
		return p
	}
	d := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	i := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	f := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	d(&p.TemporalScale, DefaultTemporalScale)
	d(&p.SessionGap, DefaultSessionGap)
	i(&p.EpisodeMax, DefaultEpisodeMax)
	i(&p.Candidates, DefaultCandidates)
	f(&p.ThematicThreshold, DefaultThematicThreshold)
	i(&p.ThematicMax, DefaultThematicMax)
	f(&p.PersonThreshold, DefaultPersonThreshold)
	i(&p.PersonMax, DefaultPersonMax)
	f(&p.VectorThreshold, DefaultVectorThreshold)
	i(&p.MaxAssociations, DefaultMaxAssociations)
	f(&p.ClaimStrengthen, DefaultClaimStrengthen)
	d(&p.Quiet, DefaultQuiet)
	d(&p.MaxDefer, DefaultMaxDefer)
	return p
}

// Validate refuses rules out of range.
func (p Params) Validate() error {
	switch {
	case p.TemporalScale <= 0:
		return fmt.Errorf("the temporal scale must be positive, not %s", p.TemporalScale)
	case p.SessionGap <= 0:
		return fmt.Errorf("the session gap must be positive, not %s", p.SessionGap)
	case p.EpisodeMax < 1 || p.EpisodeMax > domain.MaxEpisodeItems:
		return fmt.Errorf("the episode size must be within 1..%d, not %d", domain.MaxEpisodeItems, p.EpisodeMax)
	case p.Candidates < 1 || p.Candidates > 1000:
		return fmt.Errorf("the candidates must be within 1..1000, not %d", p.Candidates)
	case !(p.ThematicThreshold > 0 && p.ThematicThreshold <= 1):
		return fmt.Errorf("the thematic threshold must be within (0, 1], not %g", p.ThematicThreshold)
	case !(p.PersonThreshold > 0 && p.PersonThreshold <= 1):
		return fmt.Errorf("the person threshold must be within (0, 1], not %g", p.PersonThreshold)
	case !(p.VectorThreshold > 0 && p.VectorThreshold <= 1):
		return fmt.Errorf("the vector threshold must be within (0, 1], not %g", p.VectorThreshold)
	case p.ThematicMax < 0 || p.PersonMax < 0:
		return fmt.Errorf("the thematic and person maxima must not be negative")
	case p.MaxAssociations < temporalKept || p.MaxAssociations > 1000:
		return fmt.Errorf("the most associations of a memory must be within %d..1000, not %d", temporalKept, p.MaxAssociations)
	case !(p.ClaimStrengthen >= 0 && p.ClaimStrengthen <= 1):
		return fmt.Errorf("the claim's strengthening must be within 0..1, not %g", p.ClaimStrengthen)
	case p.MaxDefer < 0 || p.MaxDefer > time.Hour:
		return fmt.Errorf("the longest deferral must be within 0..1h, not %s", p.MaxDefer)
	}
	return nil
}

// TemporalStrength is the strength of the TEMPORAL association of two memories gap apart in
// time: TemporalFloor + (1 − TemporalFloor)·exp(−|gap| / TemporalScale). Consecutive turns of a
// conversation are strongly associated, memories hours apart weakly. Imports chain the events
// of a thread by the same rule.
func (p Params) TemporalStrength(gap time.Duration) float64 {
	if gap < 0 {
		gap = -gap
	}
	scale := p.TemporalScale
	if scale <= 0 {
		scale = DefaultTemporalScale
	}
	return TemporalFloor + (1-TemporalFloor)*math.Exp(-float64(gap)/float64(scale))
}

// Candidate is a memory of the new memory's scope stored before it, that the rules may associate
// with it.
type Candidate struct {
	ID string
	// Text is the text similarity, 0..1: the index's score of the candidate for the new memory's
	// text divided by the score of the new memory itself for it (0 when the index did not find it).
	Text float64
	// Vector is the cosine similarity of the two memories' vectors (0 without vectors).
	Vector float64
	// Persons are the persons the candidate names.
	Persons []string
	// Linked is how many PERSON and THEMATIC associations the candidate has already.
	Linked int
}

// Link is one association the rules create.
type Link struct {
	TargetID string
	Type     domain.AssociationType
	Strength float64
	// Person is the person a PERSON association shares.
	Person string
}

// Connect applies the PERSON and THEMATIC rules to a new memory naming persons (in the order it
// names them), given the candidates (stored before it, of its scope) and how many PERSON and
// THEMATIC associations it has already. A pair gets one association: PERSON when both name the
// same person and their similarity reaches PersonThreshold (the best PersonMax candidates per
// person), else THEMATIC when it reaches ThematicThreshold (the best ThematicMax). Either end with
// MaxAssociations − 2 PERSON and THEMATIC associations takes no more. Similarity is the text
// similarity, or the vector similarity where it reaches VectorThreshold, whichever is higher.
func (p Params) Connect(persons []string, linked int, cands []Candidate) []Link {
	room := p.MaxAssociations - temporalKept - linked
	if room <= 0 {
		return nil
	}
	sim := func(c Candidate) float64 {
		s := c.Text
		if c.Vector >= p.VectorThreshold && c.Vector > s {
			s = c.Vector
		}
		return min(1, s)
	}
	order := append([]Candidate(nil), cands...)
	sort.SliceStable(order, func(i, j int) bool {
		si, sj := sim(order[i]), sim(order[j])
		if si != sj {
			return si > sj
		}
		return order[i].ID < order[j].ID
	})
	taken := map[string]bool{}
	var out []Link
	full := func(c Candidate) bool { return c.Linked >= p.MaxAssociations-temporalKept }
	for _, person := range persons {
		n := 0
		for _, c := range order {
			if room == 0 || n == p.PersonMax {
				break
			}
			if taken[c.ID] || full(c) || sim(c) < p.PersonThreshold || !contains(c.Persons, person) {
				continue
			}
			taken[c.ID] = true
			out = append(out, Link{TargetID: c.ID, Type: domain.AssocPerson, Strength: PersonStrength(sim(c)), Person: person})
			n++
			room--
		}
	}
	n := 0
	for _, c := range order {
		if room == 0 || n == p.ThematicMax {
			break
		}
		if taken[c.ID] || full(c) || sim(c) < p.ThematicThreshold {
			continue
		}
		taken[c.ID] = true
		out = append(out, Link{TargetID: c.ID, Type: domain.AssocThematic, Strength: sim(c)})
		n++
		room--
	}
	return out
}

// PersonStrength is the strength of a PERSON association of two memories of similarity s:
// 0.5 + 0.5·s — a shared person is itself a bond, and shared words make it stronger.
func PersonStrength(s float64) float64 { return 0.5 + 0.5*min(1, max(0, s)) }

func contains(xs []string, v string) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// Created returns the AssociationCreated event of the associations a new memory got, caused by
// its MemoryStored stored: one event about the memory, naming every association (the other ends
// list it among their associations, not in their histories: an event page per association would
// cost each stored memory about as much again as its own events).
func Created(stored *domain.Event, links []Link, now time.Time) *domain.Event {
	list := make([]any, len(links))
	for i, l := range links {
		a := map[string]any{"targetId": l.TargetID, "type": string(l.Type), "strength": l.Strength}
		if l.Person != "" {
			a["person"] = l.Person
		}
		list[i] = a
	}
	return &domain.Event{Type: domain.EvAssociationCreated, ScopeID: stored.ScopeID, MemoryID: stored.MemoryID,
		Context: stored.Context.Derive(domain.CtxSynapse, now),
		Payload: map[string]any{"memoryId": stored.MemoryID, "associations": list, "bidirectional": true, "automatic": true}}
}

// Strengthen returns the changes and the AssociationStrengthened event of a claim (MSG-0003): every
// association of the claimed memory (seen from it) gains ClaimStrengthen, up to 1. claimed is the
// MemoryClaimed event.
func (p Params) Strengthen(claimed *domain.Event, assocs []*domain.Association, now time.Time) ([]domain.AssociationSet, *domain.Event) {
	var sets []domain.AssociationSet
	var list []any
	about := map[string]any{}
	for _, a := range assocs {
		next := min(1, a.Strength+p.ClaimStrengthen)
		if next == a.Strength {
			continue
		}
		sets = append(sets, domain.AssociationSet{SourceID: a.SourceID, TargetID: a.TargetID, Type: a.Type, Strength: next, UpdatedAt: now})
		list = append(list, map[string]any{"targetId": a.TargetID, "type": string(a.Type), "strength": next, "previousStrength": a.Strength})
		about[a.TargetID] = map[string]any{"sourceId": a.TargetID, "targetId": a.SourceID, "type": string(a.Type),
			"strength": next, "previousStrength": a.Strength, "bidirectional": true, "reason": "memory claimed"}
	}
	if len(sets) == 0 {
		return nil, nil
	}
	return sets, &domain.Event{Type: domain.EvAssociationStrengthened, ScopeID: claimed.ScopeID, MemoryID: claimed.MemoryID,
		Context: claimed.Context.Derive(domain.CtxSynapse, now), About: about,
		Payload: map[string]any{"memoryId": claimed.MemoryID, "associations": list, "bidirectional": true, "reason": "memory claimed"}}
}
