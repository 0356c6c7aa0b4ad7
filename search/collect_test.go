package search

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// TestTopHitsAgreeWithBleve compares topHits with Bleve's own collector sorting by score and
// then id, on the same queries: the same documents with the same scores in the same order, for
// small and large sizes (ties at the cut are common with short queries), with filters on
// keyword fields and time, with the scope as a clause and as a filter, and with the filters
// checked as Bleve clauses and by segment bitmaps — on a fresh index and again after removals
// and replacements have left deleted documents in its segments.
func TestTopHitsAgreeWithBleve(t *testing.T) {
	idx, err := Open(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	ctx := context.Background()
	docs := corpus(6000, 3)
	for k := 0; k < len(docs); k += 1000 {
		if err := idx.Put(ctx, docs[k:k+1000]); err != nil {
			t.Fatal(err)
		}
	}
	compared, bitmapped := 0, 0
	check := func(stage string) {
		for _, filtered := range []bool{false, true} {
			for qi, q := range benchQueries(40, 3, filtered) {
				if filtered {
					switch qi % 3 {
					case 0:
						q.Filter.Tags = []string{fmt.Sprintf("t%d", qi%7)}
					case 1:
						from, to := docs[1000].OccurredAt, docs[4000].OccurredAt
						q.Filter.From, q.Filter.To = &from, &to
					}
				}
				for _, size := range []int{1, 10, 300, 5000} {
					for _, most := range []bool{false, true} {
						for _, bits := range []bool{false, true} {
							tq, err := prepare(q)
							if err != nil || tq == nil {
								t.Fatalf("prepare %q: %v", q.Text, err)
							}
							ref, _ := prepare(q)
							r, err := openReader(idx.idx)
							if err != nil {
								t.Fatal(err)
							}
							var got []domain.IndexHit
							if bits {
								bq, conds := tq.placeBits(most)
								if len(conds) > 0 {
									bitmapped++
								}
								got, err = topHits(ctx, idx.idx, r, bq, size, &idx.ids, conds)
							} else {
								got, err = topHits(ctx, idx.idx, r, tq.place(most), size, &idx.ids, nil)
							}
							r.Close()
							if err != nil {
								t.Fatal(err)
							}
							req := scoreRequest(ref.place(most), size)
							req.SortBy([]string{"-_score", "_id"})
							res, err := idx.idx.SearchInContext(ctx, req)
							if err != nil {
								t.Fatal(err)
							}
							want := make([]domain.IndexHit, len(res.Hits))
							for k, h := range res.Hits {
								want[k] = domain.IndexHit{ID: h.ID, Score: h.Score}
							}
							what := fmt.Sprintf("%s: %q %+v size %d (scope filters: %v, bitmaps: %v)", stage, q.Text, q.Filter, size, most, bits)
							if len(got) != len(want) {
								t.Fatalf("%s: %d hits, Bleve %d", what, len(got), len(want))
							}
							for k := range want {
								if got[k] != want[k] {
									t.Fatalf("%s: hit %d is %+v, Bleve sorted by score and id %+v", what, k, got[k], want[k])
								}
							}
							compared += len(want)
						}
					}
				}
			}
		}
	}
	check("fresh")
	// Remove a fifth, and replace another fifth with other states, tiers and kinds.
	var gone []string
	var changed []domain.IndexDoc
	for k, d := range docs {
		switch k % 5 {
		case 1:
			gone = append(gone, d.ID)
		case 2:
			d.State = domain.LifecycleStates[(k/5)%len(domain.LifecycleStates)]
			d.Tier = domain.Tiers[(k/5)%len(domain.Tiers)]
			d.Kind = domain.Kinds[(k/5)%len(domain.Kinds)]
			changed = append(changed, d)
		}
	}
	if err := idx.Remove(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if err := idx.Put(ctx, changed); err != nil {
		t.Fatal(err)
	}
	check("after removals and replacements")
	if compared < 40000 || bitmapped < 500 {
		t.Fatalf("only %d hits compared, %d searches with bitmaps: the corpus or the queries are too small to test anything", compared, bitmapped)
	}
}

// TestTopHitsEndsWithTheContext: a cancelled search stops with the context's error.
func TestTopHitsEndsWithTheContext(t *testing.T) {
	idx, err := Open(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if err := idx.Put(context.Background(), corpus(2000, 1)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tq, err := prepare(domain.IndexQuery{ScopeID: "scope-0", Text: "memory graph", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	r, err := openReader(idx.idx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := topHits(ctx, idx.idx, r, tq.place(true), 10, &idx.ids, nil); err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
