package recall

import (
	"context"

	"github.com/totalrecall/totalrecall/domain"
)

// Flashbacks returns the n past memories of a scope that resonate most with a new message
// (seed 003), cheap enough to run before every turn: one full-text query of the stemmed words
// alone (no exact-form or phrase boosts) for a few more hits than asked (3n), one read of those
// memories, ranked by WText·bm25/best + WSalience·salience — the text relevance relative to the
// best hit alone (not searchMemory's min–max), no spreading activation and no ranking in context.
// Archived memories never resonate.
func (r *Recall) Flashbacks(ctx context.Context, scopeID, text string, n int) ([]*RankedMemory, error) {
	f := domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}
	hits, err := r.Index.Search(ctx, domain.IndexQuery{ScopeID: scopeID, Text: text, Limit: max(3*n, 9), Filter: f, WordsOnly: true})
	if err != nil || len(hits) == 0 {
		return []*RankedMemory{}, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	ms, err := r.Store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	best := hits[0].Score
	out := make([]*RankedMemory, 0, len(hits))
	for _, h := range hits {
		m := byID[h.ID]
		if m == nil || m.ScopeID != scopeID || !keep(m, f) {
			continue
		}
		text := 0.0
		if best > 0 {
			text = h.Score / best
		}
		out = append(out, &RankedMemory{Memory: m, Reason: ReasonText, TextScore: text, Salience: m.Salience,
			Score: WText*text + WSalience*m.Salience})
	}
	sortRanked(out)
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}
