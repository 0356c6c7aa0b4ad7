package cortex_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/ingest"
)

// TestIngestedMemoriesAreScored imports a conversation in bulk and checks that its memories are
// scored in the write that stores them, as a stored memory is: each carries a checkpoint of the
// memory's own version, its salience is that checkpoint's score (its TEMPORAL associations
// counted), the first decay sweep rewrites none of them, and a sweep days later gives each the
// score a full rescoring from its features gives.
func TestIngestedMemoriesAreScored(t *testing.T) {
	ctx := context.Background()
	stack := openTestStack(t)
	st := stack.st
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: stack.idx, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer cx.Close()
	sc, err := cx.CreateScope(ctx, "scored at import", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	const n = 12
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"timestamp": "2026-02-2%dT10:0%d:00Z", "channel": "chat", "content": "turn %d about the \"harbour\" {and} <its> boats", "direction": "sent", "thread_id": "t%d", "source_id": "%d", "sender": "Ada"}`,
			i%3, i%10, i, i%3, i))
	}
	res := importSource(t, cx, sc.ID, ingest.KindEvents, strings.Join(lines, "\n"))
	if res.Imported != n || res.Associations == 0 {
		t.Fatalf("import = %+v, want %d memories with TEMPORAL associations", res, n)
	}
	page, err := cx.Memories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{First: 100})
	if err != nil || len(page.Memories) != n {
		t.Fatalf("memories = %v, %v", page, err)
	}
	ids := make([]string, len(page.Memories))
	salienceOf := map[string]float64{}
	for i, m := range page.Memories {
		ids[i] = m.ID
		salienceOf[m.ID] = m.Salience
	}
	rows, err := st.ScoreRows(ctx, ids)
	if err != nil || len(rows) != n {
		t.Fatalf("score rows = %d, %v", len(rows), err)
	}
	params := salience.DefaultParams()
	connected := 0
	for _, r := range rows {
		if !r.Scored || r.ScoredVersion != r.Version || r.ScoredClaimed != r.Claimed || !r.ScoredAt.Equal(now) {
			t.Fatalf("memory %s has no checkpoint of its version at import: %+v", r.ID, r)
		}
		full, _, _ := params.Current(r, now)
		if math.Abs(full-salienceOf[r.ID]) > 1e-9 || math.Abs(r.Salience-full) > 1e-9 {
			t.Fatalf("memory %s: salience %v, stored %v, its features score %v", r.ID, salienceOf[r.ID], r.Salience, full)
		}
		if r.Connectivity > 0 {
			connected++
			if base := salience.Initial(r.Importance); full <= base {
				t.Fatalf("memory %s with associations (%v) scores %v, no more than without (%v)", r.ID, r.Connectivity, full, base)
			}
		}
	}
	if connected == 0 {
		t.Fatal("no imported memory has an association: the connectivity went uncounted")
	}
	sw, err := cx.DecaySweep(ctx, sc.ID, "", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if sw.Evaluated != n || sw.Rescored != 0 || sw.Demotions != 0 {
		t.Fatalf("first sweep after the import = %+v, want %d evaluated and nothing rewritten", sw, n)
	}
	// Days later every score has drifted: the sweep rewrites them from the checkpoints, and what
	// it writes is what scoring each memory in full gives.
	mu.Lock()
	now = now.Add(9 * 24 * time.Hour)
	mu.Unlock()
	if _, err := cx.DecaySweep(ctx, sc.ID, "", cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	after, err := st.ScoreRows(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range after {
		fresh := *r
		fresh.Scored = false
		want, _, _ := params.Current(&fresh, now)
		if math.Abs(r.Salience-want) > 1e-6 {
			t.Fatalf("memory %s after 9 days: salience %v, its features score %v", r.ID, r.Salience, want)
		}
	}
}
