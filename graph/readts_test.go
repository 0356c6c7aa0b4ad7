package graph

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
)

// Reads on the embedded engine run beside writes, at the timestamp of the last commit: each sees
// every memory of a commit or none of them, never part of one, never a commit that had not
// returned when the read ended, and every read that starts after a write returned sees it —
// whatever the engine's posting-list cache holds: on, off, or so small that most lists are read
// from Badger (where a commit still being written is half there).
func TestReadsSeeWholeCommits(t *testing.T) {
	for _, c := range []struct {
		name string
		mb   int
	}{{"cache on", 64}, {"cache off", 0}, {"cache tiny", 1}} {
		mem := DefaultEngineMemory()
		mem.PostingCache = int64(c.mb) << 20
		t.Run(c.name, func(t *testing.T) { readsSeeWholeCommits(t, WithEngineMemory(mem)) })
	}
}

func readsSeeWholeCommits(t *testing.T, opts ...Option) {
	ctx := context.Background()
	s, scope := openScopeStore(t, opts...)
	e := s.b.(*embeddedBackend)
	const batch, batches = 250, 12
	// The memories of the scope through the index of the scope, filtered by kind; through the index
	// of their kind, filtered by scope; and the scope's nodes through its index alone (with the
	// scope and its two kernels). The last is a bare uid list read, which the engine answered
	// from the uids it had calculated at the newest commit it read from Badger, whatever the
	// read's timestamp: a read at an older one saw the newer commits.
	queries := []string{
		`query q($s: string) { q(func: eq(tr.scope, $s)) @filter(eq(tr.kind, "Memory")) { n: count(uid) } }`,
		`query q($s: string) { q(func: eq(tr.kind, "Memory")) @filter(eq(tr.scope, $s)) { uid } }`,
		`query q($s: string) { q(func: eq(tr.scope, $s)) { n: count(uid) } }`,
	}
	base := []int{0, 0, 3}
	// countAt reads at ts, as every read of the store does at the timestamp it finds.
	countAt := func(q string, ts uint64) int {
		raw, err := e.queryAt(ctx, q, map[string]string{"$s": scope.ID}, ts)
		if err != nil {
			t.Error(err)
			return -1
		}
		var r struct {
			Q []struct {
				N   *int
				UID string
			} `json:"q"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Errorf("count: %s: %v", raw, err)
			return -1
		}
		if len(r.Q) == 1 && r.Q[0].N != nil {
			return *r.Q[0].N
		}
		return len(r.Q)
	}
	type read struct {
		q    int
		ts   uint64
		seen int
	}
	var done atomic.Bool
	var mu sync.Mutex
	var seen []read
	var wg sync.WaitGroup
	for i := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				ts := e.readTs.Load()
				n := countAt(queries[i], ts)
				if n < 0 {
					return
				}
				mu.Lock()
				seen = append(seen, read{i, ts, n})
				mu.Unlock()
			}
		}()
	}
	// commitTs[k] is the timestamp of the k-th commit: a read at ts sees exactly the commits at or
	// before it.
	commitTs := []uint64{e.readTs.Load()}
	for k := 1; k <= batches; k++ {
		cacheMemories(t, s, scope, batch)
		commitTs = append(commitTs, e.readTs.Load())
		for i, q := range queries {
			if n := countAt(q, e.readTs.Load()); n != base[i]+k*batch {
				t.Fatalf("after commit %d a read saw %d nodes, want %d", k, n, base[i]+k*batch)
			}
		}
	}
	done.Store(true)
	wg.Wait()
	if len(seen) == 0 {
		t.Fatal("no concurrent read ran")
	}
	wrong := 0
	for _, r := range seen {
		k := 0
		for k+1 < len(commitTs) && commitTs[k+1] <= r.ts {
			k++
		}
		if want := base[r.q] + k*batch; r.seen != want {
			wrong++
			t.Errorf("a read at timestamp %d saw %d nodes, want %d (%d commits of %d at or before it)", r.ts, r.seen, want, k, batch)
		}
	}
	t.Logf("%d concurrent reads, %d saw other than the commits at or before their timestamp", len(seen), wrong)
}
