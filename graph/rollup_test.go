package graph

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/hypermodeinc/dgraph/v25/posting"

	"github.com/totalrecall/totalrecall/domain"
)

// After a bulk load, a single commit costs what it writes, not what the deltas of the lists it
// adds to hold: the scope's index list takes every memory stored, and after bulk commits of a
// thousand each while it was in the engine's cache, its deltas held tens of thousands of
// postings, which each later commit copied (about 50 storeMemory calls a second at 100,000
// memories). The engine now drops such a list from its cache and rolls it up.
func TestSingleCommitsAfterABulkLoad(t *testing.T) {
	s, scope := openScopeStore(t)
	ctx := context.Background()
	list := func() {
		t.Helper()
		if _, err := s.ListMemories(ctx, scope.ID, domain.MemoryFilter{}, domain.Page{First: 10}); err != nil {
			t.Fatal(err)
		}
	}
	list() // the scope's index list in the engine's cache
	for range 20 {
		cacheMemories(t, s, scope, 1000)
	}
	list()
	// Allocations are counted for the whole process, where other work (a rollup, a compaction)
	// may allocate too: the least of five windows of 20 commits is the commits' own.
	per := math.MaxFloat64
	for range 5 {
		const single = 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range single {
			cacheMemories(t, s, scope, 1)
		}
		runtime.ReadMemStats(&after)
		per = min(per, float64(after.TotalAlloc-before.TotalAlloc)/single)
	}
	// About 120 KB a commit as it is; 1,300 KB when the list stays cached (RollupMaxPostings 0),
	// and more with every bulk commit before.
	if per > 600<<10 {
		t.Fatalf("a single commit after the bulk load allocated %.0f KB (RollupMaxPostings %d); want under 600 KB",
			per/1024, posting.RollupMaxPostings)
	}
}
