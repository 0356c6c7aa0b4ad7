package cortex_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/ingest"
)

// Each state of a memory is written to the index once. A store puts its memories before its
// MemoryStored reaches the index feed, and an import puts its memories while the feed reads its
// MemoriesIngested: the feed must not put the same version again (Bleve would delete and re-add
// every document) nor read an import's memories back from the graph to do so. A change of the
// memory (a new version) is put again.
func TestEachMemoryVersionIsIndexedOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, err := cx.CreateScope(ctx, "indexed once", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	before := s.idx.DocsWritten()
	want := uint64(0)
	var first *domain.Memory
	for i := range 5 {
		m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: scope.ID,
			Content: fmt.Sprintf("single memory number %d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		first = m
		want++
	}
	var batch []hippocampus.StoreInput
	for i := range 20 {
		batch = append(batch, hippocampus.StoreInput{ScopeID: scope.ID, Content: fmt.Sprintf("batched memory number %d", i)})
	}
	if _, err := cx.StoreMemories(ctx, batch, cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	want += 20
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf(`{"timestamp": "2026-01-05T10:%02d:00Z", "channel": "chat", "content": "imported line %d", "direction": "sent", "thread_id": "t", "source_id": "%d", "sender": "Ada"}`, i, i, i))
	}
	if res := importSource(t, cx, scope.ID, ingest.KindEvents, strings.Join(lines, "\n")+"\n"); res.Imported != 30 {
		t.Fatalf("imported %d, want 30", res.Imported)
	}
	want += 30
	// A new version of a memory is written again.
	if _, err := cx.ReclassifyMemory(ctx, cortex.ReclassifyInput{ID: first.ID, Tier: domain.TierLongTerm, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	want++
	awaitIndexFeed(t, s)
	if got := s.idx.DocsWritten() - before; got != want {
		t.Errorf("the index wrote %d documents for %d memory versions", got, want)
	}
	// The new version is the one searched.
	hits, err := s.idx.Search(ctx, domain.IndexQuery{ScopeID: scope.ID, Text: "single", Limit: 10,
		Filter: domain.MemoryFilter{Tiers: []domain.Tier{domain.TierLongTerm}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != first.ID {
		t.Errorf("hits in LONG_TERM: %v, want the reclassified memory", hits)
	}
}

// awaitIndexFeed waits until the index feed has applied every event in the log, twice in a row
// (the feed's own effects may add events).
func awaitIndexFeed(t *testing.T, s *testStack) {
	t.Helper()
	ctx := context.Background()
	steady := 0
	for deadline := time.Now().Add(30 * time.Second); steady < 2; time.Sleep(50 * time.Millisecond) {
		head, err := s.st.LastSeq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wm, err := s.idx.Watermark()
		if err != nil {
			t.Fatal(err)
		}
		if wm >= head {
			steady++
		} else {
			steady = 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("the index feed is at %d, the log at %d", wm, head)
		}
	}
}
