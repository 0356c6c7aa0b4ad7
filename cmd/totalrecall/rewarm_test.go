package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
)

// TestReadCacheWarmedAgainAfterImports: an import writes its memories' edges, which drops their
// recall contexts from the read cache; once enough memories were imported and the imports have
// been quiet a while, the server warms the cache again, so searches do not read the contexts
// from the graph one by one. Below the threshold it does not.
func TestReadCacheWarmedAgainAfterImports(t *testing.T) {
	for _, c := range []struct {
		name   string
		after  int
		rewarm bool
	}{{"above the threshold", 10, true}, {"below it", 1000, false}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, _, cx := openStack(t, storeFlags{store: "file://" + t.TempDir()})
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			imports := make(chan int, 8)
			cx.SetImportHook(func(n int) { imports <- n })
			done := make(chan struct{})
			go func() {
				defer close(done)
				rewarm(ctx, st, logger, imports, rewarmPolicy{After: c.after, Quiet: 50 * time.Millisecond, check: 10 * time.Millisecond})
			}()
			defer func() { cancel(); <-done }()

			f, err := os.Open("testdata/unseen/ana-ben.json")
			if err != nil {
				t.Fatal(err)
			}
			conv, err := ingest.ParseLoCoMo(f, "ana-ben")
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			sc, err := cx.CreateScope(ctx, "rewarm", cortex.Meta{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ingest.Import(ctx, cx, sc.ID, ingest.LoCoMoSource(conv), cortex.Meta{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Imported < 20 {
				t.Fatalf("imported %d memories", res.Imported)
			}
			// Each memory warm has its record and its recall context cached.
			want := 2 * res.Imported
			wait := time.Second // twenty times the quiet: a warm-up would have begun
			if c.rewarm {
				wait = 10 * time.Second
			}
			for deadline := time.Now().Add(wait); time.Now().Before(deadline) && st.CacheStats().RecordEntries < want; {
				time.Sleep(20 * time.Millisecond)
			}
			got := st.CacheStats().RecordEntries
			if c.rewarm && got < want {
				t.Fatalf("%d entries in the read cache after the import, want %d (records and contexts)", got, want)
			}
			if !c.rewarm && got >= want {
				t.Fatalf("%d entries: warmed again below the threshold (%d)", got, c.after)
			}
		})
	}
}
