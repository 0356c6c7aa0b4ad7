package graph

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
)

// Reads on the embedded engine run beside writes, at the timestamp of the last commit: each sees
// every memory of a commit or none of them, never part of one, and every read that starts after a
// write returned sees it.
func TestReadsSeeWholeCommits(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	const batch, batches = 250, 24
	count := func() int {
		raw, err := s.RawQuery(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) @filter(eq(tr.kind, "Memory")) { n: count(uid) } }`,
			map[string]string{"$s": scope.ID})
		if err != nil {
			t.Error(err)
			return -1
		}
		var r struct {
			Q []struct{ N int } `json:"q"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Q) != 1 {
			t.Errorf("count: %s: %v", raw, err)
			return -1
		}
		return r.Q[0].N
	}
	var done atomic.Bool
	var reads, partial atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				n := count()
				if n < 0 {
					return
				}
				reads.Add(1)
				if n%batch != 0 {
					partial.Add(1)
					t.Errorf("a read saw %d memories: part of a commit of %d", n, batch)
				}
			}
		}()
	}
	for k := 1; k <= batches; k++ {
		cacheMemories(t, s, scope, batch)
		if n := count(); n != k*batch {
			t.Fatalf("after commit %d a read saw %d memories, want %d", k, n, k*batch)
		}
	}
	done.Store(true)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("no concurrent read ran")
	}
	t.Logf("%d concurrent reads, %d saw part of a commit", reads.Load(), partial.Load())
}
