package search

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// The id cache answers what the snapshot's own ExternalID answers, for every document number of
// every snapshot, while batches add segments, documents are put again and removed, and merges
// replace segments — also for concurrent readers of one snapshot. (TestTopHitsAgreeWithBleve
// checks the ids of whole searches against Bleve's own collector.) With a budget that holds a few
// segments' ids, the cache keeps to it and answers the same.
func TestIDCacheAgreesWithTheSnapshot(t *testing.T) {
	for _, budget := range []int{0, 40 << 10} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) { idCacheAgreesWithTheSnapshot(t, budget) })
	}
}

func idCacheAgreesWithTheSnapshot(t *testing.T, budget int) {
	idx, err := Open(filepath.Join(t.TempDir(), "index"), WithIDCache(budget))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	ctx := context.Background()
	docs := corpus(3000, 3)
	check := func(round int) {
		t.Helper()
		r, err := openReader(idx.idx)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		snap, ok := r.(*scorch.IndexSnapshot)
		if !ok {
			t.Fatalf("round %d: the reader is a %T, not a scorch snapshot", round, r)
		}
		var total uint64
		for _, s := range snap.Segments() {
			total += uint64(s.FullSize())
		}
		nums := make([]uint64, total)
		want := make([]string, total)
		for k := range nums {
			nums[k] = uint64(k)
		}
		if err := readIDs(r, nums, want); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := docIDs(idx.ids.view(r), r, nums)
				if err != nil {
					errs <- err
					return
				}
				for k := range want {
					if got[k] != newDocID(want[k]) {
						errs <- fmt.Errorf("document %d: %q (key %x), want %q", k, got[k].id, got[k].key, want[k])
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d (%d segments): %v", round, len(snap.Segments()), err)
		}
		if _, err := docIDs(idx.ids.view(r), r, []uint64{total}); err == nil {
			t.Fatalf("round %d: a number past the snapshot has an id", round)
		}
		if b := idx.ids.Bytes(); budget > 0 && b > int64(budget) {
			t.Fatalf("round %d: the cache holds %d bytes, over its budget of %d", round, b, budget)
		}
	}
	for k := 0; k < len(docs); k += 250 {
		if err := idx.Put(ctx, docs[k:k+250]); err != nil {
			t.Fatal(err)
		}
		check(k)
	}
	// Put again (a new version in a new segment) and removed (deleted in the old one).
	for k := 0; k < 500; k++ {
		docs[k].Content += " again"
	}
	if err := idx.Put(ctx, docs[:500]); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 300)
	for k := range ids {
		ids[k] = docs[1000+k].ID
	}
	if err := idx.Remove(ctx, ids); err != nil {
		t.Fatal(err)
	}
	check(-1)
	// Many small batches, which the merger folds into fewer segments while the checks run.
	for k := 0; k < 40; k++ {
		if err := idx.Put(ctx, docs[2000+10*k:2010+10*k]); err != nil {
			t.Fatal(err)
		}
		if k%8 == 0 {
			check(-2 - k)
		}
	}
}
