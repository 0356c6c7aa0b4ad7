package search

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/totalrecall/totalrecall/domain"
)

// Expansions of a query (domain.Lexicon) are searched by a query of their own, so that the text's
// hits keep exactly the scores they have without them and each hit can say which side found it.
const (
	// MaxExpansionClauses bounds the expansions searched: the heaviest ones found in the index.
	MaxExpansionClauses = 64
	// MaxExpansionChecks bounds the expansions looked up in the index's dictionary (in the order
	// given: heaviest first), which bounds what a query of a broad category costs.
	MaxExpansionChecks = 300
	// LexicalPool is how many of the expansions' best hits are returned.
	LexicalPool = 200
)

// expClause is one expansion searched: a term of the content field, or a phrase of several.
type expClause struct {
	term   string // the term of a one-word expansion; "" for a phrase
	phrase string // the text of a phrase
	// A phrase's distinct words, and each position's word (an index into words, -1 for a stop
	// word's gap); slots is nil when a position holds several words. Shared: read only.
	words []string
	slots []int
	boost float64
}

// query is c as a Bleve query.
func (c expClause) query() query.Query {
	if c.term != "" {
		tq := query.NewTermQuery(c.term)
		tq.SetField(FieldContent)
		tq.SetBoost(c.boost)
		return tq
	}
	pq := query.NewMatchPhraseQuery(c.phrase)
	pq.SetField(FieldContent)
	pq.Analyzer = en.AnalyzerName
	pq.SetBoost(c.boost)
	return pq
}

// expansionQuery is the disjunction of cs, the clauses of q's expansions; nil when there is none.
func expansionQuery(cs []expClause) query.Query {
	if len(cs) == 0 {
		return nil
	}
	qs := make([]query.Query, len(cs))
	for k, c := range cs {
		qs[k] = c.query()
	}
	return query.NewDisjunctionQuery(qs)
}

// expansionClauses are q's expansions that occur in r, each boosted by its weight. An expansion
// made only of the text's own words adds nothing and is left out; one of several words is a
// phrase.
func expansionClauses(ctx context.Context, r index.IndexReader, q domain.IndexQuery, dicts *atomic.Pointer[snapshotDict]) ([]expClause, error) {
	said := map[string]bool{}
	for _, t := range contentAnalyzer.Analyze([]byte(clean(q.Text))) {
		said[string(t.Term)] = true
	}
	var clauses []expClause
	has := func(term string) (bool, error) {
		n, err := docsWith(ctx, r, FieldContent, term)
		return n > 0, err
	}
	if rc, ok := r.(index.IndexReaderContains); ok {
		// One dictionary per snapshot: a look-up in it walks each segment's FST and reads no
		// postings (a term of deleted documents only may still be found: its clause then
		// matches nothing).
		dict, err := contentDictOf(rc, dicts)
		if err != nil {
			return nil, err
		}
		has = dict.contains
	}
	seen := map[string]bool{}
	for k, e := range q.Expansions {
		if len(clauses) == MaxExpansionClauses || k == MaxExpansionChecks {
			break
		}
		if e.Weight <= 0 {
			continue
		}
		text := clean(e.Text)
		a := analysed(text)
		if len(a.terms) == 0 || a.tokens > maxPhraseTokens {
			continue
		}
		news := false
		for _, t := range a.terms {
			news = news || !said[t]
		}
		if !news || seen[a.key] {
			continue
		}
		seen[a.key] = true
		present := true
		for _, t := range a.terms {
			ok, err := has(t)
			if err != nil {
				return nil, err
			}
			if !ok {
				present = false
				break
			}
		}
		if !present {
			continue
		}
		if a.tokens == 1 {
			clauses = append(clauses, expClause{term: a.terms[0], boost: e.Weight})
			continue
		}
		clauses = append(clauses, expClause{phrase: text, words: a.terms, slots: a.slots, boost: e.Weight})
	}
	return clauses, nil
}

// analysedText is what the content analyser makes of an expansion: its distinct terms, in order,
// how many tokens, a key naming the terms, and each position's term as Bleve's match-phrase query
// places them (an index into terms, -1 for a stop word's gap; nil when a position holds two).
type analysedText struct {
	terms  []string
	tokens int
	key    string
	slots  []int
}

// analyses keeps what the content analyser made of expansions' texts: a lexicon's expansions
// come from a fixed vocabulary and recur from query to query. It is emptied when it holds
// maxAnalyses texts.
var analyses struct {
	sync.Mutex
	m map[string]analysedText
}

const maxAnalyses = 1 << 16

func analysed(text string) analysedText {
	analyses.Lock()
	a, ok := analyses.m[text]
	analyses.Unlock()
	if ok {
		return a
	}
	tokens := contentAnalyzer.Analyze([]byte(text))
	a = analysedText{terms: distinctTerms(tokens), tokens: len(tokens)}
	for _, t := range a.terms {
		a.key += t + " "
	}
	a.slots = phraseSlots(tokens, a.terms)
	analyses.Lock()
	if analyses.m == nil || len(analyses.m) >= maxAnalyses {
		analyses.m = make(map[string]analysedText)
	}
	analyses.m[text] = a
	analyses.Unlock()
	return a
}

// phraseSlots returns each position's term of tokens, from the first token's position to the
// last's, as an index into terms (-1 where no token is: a stop word's gap); nil when there is no
// token or a position holds two terms.
func phraseSlots(tokens analysis.TokenStream, terms []string) []int {
	if len(tokens) == 0 {
		return nil
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	slots := make([]int, last-first+1)
	for k := range slots {
		slots[k] = -1
	}
	for _, t := range tokens {
		w := slices.Index(terms, string(t.Term))
		at := &slots[t.Position-first]
		if *at >= 0 && *at != w {
			return nil
		}
		*at = w
	}
	return slots
}

// snapshotDict is the content field's dictionary of one index snapshot, with the answers it has
// given (at most maxKnownTerms; expansions recur from query to query).
type snapshotDict struct {
	snap  *scorch.IndexSnapshot
	dict  index.FieldDictContains
	mu    sync.Mutex
	known map[string]bool
}

const maxKnownTerms = 1 << 16

// contains reports whether the dictionary holds term.
func (d *snapshotDict) contains(term string) (bool, error) {
	d.mu.Lock()
	ok, found := d.known[term]
	d.mu.Unlock()
	if found {
		return ok, nil
	}
	ok, err := d.dict.Contains([]byte(term))
	if err != nil {
		return false, err
	}
	d.mu.Lock()
	if d.known == nil || len(d.known) >= maxKnownTerms {
		d.known = make(map[string]bool)
	}
	d.known[term] = ok
	d.mu.Unlock()
	return ok, nil
}

// contentDictOf returns the content field's dictionary of rc, the one kept in dicts when it is
// rc's snapshot's. Only a reader of that very snapshot uses a kept dictionary, so the segments it
// reads are open while it does (the reader holds the snapshot); look-ups only read it.
func contentDictOf(rc index.IndexReaderContains, dicts *atomic.Pointer[snapshotDict]) (*snapshotDict, error) {
	snap, _ := rc.(*scorch.IndexSnapshot)
	if dicts != nil && snap != nil {
		if d := dicts.Load(); d != nil && d.snap == snap {
			return d, nil
		}
	}
	dict, err := rc.FieldDictContains(FieldContent)
	if err != nil {
		return nil, err
	}
	d := &snapshotDict{snap: snap, dict: dict}
	if dicts != nil && snap != nil {
		dicts.Store(d)
	}
	return d, nil
}

// lexical returns the best hits of q's expansions within q's scope and filters, with their
// score in Lexical.
func (i *Index) lexical(ctx context.Context, r index.IndexReader, q domain.IndexQuery, most, viaBleve bool) ([]domain.IndexHit, error) {
	cs, err := expansionClauses(ctx, r, q, &i.contentDict)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	conds, ranges, none := filterClauses(q.Filter)
	if none {
		return nil, nil
	}
	limit := min(max(q.Limit, DefaultLimit), LexicalPool)
	if snap, ok := r.(*scorch.IndexSnapshot); ok && len(ranges) == 0 && tfIDF(i.idx.Mapping()) && !viaBleve {
		conds = append([]termCond{{field: FieldScope, terms: []string{q.ScopeID}}}, conds...)
		hits, err := scoreExpansions(ctx, snap, cs, conds, limit, &i.ids)
		if err != nil {
			return nil, err
		}
		for k := range hits {
			hits[k].Lexical, hits[k].Score = hits[k].Score, 0
		}
		return hits, nil
	}
	eq := expansionQuery(cs)
	scope := query.NewTermQuery(q.ScopeID)
	scope.SetField(FieldScope)
	bq := query.NewBooleanQuery(nil, nil, nil)
	bq.AddMust(eq)
	tq := &textQuery{bq: bq, scope: scope, conds: conds, ranges: ranges}
	var hits []domain.IndexHit
	if _, ok := r.(*scorch.IndexSnapshot); ok {
		bq, conds := tq.placeBits(most)
		hits, err = topHits(ctx, i.idx, r, bq, limit, &i.ids, conds)
	} else {
		hits, err = topHits(ctx, i.idx, r, tq.place(most), limit, &i.ids, nil)
	}
	if err != nil {
		return nil, err
	}
	for k := range hits {
		hits[k].Lexical, hits[k].Score = hits[k].Score, 0
	}
	return hits, nil
}

// mergeLexical adds lex, the expansions' hits, to hits: a hit of both gets its Lexical score, the
// others follow the text's hits in lex's order.
func mergeLexical(hits, lex []domain.IndexHit) []domain.IndexHit {
	if len(lex) == 0 {
		return hits
	}
	at := make(map[string]int, len(hits))
	for k, h := range hits {
		at[h.ID] = k
	}
	out := slices.Clip(hits)
	for _, h := range lex {
		if k, ok := at[h.ID]; ok {
			out[k].Lexical = h.Lexical
			continue
		}
		out = append(out, h)
	}
	return out
}
