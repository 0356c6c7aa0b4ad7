package search

import (
	"context"
	"math"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/totalrecall/totalrecall/domain"
)

// Scoring the expansions. A query's expansions are up to MaxExpansionClauses terms and phrases,
// some of them frequent words. Bleve's disjunction of their searchers merges their postings
// through a heap, with a pooled match per posting; at 100,000 documents that made the
// expansions' query cost more than the words' own. scoreExpansions gives the scores Bleve's
// disjunction gives (TF-IDF: each clause's score, summed over the clauses a document matches and
// multiplied by the share of the clauses it matches) by adding each term's postings into an
// array of scores, one segment at a time. Phrases, few and rare, go through Bleve's phrase
// searcher, told the norm of the whole query as the disjunction would tell it.

// accumulator holds one segment's running scores by local document number, and the numbers it
// has touched.
type accumulator struct {
	score   []float64
	count   []uint8 // clauses matched; MaxExpansionClauses fits
	touched []uint32
}

var accumulators = sync.Pool{New: func() any { return new(accumulator) }}

// reset makes a clear accumulator for segments of up to n documents.
func (a *accumulator) reset(n int) {
	if cap(a.score) < n {
		a.score, a.count = make([]float64, n), make([]uint8, n)
	}
	a.score, a.count = a.score[:n], a.count[:n]
	a.touched = a.touched[:0]
}

func (a *accumulator) add(d uint32, s float64) {
	if a.count[d] == 0 {
		a.touched = append(a.touched, d)
	}
	a.score[d] += s
	a.count[d]++
}

// expTerm is a one-word clause with its postings in each segment of the snapshot.
type expTerm struct {
	pls   []segment.PostingsList
	idf   float64
	boost float64
}

// scoreExpansions returns the limit best documents of snap for the disjunction of cs among those
// meeting conds, best first, equal scores in id order, each with the score Bleve's
// disjunction query of cs gives it.
func scoreExpansions(ctx context.Context, m mapping.IndexMapping, snap *scorch.IndexSnapshot, cs []expClause, conds []termCond, limit int, ids *idCache) ([]domain.IndexHit, error) {
	if limit <= 0 || len(cs) == 0 {
		return []domain.IndexHit{}, nil
	}
	view := ids.view(snap)
	filter, err := view.termFilter(conds)
	if err != nil {
		return nil, err
	}
	total, err := snap.DocCount()
	if err != nil {
		return nil, err
	}
	dicts := make([]segment.TermDictionary, len(view.segs))
	largest := 0
	for k, seg := range view.segs {
		if dicts[k], err = seg.Segment().Dictionary(FieldContent); err != nil {
			return nil, err
		}
		largest = max(largest, int(seg.FullSize()))
	}

	// Each clause's weight, as Bleve's searchers state it, makes the query's norm.
	ctx = withScoringModel(ctx, m)
	var terms []expTerm
	var phrases []bsearch.Searcher
	defer func() {
		for _, s := range phrases {
			_ = s.Close()
		}
	}()
	sumOfSquaredWeights := 0.0
	for _, c := range cs {
		if c.term == "" {
			s, err := c.query().Searcher(ctx, snap, m, bsearch.SearcherOptions{})
			if err != nil {
				return nil, err
			}
			phrases = append(phrases, s)
			sumOfSquaredWeights += s.Weight()
			continue
		}
		t := expTerm{pls: make([]segment.PostingsList, len(view.segs)), boost: c.boost}
		var docTerm uint64
		for k, seg := range view.segs {
			if t.pls[k], err = dicts[k].PostingsList([]byte(c.term), seg.Deleted(), nil); err != nil {
				return nil, err
			}
			docTerm += t.pls[k].Count()
		}
		t.idf = 1.0 + math.Log(float64(total)/float64(docTerm+1.0))
		w := t.boost * t.idf
		sumOfSquaredWeights += w * w
		terms = append(terms, t)
	}
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)

	// The phrases' matches, in document order.
	phraseHits := make([][]scored, len(phrases))
	for j, s := range phrases {
		s.SetQueryNorm(queryNorm)
		sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0), IndexReader: snap}
		for {
			dm, err := s.Next(sctx)
			if err != nil {
				return nil, err
			}
			if dm == nil {
				break
			}
			num, err := docNum(dm.IndexInternalID)
			if err != nil {
				return nil, err
			}
			phraseHits[j] = append(phraseHits[j], scored{dm.Score, num})
			sctx.DocumentMatchPool.Put(dm)
		}
	}

	acc := accumulators.Get().(*accumulator)
	defer accumulators.Put(acc)
	acc.reset(largest)
	next := make([]int, len(phrases))
	coordOf := float64(len(cs))
	b := newBest(limit)
	for k := range view.segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start, end := view.starts[k], view.starts[k+1]
		for _, t := range terms {
			pl := t.pls[k]
			if pl == nil || pl.Count() == 0 {
				continue
			}
			// A term's score in a document, as Bleve's TermQueryScorer computes it.
			queryWeight := t.boost * t.idf * queryNorm
			it := pl.Iterator(true, true, false, nil)
			for {
				p, err := it.Next()
				if err != nil {
					return nil, err
				}
				if p == nil {
					break
				}
				var tf float64
				if f := p.Frequency(); f < uint64(len(sqrtOf)) {
					tf = sqrtOf[f]
				} else {
					tf = math.Sqrt(float64(f))
				}
				acc.add(uint32(p.Number()), tf*p.Norm()*t.idf*queryWeight)
			}
		}
		for j, hs := range phraseHits {
			for ; next[j] < len(hs) && hs[next[j]].num < end; next[j]++ {
				acc.add(uint32(hs[next[j]].num-start), hs[next[j]].score)
			}
		}
		bits := filter.bits[k]
		for _, d := range acc.touched {
			if bits != nil && bits.Contains(d) {
				b.add(scored{acc.score[d] * (float64(acc.count[d]) / coordOf), start + uint64(d)})
			}
			acc.score[d], acc.count[d] = 0, 0
		}
		acc.touched = acc.touched[:0]
	}
	return rankKept(view, snap, b.h, b.ties, limit)
}

// sqrtOf holds the square roots of small term frequencies, as Bleve's scorer does.
var sqrtOf = func() []float64 {
	out := make([]float64, 64)
	for k := range out {
		out[k] = math.Sqrt(float64(k))
	}
	return out
}()
