package recall

import (
	"context"
	"math"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

type fakeFacets struct {
	own, shared []*domain.Facet
	asked       []string
}

func (f *fakeFacets) SharedFacets(_ context.Context, _ string, eps, _ []string) (own, shared []*domain.Facet, err error) {
	f.asked = eps
	return f.own, f.shared, nil
}

// TestSpreadOverFacets: a value carries its best source's confidence × energy share, divided by
// the square root of the episodes holding it; the memory raising it elsewhere takes that times
// its own confidence, the best over its values; a facet found in no memory reaches none.
func TestSpreadOverFacets(t *testing.T) {
	f := func(id, ep, mem, typ, val string, conf float64) *domain.Facet {
		return &domain.Facet{ID: id, EpisodeID: ep, MemoryID: mem, Type: typ, Value: val, Confidence: conf}
	}
	fr := &fakeFacets{
		own: []*domain.Facet{
			f("o1", "E1", "a", "topic", "lighthouse", 1),
			f("o2", "E2", "b", "topic", "lighthouse", 0.5),
			f("o3", "E2", "b", "entity", "Ana", 0.8),
		},
		shared: []*domain.Facet{
			f("s1", "F1", "x", "topic", "lighthouse", 0.5),
			f("s2", "F2", "y", "topic", "lighthouse", 1),
			f("s3", "F2", "y", "entity", "Ana", 1),
			f("s4", "F3", "", "entity", "Ana", 1),
			f("s5", "F3", "z", "topic", "Ana", 1), // the same value, another type: no carry
		},
	}
	energy := map[string]float64{"E1": 2, "E2": 1, "E3": 0.5}
	got, err := spreadOverFacets(context.Background(), fr, "scope", energy, 2)
	if err != nil {
		t.Fatal(err)
	}
	// lighthouse: carry max(1·2/2, 0.5·1/2) = 1, held by E1, E2, F1, F2: ÷2.
	// Ana (entity): carry 0.8·1/2 = 0.4, held by E2, F2, F3: ÷√3.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(got.act["x"], 0.5*1/2) || !near(got.act["y"], 1*1/2.0) || got.act["z"] != 0 || len(got.act) != 2 {
		t.Fatalf("activation = %v", got.act)
	}
	if got.via["y"].ID != "s2" || got.via["x"].ID != "s1" {
		t.Fatalf("via = %v", got.via)
	}
	if len(fr.asked) != 3 || fr.asked[0] != "E1" {
		t.Fatalf("source episodes = %v, want the best first", fr.asked)
	}
	// Ana alone would give y 1 · 0.4/√3, below what lighthouse gives it.
	fr.shared = fr.shared[2:3]
	got, _ = spreadOverFacets(context.Background(), fr, "scope", energy, 2)
	if !near(got.act["y"], 0.4/math.Sqrt(2)) || got.via["y"].Value != "Ana" {
		t.Fatalf("Ana alone: %v %v", got.act, got.via["y"])
	}
}
