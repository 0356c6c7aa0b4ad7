package search

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/lexicon"
)

// Every Put benchmark counts one op per document, so ns/op compares across them; docs/s is the
// same figure as a rate.

func benchDocs(b *testing.B) []domain.IndexDoc {
	b.Helper()
	return corpus(max(b.N, 1), 8)
}

func reportDocsPerSec(b *testing.B, docs int) {
	b.ReportMetric(float64(docs)/b.Elapsed().Seconds(), "docs/s")
}

func benchIndex(b *testing.B) *Index {
	b.Helper()
	idx, err := Open(filepath.Join(b.TempDir(), "index"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = idx.Close() })
	return idx
}

func rawIndex(b *testing.B) bleve.Index {
	b.Helper()
	idx, err := bleve.New(filepath.Join(b.TempDir(), "raw"), Mapping())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = idx.Close() })
	return idx
}

// BenchmarkPutSingle puts one document per Put, one Put after the other: every document pays
// a whole batch commit.
func BenchmarkPutSingle(b *testing.B) {
	idx := benchIndex(b)
	docs := benchDocs(b)
	ctx := context.Background()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if err := idx.Put(ctx, docs[k:k+1]); err != nil {
			b.Fatal(err)
		}
	}
	reportDocsPerSec(b, b.N)
}

// BenchmarkPutConcurrent puts one document per Put from 8 goroutines: the writer groups the
// waiting Puts into shared batches.
func BenchmarkPutConcurrent(b *testing.B) {
	const goroutines = 8
	idx := benchIndex(b)
	docs := benchDocs(b)
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= b.N {
					return
				}
				if err := idx.Put(ctx, docs[k:k+1]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	reportDocsPerSec(b, b.N)
	b.ReportMetric(float64(idx.batchedOps.Load())/float64(max(idx.batches.Load(), 1)), "puts/batch")
}

// BenchmarkRawBleveSingle is the baseline of PutSingle: bleve.Index.Index, one document at a
// time, on the same mapping.
func BenchmarkRawBleveSingle(b *testing.B) {
	idx := rawIndex(b)
	docs := benchDocs(b)
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		if err := idx.Index(docs[k].ID, BleveDoc(docs[k])); err != nil {
			b.Fatal(err)
		}
	}
	reportDocsPerSec(b, b.N)
}

// BenchmarkRawBleveBatch1000 is the best case: raw Bleve batches of 1,000 documents.
func BenchmarkRawBleveBatch1000(b *testing.B) {
	idx := rawIndex(b)
	docs := benchDocs(b)
	b.ResetTimer()
	batch := idx.NewBatch()
	for k := 0; k < b.N; k++ {
		if err := batch.Index(docs[k].ID, BleveDoc(docs[k])); err != nil {
			b.Fatal(err)
		}
		if batch.Size() == 1000 || k == b.N-1 {
			if err := idx.Batch(batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	reportDocsPerSec(b, b.N)
}

// searchCorpusSize is the corpus of BenchmarkSearch: SEARCH_BENCH_DOCS, default 20,000.
func searchCorpusSize(b *testing.B) int {
	if s := os.Getenv("SEARCH_BENCH_DOCS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("SEARCH_BENCH_DOCS=%q: want a positive number", s)
		}
		return n
	}
	return 20000
}

// benchQueries makes n deterministic queries of one to three words of the corpus vocabulary.
func benchQueries(n, scopes int, filtered bool) []domain.IndexQuery {
	r := rand.New(rand.NewSource(7))
	qs := make([]domain.IndexQuery, n)
	for k := range qs {
		ws := make([]string, 1+r.Intn(3))
		for j := range ws {
			ws[j] = words[r.Intn(len(words))]
		}
		q := domain.IndexQuery{ScopeID: fmt.Sprintf("scope-%d", r.Intn(scopes)), Text: fmt.Sprint(ws), Limit: 20}
		q.Text = q.Text[1 : len(q.Text)-1] // drop fmt's brackets
		if filtered {
			q.Filter = domain.MemoryFilter{
				Tiers:  []domain.Tier{domain.TierActiveContext, domain.TierLongTerm},
				States: []domain.LifecycleState{domain.StateActive},
			}
		}
		qs[k] = q
	}
	return qs
}

// reportLatency adds p50 and p99 latencies in microseconds.
func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-us")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-us")
}

// BenchmarkSearch searches a corpus of SEARCH_BENCH_DOCS documents spread over 10 scopes, through
// Index.Search and, as the baseline, through raw Bleve with the same query on the same index.
func BenchmarkSearch(b *testing.B) {
	const scopes = 10
	n := searchCorpusSize(b)
	idx := benchIndex(b)
	docs := corpus(n, scopes)
	ctx := context.Background()
	for k := 0; k < len(docs); k += DefaultMaxBatch {
		if err := idx.Put(ctx, docs[k:min(k+DefaultMaxBatch, len(docs))]); err != nil {
			b.Fatal(err)
		}
	}
	if got, _ := idx.Count(); got != uint64(n) {
		b.Fatalf("Count: got %d, want %d", got, n)
	}

	for _, c := range []struct {
		filtered bool
		limit    int
	}{{false, 20}, {true, 20}, {false, 1000}} {
		filtered := c.filtered
		benchQueries := func(n, scopes int, filtered bool) []domain.IndexQuery {
			qs := benchQueries(n, scopes, filtered)
			for k := range qs {
				qs[k].Limit = c.limit
			}
			return qs
		}
		name := fmt.Sprintf("docs=%d", n)
		if filtered {
			name += "/filtered"
		}
		if c.limit != 20 {
			// Recall's text pool: the best thousand hits.
			name += fmt.Sprintf("/limit=%d", c.limit)
		}
		b.Run(name+"/Index", func(b *testing.B) {
			qs := benchQueries(b.N, scopes, filtered)
			lat := make([]time.Duration, b.N)
			hits := 0
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				start := time.Now()
				res, err := idx.Search(ctx, qs[k])
				lat[k] = time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res)
			}
			b.StopTimer()
			reportLatency(b, lat)
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
		b.Run(name+"/RawBleveMatchOnly", func(b *testing.B) {
			if filtered {
				b.Skip("the match-only baseline has no filters")
			}
			// The cheapest sensible query: scope term AND an OR-match on the stemmed content,
			// without the exact-form and phrase boosts (and without filters).
			qs := benchQueries(b.N, scopes, false)
			lat := make([]time.Duration, b.N)
			hits := 0
			raw := idx.idx
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				start := time.Now()
				scope := query.NewTermQuery(qs[k].ScopeID)
				scope.SetField(FieldScope)
				match := query.NewMatchQuery(qs[k].Text)
				match.SetField(FieldContent)
				res, err := raw.SearchInContext(ctx, scoreRequest(query.NewConjunctionQuery([]query.Query{scope, match}), qs[k].Limit))
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res.Hits)
				lat[k] = time.Since(start)
			}
			b.StopTimer()
			reportLatency(b, lat)
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
		b.Run(name+"/RawBleve", func(b *testing.B) {
			qs := benchQueries(b.N, scopes, filtered)
			lat := make([]time.Duration, b.N)
			hits := 0
			raw := idx.idx
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				start := time.Now()
				q, err := BleveQuery(raw, qs[k])
				if err != nil {
					b.Fatal(err)
				}
				if q != nil {
					res, err := raw.SearchInContext(ctx, scoreRequest(q, qs[k].Limit))
					if err != nil {
						b.Fatal(err)
					}
					hits += len(res.Hits)
				}
				lat[k] = time.Since(start)
			}
			b.StopTimer()
			reportLatency(b, lat)
			b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
		})
	}
}

// BenchmarkSearchExpansions measures what a query's expansions (domain.Lexicon) add to a search of
// SEARCH_BENCH_DOCS documents: the same English questions with and without WordNet's expansions,
// on a corpus where a few of the expanded words occur and most do not (the dictionary look-ups
// of the absent ones are the cost of a broad category). expand=bleve searches the expansions by
// Bleve's disjunction query instead of their own scoring (scoreExpansions), words=bleve the words
// by Bleve's boolean query instead of theirs (scoreWords): the same hits.
func BenchmarkSearchExpansions(b *testing.B) {
	n := searchCorpusSize(b)
	idx := benchIndex(b)
	docs := corpus(n, 1)
	english := []string{"We took a trip to Rome last week", "I love taekwondo and karate", "Spain was lovely",
		"my kid plays the violin", "the dog shelter needs help", "we visited Paris and Chicago"}
	for k := range english {
		docs[k*n/len(english)].Content += " " + english[k]
	}
	ctx := context.Background()
	for k := 0; k < len(docs); k += DefaultMaxBatch {
		if err := idx.Put(ctx, docs[k:min(k+DefaultMaxBatch, len(docs))]); err != nil {
			b.Fatal(err)
		}
	}
	lex, err := lexicon.New()
	if err != nil {
		b.Fatal(err)
	}
	questions := []string{"Which cities has he visited?", "What martial arts has John done?", "What European countries has Maria been to?",
		"What instruments does she play?", "How many dogs has Maria adopted?", "What did they cook?"}
	scope := docs[0].ScopeID
	for _, c := range []struct{ expand, words string }{{"false", "own"}, {"false", "bleve"}, {"true", "own"}, {"true", "bleve"}, {"bleve", "own"}} {
		expand := c.expand
		b.Run(fmt.Sprintf("docs=%d/expand=%s/words=%s", n, expand, c.words), func(b *testing.B) {
			sc := scoring{bleveWords: c.words == "bleve", bleveExpansions: expand == "bleve"}
			lat := make([]time.Duration, 0, b.N)
			for k := 0; b.Loop(); k++ {
				q := domain.IndexQuery{ScopeID: scope, Text: questions[k%len(questions)], Limit: 1000}
				start := time.Now()
				if expand != "false" {
					q.Expansions = lex.Expand(q.Text)
				}
				if _, err := idx.search(ctx, q, sc); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			reportLatency(b, lat)
		})
	}
}
