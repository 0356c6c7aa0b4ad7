package salience

import (
	"math"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPotentialBoundsAndWeights(t *testing.T) {
	if got := Potential(Features{}); !near(got, WBase) {
		t.Fatalf("bare potential = %v, want %v", got, WBase)
	}
	if got := Initial(1); !near(got, WBase+WImportance) {
		t.Fatalf("Initial(1) = %v", got)
	}
	full := Potential(Features{Importance: 1, AccessCount: 1 << 30, Claimed: true, Connectivity: 1e9})
	if !near(full, 1) {
		t.Fatalf("saturated potential = %v, want 1", full)
	}
	for _, f := range []Features{{Importance: -3}, {Importance: 7}, {AccessCount: -4}, {Connectivity: -1}, {Importance: math.NaN()}} {
		if p := Potential(f); !(p >= 0 && p <= 1) {
			t.Fatalf("Potential(%+v) = %v, out of 0..1", f, p)
		}
	}
	base := Features{Importance: 0.5}
	claimed := base
	claimed.Claimed = true
	accessed := base
	accessed.AccessCount = 1
	if !(Potential(claimed) > Potential(accessed) && Potential(accessed) > Potential(base)) {
		t.Fatalf("a claim must weigh more than one retrieval, which weighs more than nothing")
	}
	conn := base
	conn.Connectivity = 2
	if got, want := Potential(conn)-Potential(base), WConnectivity*(1-math.Exp(-1)); !near(got, want) {
		t.Fatalf("connectivity part = %v, want %v", got, want)
	}
}

func TestDecayHalfLivesAndClaimedResist(t *testing.T) {
	p := DefaultParams()
	for tier, hl := range p.HalfLife {
		if got := p.Decay(1, t0, t0.Add(hl), tier, false); !near(got, 0.5) {
			t.Fatalf("%s after one half-life: %v, want 0.5", tier, got)
		}
		claimedHL := time.Duration(float64(hl) * p.ClaimedSlowdown)
		if got := p.Decay(1, t0, t0.Add(claimedHL), tier, true); !near(got, 0.5) {
			t.Fatalf("claimed %s after %v: %v, want 0.5", tier, claimedHL, got)
		}
	}
	if got := p.Decay(0.8, t0, t0.Add(-time.Hour), domain.TierActiveContext, false); got != 0.8 {
		t.Fatalf("decay backwards in time changed recency: %v", got)
	}
	// Checkpointing does not change the result: decaying in two steps equals one step.
	mid := p.Decay(1, t0, t0.Add(3*day), domain.TierLongTerm, false)
	if a, b := p.Decay(mid, t0.Add(3*day), t0.Add(10*day), domain.TierLongTerm, false), p.Decay(1, t0, t0.Add(10*day), domain.TierLongTerm, false); !near(a, b) {
		t.Fatalf("two-step decay %v != one-step %v", a, b)
	}
}

func TestTierPlacementAndHysteresis(t *testing.T) {
	p := DefaultParams()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tier  domain.Tier
		score float64
		down  domain.Tier
		moved bool
	}{
		{domain.TierActiveContext, 0.5, domain.TierActiveContext, false},
		{domain.TierActiveContext, 0.09, domain.TierLongTerm, true},
		{domain.TierActiveContext, 0.01, domain.TierArchive, true},
		{domain.TierIdentityCore, 0.14, domain.TierActiveContext, true},
		{domain.TierIdentityCore, 0.05, domain.TierLongTerm, true},
		{domain.TierArchive, 0, domain.TierArchive, false},
	}
	for _, c := range cases {
		got, moved := p.Demotion(c.tier, c.score)
		if got != c.down || moved != c.moved {
			t.Errorf("Demotion(%s, %v) = %s %v, want %s %v", c.tier, c.score, got, moved, c.down, c.moved)
		}
	}
	up := []struct {
		tier  domain.Tier
		score float64
		want  domain.Tier
	}{
		{domain.TierArchive, 0.19, domain.TierArchive},
		{domain.TierArchive, 0.2, domain.TierLongTerm},
		{domain.TierArchive, 0.5, domain.TierActiveContext},
		{domain.TierLongTerm, 0.95, domain.TierIdentityCore},
		{domain.TierIdentityCore, 1, domain.TierIdentityCore},
	}
	for _, c := range up {
		if got, _ := p.Promotion(c.tier, c.score); got != c.want {
			t.Errorf("Promotion(%s, %v) = %s, want %s", c.tier, c.score, got, c.want)
		}
	}
	// A memory that just moved never moves straight back, whatever its score.
	for _, tier := range domain.Tiers {
		for s := 0.0; s <= 1; s += 0.001 {
			if to, ok := p.Demotion(tier, s); ok {
				if back, ok := p.Promotion(to, s); ok && back.Rank() <= tier.Rank() {
					t.Fatalf("score %v demoted %s→%s would be promoted back to %s", s, tier, to, back)
				}
			}
			if to, ok := p.Promotion(tier, s); ok {
				if _, ok := p.Demotion(to, s); ok {
					t.Fatalf("score %v promoted %s→%s would be demoted at once", s, tier, to)
				}
			}
		}
	}
}

func TestValidateRefusesInconsistentRules(t *testing.T) {
	bad := []func(*Params){
		func(p *Params) { p.HalfLife[domain.TierLongTerm] = 0 },
		func(p *Params) { p.Demote[domain.TierArchive] = 0.1 },
		func(p *Params) { p.Promote[domain.TierActiveContext] = 0.05 }, // below its demotion threshold
		func(p *Params) { p.ClaimedSlowdown = 0.5 },
		func(p *Params) { p.Demote[domain.TierLongTerm] = 2 },
	}
	for i, mut := range bad {
		p := DefaultParams()
		mut(&p)
		if err := p.Validate(); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("case %d: Validate = %v, want INVALID_ARGUMENT", i, err)
		}
	}
	// WithDefaults keeps what is given and fills the rest.
	p := Params{HalfLife: map[domain.Tier]time.Duration{domain.TierActiveContext: time.Hour}}.WithDefaults()
	if p.HalfLife[domain.TierActiveContext] != time.Hour || p.HalfLife[domain.TierLongTerm] != 60*day || p.Validate() != nil {
		t.Fatalf("WithDefaults = %+v", p)
	}
}

// TestSimulatedYear runs a year of daily sweeps over a corpus with the pure rules: claimed
// memories keep their tier, unclaimed ones sink to ARCHIVE, and no memory is ever lost.
func TestSimulatedYear(t *testing.T) {
	p := DefaultParams()
	type mem struct {
		row     domain.ScoreRow
		claimed bool
	}
	var corpus []*mem
	for i := 0; i < 200; i++ {
		tier := []domain.Tier{domain.TierIdentityCore, domain.TierActiveContext, domain.TierLongTerm}[i%3]
		imp := float64(i%5) / 4
		claimed := i%4 == 0
		pot := Potential(Features{Importance: imp, Claimed: claimed, AccessCount: i % 7})
		corpus = append(corpus, &mem{claimed: claimed, row: domain.ScoreRow{ID: domain.NewID(), Tier: tier, Claimed: claimed,
			Scored: true, ScoredClaimed: claimed, Potential: pot, Recency: 1, ScoredAt: t0, Salience: pot}})
	}
	start := map[string]domain.Tier{}
	for _, m := range corpus {
		start[m.row.ID] = m.row.Tier
	}
	for d := 1; d <= 365; d++ {
		now := t0.Add(time.Duration(d) * day)
		for _, m := range corpus {
			score, rec, _ := p.Current(&m.row, now)
			if to, ok := p.Demotion(m.row.Tier, score); ok {
				m.row.Tier, m.row.Recency, m.row.ScoredAt = to, rec, now
			}
			m.row.Salience = score
		}
	}
	if len(corpus) != 200 {
		t.Fatal("memories were lost")
	}
	for _, m := range corpus {
		if m.claimed && m.row.Tier != start[m.row.ID] {
			t.Errorf("claimed memory sank from %s to %s (potential %.2f)", start[m.row.ID], m.row.Tier, m.row.Potential)
		}
		if !m.claimed && m.row.Tier != domain.TierArchive {
			t.Errorf("unclaimed memory still in %s after a year (potential %.2f, score %.3f)", m.row.Tier, m.row.Potential, m.row.Salience)
		}
	}
}

// TestDocumentedSalience pins the rules docs/concepts.md states, with the numbers written out:
// potential = 0.25 + 0.30·importance + 0.20·(1 − e^(−accessCount/5)) + 0.10·(1 − e^(−Σ strengths/2))
// + 0.15·claimed; recency halves every 90 / 7 / 60 / 365 days in IDENTITY_CORE / ACTIVE_CONTEXT /
// LONG_TERM / ARCHIVE, 50 times slower when claimed; demotion below 0.15 / 0.10 / 0.04 / 0,
// promotion at 0.90 / 0.45 / 0.20; a sweep rewrites a score that drifted by 0.05.
func TestDocumentedSalience(t *testing.T) {
	potentials := []struct {
		f    Features
		want float64
	}{
		{Features{}, 0.25},
		{Features{Importance: 0.8}, 0.49},
		{Features{Importance: 1, Claimed: true}, 0.70},
		{Features{AccessCount: 5}, 0.25 + 0.20*(1-math.Exp(-1))},
		{Features{AccessCount: 10}, 0.25 + 0.20*(1-math.Exp(-2))},
		{Features{Connectivity: 2}, 0.25 + 0.10*(1-math.Exp(-1))},
		{Features{Connectivity: 0.8}, 0.25 + 0.10*(1-math.Exp(-0.4))},
		{Features{Importance: 0.5, AccessCount: 3, Connectivity: 1.5, Claimed: true},
			0.25 + 0.15 + 0.20*(1-math.Exp(-0.6)) + 0.10*(1-math.Exp(-0.75)) + 0.15},
	}
	for _, c := range potentials {
		if got := Potential(c.f); !near(got, c.want) {
			t.Errorf("Potential(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
	if got := Initial(0.8); !near(got, 0.49) {
		t.Errorf("a new memory of importance 0.8 starts at %v, want 0.49", got)
	}
	p := DefaultParams()
	halfLives := map[domain.Tier]time.Duration{
		domain.TierIdentityCore:  90 * 24 * time.Hour,
		domain.TierActiveContext: 7 * 24 * time.Hour,
		domain.TierLongTerm:      60 * 24 * time.Hour,
		domain.TierArchive:       365 * 24 * time.Hour,
	}
	for tier, hl := range halfLives {
		if got := p.Decay(1, t0, t0.Add(hl), tier, false); !near(got, 0.5) {
			t.Errorf("%s after %v: recency %v, want 0.5", tier, hl, got)
		}
		if got := p.Decay(1, t0, t0.Add(50*hl), tier, true); !near(got, 0.5) {
			t.Errorf("claimed, %s after %v: recency %v, want 0.5", tier, 50*hl, got)
		}
	}
	// Ten days in ACTIVE_CONTEXT: 2^(−10/7).
	if got := p.Decay(1, t0, t0.Add(10*24*time.Hour), domain.TierActiveContext, false); !near(got, math.Pow(2, -10.0/7)) {
		t.Errorf("ten days in ACTIVE_CONTEXT: %v", got)
	}
	demote := map[domain.Tier]float64{domain.TierIdentityCore: 0.15, domain.TierActiveContext: 0.10, domain.TierLongTerm: 0.04}
	for tier, th := range demote {
		if _, moved := p.Demotion(tier, th); moved {
			t.Errorf("%s at its threshold %v sank", tier, th)
		}
		if _, moved := p.Demotion(tier, th-0.001); !moved {
			t.Errorf("%s below its threshold %v stayed", tier, th)
		}
	}
	if _, moved := p.Demotion(domain.TierArchive, 0); moved {
		t.Error("ARCHIVE sank")
	}
	promote := []struct {
		from  domain.Tier
		score float64
		to    domain.Tier
	}{
		{domain.TierArchive, 0.199, domain.TierArchive}, {domain.TierArchive, 0.20, domain.TierLongTerm},
		{domain.TierLongTerm, 0.449, domain.TierLongTerm}, {domain.TierLongTerm, 0.45, domain.TierActiveContext},
		{domain.TierActiveContext, 0.899, domain.TierActiveContext}, {domain.TierActiveContext, 0.90, domain.TierIdentityCore},
	}
	for _, c := range promote {
		if got, _ := p.Promotion(c.from, c.score); got != c.to {
			t.Errorf("Promotion(%s, %v) = %s, want %s", c.from, c.score, got, c.to)
		}
	}
	// Binary fractions, so that the differences are exact: 0.0625 and 0.046875 either side of 0.05.
	if !drifted(0.3125, 0.25, p.Refresh) || drifted(0.296875, 0.25, p.Refresh) || !drifted(0.1875, 0.25, p.Refresh) ||
		drifted(0.203125, 0.25, p.Refresh) {
		t.Errorf("a sweep rewrites a score that drifted by 0.05 (refresh %v)", p.Refresh)
	}
}
