package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/hypermodeinc/dgraph/v25/posting"
	"github.com/hypermodeinc/dgraph/v25/tok"
	"github.com/hypermodeinc/dgraph/v25/worker"
	"github.com/hypermodeinc/dgraph/v25/x"
)

// versionsOf lists the versions Badger holds of a key, newest first, as "D" (a delta) or "C" (a
// complete, rolled-up list).
func versionsOf(t *testing.T, key []byte) string {
	t.Helper()
	txn := worker.State.Pstore.NewTransactionAt(^uint64(0), false)
	defer txn.Discard()
	opt := badger.DefaultIteratorOptions
	opt.AllVersions = true
	opt.Prefix = key
	it := txn.NewIterator(opt)
	defer it.Close()
	out := ""
	for it.Rewind(); it.Valid(); it.Next() {
		switch it.Item().UserMeta() {
		case posting.BitDeltaPosting:
			out += "D"
		case posting.BitCompletePosting:
			out += "C"
		default:
			out += fmt.Sprintf("?%d@%d", it.Item().UserMeta(), it.Item().Version())
		}
	}
	return out
}

// The engine rolls posting lists up: a scope's index list, which every write in the scope adds
// to, becomes one complete list above the deltas of the commits it folds. Reads at every earlier
// commit's timestamp see exactly what they saw before.
func TestEngineRollsUpPostingLists(t *testing.T) {
	ctx := context.Background()
	// Without the posting-list cache every read of the list reads Badger, and hands the list to
	// the rollups while it has deltas.
	mem := DefaultEngineMemory()
	mem.PostingCache = 0
	s, scope := openScopeStore(t, WithEngineMemory(mem))
	e := s.b.(*embeddedBackend)
	exact, _ := tok.GetTokenizer("exact")
	toks, err := tok.BuildTokens(scope.ID, exact)
	if err != nil || len(toks) != 1 {
		t.Fatalf("tokens of the scope id: %v %v", toks, err)
	}
	key := x.IndexKey(x.NamespaceAttr(x.RootNamespace, "tr.scope"), toks[0])
	count := func(ts uint64) int {
		raw, err := e.queryAt(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) { n: count(uid) } }`,
			map[string]string{"$s": scope.ID}, ts)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Q []struct{ N int } }
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Q) != 1 {
			t.Fatalf("count: %s %v", raw, err)
		}
		return r.Q[0].N
	}
	const commits, per = 30, 10
	at := []uint64{e.readTs.Load()}
	for range commits {
		cacheMemories(t, s, scope, per)
		at = append(at, e.readTs.Load())
	}
	// The rollups take the keys each commit wrote and roll a list up at most every ten seconds;
	// started afresh they take the list again as soon as a read finds it with deltas.
	s.mu.Lock()
	e.stopRollups()
	e.startRollups()
	s.mu.Unlock()
	// A liveness bound, not a timing: a busy machine (or -race) delays the rollups' goroutine.
	deadline := time.Now().Add(2 * time.Minute)
	v := versionsOf(t, key)
	for ; !strings.HasPrefix(v, "C") && time.Now().Before(deadline); v = versionsOf(t, key) {
		count(e.readTs.Load())
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasPrefix(v, "C") {
		t.Fatalf("the scope's index list was not rolled up above its deltas: versions, newest first: %s", v)
	}
	for k, ts := range at {
		// The scope's node and its two kernels, then per memories a commit.
		if got, want := count(ts), 3+k*per; got != want {
			t.Errorf("after the rollup a read at commit %d's timestamp counted %d nodes, want %d", k, got, want)
		}
	}
	t.Logf("versions of the scope's index list, newest first: %s", v)
}
