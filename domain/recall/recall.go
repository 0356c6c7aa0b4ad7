// Package recall is the Recall context: it answers searches by combining full-text relevance
// with salience, and spreads activation along strong associations.
//
// Ranking (documented in docs/concepts.md and tested with literal values):
//
//	text hit:        score = Wt·text + Ws·salience                                 Wt=0.7, Ws=0.3
//	                 text  = the text relevance, min–max normalised over the query's hits and
//	                         ranked in context (context.go)
//	association hit: score = parent score · strength · Decay                     Decay=0.5
//	flashback:       score = Wt·(bm25 / best bm25 of the query) + Ws·salience     (flashbacks.go)
//
// Association hits are the neighbours, over associations of at least MinStrength, of the best
// text hits; a memory reached both ways keeps its better score. Results never cross scopes:
// the index is queried per scope and every association lies within one scope.
package recall

import (
	"context"
	"sort"

	"github.com/totalrecall/totalrecall/domain"
)

// Weights of the ranking formula.
const (
	WText       = 0.7
	WSalience   = 0.3
	Decay       = 0.5
	MinStrength = 0.5
)

// Reason says why a result is there.
type Reason string

const (
	ReasonText        Reason = "TEXT"
	ReasonAssociation Reason = "ASSOCIATION"
	// ReasonLexical marks a memory found only by the query's expansions (Lexicon): it says
	// what the query means, not what it says.
	ReasonLexical Reason = "LEXICAL"
)

// RankedMemory is one search result with the parts of its score.
type RankedMemory struct {
	Memory     *domain.Memory
	Score      float64
	Reason     Reason
	TextScore  float64 // text relevance, 0..1: min–max and in context (search), bm25/best (flashbacks)
	Salience   float64
	Activation float64 // association hits: parent score · strength · Decay
	Via        *domain.Association
	// ViaFacet is the facet a FACET result was reached through: the entity or topic its episode
	// shares with an episode that matches the query, found first in this memory.
	ViaFacet *domain.Facet
	// Depth is how many associations away from a source a total recall found the memory.
	Depth int
}

// Query is a SearchQuery's payload.
type Query struct {
	ScopeID             string
	Text                string
	MaxResults          int
	Filter              domain.MemoryFilter
	IncludeAssociations bool
	// Literal searches the words as written: no expansion by the Lexicon.
	Literal bool
}

// Recall searches memories. Safe for concurrent use.
type Recall struct {
	Store domain.Store
	Index domain.Index
	// Embedder, when set, makes search hybrid where the scope has vectors (context.go).
	Embedder domain.Embedder
	// Lexicon, when set, expands queries with what it knows of their words (context.go).
	Lexicon domain.Lexicon
	// Weights, when set, replace DefaultWeights (an evaluation varies them).
	Weights *Weights
}

func (r *Recall) weights() Weights {
	if r.Weights != nil {
		return *r.Weights
	}
	return DefaultWeights
}

// expansions returns what the Lexicon makes of q's text, nil when expansion is off.
func (r *Recall) expansions(q Query, w Weights) []domain.Expansion {
	if r.Lexicon == nil || q.Literal || w.Lexical <= 0 {
		return nil
	}
	return r.Lexicon.Expand(q.Text)
}

// Search runs q, ranking in context (context.go); a store that knows no contexts ranks every
// hit with neutral factors. Errors: INVALID_ARGUMENT.
func (r *Recall) Search(ctx context.Context, q Query) ([]*RankedMemory, error) {
	// Archived memories leave search unless asked for; claimed is filtered after loading.
	f := q.Filter
	if len(f.States) == 0 {
		f.States = []domain.LifecycleState{domain.StateActive}
	}
	cr, ok := r.Store.(domain.RecallContextReader)
	if !ok {
		cr = noContext{}
	}
	return r.searchInContext(ctx, q, f, cr)
}

// noContext is the context of a store that records none: no episodes, neighbours or persons.
type noContext struct{}

func (noContext) MemoryContexts(context.Context, string, []string) (map[string]*domain.MemoryContext, error) {
	return map[string]*domain.MemoryContext{}, nil
}

func (noContext) ScopePersons(context.Context, string) ([]string, error) { return nil, nil }

func (r *Recall) spread(ctx context.Context, q Query, f domain.MemoryFilter, top []*RankedMemory, seen map[string]*RankedMemory) ([]*RankedMemory, error) {
	cand := map[string]*RankedMemory{}
	for _, parent := range top {
		as, err := r.Store.Associations(ctx, parent.Memory.ID, nil, MinStrength)
		if err != nil {
			return nil, err
		}
		for _, a := range as {
			if a.ScopeID != q.ScopeID {
				continue
			}
			act := parent.Score * a.Strength * Decay
			if prev, ok := seen[a.TargetID]; ok && prev.Score >= act {
				continue
			}
			if c, ok := cand[a.TargetID]; ok && c.Score >= act {
				continue
			}
			cand[a.TargetID] = &RankedMemory{Reason: ReasonAssociation, Activation: act, Score: act, Via: a}
		}
	}
	if len(cand) == 0 {
		return top, nil
	}
	ids := make([]string, 0, len(cand))
	for id := range cand {
		ids = append(ids, id)
	}
	ms, err := r.Store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := top
	for _, m := range ms {
		if m.ScopeID != q.ScopeID || !keep(m, f) {
			continue
		}
		c := cand[m.ID]
		c.Memory, c.Salience = m, m.Salience
		if prev, ok := seen[m.ID]; ok {
			// Reached both ways: replace the weaker text entry.
			for i, x := range out {
				if x == prev {
					out = append(out[:i], out[i+1:]...)
					break
				}
			}
		}
		out = append(out, c)
	}
	sortRanked(out)
	if len(out) > q.MaxResults {
		out = out[:q.MaxResults]
	}
	return out, nil
}

func sortRanked(rs []*RankedMemory) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Memory.ID < rs[j].Memory.ID
	})
}

// keep applies the filters the index cannot know fresh: state, tier and claim may have changed.
func keep(m *domain.Memory, f domain.MemoryFilter) bool {
	if f.Claimed != nil && m.Claimed != *f.Claimed {
		return false
	}
	if len(f.States) > 0 && !contains(f.States, m.State) {
		return false
	}
	if len(f.Tiers) > 0 && !contains(f.Tiers, m.Tier) {
		return false
	}
	if len(f.Kinds) > 0 && !contains(f.Kinds, m.Kind) {
		return false
	}
	if f.From != nil && m.OccurredAt.Before(*f.From) {
		return false
	}
	if f.To != nil && !m.OccurredAt.Before(*f.To) {
		return false
	}
	for _, t := range f.Tags {
		if !contains(m.Tags, t) {
			return false
		}
	}
	return true
}

func contains[T comparable](xs []T, v T) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}
