package main

import (
	"bytes"
	"flag"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/graph"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"512MiB", 512 << 20},
		{"1GiB", 1 << 30},
		{"1.5GiB", 3 << 29},
		{"2gib", 2 << 30},
		{" 768 MiB ", 768 << 20},
		{"1G", 1 << 30},
		{"300M", 300 << 20},
		{"1GB", 1_000_000_000},
		{"500MB", 500_000_000},
		{"64KiB", 64 << 10},
		{"1048576", 1 << 20},
		{"1048576B", 1 << 20},
		{"1TiB", 1 << 40},
	} {
		got, err := parseSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "GiB", "lots", "-1GiB", "1.2.3MiB", "NaN", "Inf", "1e30GiB", "1 GiB extra", "1'; DROP"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{{1 << 30, "1GiB"}, {3 << 29, "1.5GiB"}, {256 << 20, "256MiB"}, {1000, "1000B"}, {1536, "1.5KiB"}} {
		if got := formatSize(c.in); got != c.want {
			t.Errorf("formatSize(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

// --memory-limit takes sizes, refuses what is not one or is below the least a server runs in, and
// defaults to 1GiB.
func TestMemoryLimitFlag(t *testing.T) {
	parse := func(args ...string) (storeFlags, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var sf storeFlags
		sf.register(fs)
		return sf, fs.Parse(args)
	}
	sf, err := parse()
	if err != nil || sf.memory.limit() != 1<<30 {
		t.Fatalf("default limit %d (%v), want 1GiB", sf.memory.limit(), err)
	}
	if sf, err = parse("--memory-limit", "2GiB"); err != nil || sf.budget().Limit != 2<<30 {
		t.Fatalf("--memory-limit 2GiB: %d, %v", sf.budget().Limit, err)
	}
	for _, bad := range []string{"255MiB", "lots", "0", "-5GiB"} {
		if _, err := parse("--memory-limit", bad); err == nil {
			t.Errorf("--memory-limit %s was accepted", bad)
		} else if !strings.Contains(err.Error(), "--memory-limit") {
			t.Errorf("--memory-limit %s: the error %q does not name the flag", bad, err)
		}
	}
	// --cache-mb still sets the read cache's parts; the rest stays sized from the limit.
	if sf, err = parse("--memory-limit", "1GiB", "--cache-mb", "10"); err != nil || sf.budget().ReadCache != 10<<20 ||
		sf.budget().Engine != graph.EngineMemoryFor(1<<30) {
		t.Fatalf("--cache-mb 10: %+v, %v", sf.budget(), err)
	}
	if sf, err = parse("--cache-mb", "0"); err != nil || sf.budget().ReadCache != 0 {
		t.Fatalf("--cache-mb 0: read cache %d, %v", sf.budget().ReadCache, err)
	}
}

// How a limit is shared, in bytes.
func TestBudgetFor(t *testing.T) {
	b := budgetFor(1 << 30)
	want := memoryBudget{
		Limit:   1 << 30,
		GoLimit: (1 << 30) / 10 * 9,
		Engine: graph.EngineMemory{PostingCache: 4 << 20, BlockCache: 32 << 20,
			MemTable: 32 << 20, Memtables: 3},
		ReadCache:   256 << 20,
		ReadWalks:   64 << 20,
		EventWindow: 8 << 20,
		IndexIDs:    32 << 20,
	}
	if b != want {
		t.Fatalf("budgetFor(1GiB) = %+v, want %+v", b, want)
	}
	// Memtables stay within 8 and 64 MiB.
	if mt := budgetFor(256 << 20).Engine.MemTable; mt != 8<<20 {
		t.Errorf("a 256MiB budget's memtable is %d, want 8MiB", mt)
	}
	if mt := budgetFor(16 << 30).Engine.MemTable; mt != 64<<20 {
		t.Errorf("a 16GiB budget's memtable is %d, want 64MiB", mt)
	}
	// The caches take at most 55% of the limit, leaving the rest to what requests need.
	for _, limit := range []int64{256 << 20, 1 << 30, 8 << 30} {
		b := budgetFor(limit)
		caches := b.Engine.Total() + int64(b.ReadCache) + int64(b.ReadWalks) + int64(b.EventWindow) + int64(b.IndexIDs)
		if caches > limit/100*55 {
			t.Errorf("at %s the caches take %s", formatSize(limit), formatSize(caches))
		}
	}
}

// serve logs every part of the budget at start, and sets the Go runtime's soft limit.
func TestBudgetLogAndGoLimit(t *testing.T) {
	var buf bytes.Buffer
	b := budgetFor(512 << 20)
	b.log(slog.New(slog.NewTextHandler(&buf, nil)))
	for _, part := range []string{"limit_MiB=512", "go_soft_limit_MiB=460.8", "engine_posting_cache_MiB=2",
		"engine_block_cache_MiB=16", "engine_memtables_MiB=48", "read_cache_records_MiB=128", "read_cache_walks_MiB=32",
		"index_id_cache_MiB=16", "event_window_MiB=4"} {
		if !strings.Contains(buf.String(), part) {
			t.Errorf("the budget's log %q lacks %s", buf.String(), part)
		}
	}
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	b.applyGoLimit()
	if got := debug.SetMemoryLimit(-1); got != b.GoLimit {
		t.Fatalf("the Go soft limit is %d, want %d", got, b.GoLimit)
	}
}
