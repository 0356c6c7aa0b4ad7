package cortex_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/search"
)

// faultyIndex is the real Bleve index with disk faults switched on and off: every call fails as a
// read or write of a segment file fails (EIO), or panics as a read of a vanished mapped file does.
type faultyIndex struct {
	*search.Index
	fail, panics atomic.Bool
}

func (f *faultyIndex) fault() error {
	if f.panics.Load() {
		panic("unexpected fault address 0x7f3a1c000000")
	}
	if f.fail.Load() {
		return &os.PathError{Op: "write", Path: "index/store/00000000002a.zap", Err: syscall.EIO}
	}
	return nil
}

func (f *faultyIndex) Put(ctx context.Context, docs []domain.IndexDoc) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.Index.Put(ctx, docs)
}

func (f *faultyIndex) Queue(ctx context.Context, docs []domain.IndexDoc) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.Index.Queue(ctx, docs)
}

func (f *faultyIndex) Remove(ctx context.Context, ids []string) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.Index.Remove(ctx, ids)
}

func (f *faultyIndex) Search(ctx context.Context, q domain.IndexQuery) ([]domain.IndexHit, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.Index.Search(ctx, q)
}

func (f *faultyIndex) SetWatermark(seq uint64) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.Index.SetWatermark(seq)
}

// Disk errors on the index reach callers as UNAVAILABLE, never INTERNAL and never a crash; what
// was stored meanwhile is in the graph, and the index takes it in from the log once the disk
// answers again, or at the next start.
func TestIndexDiskErrorsAreUnavailable(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	fi := &faultyIndex{Index: s.idx}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cx, err := cortex.New(ctx, cortex.Config{Store: s.st, Index: fi, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := cx.CreateScope(ctx, "faults", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	store := func(content string) (*domain.Memory, error) {
		return cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: sc.ID, Content: content}})
	}
	before, err := store("walnut before the fault")
	if err != nil {
		t.Fatal(err)
	}
	search := func(q string) ([]string, error) {
		res, err := cx.SearchMemory(ctx, cortex.SearchInput{ScopeID: sc.ID, Query: q})
		var ids []string
		for _, r := range res {
			ids = append(ids, r.Memory.ID)
		}
		return ids, err
	}

	for _, mode := range []string{"EIO", "panic"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "EIO" {
				fi.fail.Store(true)
				defer fi.fail.Store(false)
			} else {
				fi.panics.Store(true)
				defer fi.panics.Store(false)
			}
			_, err := store("hazelnut during the " + mode + " fault")
			wantCode(t, "storeMemory", err, domain.EUNAVAILABLE)
			_, err = search("walnut")
			wantCode(t, "searchMemory", err, domain.EUNAVAILABLE)
			_, err = cx.Resonate(ctx, sc.ID, "walnut", 3, cortex.Meta{})
			wantCode(t, "resonate", err, domain.EUNAVAILABLE)
			_, err = cx.ReclassifyMemory(ctx, cortex.ReclassifyInput{ID: before.ID, Tier: domain.TierLongTerm, Reason: "fault"})
			wantCode(t, "reclassifyMemory", err, domain.EUNAVAILABLE)
			_, err = cx.SearchArtifacts(ctx, cortex.ArtifactSearchInput{ScopeID: sc.ID, Query: "walnut"})
			wantCode(t, "searchArtifacts", err, domain.EUNAVAILABLE)
			// The graph answers meanwhile.
			if _, err := cx.Memory(ctx, before.ID, cortex.Meta{}); err != nil {
				t.Fatalf("memory(id) while the index fails: %v", err)
			}
		})
	}
	// The store refused only the index: the memories are in the graph, and once the disk answers
	// the index takes them in from the log.
	page, err := cx.Memories(ctx, sc.ID, domain.MemoryFilter{}, domain.Page{})
	if err != nil || page.TotalCount != 3 {
		t.Fatalf("memories after the faults: %d, %v; want 3 (one stored before, one during each fault)", page.TotalCount, err)
	}
	waitFor(t, "the index to take in what was stored during the faults", func() bool {
		ids, err := search("hazelnut")
		return err == nil && len(ids) == 2
	})
	cx.Close()

	// And a start after it has everything.
	cx2, err := cortex.New(ctx, cortex.Config{Store: s.st, Index: s.idx, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer cx2.Close()
	res, err := cx2.SearchMemory(ctx, cortex.SearchInput{ScopeID: sc.ID, Query: "hazelnut walnut", MaxResults: 10})
	if err != nil || len(res) != 3 {
		t.Fatalf("after a restart: %d hits, %v; want 3", len(res), err)
	}
}
