package search

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/totalrecall/totalrecall/domain"
)

// Limits of a search.
const (
	DefaultLimit = 10
	MaxLimit     = 10000
)

// Scoring of the text: every hit matches at least one word of the text in the stemmed content
// field; matching the exact word forms and the words as a phrase add to the score.
const (
	exactBoost  = 0.5
	phraseBoost = 2.0
	// maxPhraseTokens bounds the phrase boost: a phrase of more words than this almost never
	// matches and costs a position check per candidate.
	maxPhraseTokens = 16
)

// contentAnalyzer is the analyser of FieldContent, used to see what a query text boils down to.
var contentAnalyzer analysis.Analyzer = newMapping().AnalyzerNamed(en.AnalyzerName)

// Search returns the best matches of q.Text within q.ScopeID, best first, with Bleve's score.
// The text is analysed as plain words (never as query-string syntax); documents match when
// they contain any of its words after stemming. Filters of q.Filter narrow the hits, except
// Claimed, which the index does not hold (the caller filters on it). A text that is empty or
// only whitespace is INVALID_ARGUMENT; a text with no searchable word (only stop words or
// punctuation) finds nothing.
func (i *Index) Search(ctx context.Context, q domain.IndexQuery) ([]domain.IndexHit, error) {
	return i.search(ctx, q, scoring{})
}

// BleveSearch is Search with the words' query (and the expansions', if any) searched and scored by
// Bleve's own searchers rather than from their postings: the same hits and scores, at Bleve's
// cost. It is the baseline evaluations and benchmarks measure Search against.
func (i *Index) BleveSearch(ctx context.Context, q domain.IndexQuery) ([]domain.IndexHit, error) {
	return i.search(ctx, q, scoring{bleveWords: true, bleveExpansions: true})
}

// scoring says which of a search's two queries Bleve's searchers score rather than the index
// from the postings (scoreWords, scoreExpansions): the baselines they are measured against.
type scoring struct{ bleveWords, bleveExpansions bool }

func (i *Index) search(ctx context.Context, q domain.IndexQuery, sc scoring) ([]domain.IndexHit, error) {
	if i.closed.Load() {
		return nil, unavailable()
	}
	tq, err := prepare(q)
	if err != nil || tq == nil {
		return nil, err
	}
	if !q.NoWait {
		if err := i.syncDocs(ctx); err != nil {
			return nil, err
		}
	} else if err := i.failure(); err != nil {
		return nil, err
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.idx == nil {
		return nil, unavailable()
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	r, err := openReader(i.idx)
	if err != nil {
		return nil, ioError(err)
	}
	defer r.Close()
	err = tq.narrow(ctx, r)
	var hits []domain.IndexHit
	if err == nil {
		most := i.scopeHoldsMost(r, q.ScopeID)
		// The expansions' query runs beside the words' own, on the same snapshot: neither needs
		// the other's hits until they are merged.
		var lex []domain.IndexHit
		var lexErr error
		done := make(chan struct{})
		if len(q.Expansions) > 0 {
			go func() {
				defer close(done)
				lex, lexErr = i.lexical(ctx, r, q, most, sc.bleveExpansions)
			}()
		} else {
			close(done)
		}
		if snap, ok := r.(*scorch.IndexSnapshot); ok && tq.scorable && len(tq.ranges) == 0 && tfIDF(i.idx.Mapping()) && !sc.bleveWords {
			conds := append([]termCond{{field: FieldScope, terms: []string{q.ScopeID}}}, tq.conds...)
			hits, err = scoreWords(ctx, snap, tq.wq, conds, limit, &i.ids)
		} else if ok {
			bq, conds := tq.placeBits(most)
			hits, err = topHits(ctx, i.idx, r, bq, limit, &i.ids, conds)
		} else {
			hits, err = topHits(ctx, i.idx, r, tq.place(most), limit, &i.ids, nil)
		}
		<-done
		if err == nil {
			err = lexErr
		}
		if err == nil {
			hits = mergeLexical(hits, lex)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ioError(err)
	}
	return hits, nil
}

func scoreRequest(q query.Query, size int) *bleve.SearchRequest {
	return bleve.NewSearchRequestOptions(q, size, 0, false)
}

// BleveQuery returns the Bleve query Search runs for q on ix, an index built with Mapping(). It
// returns a nil query (and no error) when q can match nothing, such as a text of stop words only
// or an empty time window.
func BleveQuery(ix bleve.Index, q domain.IndexQuery) (query.Query, error) {
	tq, err := prepare(q)
	if err != nil || tq == nil {
		return nil, err
	}
	r, err := openReader(ix)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := tq.narrow(context.Background(), r); err != nil {
		return nil, err
	}
	return tq.place(scopeHoldsMost(r, q.ScopeID)), nil
}

// scopeHoldsMost reports whether at least half of the documents of r are the scope's. Filtering
// the text's hits by scope then costs less than intersecting them with the scope's long posting
// list, which a scored or conjunctive clause would walk.
func scopeHoldsMost(r index.IndexReader, scopeID string) bool {
	n, err := r.DocCount()
	if err != nil || n == 0 {
		return false
	}
	in, err := docsWith(context.Background(), r, FieldScope, scopeID)
	return err == nil && 2*in >= n
}

// docsWith counts the documents of r whose field holds term.
func docsWith(ctx context.Context, r index.IndexReader, field, term string) (uint64, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return 0, err
	}
	n := tfr.Count()
	return n, tfr.Close()
}

// plan is what a search found out about its scope's share of the index, and when.
type plan struct {
	at   time.Time
	most bool
}

// planFor is how long a scope's share of the index is taken as known: it moves only as
// documents come and go, and a stale answer costs speed, never a different result.
const planFor = time.Second

// scopeHoldsMost is scopeHoldsMost of r, a snapshot of the open index, looked at again at most
// once per planFor for each scope. Callers hold i.mu.
func (i *Index) scopeHoldsMost(r index.IndexReader, scopeID string) bool {
	now := time.Now()
	if v, ok := i.plans.Load(scopeID); ok && now.Sub(v.(plan).at) < planFor {
		return v.(plan).most
	}
	most := scopeHoldsMost(r, scopeID)
	i.plans.Store(scopeID, plan{at: now, most: most})
	if i.planned.Add(1)%4096 == 0 {
		// Forget the scopes not searched lately, so the map stays as small as the busy scopes.
		i.plans.Range(func(k, v any) bool {
			if now.Sub(v.(plan).at) >= planFor {
				i.plans.Delete(k)
			}
			return true
		})
	}
	return most
}

// textQuery is a search's query but for its scope, which place puts where it costs least.
type textQuery struct {
	bq    *query.BooleanQuery // the text: must match, should boosts
	scope *query.TermQuery
	// conds are the filter's conditions on keyword fields, ranges the others.
	conds  []termCond
	ranges []query.Query
	// words are the distinct analysed words of a words-only text of more than maxWords of
	// them; narrow makes the must clause of the rarest maxWords.
	words    []string
	maxWords int
	// wq is the query as scoreWords scores it, when scorable.
	wq       wordsQuery
	scorable bool
}

// rarestWords bounds a words-only query (IndexQuery.WordsOnly). A query costs Bleve in
// proportion to the documents its words occur in, and the words that occur everywhere are the
// ones that say least about which memory the text is about: of a longer text only the
// rarestWords words found in the fewest documents are searched.
const rarestWords = 4

// narrow completes a words-only query of many words with the maxWords of them found in the
// fewest documents of r (words found nowhere last; ties by word).
func (tq *textQuery) narrow(ctx context.Context, r index.IndexReader) error {
	if tq.words == nil {
		return nil
	}
	type counted struct {
		word string
		docs uint64
	}
	cs := make([]counted, 0, len(tq.words))
	for _, w := range tq.words {
		n, err := docsWith(ctx, r, FieldContent, w)
		if err != nil {
			return err
		}
		cs = append(cs, counted{w, n})
	}
	slices.SortFunc(cs, func(a, b counted) int {
		if (a.docs == 0) != (b.docs == 0) {
			if a.docs == 0 {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.docs, b.docs); c != 0 {
			return c
		}
		return strings.Compare(a.word, b.word)
	})
	qs := make([]query.Query, 0, tq.maxWords)
	for _, c := range cs[:tq.maxWords] {
		t := query.NewTermQuery(c.word)
		t.SetField(FieldContent)
		qs = append(qs, t)
	}
	tq.bq.AddMust(query.NewDisjunctionQuery(qs))
	tq.wq = wordsQuery{noExact: true}
	for _, c := range cs[:tq.maxWords] {
		tq.wq.must = append(tq.wq.must, c.word)
	}
	tq.scorable = true
	tq.words = nil
	return nil
}

func distinctTerms(tokens analysis.TokenStream) []string {
	var out []string
	for _, t := range tokens {
		if w := string(t.Term); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// prepare analyses q into its query, nil when q can match nothing.
func prepare(q domain.IndexQuery) (*textQuery, error) {
	if q.ScopeID == "" {
		return nil, domain.FieldErrorf("scopeId", "must not be empty")
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, domain.FieldErrorf("query", "must not be empty")
	}
	text := clean(q.Text)
	tokens := contentAnalyzer.Analyze([]byte(text))
	if len(tokens) == 0 {
		return nil, nil
	}
	conds, ranges, none := filterClauses(q.Filter)
	if none {
		return nil, nil
	}

	scope := query.NewTermQuery(q.ScopeID)
	scope.SetField(FieldScope)
	// Match queries analyse the text with the field's analyser and OR the words together:
	// the text is never parsed, so + - : ^ " ~ * ? and the like are plain characters.
	match := query.NewMatchQuery(text)
	match.SetField(FieldContent)
	match.Analyzer = en.AnalyzerName
	bq := query.NewBooleanQuery(nil, nil, nil)
	if q.WordsOnly {
		n := q.MaxWords
		if n <= 0 {
			n = rarestWords
		}
		if words := distinctTerms(tokens); len(words) > n {
			// narrow picks the words, from the index.
			return &textQuery{bq: bq, scope: scope, conds: conds, ranges: ranges, words: words, maxWords: n}, nil
		}
	}
	bq.AddMust(match)

	if !q.WordsOnly {
		exact := query.NewMatchQuery(text)
		exact.SetField(FieldExact)
		exact.Analyzer = standard.Name
		exact.SetBoost(exactBoost)
		bq.AddShould(exact)
	}
	if positions := distinctPositions(tokens); !q.WordsOnly && positions >= 2 && len(tokens) <= maxPhraseTokens {
		phrase := query.NewMatchPhraseQuery(text)
		phrase.SetField(FieldContent)
		phrase.Analyzer = en.AnalyzerName
		phrase.SetBoost(phraseBoost)
		bq.AddShould(phrase)
	}

	wq, ok := wordsOf(text, tokens, q.WordsOnly)
	return &textQuery{bq: bq, scope: scope, conds: conds, ranges: ranges, wq: wq, scorable: ok}, nil
}

// place completes the query with its scope and filters, once, all as Bleve clauses. The scope
// never adds to the score (boost 0): hits rank by their text alone, whatever the number of
// scopes. When the scope holds most of the index it only filters the text's hits; otherwise it
// is a clause of the conjunction, which skips the other scopes' documents.
func (tq *textQuery) place(mostOfIndex bool) query.Query {
	var filters []query.Query
	if mostOfIndex {
		filters = append(filters, tq.scope)
	} else {
		tq.mustScope()
	}
	for _, c := range tq.conds {
		filters = append(filters, c.clause())
	}
	tq.filter(append(filters, tq.ranges...))
	return tq.bq
}

// placeBits is place with the conditions on keyword fields (the scope's too, when it only
// filters) left out of the query and returned, for topHits to check by segment bitmaps.
func (tq *textQuery) placeBits(mostOfIndex bool) (query.Query, []termCond) {
	conds := tq.conds
	if mostOfIndex {
		conds = append([]termCond{{field: FieldScope, terms: []string{tq.scope.Term}}}, conds...)
	} else {
		tq.mustScope()
	}
	tq.filter(tq.ranges)
	return tq.bq, conds
}

func (tq *textQuery) mustScope() {
	tq.scope.SetBoost(0)
	tq.bq.AddMust(tq.scope)
}

func (tq *textQuery) filter(filters []query.Query) {
	switch len(filters) {
	case 0:
	case 1:
		tq.bq.AddFilter(filters[0])
	default:
		tq.bq.AddFilter(query.NewConjunctionQuery(filters))
	}
}

func distinctPositions(tokens analysis.TokenStream) int {
	n, last := 0, -1
	for _, t := range tokens {
		if t.Position != last {
			n++
			last = t.Position
		}
	}
	return n
}

// filterClauses turns f into non-scoring conditions: on keyword fields (conds) and others
// (ranges, Bleve clauses). none reports a filter that matches nothing. Claimed is not indexed
// and is left to the caller.
func filterClauses(f domain.MemoryFilter) (conds []termCond, ranges []query.Query, none bool) {
	if len(f.Tiers) > 0 {
		conds = append(conds, anyOf(FieldTier, f.Tiers))
	}
	if len(f.Kinds) > 0 {
		conds = append(conds, anyOf(FieldKind, f.Kinds))
	}
	if len(f.States) > 0 {
		conds = append(conds, anyOf(FieldState, f.States))
	}
	for _, tag := range f.Tags {
		conds = append(conds, termCond{field: FieldTags, terms: []string{tag}})
	}
	if f.From != nil || f.To != nil {
		r, none := timeRange(f.From, f.To)
		if none {
			return nil, nil, true
		}
		if r != nil {
			ranges = append(ranges, r)
		}
	}
	return conds, ranges, false
}

func anyOf[T ~string](field string, values []T) termCond {
	c := termCond{field: field, terms: make([]string, len(values))}
	for k, v := range values {
		c.terms[k] = string(v)
	}
	return c
}

func term(field, value string) query.Query {
	t := query.NewTermQuery(value)
	t.SetField(field)
	return t
}

func anyTerm(field string, values []string) query.Query {
	if len(values) == 1 {
		return term(field, values[0])
	}
	qs := make([]query.Query, len(values))
	for k, v := range values {
		qs[k] = term(field, v)
	}
	return query.NewDisjunctionQuery(qs)
}

// timeRange is occurredAt in [from, to). Bounds beyond what the index can represent are open
// ends (or an empty window when they exclude everything); nil means no bound at all.
func timeRange(from, to *time.Time) (r query.Query, none bool) {
	var start, end time.Time
	if from != nil && !from.Before(document.MinTimeRepresentable) {
		if from.After(document.MaxTimeRepresentable) {
			return nil, true
		}
		start = *from
	}
	if to != nil && !to.After(document.MaxTimeRepresentable) {
		if !to.After(document.MinTimeRepresentable) {
			return nil, true
		}
		end = *to
	}
	if !start.IsZero() && !end.IsZero() && !start.Before(end) {
		return nil, true
	}
	if start.IsZero() && end.IsZero() {
		return nil, false
	}
	incl, excl := true, false
	dr := query.NewDateRangeInclusiveQuery(start, end, &incl, &excl)
	dr.SetField(FieldOccurredAt)
	return dr, false
}
