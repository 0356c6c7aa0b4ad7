package synapse

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func TestParamsDefaultsAndValidate(t *testing.T) {
	p := DefaultParams()
	if p.TemporalScale != 30*time.Minute || p.SessionGap != 30*time.Minute || p.EpisodeMax != 100 || p.Candidates != 10 ||
		p.ThematicThreshold != 0.35 || p.ThematicMax != 3 || p.PersonThreshold != 0.15 || p.PersonMax != 2 ||
		p.VectorThreshold != 0.8 || p.MaxAssociations != 12 || p.ClaimStrengthen != 0.1 || p.Quiet != 250*time.Millisecond ||
		p.MaxDefer != 10*time.Second {
		t.Fatalf("defaults = %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*Params){
		func(p *Params) { p.TemporalScale = -time.Second },
		func(p *Params) { p.SessionGap = -time.Second },
		func(p *Params) { p.EpisodeMax = domain.MaxEpisodeItems + 1 },
		func(p *Params) { p.Candidates = 1001 },
		func(p *Params) { p.ThematicThreshold = 1.5 },
		func(p *Params) { p.PersonThreshold = -0.1 },
		func(p *Params) { p.VectorThreshold = 2 },
		func(p *Params) { p.ThematicMax = -1 },
		func(p *Params) { p.MaxAssociations = 1 },
		func(p *Params) { p.ClaimStrengthen = 1.1 },
		func(p *Params) { p.ClaimStrengthen = math.NaN() },
		func(p *Params) { p.MaxDefer = -time.Second },
		func(p *Params) { p.MaxDefer = 2 * time.Hour },
	} {
		q := DefaultParams()
		bad(&q)
		if err := q.Validate(); err == nil {
			t.Errorf("%+v: accepted", q)
		}
	}
}

func TestTemporalStrength(t *testing.T) {
	p := DefaultParams()
	for _, c := range []struct {
		gap  time.Duration
		want string
	}{
		{0, "1.0000"}, {time.Minute, "0.9836"}, {-time.Minute, "0.9836"}, {30 * time.Minute, "0.6839"},
		{2 * time.Hour, "0.5092"}, {240 * time.Hour, "0.5000"},
	} {
		if got := fmt.Sprintf("%.4f", p.TemporalStrength(c.gap)); got != c.want {
			t.Errorf("TemporalStrength(%s) = %s, want %s", c.gap, got, c.want)
		}
	}
	// Another scale, another slope; the floor stays.
	p.TemporalScale = time.Hour
	if got := fmt.Sprintf("%.4f", p.TemporalStrength(30*time.Minute)); got != "0.8033" {
		t.Errorf("an hour's scale: %s", got)
	}
}

func render(ls []Link) string {
	var parts []string
	for _, l := range ls {
		s := fmt.Sprintf("%s %s %.3f", l.TargetID, l.Type, l.Strength)
		if l.Person != "" {
			s += " " + l.Person
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestConnect(t *testing.T) {
	p := DefaultParams()
	cands := []Candidate{
		{ID: "a", Text: 0.9, Persons: []string{"Caroline"}},
		{ID: "b", Text: 0.5},
		{ID: "c", Text: 0.2, Persons: []string{"Caroline"}},
		{ID: "d", Text: 0.1, Persons: []string{"Caroline"}}, // below the person threshold
		{ID: "e", Text: 0.4},
		{ID: "f", Text: 0.36},
		{ID: "g", Text: 0.34}, // below the thematic threshold
		{ID: "h", Vector: 0.85},
		{ID: "i", Vector: 0.79, Text: 0.2}, // the vector below its threshold: the text counts
	}
	got := render(p.Connect([]string{"Caroline"}, 0, cands))
	want := "a PERSON 0.950 Caroline; c PERSON 0.600 Caroline; h THEMATIC 0.850; b THEMATIC 0.500; e THEMATIC 0.400"
	if got != want {
		t.Fatalf("Connect =\n %s\nwant\n %s", got, want)
	}
	// Without persons, the most similar are THEMATIC, at most ThematicMax.
	if got := render(p.Connect(nil, 0, cands)); got != "a THEMATIC 0.900; h THEMATIC 0.850; b THEMATIC 0.500" {
		t.Fatalf("without persons: %s", got)
	}
	// The cap: a new memory with 9 links has room for one more (two are kept for TEMPORAL).
	if got := render(p.Connect([]string{"Caroline"}, 9, cands)); got != "a PERSON 0.950 Caroline" {
		t.Fatalf("nearly full: %s", got)
	}
	if got := p.Connect([]string{"Caroline"}, 10, cands); len(got) != 0 {
		t.Fatalf("full: %s", render(got))
	}
	// A full candidate is passed by.
	full := append([]Candidate{{ID: "z", Text: 1, Persons: []string{"Caroline"}, Linked: 10}}, cands...)
	if got := render(p.Connect([]string{"Caroline"}, 0, full)); !strings.HasPrefix(got, "a PERSON") {
		t.Fatalf("a full candidate was linked: %s", got)
	}
	// Two persons named: PersonMax each.
	two := []Candidate{{ID: "a", Text: 0.5, Persons: []string{"Ann"}}, {ID: "b", Text: 0.4, Persons: []string{"Ann", "Bo"}},
		{ID: "c", Text: 0.3, Persons: []string{"Ann"}}, {ID: "d", Text: 0.2, Persons: []string{"Bo"}}}
	if got := render(p.Connect([]string{"Ann", "Bo"}, 0, two)); got != "a PERSON 0.750 Ann; b PERSON 0.700 Ann; d PERSON 0.600 Bo" {
		t.Fatalf("two persons: %s", got)
	}
}

func tc(id string) domain.TransactionContext {
	return domain.TransactionContext{SessionID: "sess", RequestID: "req", MessageID: id, CausationID: "cmd",
		Timestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), SourceContext: domain.CtxHippocampus}
}

func TestCreatedAndStrengthen(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	stored := &domain.Event{Type: domain.EvMemoryStored, ScopeID: "s", MemoryID: "m", Context: tc("stored")}
	ev := Created(stored, []Link{{TargetID: "p", Type: domain.AssocTemporal, Strength: 0.9}, {TargetID: "q", Type: domain.AssocPerson, Strength: 0.6, Person: "Ann"}}, now)
	c := ev.Context
	if ev.Type != domain.EvAssociationCreated || ev.MemoryID != "m" || c.SessionID != "sess" || c.RequestID != "req" ||
		c.CausationID != "stored" || c.MessageID == "stored" || c.SourceContext != domain.CtxSynapse || !c.Timestamp.Equal(now) {
		t.Fatalf("created = %+v", ev)
	}
	if got := fmt.Sprint(ev.Payload["associations"]); got != "[map[strength:0.9 targetId:p type:TEMPORAL] map[person:Ann strength:0.6 targetId:q type:PERSON]]" {
		t.Fatalf("associations = %s", got)
	}
	if ev.About != nil || ev.Payload["automatic"] != true || ev.Payload["memoryId"] != "m" {
		t.Fatalf("created = %+v", ev)
	}

	p := DefaultParams()
	claimed := &domain.Event{Type: domain.EvMemoryClaimed, ScopeID: "s", MemoryID: "m", Context: tc("claimed")}
	sets, sev := p.Strengthen(claimed, []*domain.Association{
		{SourceID: "m", TargetID: "p", Type: domain.AssocTemporal, Strength: 0.95},
		{SourceID: "m", TargetID: "q", Type: domain.AssocPerson, Strength: 0.6},
		{SourceID: "m", TargetID: "r", Type: domain.AssocCausal, Strength: 1},
	}, now)
	if len(sets) != 2 || sets[0].Strength != 1 || fmt.Sprintf("%.2f", sets[1].Strength) != "0.70" || sets[1].TargetID != "q" {
		t.Fatalf("sets = %+v", sets)
	}
	if sev.Type != domain.EvAssociationStrengthened || sev.Context.CausationID != "claimed" || len(sev.About) != 2 ||
		sev.Payload["reason"] != "memory claimed" {
		t.Fatalf("strengthened = %+v", sev)
	}
	if sets, ev := p.Strengthen(claimed, nil, now); sets != nil || ev != nil {
		t.Fatal("a claim of a memory without associations strengthened something")
	}
}
