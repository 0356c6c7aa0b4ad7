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
// Both shapes: searches' messages, a pack each (see pack.go), and a read event of its own node
// with touches recorded after its write.
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
	lone := benchContext(old)
	if err := s.AppendEvents(ctx, []*domain.Event{{Type: domain.MsgLoadQuery, ScopeID: scope.ID, MemoryID: mems[0], Context: lone}}); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Q []eventNode `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: has(ev.seq)) { uid ev.seq ev.type ev.messageId ev.count } }`, nil, &r); err != nil {
		t.Fatal(err)
	}
	var packs, single []string
	var nodes []eventNode
	events := 0
	for _, n := range r.Q {
		switch {
		case n.Type == packType:
			packs = append(packs, n.UID)
		case domain.IsReadEvent(domain.EventType(n.Type)):
			single = append(single, n.UID)
		default:
			continue
		}
		events += max(1, n.Count)
		nodes = append(nodes, n)
	}
	if len(packs) != 3 || len(single) != 1 || events != 67 {
		t.Fatalf("%d packs and %d read events of their own, %d events; want 3 searches' packs, the LoadQuery, 67", len(packs), len(single), events)
	}
	// Touches recorded after the write, as consumers record them: the lone event takes them, a
	// pack's messages are not looked up by id.
	if err := s.RecordTouches(ctx, map[string][]domain.Touch{lone.MessageID: {{Context: domain.CtxSalience, At: time.Now().UTC()}}}); err != nil {
		t.Fatal(err)
	}
	holding := func(uids []string, p string) int {
		t.Helper()
		var c struct {
			Q []struct {
				N int `json:"count"`
			} `json:"q"`
		}
		if err := s.read(ctx, fmt.Sprintf(`{ q(func: uid(%s)) @filter(has(<%s>)) { count(uid) } }`, strings.Join(uids, ","), p), nil, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Q) == 0 {
			return 0
		}
		return c.Q[0].N
	}
	shapes := []struct {
		uids  []string
		preds []string
	}{
		{packs, []string{"tr.scope", "ev.seq", "ev.type", "ev.requestId", "ev.count", "ev.pack", "ev.memories"}},
		{single, []string{"tr.scope", "ev.seq", "ev.type", "ev.memory", "ev.requestId", "ev.messageId", "ev.body", "ev.touches"}},
	}
	for _, sh := range shapes {
		for _, p := range sh.preds {
			if n := holding(sh.uids, p); n != len(sh.uids) {
				t.Fatalf("before pruning, %d of %v hold %s, want all", n, sh.uids, p)
			}
		}
	}
	head, err := s.LastSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deleted, _ := pruneAll(t, s, time.Now().Add(-time.Hour), head, 10)
	if deleted != 67 {
		t.Fatalf("pruned %d, want 67", deleted)
	}
	for _, sh := range shapes {
		for _, p := range sh.preds {
			if n := holding(sh.uids, p); n != 0 {
				t.Fatalf("after pruning, %d of %v still hold %s", n, sh.uids, p)
			}
		}
	}
	// And in the engine's store each pruned event's keys are deleted, not left as lists of
	// deltas no rollup takes: compactions drop them (BenchmarkPruneDisk).
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
