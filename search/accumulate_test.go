package search

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/totalrecall/totalrecall/domain"
)

// severalSegments is an index of 3,000 documents in three scopes, in several segments, with
// replaced and removed documents, and a snapshot of it (closed, with the index's read lock it
// holds, when the test ends).
func severalSegments(t *testing.T) (*Index, *scorch.IndexSnapshot) {
	t.Helper()
	idx := openIndex(t)
	ctx := context.Background()
	docs := corpus(3000, 3)
	for k := 0; k < len(docs); k += 250 { // one segment or more a batch
		put(t, idx, docs[k:k+250]...)
	}
	r := rand.New(rand.NewSource(7))
	z := rand.NewZipf(r, 1.1, 4, uint64(len(words)-1))
	var changed []domain.IndexDoc
	for k := 0; k < len(docs); k += 9 {
		d := docs[k]
		d.Content = sentence(r, z, 5+r.Intn(40)) + []string{" golden river", " walk to the museum", " walk the museum",
			" river river golden golden", " museum walk"}[k%5]
		changed = append(changed, d)
	}
	put(t, idx, changed...)
	var gone []string
	for k := 4; k < len(docs); k += 23 {
		gone = append(gone, docs[k].ID)
	}
	if err := idx.Remove(ctx, gone); err != nil {
		t.Fatal(err)
	}
	idx.mu.RLock()
	t.Cleanup(idx.mu.RUnlock)
	rd, err := openReader(idx.idx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	snap, ok := rd.(*scorch.IndexSnapshot)
	if !ok {
		t.Fatalf("reader is a %T", rd)
	}
	if n := len(snap.Segments()); n < 2 {
		t.Fatalf("%d segments: the test wants several", n)
	}
	return idx, snap
}

// TestScoreExpansionsAsBleve checks the expansions' own scoring against Bleve's disjunction of
// the same clauses on an index of several segments with replaced and removed documents: the
// same hits with the same scores, in every scope, with and without filters, for terms and
// phrases of different weights.
func TestScoreExpansionsAsBleve(t *testing.T) {
	ctx := context.Background()
	idx, snap := severalSegments(t)
	// The index scores with TF-IDF, so its searches take scoreExpansions; another model would not.
	if !tfIDF(idx.idx.Mapping()) {
		t.Fatal("the index's mapping is not TF-IDF: searches would not score expansions themselves")
	}
	bm25 := mapping.NewIndexMapping()
	bm25.ScoringModel = index.BM25Scoring
	if tfIDF(bm25) {
		t.Fatal("a BM25 mapping taken for TF-IDF")
	}
	term := func(w string, boost float64) expClause {
		return expClause{term: string(contentAnalyzer.Analyze([]byte(w))[0].Term), boost: boost}
	}
	phrase := func(text string, boost float64) expClause {
		a := analysed(text)
		return expClause{phrase: text, words: a.terms, slots: a.slots, boost: boost}
	}
	clauseSets := [][]expClause{
		{term("coffee", 1)},
		{term("memory", 1), term("graph", 0.5), term("oslo", 0.25)},
		{phrase("golden river", 1), term("river", 0.5), term("lunch", 0.7)},
		{phrase("golden river", 0.3), phrase("train station", 1)},
		// Stop words leave gaps; a word may repeat.
		{phrase("walk to the museum", 1), phrase("golden golden", 0.8), phrase("river river golden", 0.5)},
		{phrase("museum walk", 1), term("museum", 0.2), phrase("walk the museum", 0.6)},
	}
	// A broad category: as many clauses as are searched, frequent words among them.
	var many []expClause
	for k, w := range words[:MaxExpansionClauses] {
		many = append(many, term(w, 1/float64(k+1)))
	}
	clauseSets = append(clauseSets, many)
	filters := [][]termCond{nil, {{field: FieldTags, terms: []string{"t3"}}}}
	for ci, cs := range clauseSets {
		for _, scope := range []string{"scope-0", "scope-2", "no-such-scope"} {
			for fi, f := range filters {
				for _, limit := range []int{1, 10, 200} {
					name := fmt.Sprintf("clauses %d, %s, filter %d, limit %d", ci, scope, fi, limit)
					conds := append([]termCond{{field: FieldScope, terms: []string{scope}}}, f...)
					got, err := scoreExpansions(ctx, snap, cs, conds, limit, &idx.ids)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					bq := query.NewBooleanQuery(nil, nil, nil)
					bq.AddMust(expansionQuery(cs))
					want, err := topHits(ctx, idx.idx, snap, bq, 100000, &idx.ids, conds)
					if err != nil {
						t.Fatalf("%s: Bleve: %v", name, err)
					}
					if scope == "scope-0" && len(want) == 0 {
						t.Fatalf("%s: no hits: the clauses test nothing", name)
					}
					sameScores(t, name, got, want, limit)
				}
			}
		}
	}
}

// sameScores checks that got are the limit best of want (every hit of Bleve's query): the same
// number, each hit with the score Bleve gives it, in order of score; hits whose scores differ
// by rounding only may swap places.
func sameScores(t *testing.T, name string, got, want []domain.IndexHit, limit int) {
	t.Helper()
	if n := min(limit, len(want)); len(got) != n {
		t.Fatalf("%s: %d hits, want %d", name, len(got), n)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
	by := map[string]float64{}
	for _, h := range want {
		by[h.ID] = h.Score
	}
	for k, h := range got {
		s, ok := by[h.ID]
		switch {
		case !ok:
			t.Fatalf("%s: hit %d %s is not one of Bleve's", name, k, h.ID)
		case !near(s, h.Score):
			t.Fatalf("%s: hit %s scores %v, Bleve %v", name, h.ID, h.Score, s)
		case !near(h.Score, want[k].Score):
			t.Fatalf("%s: hit %d scores %v, Bleve's hit %d %v", name, k, h.Score, k, want[k].Score)
		case k > 0 && h.Score > got[k-1].Score:
			t.Fatalf("%s: hit %d scores more than hit %d", name, k, k-1)
		case h.Score <= 0:
			t.Fatalf("%s: hit %d scores %v", name, k, h.Score)
		}
	}
}

// TestScoreWordsAsBleve checks the words' own scoring against Bleve's boolean query of the same
// text (prepare's: the words, their exact forms, the phrase) on an index of several segments with
// replaced and removed documents: the same hits with the same scores, in every scope, with and
// without filters, for texts of one word, many words, repeated words, stop words, phrases,
// inflected forms, words found nowhere and words-only queries.
func TestScoreWordsAsBleve(t *testing.T) {
	ctx := context.Background()
	idx, snap := severalSegments(t)
	texts := []string{
		"coffee",
		"Coffee?",
		"golden river",
		"walk to the museum",
		"walked walking walks to the MUSEUM",
		"river river golden golden",
		"the golden the river the",
		"memory graph recall index search agent world kernel scope event batch",
		"what did we cook for the birthday party in Paris, and was the bread good?",
		"zanzibar golden",
		"train station \"airport\" + - : ^ ~ * ? ( ) { } [ ] <tag> _:b .",
		"café Zürich 東京 river",
	}
	filters := [][]termCond{nil, {{field: FieldTags, terms: []string{"t3"}}}}
	n := 0
	for ti, text := range texts {
		for _, wordsOnly := range []bool{false, true} {
			for _, scope := range []string{"scope-0", "scope-2", "no-such-scope"} {
				for fi, f := range filters {
					for _, limit := range []int{1, 10, 200} {
						name := fmt.Sprintf("text %d, words only %v, %s, filter %d, limit %d", ti, wordsOnly, scope, fi, limit)
						q := domain.IndexQuery{ScopeID: scope, Text: text, WordsOnly: wordsOnly, MaxWords: 3}
						tq, err := prepare(q)
						if err != nil || tq == nil {
							t.Fatalf("%s: prepare: %v %v", name, tq, err)
						}
						tq.conds = f
						if err := tq.narrow(ctx, snap); err != nil {
							t.Fatal(err)
						}
						if !tq.scorable {
							t.Fatalf("%s: not scorable", name)
						}
						conds := append([]termCond{{field: FieldScope, terms: []string{scope}}}, f...)
						got, err := scoreWords(ctx, snap, tq.wq, conds, limit, &idx.ids)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						bq, bconds := tq.placeBits(true)
						want, err := topHits(ctx, idx.idx, snap, bq, 100000, &idx.ids, bconds)
						if err != nil {
							t.Fatalf("%s: Bleve: %v", name, err)
						}
						if scope == "scope-0" && len(want) == 0 {
							t.Fatalf("%s: no hits: the text tests nothing", name)
						}
						sameScores(t, name, got, want, limit)
						n += len(got)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no hits at all")
	}
}

// TestSearchAsBleveSearch: Search, which scores the words and the expansions from their postings,
// and BleveSearch, which has Bleve's searchers score them, give the same hits and scores through
// the whole of an index search: scope, filters, expansions, limits.
func TestSearchAsBleveSearch(t *testing.T) {
	idx := openIndex(t)
	ctx := context.Background()
	docs := corpus(2000, 2)
	for k := 0; k < len(docs); k += 500 {
		put(t, idx, docs[k:k+500]...)
	}
	exp := []domain.Expansion{{Text: "river", Weight: 0.6}, {Text: "golden river", Weight: 0.4}, {Text: "lunch", Weight: 0.3}}
	for _, q := range []domain.IndexQuery{
		{ScopeID: "scope-0", Text: "coffee with my sister in Paris", Limit: 50},
		{ScopeID: "scope-1", Text: "walked to the museum", Limit: 5, Expansions: exp},
		{ScopeID: "scope-0", Text: "train station budget", Limit: 200, Filter: domain.MemoryFilter{Tags: []string{"t3"}}},
		{ScopeID: "scope-1", Text: "memory graph recall index search agent", Limit: 20, WordsOnly: true, MaxWords: 2},
	} {
		got, err := idx.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := idx.BleveSearch(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatalf("%q: no hits: the query tests nothing", q.Text)
		}
		// The words' hits, then the hits of the expansions alone (score 0), each in its order.
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, Bleve's %d", q.Text, len(got), len(want))
		}
		for k := range got {
			g, w := got[k], want[k]
			if !near(g.Score, w.Score) || !near(g.Lexical, w.Lexical) || g.ID != w.ID && (g.Score != w.Score || g.Lexical != w.Lexical) {
				t.Fatalf("%q: hit %d %+v, Bleve's %+v", q.Text, k, g, w)
			}
		}
	}
}
