package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/totalrecall/totalrecall/graph"
)

// defaultMemoryLimit is serve --memory-limit when it is not given.
const defaultMemoryLimit = 1 << 30

// minMemoryLimit is the smallest budget a server is given: below it the engine's and the
// runtime's own memory leave nothing for caches.
const minMemoryLimit = 256 << 20

// memoryBudget is how --memory-limit shares the process's memory among its parts. What the caches
// hold is bounded by their sizes; the rest of the limit is for what requests, writes and the
// collector need as they run. The Go runtime's soft limit (GOMEMLIMIT) is nine tenths of it, so
// the collector works harder before the process passes it.
type memoryBudget struct {
	Limit int64
	// GoLimit is the Go runtime's soft memory limit (debug.SetMemoryLimit), unless GOMEMLIMIT is
	// set in the environment.
	GoLimit int64
	// Engine is the embedded engine's posting-list cache, Badger's block cache and memtables.
	Engine graph.EngineMemory
	// ReadCache is the read cache's part for memories with their recall contexts and episodes'
	// members (what a search reads), ReadWalks its part for total recall's associations and
	// states (graph.WithReadCacheParts).
	ReadCache, ReadWalks int
	// EventWindow is the bytes of recent events the event log keeps for its consumers.
	EventWindow int
	// IndexIDs is the search index's cache of document ids, in bytes (search.WithIDCache).
	IndexIDs int
}

// budgetFor shares limit bytes: about an eighth to the engine (graph.EngineMemoryFor), a quarter
// to the read cache's records (a search reads hundreds of them: at the default 1 GiB about
// 110,000 memories with their contexts) and a sixteenth to its walks, a thirty-second to the
// index's id cache, a hundred-and-twenty-eighth to the event log's window: a little over half
// the limit in all, the rest for what requests and writes hold as they run.
func budgetFor(limit int64) memoryBudget {
	return memoryBudget{
		Limit:       limit,
		GoLimit:     limit / 10 * 9,
		Engine:      graph.EngineMemoryFor(limit),
		ReadCache:   int(limit / 4),
		ReadWalks:   int(limit / 16),
		EventWindow: int(limit / 128),
		IndexIDs:    int(limit / 32),
	}
}

// budgetPart is one part of the budget: its name and its size in bytes.
type budgetPart struct {
	Name  string
	Bytes int64
}

// Sizes lists the budget's parts, for the start-up log and for metrics.
func (b memoryBudget) Sizes() []budgetPart {
	return []budgetPart{
		{"limit", b.Limit},
		{"go_soft_limit", b.GoLimit},
		{"engine_posting_cache", b.Engine.PostingCache},
		{"engine_block_cache", b.Engine.BlockCache},
		{"engine_index_cache", b.Engine.IndexCache},
		{"engine_memtables", b.Engine.MemTable * int64(b.Engine.Memtables)},
		{"read_cache_records", int64(b.ReadCache)},
		{"read_cache_walks", int64(b.ReadWalks)},
		{"index_id_cache", int64(b.IndexIDs)},
		{"event_window", int64(b.EventWindow)},
	}
}

// log writes the budget's parts in MiB.
func (b memoryBudget) log(logger *slog.Logger) {
	var args []any
	for _, p := range b.Sizes() {
		args = append(args, p.Name+"_MiB", math.Round(float64(p.Bytes)/(1<<20)*10)/10)
	}
	logger.Info("memory budget", args...)
}

// applyGoLimit sets the Go runtime's soft memory limit to the budget's, unless GOMEMLIMIT says
// otherwise.
func (b memoryBudget) applyGoLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(b.GoLimit)
	}
}

// memoryLimitFlag is --memory-limit: a size such as 512MiB, 1GiB or 1.5GiB (binary units;
// KB, MB and GB are decimal; a bare number is bytes).
type memoryLimitFlag struct{ bytes int64 }

func (m *memoryLimitFlag) String() string { return formatSize(m.limit()) }

func (m *memoryLimitFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return fmt.Errorf("--memory-limit %q: %v", s, err)
	}
	if n < minMemoryLimit {
		return fmt.Errorf("--memory-limit %q: below the least a server runs in, %s", s, formatSize(minMemoryLimit))
	}
	m.bytes = n
	return nil
}

// limit is the limit given, or the default.
func (m *memoryLimitFlag) limit() int64 {
	if m.bytes == 0 {
		return defaultMemoryLimit
	}
	return m.bytes
}

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// parseSize reads a size in bytes: a number with an optional unit (KiB, MiB, GiB, TiB; KB, MB,
// GB, TB; K, M, G, T as binary; B).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a size such as 512MiB or 1GiB")
	}
	if v < 0 || v*mult >= math.MaxInt64/2 {
		return 0, fmt.Errorf("out of range")
	}
	return int64(v * mult), nil
}

// formatSize writes n in the largest binary unit that leaves a whole or one-decimal number.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult {
			v := float64(n) / float64(u.mult)
			if v == math.Trunc(v) {
				return fmt.Sprintf("%d%s", int64(v), u.name)
			}
			return strconv.FormatFloat(v, 'f', 1, 64) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
