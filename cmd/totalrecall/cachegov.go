package main

import (
	"context"
	"log/slog"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/totalrecall/totalrecall/graph"
)

// The read cache gives way to the heap. The budget gives the read cache a quarter of the
// limit and a sixteenth, but what else the process holds moves: an import's batches, the
// engine's compactions (which keep table builders of their own, hundreds of MB at a million
// memories), a digest pass's scan. When the live heap comes near the Go runtime's soft limit,
// every collection finds little to free and the next comes soon after: a long import on 460,000
// memories spent about 40 % more CPU with the read cache full than with it at 64 MiB. So after
// each collection the governor compares the live heap with a target, a share of the soft
// limit, and sizes the read cache:
//
//	live > target after CacheOver collections in a row:
//	                           the cache's budget drops to what it holds less the least excess
//	                           of those collections, by at most an eighth of its configured size
//	                           at a time (never below CacheFloor of it)
//	live < target − slack:     the budget grows back by at most a sixteenth of its configured
//	                           size a collection, and by no more than the room under the target
//
// A warm cache is dear to refill (a search then reads its hundreds of records from the engine),
// so a heap that passes the target for a moment — a burst of writes, one compaction — takes
// nothing from it: only one that stays above it does.
// Both parts of the cache (records, walks) keep their configured proportion. Without a soft
// limit (GOMEMLIMIT=off) the governor does nothing.
const (
	// CacheTarget is the live heap the governor keeps under, as a share of the soft limit: the
	// rest is room for the heap to grow between collections.
	CacheTarget = 0.7
	// CacheSlack is how far under the target the live heap must be before the cache grows
	// back, as a share of the soft limit.
	CacheSlack = 0.05
	// CacheFloor is the least share of its configured budget the read cache keeps.
	CacheFloor = 0.125
	// CacheOver is how many collections in a row must find the live heap above the target
	// before the cache gives way.
	CacheOver = 4
	// cacheCheck is how often the governor looks for a finished collection.
	cacheCheck = 250 * time.Millisecond
)

// cacheGovernor sizes the read cache from the live heap after each collection.
type cacheGovernor struct {
	records, walks int // the configured budgets of the parts
	share          float64
	over           int     // collections in a row that found the live heap above the target
	excess         float64 // the least excess of those collections, in bytes
}

func newCacheGovernor(records, walks int) *cacheGovernor {
	return &cacheGovernor{records: records, walks: walks, share: 1}
}

// next returns the share of the configured budget the cache should have, given the live heap
// after a collection, the soft limit and the bytes the cache holds.
func (g *cacheGovernor) next(live, limit int64, held int) float64 {
	total := float64(g.records + g.walks)
	if total <= 0 || limit <= 0 || limit == math.MaxInt64 {
		return g.share
	}
	target := CacheTarget * float64(limit)
	if float64(live) <= target {
		g.over = 0
	}
	switch {
	case float64(live) > target:
		ex := float64(live) - target
		if g.over == 0 || ex < g.excess {
			g.excess = ex
		}
		if g.over++; g.over < CacheOver {
			return g.share
		}
		keep := max(float64(held)-g.excess, g.share*total-total/8)
		g.share = min(g.share, max(keep/total, CacheFloor))
		g.over = 0
	case float64(live) < target-CacheSlack*float64(limit) && g.share < 1:
		room := target - CacheSlack*float64(limit) - float64(live)
		g.share = min(1, g.share+min(room, total/16)/total)
	}
	return g.share
}

// run watches the collections until ctx ends, resizing st's read cache as next says.
func (g *cacheGovernor) run(ctx context.Context, st *graph.Store, logger *slog.Logger) {
	if g.records <= 0 {
		return
	}
	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	var cycles uint64
	t := time.NewTicker(cacheCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(samples)
		if samples[0].Value.Kind() != metrics.KindUint64 || samples[1].Value.Kind() != metrics.KindUint64 {
			return // not this runtime's metrics
		}
		if c := samples[0].Value.Uint64(); c == cycles {
			continue
		} else {
			cycles = c
		}
		s := st.CacheStats()
		before := g.share
		share := g.next(int64(samples[1].Value.Uint64()), debug.SetMemoryLimit(-1), s.RecordBytes+s.WalkBytes)
		if share == before {
			continue
		}
		st.ResizeReadCache(int(share*float64(g.records)), int(share*float64(g.walks)))
		level := slog.LevelDebug
		if before == 1 || share == 1 {
			level = slog.LevelInfo // the first step down, and the way back
		}
		logger.Log(ctx, level, "read cache resized to the heap", "share", math.Round(share*1000)/1000,
			"liveHeapMiB", samples[1].Value.Uint64()>>20, "recordsMiB", int(share*float64(g.records))>>20,
			"walksMiB", int(share*float64(g.walks))>>20)
	}
}
