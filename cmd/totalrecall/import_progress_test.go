package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
)

// TestImportProgress: a long import reports its progress after every write, counting up to the
// whole file, and a second run of the same file reports every event as already there.
func TestImportProgress(t *testing.T) {
	ctx := context.Background()
	sf := storeFlags{store: "file://" + t.TempDir()}
	_, _, cx := openStack(t, sf)
	sc, err := cx.CreateScope(ctx, "progress", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2*domain.MaxImportRecords + 345
	var file strings.Builder
	for i := range n {
		fmt.Fprintf(&file, `{"timestamp": "2024-05-01T10:%02d:%02dZ", "channel": "sms", "content": "event %d", "thread_id": "t%d", "source_id": "%d"}`+"\n",
			(i/60)%60, i%60, i, i%7, i)
	}
	run := func() []cortex.ImportProgress {
		src, err := ingest.Open(ingest.KindEvents, "events", strings.NewReader(file.String()), "")
		if err != nil {
			t.Fatal(err)
		}
		var seen []cortex.ImportProgress
		if _, err := ingest.Import(ctx, cx, sc.ID, src, cortex.Meta{}, func(p cortex.ImportProgress) { seen = append(seen, p) }); err != nil {
			t.Fatal(err)
		}
		return seen
	}
	first := run()
	if len(first) < 3 {
		t.Fatalf("%d progress reports for %d events in writes of %d, want one per write", len(first), n, domain.MaxImportRecords)
	}
	for i := 1; i < len(first); i++ {
		if first[i].Events <= first[i-1].Events || first[i].Elapsed < first[i-1].Elapsed {
			t.Fatalf("progress does not count up: %+v then %+v", first[i-1], first[i])
		}
	}
	if last := first[len(first)-1]; last.Events != n || last.Imported != n || last.Skipped != 0 {
		t.Fatalf("last progress %+v, want %d events, all new", last, n)
	}
	again := run()
	if last := again[len(again)-1]; last.Events != n || last.Imported != 0 || last.Skipped != n {
		t.Fatalf("second run's last progress %+v, want %d events, all already there", last, n)
	}
}
