package search

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// A queued document is searchable as soon as Queue returns, however long the writer would wait
// for more: the search makes it write what is queued.
func TestQueuedIsSearchableOnReturn(t *testing.T) {
	idx := openIndex(t, WithLinger(time.Hour))
	ctx := context.Background()
	for k := 0; k < 50; k++ {
		if err := idx.Queue(ctx, []domain.IndexDoc{doc(fmt.Sprintf("q%02d", k), "s", fmt.Sprintf("queued note %d", k))}); err != nil {
			t.Fatalf("Queue: %v", err)
		}
		got := find(t, idx, "s", "queued", domain.MemoryFilter{})
		if len(got) != k+1 || !slices.Contains(got, fmt.Sprintf("q%02d", k)) {
			t.Fatalf("after %d queued documents the search found %v", k+1, got)
		}
	}
	if n, err := idx.Count(); err != nil || n != 50 {
		t.Fatalf("Count = %d, %v; want 50", n, err)
	}
}

// A stream of single queued documents with nobody searching becomes one batch, not one each.
func TestQueuedStreamIsOneBatch(t *testing.T) {
	idx := openIndex(t, WithLinger(time.Hour))
	ctx := context.Background()
	for k := 0; k < 200; k++ {
		if err := idx.Queue(ctx, []domain.IndexDoc{doc(fmt.Sprintf("d%03d", k), "s", "stream")}); err != nil {
			t.Fatalf("Queue: %v", err)
		}
		if err := idx.SetWatermark(uint64(k + 1)); err != nil {
			t.Fatalf("SetWatermark: %v", err)
		}
	}
	before := idx.batches.Load()
	if n, err := idx.Count(); err != nil || n != 200 {
		t.Fatalf("Count = %d, %v; want 200", n, err)
	}
	if wm, err := idx.Watermark(); err != nil || wm != 200 {
		t.Fatalf("Watermark = %d, %v; want 200", wm, err)
	}
	// Nothing was written before the count asked for it; the count wrote it all at once.
	if before != 0 || idx.batches.Load() != 1 {
		t.Fatalf("batches before the count %d, after %d; want 0 and 1", before, idx.batches.Load())
	}
}

// Writes queued, removed and queued again keep their order.
func TestQueuedOrder(t *testing.T) {
	idx := openIndex(t, WithLinger(time.Hour))
	ctx := context.Background()
	if err := idx.Queue(ctx, []domain.IndexDoc{doc("a", "s", "first words")}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Remove(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, idx, "s", "first", domain.MemoryFilter{}); len(got) != 0 {
		t.Fatalf("removed document still found: %v", got)
	}
	if err := idx.Queue(ctx, []domain.IndexDoc{doc("a", "s", "second words")}); err != nil {
		t.Fatal(err)
	}
	if got := find(t, idx, "s", "second", domain.MemoryFilter{}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("re-queued document: %v", got)
	}
	if got := find(t, idx, "s", "first", domain.MemoryFilter{}); len(got) != 0 {
		t.Fatalf("old version found: %v", got)
	}
}

// Close writes what is queued: a reopened index holds it.
func TestCloseWritesQueued(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := Open(dir, WithLinger(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 30; k++ {
		if err := idx.Queue(context.Background(), []domain.IndexDoc{doc(fmt.Sprintf("c%d", k), "s", "closing")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.SetWatermark(30); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := idx.Queue(context.Background(), []domain.IndexDoc{doc("late", "s", "x")}); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("Queue after Close: %v, want UNAVAILABLE", err)
	}
	idx, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if n, err := idx.Count(); err != nil || n != 30 {
		t.Fatalf("reopened Count = %d, %v; want 30", n, err)
	}
	if wm, _ := idx.Watermark(); wm != 30 {
		t.Fatalf("reopened watermark %d, want 30", wm)
	}
}

// A queued batch that fails is nobody's error to return, so the index refuses what would hide
// the loss: searches, counts and watermarks fail until Reset rebuilds it.
func TestQueuedFailureIsSticky(t *testing.T) {
	idx := openIndex(t, WithLinger(time.Hour))
	ctx := context.Background()
	put(t, idx, doc("a", "s", "kept"))
	if err := idx.SetWatermark(1); err != nil {
		t.Fatal(err)
	}
	if _, err := idx.Watermark(); err != nil {
		t.Fatal(err)
	}
	// The Bleve index fails every batch once closed underneath the writer.
	if err := idx.idx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := idx.Queue(ctx, []domain.IndexDoc{doc("b", "s", "lost")}); err != nil {
		t.Fatalf("Queue: %v", err)
	}
	if err := idx.SetWatermark(2); err != nil {
		t.Fatalf("SetWatermark (queued): %v", err)
	}
	if _, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "lost"}); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("Search after a failed queued batch: %v, want UNAVAILABLE", err)
	}
	if _, err := idx.Count(); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("Count: %v, want UNAVAILABLE", err)
	}
	if err := idx.SetWatermark(3); domain.ErrorCode(err) != domain.EUNAVAILABLE {
		t.Fatalf("SetWatermark: %v, want UNAVAILABLE", err)
	}
	if wm := idx.watermark.Load(); wm != 1 {
		t.Fatalf("watermark moved to %d past the lost document", wm)
	}
	// Reset closes the Bleve index it replaces: give it an open one to close.
	spare, err := create(filepath.Join(t.TempDir(), "spare"))
	if err != nil {
		t.Fatal(err)
	}
	idx.mu.Lock()
	idx.idx = spare
	idx.mu.Unlock()
	if err := idx.Reset(); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	put(t, idx, doc("c", "s", "rebuilt"))
	if got := find(t, idx, "s", "rebuilt", domain.MemoryFilter{}); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("after Reset: %v", got)
	}
	if wm, err := idx.Watermark(); err != nil || wm != 0 {
		t.Fatalf("after Reset watermark %d, %v", wm, err)
	}
}

// A NoWait search sees what the writer has written and leaves the queue to its linger: a
// background reader's searches do not cut a stream of stores into small segments. Applied tells
// it when the documents of the events it waits for are in.
func TestNoWaitSearchLeavesTheQueue(t *testing.T) {
	idx := openIndex(t, WithLinger(time.Hour))
	ctx := context.Background()
	if err := idx.Put(ctx, []domain.IndexDoc{doc("put", "s", "written note")}); err != nil {
		t.Fatal(err)
	}
	if err := idx.Queue(ctx, []domain.IndexDoc{doc("queued", "s", "queued note")}); err != nil {
		t.Fatal(err)
	}
	if err := idx.SetWatermark(7); err != nil {
		t.Fatal(err)
	}
	before := idx.batches.Load()
	hits, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "note", Limit: 10, NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "put" || idx.batches.Load() != before || idx.Applied() != 0 {
		t.Fatalf("NoWait found %v, batches %d → %d, applied %d; want only the written note, nothing written", hits, before, idx.batches.Load(), idx.Applied())
	}
	// A search that waits writes the queue, and the watermark with it.
	if got := find(t, idx, "s", "note", domain.MemoryFilter{}); len(got) != 2 || idx.Applied() != 7 {
		t.Fatalf("found %v, applied %d; want both notes and 7", got, idx.Applied())
	}
	hits, err = idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "note", Limit: 10, NoWait: true})
	if err != nil || len(hits) != 2 {
		t.Fatalf("NoWait after the write: %v, %v", hits, err)
	}
}

// A words-only query searches MaxWords of the rarest words instead of four.
func TestWordsOnlyMaxWords(t *testing.T) {
	idx := openIndex(t)
	ctx := context.Background()
	var docs []domain.IndexDoc
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	for i, w := range words {
		// Word i is in i+1 documents: alpha is the rarest.
		for k := 0; k <= i; k++ {
			docs = append(docs, doc(fmt.Sprintf("%s%d", w, k), "s", w))
		}
	}
	if err := idx.Put(ctx, docs); err != nil {
		t.Fatal(err)
	}
	count := func(max int) int {
		hits, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "alpha bravo charlie delta echo foxtrot", Limit: 100, WordsOnly: true, MaxWords: max})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	// The four rarest: alpha..delta, 1+2+3+4 documents; five: 15; six: all 21.
	if got := []int{count(0), count(5), count(6)}; fmt.Sprint(got) != "[10 15 21]" {
		t.Fatalf("hits with 4, 5, 6 words: %v", got)
	}
}
