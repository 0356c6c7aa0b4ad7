package graph

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hypermodeinc/dgraph/v25/worker"

	"github.com/totalrecall/totalrecall/domain"
)

// TestPruneLeavesNothing: a pruned event's node keeps no value — not its body, its ids, its
// touches nor its place in the scope — so the store holds nothing of it once compactions pass.
func TestPruneLeavesNothing(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	mems := pruneBenchMemories(t, s, scope.ID)
	old := time.Now().Add(-48 * time.Hour)
	for range 3 {
		if err := s.AppendEvents(ctx, searchEvents(scope.ID, mems, old)); err != nil {
			t.Fatal(err)
		}
	}
	var r struct {
		Q []struct {
			UID       string `json:"uid"`
			Type      string `json:"ev.type"`
			MessageID string `json:"ev.messageId"`
		} `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: has(ev.seq)) { uid ev.type ev.messageId } }`, nil, &r); err != nil {
		t.Fatal(err)
	}
	var read []string
	touches := map[string][]domain.Touch{}
	for _, n := range r.Q {
		if domain.IsReadEvent(domain.EventType(n.Type)) {
			read = append(read, n.UID)
			// Touches recorded after the write, as consumers record them.
			touches[n.MessageID] = []domain.Touch{{Context: domain.CtxSalience, At: time.Now().UTC()}}
		}
	}
	if len(read) != 66 {
		t.Fatalf("%d read events written, want 66", len(read))
	}
	if err := s.RecordTouches(ctx, touches); err != nil {
		t.Fatal(err)
	}
	holding := func(p string) int {
		t.Helper()
		var c struct {
			Q []struct {
				N int `json:"count"`
			} `json:"q"`
		}
		if err := s.read(ctx, fmt.Sprintf(`{ q(func: uid(%s)) @filter(has(<%s>)) { count(uid) } }`, strings.Join(read, ","), p), nil, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Q) == 0 {
			return 0
		}
		return c.Q[0].N
	}
	preds := []string{"tr.scope", "ev.seq", "ev.type", "ev.memory", "ev.requestId", "ev.messageId", "ev.body", "ev.touches"}
	for _, p := range preds {
		want := 66
		if p == "ev.memory" {
			want = 30 // the MemoryAccessed
		}
		if n := holding(p); n != want {
			t.Fatalf("before pruning, %d of the read events hold %s, want %d", n, p, want)
		}
	}
	head, err := s.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deleted, _ := pruneAll(t, s, time.Now().Add(-time.Hour), head, 10)
	if deleted != 66 {
		t.Fatalf("pruned %d, want 66", deleted)
	}
	for _, p := range preds {
		if n := holding(p); n != 0 {
			t.Fatalf("after pruning, %d of the read events still hold %s", n, p)
		}
	}
	// And in the engine's store each pruned event's keys are deleted, not left as lists of
	// deltas no rollup takes: compactions drop them (BenchmarkPruneDisk).
	var nodes []eventNode
	for _, uid := range read {
		nodes = append(nodes, eventNode{UID: uid})
	}
	txn := worker.State.Pstore.NewTransactionAt(math.MaxUint64, false)
	defer txn.Discard()
	for _, key := range emptiedKeys(nodes) {
		if _, err := txn.Get(key); !errors.Is(err, badger.ErrKeyNotFound) {
			t.Fatalf("key %x of a pruned event: %v, want it deleted", key, err)
		}
	}
	// The memories' own events stay.
	for _, id := range mems {
		evs, err := s.MemoryEvents(ctx, id)
		if err != nil || len(evs) != 1 || evs[0].Type != domain.EvMemoryStored {
			t.Fatalf("history of %s after pruning: %v, %v", id, evs, err)
		}
	}
}

// dirBytes is what dir takes on disk (onDisk of each file).
func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += onDisk(info)
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// pruneAll prunes the log up to upTo of the read events older than before, a page per call,
// and returns how many it deleted and the last call's result.
func pruneAll(tb testing.TB, s *Store, before time.Time, upTo uint64, page int) (int, domain.PruneResult) {
	tb.Helper()
	deleted := 0
	for {
		res, err := s.PruneEvents(context.Background(), before, upTo, page)
		if err != nil {
			tb.Fatal(err)
		}
		deleted += res.Deleted
		if !res.More {
			return deleted, res
		}
	}
}
