package search

import (
	"context"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/totalrecall/totalrecall/domain"
)

// Scoring the words. A search's own query is Bleve's boolean query of prepare: it must match a
// word of the text (a disjunction of the content field's terms, one a token), and the exact word
// forms (a disjunction on the exact field, boost exactBoost) and the text as a phrase (boost
// phraseBoost) add to the score. Bleve's searchers merge the words' postings through a heap and
// a pooled match a posting, and run its conjunction over every match; at 100,000 documents that
// was the larger part of a search's time. scoreWords gives the scores Bleve's query gives
// (TF-IDF, each disjunction's coordination factor, one query norm over every term) by adding
// the terms' postings into arrays of scores, one segment at a time, as scoreExpansions does.

// exactAnalyzer is the analyser of FieldExact's queries.
var exactAnalyzer analysis.Analyzer = newMapping().AnalyzerNamed(standard.Name)

// wordsQuery is what scoreWords scores: the content terms, one a token of the text (Bleve's
// match query keeps a term a token, repeated words too); the exact field's terms, one a token of
// its analyser (nil when the query has no exact clause); the phrase (nil when none).
type wordsQuery struct {
	must    []string
	exact   []string
	phrase  *expClause
	noExact bool // the query has no exact clause (a words-only query)
}

// maxScoredWords bounds the tokens scoreWords takes (its counts are bytes); a longer text goes
// through Bleve's query.
const maxScoredWords = 255

// wordsOf returns the query scoreWords scores for text, analysed into tokens by the content
// analyser: the same clauses prepare gives Bleve. ok is false when scoreWords cannot score it.
func wordsOf(text string, tokens analysis.TokenStream, wordsOnly bool) (wq wordsQuery, ok bool) {
	if len(tokens) == 0 || len(tokens) > maxScoredWords {
		return wq, false
	}
	for _, t := range tokens {
		wq.must = append(wq.must, string(t.Term))
	}
	if wordsOnly {
		wq.noExact = true
		return wq, true
	}
	for _, t := range exactAnalyzer.Analyze([]byte(text)) {
		wq.exact = append(wq.exact, string(t.Term))
	}
	if len(wq.exact) > maxScoredWords {
		return wq, false
	}
	if distinctPositions(tokens) >= 2 && len(tokens) <= maxPhraseTokens {
		terms := distinctTerms(tokens)
		slots := phraseSlots(tokens, terms)
		if slots == nil {
			return wq, false
		}
		wq.phrase = &expClause{phrase: text, words: terms, slots: slots, boost: phraseBoost}
	}
	return wq, true
}

// scoreWords returns the limit best documents of snap for wq among those meeting conds, best
// first, equal scores in id order, each with the score Bleve's query of prepare gives it under
// TF-IDF.
func scoreWords(ctx context.Context, snap *scorch.IndexSnapshot, wq wordsQuery, conds []termCond, limit int, ids *idCache) ([]domain.IndexHit, error) {
	if limit <= 0 || len(wq.must) == 0 {
		return []domain.IndexHit{}, nil
	}
	fields := []string{FieldContent}
	if !wq.noExact {
		fields = append(fields, FieldExact)
	}
	pr, err := newPostingsReader(snap, ids, conds, fields...)
	if err != nil {
		return nil, err
	}
	// Every term searcher's weight, (boost · idf)², makes the one query norm.
	sumOfSquaredWeights := 0.0
	terms := func(field string, words []string, boost float64) ([]expTerm, error) {
		out := make([]expTerm, 0, len(words))
		for _, w := range words {
			t, err := pr.term(field, w, boost)
			if err != nil {
				return nil, err
			}
			x := boost * t.idf
			sumOfSquaredWeights += x * x
			out = append(out, t)
		}
		return out, nil
	}
	must, err := terms(FieldContent, wq.must, 1)
	if err != nil {
		return nil, err
	}
	exacts, err := terms(FieldExact, wq.exact, exactBoost)
	if err != nil {
		return nil, err
	}
	var ph *expPhrase
	if wq.phrase != nil {
		p, w, err := pr.phrase(*wq.phrase)
		if err != nil {
			return nil, err
		}
		ph = &p
		sumOfSquaredWeights += w
	}
	queryNorm := 1.0 / math.Sqrt(sumOfSquaredWeights)
	// The should clauses: the exact forms (a clause even when the analyser leaves no word) and
	// the phrase.
	nShould := 0.0
	if !wq.noExact {
		nShould = 1
	}
	if ph != nil {
		nShould++
	}

	accs := [3]*accumulator{}
	for a := range accs {
		accs[a] = accumulators.Get().(*accumulator)
		accs[a].reset(pr.largest)
	}
	defer func() {
		for _, acc := range accs {
			acc.clear() // a search that stopped mid-segment leaves scores behind
			accumulators.Put(acc)
		}
	}()
	accMust, accExact, accPhrase := accs[0], accs[1], accs[2]
	nMust, nExact := float64(len(must)), float64(len(exacts))
	b := newBest(limit)
	err = pr.eachSegment(ctx, func(k int, start uint64, bits *roaring.Bitmap) error {
		for _, set := range []struct {
			ts  []expTerm
			acc *accumulator
		}{{must, accMust}, {exacts, accExact}} {
			for _, t := range set.ts {
				if err := t.addTo(k, queryNorm, set.acc); err != nil {
					return err
				}
			}
		}
		if ph != nil {
			if err := ph.score(k, start, queryNorm, accPhrase); err != nil {
				return err
			}
		}
		for _, d := range accMust.touched {
			if !bits.Contains(d) {
				continue
			}
			// Bleve's boolean searcher sums its must and should matches; each disjunction scales
			// its sum by the share of its clauses matched.
			s := accMust.score[d] * (float64(accMust.count[d]) / nMust)
			should, matched := 0.0, 0.0
			if accExact.count[d] > 0 {
				should += accExact.score[d] * (float64(accExact.count[d]) / nExact)
				matched++
			}
			if accPhrase.count[d] > 0 {
				should += accPhrase.score[d]
				matched++
			}
			if matched > 0 {
				s += should * (matched / nShould)
			}
			b.add(scored{s, start + uint64(d)})
		}
		for _, acc := range accs {
			acc.clear()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rankKept(pr.view, snap, b.h, b.ties, limit)
}

// addTo adds the term's score in each document of segment k holding it to acc, as Bleve's
// TermQueryScorer computes it.
func (t expTerm) addTo(k int, queryNorm float64, acc *accumulator) error {
	pl := t.pls[k]
	if pl == nil || pl.Count() == 0 {
		return nil
	}
	queryWeight := t.boost * t.idf * queryNorm
	it := pl.Iterator(true, true, false, nil)
	for {
		p, err := it.Next()
		if err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		acc.add(uint32(p.Number()), termFreq(p.Frequency())*p.Norm()*t.idf*queryWeight)
	}
}
