package recall

import (
	"context"
	"fmt"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// benchWorld is a conversation of sessions of 30 turns, each turn a TEMPORAL neighbour of the
// next and every session an episode; text hits are spread over it as a question's are over a
// LoCoMo conversation (about one turn in three matches some word).
func benchWorld(sessions int) *world {
	w := newWorld()
	for s := 0; s < sessions; s++ {
		var ids []string
		for k := 0; k < 30; k++ {
			id := fmt.Sprintf("s%03dt%02d", s, k)
			bm25 := 0.0
			if (s*30+k)%3 == 0 {
				bm25 = 1 + float64((s*7+k*13)%97)/10
			}
			w.add(id, "", bm25, 0.5, day0)
			ids = append(ids, id)
		}
		w.chain(0.99, ids...)
		w.episode(fmt.Sprintf("e%03d", s), ids...)
	}
	return w
}

// BenchmarkRankInContext is the ranking in context of one search over benchWorld (the index and
// the store are in memory: what is measured is the ranking's own CPU), with the weights as
// shipped and with each of the rules added last turned off — the neighbours two turns away
// (Wm = 0) and the spread of list questions over episodes (Wv = 0):
// `go test ./domain/recall -bench RankInContext -count 10`.
func BenchmarkRankInContext(b *testing.B) {
	w := benchWorld(30)
	noTwo, noDiv := DefaultWeights, DefaultWeights
	noTwo.Neighbour2, noDiv.Diversity = 0, 0
	for _, q := range []struct{ name, text string }{{"one thing", "What did Ana paint at the workshop?"},
		{"several things", "What activities has Ana done with her family?"}} {
		for _, v := range []struct {
			name string
			wt   Weights
		}{{"shipped", DefaultWeights}, {"Wm=0", noTwo}, {"Wv=0", noDiv}} {
			name, wt := v.name, v.wt
			b.Run(fmt.Sprintf("%s/%s", q.name, name), func(b *testing.B) {
				r := &Recall{Store: w, Index: worldIndex{w: w}, Weights: &wt}
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					w.limits, w.asked = nil, nil
					if _, err := r.Search(context.Background(), Query{ScopeID: scope, Text: q.text, MaxResults: 20}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkDiversify is the reordering of a list question's results alone: the best 20 of 300
// candidates of 10 episodes.
func BenchmarkDiversify(b *testing.B) {
	w := benchWorld(10)
	var orig []*RankedMemory
	for id, m := range w.mems {
		orig = append(orig, &RankedMemory{Memory: m, Score: w.bm25[id]})
	}
	sortRanked(orig)
	scores := make([]float64, len(orig))
	for i, c := range orig {
		scores[i] = c.Score
	}
	cands := make([]*RankedMemory, len(orig))
	b.ReportAllocs()
	for b.Loop() {
		copy(cands, orig)
		for i, c := range orig {
			c.Score = scores[i]
		}
		diversify(cands, w.ctx, 20, WDiversity)
	}
}

// BenchmarkNeighbourRelevance is n(d) of 300 candidates, every one's context read, with and
// without the neighbours two turns away (Wm = 0).
func BenchmarkNeighbourRelevance(b *testing.B) {
	w := benchWorld(10)
	var hits []domain.IndexHit
	for id, s := range w.bm25 {
		hits = append(hits, domain.IndexHit{ID: id, Score: s})
	}
	textOf := newTextScores(hits, nil, nil, textScale{best: 10.7, floor: 1})
	noTwo := DefaultWeights
	noTwo.Neighbour2 = 0
	for _, v := range []struct {
		name string
		wt   Weights
	}{{"shipped", DefaultWeights}, {"Wm=0", noTwo}} {
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				for id, m := range w.mems {
					neighbourRelevance(m, w.ctx[id], w.ctx, w.mems, textOf, v.wt)
				}
			}
		})
	}
}

func BenchmarkAsksForMany(b *testing.B) {
	qs := []string{"What activities has Melanie done with her family?", "What did Melanie paint recently?",
		"How many children does Melanie have?", "When did Caroline go to the LGBTQ support group?"}
	for i := 0; b.Loop(); i++ {
		asksForMany(qs[i%len(qs)])
	}
}
