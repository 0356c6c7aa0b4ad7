package recall

import (
	"context"
	"math"

	"github.com/totalrecall/totalrecall/domain"
)

// facetActivation is what spreading over facets reached: the activation of each memory, and the
// facet that gave it.
type facetActivation struct {
	act map[string]float64
	via map[string]*domain.Facet
}

// spreadOverFacets spreads the energy of the FacetFanout best matching episodes over their entity
// and topic facets to the other episodes of the scope holding the same values. A facet's value
// carries the best of conf(f)·energy(E)/best energy over the source episodes E holding it, divided
// by the square root of the number of episodes holding it (a value every episode holds says
// nothing). The memory of another episode where the value was found first gets that times the
// facet's confidence there, the best over the values it shares.
func spreadOverFacets(ctx context.Context, fr domain.SharedFacetReader, scopeID string, energy map[string]float64, bestEnergy float64) (facetActivation, error) {
	out := facetActivation{act: map[string]float64{}, via: map[string]*domain.Facet{}}
	src := topKeys(energy, FacetFanout)
	own, shared, err := fr.SharedFacets(ctx, scopeID, src, []string{domain.FacetEntity, domain.FacetTopic})
	if err != nil || len(shared) == 0 {
		return out, err
	}
	type key struct{ typ, value string }
	carry := map[key]float64{}
	for _, f := range own {
		k := key{f.Type, f.Value}
		carry[k] = max(carry[k], f.Confidence*energy[f.EpisodeID]/bestEnergy)
	}
	holders := map[key]map[string]bool{}
	for _, fs := range [][]*domain.Facet{own, shared} {
		for _, f := range fs {
			k := key{f.Type, f.Value}
			if holders[k] == nil {
				holders[k] = map[string]bool{}
			}
			holders[k][f.EpisodeID] = true
		}
	}
	for _, f := range shared {
		k := key{f.Type, f.Value}
		if f.MemoryID == "" || carry[k] <= 0 {
			continue
		}
		a := f.Confidence * carry[k] / math.Sqrt(float64(len(holders[k])))
		if a > out.act[f.MemoryID] || (a == out.act[f.MemoryID] && out.via[f.MemoryID] != nil && f.ID < out.via[f.MemoryID].ID) {
			out.act[f.MemoryID], out.via[f.MemoryID] = a, f
		}
	}
	return out, nil
}
