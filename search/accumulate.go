package search

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/scorer"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/totalrecall/totalrecall/domain"
)

// Scoring the expansions. A query's expansions are up to MaxExpansionClauses terms and phrases,
// some of them frequent words. Bleve's disjunction of their searchers merges their postings
// through a heap, with a pooled match per posting; at 100,000 documents that made the
// expansions' query cost more than the words' own. scoreExpansions gives the scores Bleve's
// disjunction gives (TF-IDF: each clause's score, summed over the clauses a document matches and
// multiplied by the share of the clauses it matches) by adding each term's postings into an
// array of scores, one segment at a time; a phrase is checked, from its words' positions, only
// in the documents holding all its words.

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

// clear zeroes what the accumulator has touched.
func (a *accumulator) clear() {
	for _, d := range a.touched {
		a.score[d], a.count[d] = 0, 0
	}
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

// expPhrase is a phrase clause: its words by position (expClause), each word's postings in each
// segment of the snapshot and its idf. Bleve's phrase searcher is a conjunction of a term
// searcher per position: a document matching the phrase scores the sum of those terms' scores.
type expPhrase struct {
	slots []int // each position's word, an index into words; -1 for a stop word's gap
	words []string
	pls   [][]segment.PostingsList // by word, then segment
	idf   []float64
	boost float64
}

// scoreExpansions returns the limit best documents of snap for the disjunction of cs among those
// meeting conds, best first, equal scores in id order, each with the score Bleve's
// disjunction query of cs gives it under TF-IDF, the index's scoring model (tfIDF).
func scoreExpansions(ctx context.Context, snap *scorch.IndexSnapshot, cs []expClause, conds []termCond, limit int, ids *idCache) ([]domain.IndexHit, error) {
	if limit <= 0 || len(cs) == 0 {
		return []domain.IndexHit{}, nil
	}
	pr, err := newPostingsReader(snap, ids, conds, FieldContent)
	if err != nil {
		return nil, err
	}
	// Each clause's weight, as Bleve's searchers state it, makes the query's norm.
	var terms []expTerm
	var phrases []expPhrase
	sumOfSquaredWeights := 0.0
	for _, c := range cs {
		if c.term != "" {
			t, err := pr.term(FieldContent, c.term, c.boost)
			if err != nil {
				return nil, err
			}
			w := t.boost * t.idf
			sumOfSquaredWeights += w * w
			terms = append(terms, t)
			continue
		}
		if c.slots == nil {
			// The content analyser puts one word at a position (analysed).
			return nil, fmt.Errorf("search: the expansion %q is no phrase of one word a position", c.phrase)
		}
		ph, w, err := pr.phrase(c)
		if err != nil {
			return nil, err
		}
		sumOfSquaredWeights += w
		phrases = append(phrases, ph)
	}
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)

	acc := accumulators.Get().(*accumulator)
	acc.reset(pr.largest)
	defer func() {
		acc.clear() // a search that stopped mid-segment leaves scores behind
		accumulators.Put(acc)
	}()
	coordOf := float64(len(cs))
	b := newBest(limit)
	err = pr.eachSegment(ctx, func(k int, start uint64, bits *roaring.Bitmap) error {
		for _, t := range terms {
			if err := t.addTo(k, queryNorm, acc); err != nil {
				return err
			}
		}
		for _, ph := range phrases {
			if err := ph.score(k, start, queryNorm, acc); err != nil {
				return err
			}
		}
		for _, d := range acc.touched {
			if bits.Contains(d) {
				b.add(scored{acc.score[d] * (float64(acc.count[d]) / coordOf), start + uint64(d)})
			}
		}
		acc.clear()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rankKept(pr.view, snap, b.h, b.ties, limit)
}

// eachSegment calls fn with each segment holding documents that meet the search's conditions:
// its number, its first document number in the snapshot and the documents meeting them.
func (pr *postingsReader) eachSegment(ctx context.Context, fn func(k int, start uint64, bits *roaring.Bitmap) error) error {
	for k := range pr.view.segs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if bits := pr.filter.bits[k]; bits != nil && !bits.IsEmpty() {
			if err := fn(k, pr.view.starts[k], bits); err != nil {
				return err
			}
		}
	}
	return nil
}

// postingsReader reads terms' postings in every segment of a snapshot, for the scores of a
// query computed from them: the snapshot's view, the documents meeting a search's conditions,
// the fields' dictionaries, and each term looked up once (a word of several clauses).
type postingsReader struct {
	view    *segView
	filter  *termFilter
	total   uint64
	largest int // documents of the largest segment
	dicts   map[string][]segment.TermDictionary
	looked  map[[2]string]expTerm
}

func newPostingsReader(snap *scorch.IndexSnapshot, ids *idCache, conds []termCond, fields ...string) (*postingsReader, error) {
	pr := &postingsReader{view: ids.view(snap), dicts: map[string][]segment.TermDictionary{}, looked: map[[2]string]expTerm{}}
	var err error
	if pr.filter, err = pr.view.termFilter(conds); err != nil {
		return nil, err
	}
	if pr.total, err = snap.DocCount(); err != nil {
		return nil, err
	}
	for _, f := range fields {
		ds := make([]segment.TermDictionary, len(pr.view.segs))
		for k, seg := range pr.view.segs {
			if ds[k], err = seg.Segment().Dictionary(f); err != nil {
				return nil, err
			}
		}
		pr.dicts[f] = ds
	}
	for _, seg := range pr.view.segs {
		pr.largest = max(pr.largest, int(seg.FullSize()))
	}
	return pr, nil
}

// term returns field's term with its postings in each segment and its idf, as Bleve's term
// searcher computes it, boosted by boost.
func (pr *postingsReader) term(field, term string, boost float64) (expTerm, error) {
	if t, ok := pr.looked[[2]string{field, term}]; ok {
		t.boost = boost
		return t, nil
	}
	dicts := pr.dicts[field]
	t := expTerm{pls: make([]segment.PostingsList, len(pr.view.segs)), boost: boost}
	var docTerm uint64
	for k, seg := range pr.view.segs {
		var err error
		if t.pls[k], err = dicts[k].PostingsList([]byte(term), seg.Deleted(), nil); err != nil {
			return expTerm{}, err
		}
		docTerm += t.pls[k].Count()
	}
	t.idf = 1.0 + math.Log(float64(pr.total)/float64(docTerm+1.0))
	pr.looked[[2]string{field, term}] = t
	return t, nil
}

// phrase returns the content field's phrase c with its words' postings, and the sum of its
// term searchers' squared weights (one a position).
func (pr *postingsReader) phrase(c expClause) (expPhrase, float64, error) {
	ph := expPhrase{slots: c.slots, words: c.words, boost: c.boost}
	ph.pls, ph.idf = make([][]segment.PostingsList, len(ph.words)), make([]float64, len(ph.words))
	for w, word := range ph.words {
		t, err := pr.term(FieldContent, word, 1)
		if err != nil {
			return expPhrase{}, 0, err
		}
		ph.pls[w], ph.idf[w] = t.pls, t.idf
	}
	weights := 0.0
	for _, w := range ph.slots {
		if w >= 0 {
			x := ph.boost * ph.idf[w]
			weights += x * x
		}
	}
	return ph, weights, nil
}

// score adds the phrase's score in segment k (its first document number start) to acc for every
// document of the segment holding its words at consecutive positions (a gap where the phrase
// has a stop word), as Bleve's phrase searcher without slop matches them.
func (ph *expPhrase) score(k int, start uint64, queryNorm float64, acc *accumulator) error {
	// The documents holding every word, from the postings' bitmaps; only those have their words'
	// positions read.
	docs := make([]*roaring.Bitmap, len(ph.words))
	for w := range ph.words {
		pl := ph.pls[w][k]
		if pl.Count() == 0 {
			return nil
		}
		it := pl.Iterator(false, false, false, nil)
		if o, ok := it.(segment.OptimizablePostingsIterator); ok {
			docs[w] = o.ActualBitmap()
		}
		if docs[w] == nil {
			docs[w] = roaring.New()
			if err := addPostings(docs[w], pl); err != nil {
				return err
			}
		}
	}
	all := docs[0]
	if len(docs) > 1 {
		all = roaring.FastAnd(docs...)
	}
	if all.IsEmpty() {
		return nil
	}
	its := make([]phraseIterator, len(ph.words))
	for w := range ph.words {
		its[w].it = ph.pls[w][k].Iterator(true, true, true, nil)
	}
	at := make([]segment.Posting, len(ph.words))
	for ds := all.Iterator(); ds.HasNext(); {
		d := ds.Next()
		num := uint64(d)
		for w := range its {
			q, err := its[w].to(num)
			if err != nil {
				return err
			}
			if q == nil || q.Number() != num {
				return fmt.Errorf("search: document %d of a phrase's words not in the postings of %q", num, ph.words[w])
			}
			at[w] = q
		}
		if !ph.at(at) {
			continue
		}
		score := 0.0
		for _, w := range ph.slots {
			if w < 0 {
				continue
			}
			x := at[w]
			s := termFreq(x.Frequency()) * x.Norm() * ph.idf[w]
			score += s * (ph.boost * ph.idf[w] * queryNorm)
		}
		acc.add(d, score)
	}
	return nil
}

// at reports whether the words' postings of one document (by word) hold the phrase: its first
// word at some position p, and the word of each later position j at p+j.
func (ph *expPhrase) at(ps []segment.Posting) bool {
	for _, l := range ps[ph.slots[0]].Locations() {
		p := l.Pos()
		found := true
		for j, w := range ph.slots[1:] {
			if w >= 0 && !hasPos(ps[w].Locations(), p+uint64(j)+1) {
				found = false
				break
			}
		}
		if found {
			return true
		}
	}
	return false
}

func hasPos(ls []segment.Location, pos uint64) bool {
	for _, l := range ls {
		if l.Pos() == pos {
			return true
		}
	}
	return false
}

// phraseIterator walks one word's postings of a segment, with positions, to the documents
// holding all the phrase's words.
type phraseIterator struct {
	it  segment.PostingsIterator
	cur segment.Posting
	end bool
}

// to returns the first posting at or after document num; nil when there is none.
func (pi *phraseIterator) to(num uint64) (segment.Posting, error) {
	if pi.cur != nil && pi.cur.Number() >= num || pi.end {
		return pi.cur, nil
	}
	p, err := pi.it.Advance(num)
	if err != nil {
		return nil, err
	}
	pi.cur, pi.end = p, p == nil
	return p, nil
}

// termFreq is the square root of a term's frequency, as Bleve's scorer takes it.
func termFreq(f uint64) float64 {
	if f < scorer.MaxSqrtCache {
		return scorer.SqrtCache[f]
	}
	return math.Sqrt(float64(f))
}

// tfIDF reports whether m scores with TF-IDF, as scoreExpansions does.
func tfIDF(m mapping.IndexMapping) bool {
	im, ok := m.(*mapping.IndexMappingImpl)
	return ok && (im.ScoringModel == "" || im.ScoringModel == index.TFIDFScoring)
}
