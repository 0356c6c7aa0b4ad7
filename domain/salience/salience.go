// Package salience is the Salience context: it scores how much a memory matters, in 0..1, lets
// the score fade with time, and decides which memories sink to a lower tier or rise to a higher
// one. Nothing here removes a memory: decay is not removal.
//
// The score (documented in the README and tested) is potential × recency:
//
//	potential = 0.25 + 0.30·importance + 0.20·frequency + 0.10·connectivity + 0.15·claimed
//	            frequency    = 1 − e^(−accessCount/5)
//	            connectivity = 1 − e^(−(sum of association strengths)/2)
//	            claimed      = 1 once the mind claimed the memory, else 0
//	recency   = 1 when the memory is stored, retrieved, claimed or reclassified (reinforced);
//	            between reinforcements it decays exponentially at the rate of the tier it is in:
//	            recency(t) = recency(t0) · 2^(−(t−t0)/halfLife(tier))
//	            halfLife: IDENTITY_CORE 90 d, ACTIVE_CONTEXT 7 d, LONG_TERM 60 d, ARCHIVE 365 d;
//	            a claimed memory decays ClaimedSlowdown (50) times slower.
//
// Recency is checkpointed whenever the tier changes, so a memory that sinks into a tier of slower
// decay never regains score by sinking.
//
// Tiers: a memory whose score falls below its tier's demotion threshold sinks to the highest
// lower tier whose threshold it meets (ARCHIVE's is 0). A memory whose score rises, on a
// retrieval, claim or new association, to the promotion threshold of a higher tier rises to the
// highest such tier. Each tier's promotion threshold lies above its demotion threshold, so a
// moved memory never moves straight back.
package salience

import (
	"math"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Weights of the potential.
const (
	WBase         = 0.25
	WImportance   = 0.30
	WFrequency    = 0.20
	WConnectivity = 0.10
	WClaimed      = 0.15
	// FrequencyScale and ConnectivityScale are the access count and strength sum that reach
	// 1 − 1/e of their part.
	FrequencyScale    = 5.0
	ConnectivityScale = 2.0
)

// Params are the configurable rules of decay and tiers.
type Params struct {
	// HalfLife is how long an unclaimed memory's recency takes to halve, per tier.
	HalfLife map[domain.Tier]time.Duration
	// ClaimedSlowdown divides the decay rate of claimed memories.
	ClaimedSlowdown float64
	// Demote is each tier's demotion threshold: below it a memory sinks.
	Demote map[domain.Tier]float64
	// Promote is the promotion threshold into each tier (not the lowest).
	Promote map[domain.Tier]float64
	// Refresh is how far a stored score may drift before a sweep rewrites it.
	Refresh float64
}

const day = 24 * time.Hour

// DefaultParams are the documented defaults.
func DefaultParams() Params {
	return Params{
		HalfLife: map[domain.Tier]time.Duration{
			domain.TierIdentityCore:  90 * day,
			domain.TierActiveContext: 7 * day,
			domain.TierLongTerm:      60 * day,
			domain.TierArchive:       365 * day,
		},
		ClaimedSlowdown: 50,
		Demote: map[domain.Tier]float64{
			domain.TierIdentityCore:  0.15,
			domain.TierActiveContext: 0.10,
			domain.TierLongTerm:      0.04,
			domain.TierArchive:       0,
		},
		Promote: map[domain.Tier]float64{
			domain.TierIdentityCore:  0.90,
			domain.TierActiveContext: 0.45,
			domain.TierLongTerm:      0.20,
		},
		Refresh: 0.05,
	}
}

// WithDefaults fills what p leaves unset from DefaultParams.
func (p Params) WithDefaults() Params {
	d := DefaultParams()
	out := Params{HalfLife: map[domain.Tier]time.Duration{}, Demote: map[domain.Tier]float64{},
		Promote: map[domain.Tier]float64{}, ClaimedSlowdown: p.ClaimedSlowdown, Refresh: p.Refresh}
	for _, t := range domain.Tiers {
		out.HalfLife[t] = d.HalfLife[t]
		if v, ok := p.HalfLife[t]; ok {
			out.HalfLife[t] = v
		}
		out.Demote[t] = d.Demote[t]
		if v, ok := p.Demote[t]; ok {
			out.Demote[t] = v
		}
		if pv, ok := d.Promote[t]; ok {
			out.Promote[t] = pv
		}
		if v, ok := p.Promote[t]; ok {
			out.Promote[t] = v
		}
	}
	if out.ClaimedSlowdown == 0 {
		out.ClaimedSlowdown = d.ClaimedSlowdown
	}
	if out.Refresh == 0 {
		out.Refresh = d.Refresh
	}
	return out
}

// Validate checks that the rules are consistent: positive half-lives, thresholds in 0..1, the
// lowest tier never demotes, and every promotion threshold above its tier's demotion threshold.
func (p Params) Validate() error {
	for _, t := range domain.Tiers {
		if p.HalfLife[t] <= 0 {
			return domain.FieldErrorf("halfLife", "half-life of %s must be positive", t)
		}
		if d := p.Demote[t]; !(d >= 0 && d <= 1) {
			return domain.FieldErrorf("demote", "threshold of %s must be within 0..1", t)
		}
	}
	if p.Demote[domain.TierArchive] != 0 {
		return domain.FieldErrorf("demote", "ARCHIVE is the lowest tier: its threshold must be 0")
	}
	for _, t := range domain.Tiers[:len(domain.Tiers)-1] {
		pr, ok := p.Promote[t]
		if !ok || !(pr > p.Demote[t] && pr <= 1) {
			return domain.FieldErrorf("promote", "promotion into %s must lie above its demotion threshold and within 1", t)
		}
	}
	if !(p.ClaimedSlowdown >= 1) {
		return domain.FieldErrorf("claimedSlowdown", "must be at least 1")
	}
	if !(p.Refresh > 0 && p.Refresh < 1) {
		return domain.FieldErrorf("refresh", "must be within (0, 1)")
	}
	return nil
}

// Features are the parts of a memory the potential is made of.
type Features struct {
	Importance   float64
	AccessCount  int
	Claimed      bool
	Connectivity float64 // sum of association strengths
}

// Potential is the score a memory has right after a reinforcement.
func Potential(f Features) float64 {
	claimed := 0.0
	if f.Claimed {
		claimed = 1
	}
	freq := 1 - math.Exp(-float64(max(0, f.AccessCount))/FrequencyScale)
	conn := 1 - math.Exp(-math.Max(0, f.Connectivity)/ConnectivityScale)
	return clamp(WBase + WImportance*clamp(f.Importance) + WFrequency*freq + WConnectivity*conn + WClaimed*claimed)
}

// Initial is the score of a new memory with an importance hint in 0..1: its potential, as it is
// reinforced by being stored and has neither retrievals, claim nor associations yet.
func Initial(importance float64) float64 { return Potential(Features{Importance: importance}) }

// Reinforce is the provisional score of m right after a retrieval or claim the Hippocampus
// applied to m: its potential without associations (the Hippocampus does not see them), never
// below the score it had. The Salience consumer replaces it with the full score.
func Reinforce(m *domain.Memory) float64 {
	return math.Max(m.Salience, Potential(Features{Importance: m.Importance, AccessCount: m.AccessCount, Claimed: m.Claimed}))
}

// Rate is the decay rate per day of a memory in tier t (ln 2 / half-life in days).
func (p Params) Rate(t domain.Tier, claimed bool) float64 {
	hl := p.HalfLife[t]
	if hl <= 0 {
		hl = DefaultParams().HalfLife[domain.TierActiveContext]
	}
	r := math.Ln2 / (float64(hl) / float64(day))
	if claimed && p.ClaimedSlowdown > 1 {
		r /= p.ClaimedSlowdown
	}
	return r
}

// Decay is recency r0, checkpointed at from, decayed until to in tier t.
func (p Params) Decay(r0 float64, from, to time.Time, t domain.Tier, claimed bool) float64 {
	dt := to.Sub(from)
	if dt <= 0 {
		return clamp(r0)
	}
	return clamp(r0 * math.Exp(-p.Rate(t, claimed)*float64(dt)/float64(day)))
}

// Current is the score of a row at now, its recency then and its potential. A row the Salience
// context has not scored yet is scored from its features, reinforced when it was last stored,
// retrieved or claimed. A full row (features read) is scored exactly: its potential from its
// features, and a reinforcement newer than the checkpoint restarts its recency.
func (p Params) Current(r *domain.ScoreRow, now time.Time) (score, recency, potential float64) {
	features := Features{Importance: r.Importance, AccessCount: r.AccessCount, Claimed: r.Claimed, Connectivity: r.Connectivity}
	switch {
	case r.Scored && !r.Full:
		recency = p.Decay(r.Recency, r.ScoredAt, now, r.Tier, r.ScoredClaimed)
		return clamp(r.Potential * recency), recency, r.Potential
	case r.Scored:
		potential = Potential(features)
		recency = p.Decay(r.Recency, r.ScoredAt, now, r.Tier, r.Claimed)
		if at := LastReinforced(r); at.After(r.ScoredAt) {
			recency = p.Decay(1, at, now, r.Tier, r.Claimed)
		}
		return clamp(potential * recency), recency, potential
	}
	potential = Potential(features)
	recency = p.Decay(1, LastReinforced(r), now, r.Tier, r.Claimed)
	return clamp(potential * recency), recency, potential
}

// LastReinforced is when a row was last stored, retrieved or claimed, as far as it shows.
func LastReinforced(r *domain.ScoreRow) time.Time {
	at := r.CreatedAt
	if r.LastAccessedAt != nil && r.LastAccessedAt.After(at) {
		at = *r.LastAccessedAt
	}
	if r.ClaimedAt != nil && r.ClaimedAt.After(at) {
		at = *r.ClaimedAt
	}
	return at
}

// Demotion returns the tier a memory of tier t with score sinks to, and whether it sinks.
func (p Params) Demotion(t domain.Tier, score float64) (domain.Tier, bool) {
	if score >= p.Demote[t] {
		return t, false
	}
	for _, lower := range domain.Tiers[t.Rank()+1:] {
		if score >= p.Demote[lower] {
			return lower, true
		}
	}
	return domain.TierArchive, t != domain.TierArchive
}

// Promotion returns the tier a memory of tier t whose score rose to score rises to, and whether
// it rises: the highest tier above t whose promotion threshold it meets, climbing tier by tier.
func (p Params) Promotion(t domain.Tier, score float64) (domain.Tier, bool) {
	out := t
	for i := t.Rank() - 1; i >= 0; i-- {
		up := domain.Tiers[i]
		if score < p.Promote[up] {
			break
		}
		out = up
	}
	return out, out != t
}

func clamp(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
