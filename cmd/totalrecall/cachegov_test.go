package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/graph"
)

// The governor gives the heap back what it needs above its target, by the cache's bytes, once
// the heap has stayed above it for CacheOver collections, an eighth at a time and never below
// the floor; it grows the cache back slowly once the heap is well under the target.
func TestCacheGovernorPolicy(t *testing.T) {
	const mib = 1 << 20
	limit := int64(1000 * mib) // target 700 MiB, slack 50
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	g := newCacheGovernor(256*mib, 64*mib) // 320 MiB configured
	if s := g.next(500*mib, limit, 300*mib); s != 1 {
		t.Fatalf("live 500 MiB under a 700 MiB target: share %v, want 1", s)
	}
	// A heap over the target for fewer collections than CacheOver takes nothing.
	for i := 0; i < CacheOver-1; i++ {
		if s := g.next(800*mib, limit, 300*mib); s != 1 {
			t.Fatalf("collection %d over the target: share %v, want 1 until %d in a row", i+1, s, CacheOver)
		}
	}
	if s := g.next(690*mib, limit, 300*mib); s != 1 {
		t.Fatalf("live just under the target: share %v, want 1", s)
	}
	for i := 0; i < CacheOver-1; i++ {
		if s := g.next(800*mib, limit, 300*mib); s != 1 {
			t.Fatalf("collection %d over the target after one under it: share %v, want 1", i+1, s)
		}
	}
	// The CacheOver-th in a row: the least excess (5 MiB here) comes off what the cache holds.
	g = newCacheGovernor(256*mib, 64*mib)
	for i, ex := range []int64{10, 5, 20, 30} {
		s := g.next((700+ex)*mib, limit, 300*mib)
		if i < 3 && s != 1 {
			t.Fatalf("collection %d: share %v", i+1, s)
		}
		if i == 3 && !near(s, 295.0/320) {
			t.Fatalf("after excesses of 10, 5, 20 and 30 MiB with 300 MiB cached: share %v, want %v", s, 295.0/320)
		}
	}
	// A large excess takes an eighth of the configured size at a time.
	g = newCacheGovernor(256*mib, 64*mib)
	var s float64
	for i := 0; i < CacheOver; i++ {
		s = g.next(900*mib, limit, 300*mib)
	}
	if !near(s, 280.0/320) {
		t.Fatalf("200 MiB over with 300 MiB cached: share %v, want %v (an eighth off)", s, 280.0/320)
	}
	// Far over for long: down to the floor and no further.
	for i := 0; i < 20*CacheOver; i++ {
		s = g.next(2000*mib, limit, int(s*320*mib))
	}
	if s != CacheFloor {
		t.Fatalf("live far over the target for long: share %v, want the floor %v", s, CacheFloor)
	}
	// Well under: back up by a sixteenth a collection at most, up to 1.
	prev := CacheFloor
	for i := 0; i < 20; i++ {
		s := g.next(100*mib, limit, 0)
		if s < prev || s-prev > 1.0/16+1e-9 || s > 1 {
			t.Fatalf("collection %d well under the target: share %v after %v", i, s, prev)
		}
		prev = s
	}
	if prev != 1 {
		t.Fatalf("after 20 collections well under the target the share is %v, want 1", prev)
	}
	// Near the target less the slack, it grows only by the room left under it.
	g.share = 0.5
	if s := g.next(640*mib, limit, 0); !near(s, 0.5+10.0/320) {
		t.Fatalf("10 MiB under the target less the slack: share %v, want %v", s, 0.5+10.0/320)
	}
	// No soft limit: nothing changes.
	g.share = 0.5
	for i := 0; i < CacheOver; i++ {
		if s := g.next(5000*mib, math.MaxInt64, 300*mib); s != 0.5 {
			t.Fatalf("without a soft limit the share moved to %v", s)
		}
	}
}

// Run against a real store and the runtime's own collections: with the live heap held over the
// target of a small soft limit, the governor shrinks the store's read cache; once the heap is
// released, it grows it back to its configured size.
func TestCacheGovernorResizesTheStore(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	st, err := graph.Open(context.Background(), "file://"+t.TempDir(), graph.WithReadCacheParts(32<<20, 8<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var live runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&live)
	// A soft limit whose target sits 32 MiB above the heap now; then 96 MiB more held live.
	debug.SetMemoryLimit(int64(float64(live.HeapAlloc+32<<20) / CacheTarget))
	g := newCacheGovernor(32<<20, 8<<20)
	done := make(chan struct{})
	go func() { defer close(done); g.run(ctx, st, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	ballast := make([]byte, 96<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	eventuallyWithin(t, 30*time.Second, func() string {
		runtime.GC()
		if b := st.CacheStats().RecordBudget; b >= 32<<20 {
			return fmt.Sprintf("the records' budget is still %d under a heap over its target", b)
		}
		return ""
	})
	if b := st.CacheStats().RecordBudget; b < int(CacheFloor*float64(32<<20)) {
		t.Fatalf("the records' budget went to %d, under the floor", b)
	}
	runtime.KeepAlive(ballast)
	ballast = nil
	eventuallyWithin(t, 30*time.Second, func() string {
		runtime.GC()
		if b := st.CacheStats().RecordBudget; b != 32<<20 {
			return fmt.Sprintf("the records' budget is %d, not grown back to 32 MiB", b)
		}
		return ""
	})
	cancel()
	<-done
}
