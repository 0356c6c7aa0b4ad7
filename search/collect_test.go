package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// TestTopHitsAgreeWithBleve compares topHits with Bleve's own collector sorting by score and
// then id, on the same queries: the same documents with the same scores in the same order, for
// small and large sizes (ties at the cut are common with short queries) and with filters.
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
	compared := 0
	for _, filtered := range []bool{false, true} {
		for _, q := range benchQueries(60, 3, filtered) {
			for _, size := range []int{1, 10, 300, 5000} {
				tq, err := prepare(q)
				if err != nil || tq == nil {
					t.Fatalf("prepare %q: %v", q.Text, err)
				}
				r, err := openReader(idx.idx)
				if err != nil {
					t.Fatal(err)
				}
				bq := tq.place(idx.scopeHoldsMost(r, q.ScopeID))
				got, err := topHits(ctx, idx.idx, r, bq, size, &idx.ids)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				req := scoreRequest(bq, size)
				req.SortBy([]string{"-_score", "_id"})
				res, err := idx.idx.SearchInContext(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]domain.IndexHit, len(res.Hits))
				for k, h := range res.Hits {
					want[k] = domain.IndexHit{ID: h.ID, Score: h.Score}
				}
				if len(got) != len(want) {
					t.Fatalf("%q size %d: %d hits, Bleve %d", q.Text, size, len(got), len(want))
				}
				if len(want) == 0 {
					continue
				}
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("%q size %d: hit %d is %+v, Bleve sorted by score and id %+v", q.Text, size, k, got[k], want[k])
					}
				}
				compared += len(want)
			}
		}
	}
	if compared < 10000 {
		t.Fatalf("only %d hits compared: the corpus or the queries are too small to test anything", compared)
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
	if _, err := topHits(ctx, idx.idx, r, tq.place(true), 10, &idx.ids); err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
