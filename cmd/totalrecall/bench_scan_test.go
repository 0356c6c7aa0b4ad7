package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

// BenchmarkScanRefgraph is the refgraph scan a digest pass starts with, on the bench digest's
// scope (SCAN_BENCH_N artifacts, default 20,000, about 5 references each), beside the raw
// baseline: the same queries answered and not decoded.
func BenchmarkScanRefgraph(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("SCAN_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+filepath.Join(b.TempDir(), "graph"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sc, err := st.CreateScope(ctx, domain.Request{}, storetest.NewScope("scan bench"), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := loadRefgraph(ctx, st, sc.ID, n, 5, false); err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			nodes := 0
			if err := st.ScanRefgraph(ctx, sc.ID, func(page []*domain.RefNode) error {
				nodes += len(page)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if nodes == 0 {
				b.Fatal("nothing scanned")
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := st.RawScanRefgraph(ctx, sc.ID, graph.ScanWorkers); err != nil {
				b.Fatal(err)
			}
		}
	})
}
