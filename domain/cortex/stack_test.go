package cortex_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/search"
)

// testStack is a real embedded store and Bleve index, closed when the test ends, on which
// Cortexes are started — and started again, as a restarted server does.
type testStack struct {
	t   *testing.T
	st  *graph.Store
	idx *search.Index
}

func openTestStack(t *testing.T) *testStack {
	t.Helper()
	dir := t.TempDir()
	st, err := graph.Open(context.Background(), "file://"+filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	return &testStack{t: t, st: st, idx: idx}
}

// cortex starts a Cortex on the stack; the returned func closes it (once; the test's end closes
// it too).
func (s *testStack) cortex(mc cortex.MnemonicConfig) (*cortex.Cortex, func()) {
	s.t.Helper()
	cx, err := cortex.New(context.Background(), cortex.Config{Store: s.st, Index: s.idx,
		// What the background work logs as failed shows beside the test that caused it.
		Logger: slog.New(slog.NewTextHandler(s.t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})), Mnemonic: mc})
	if err != nil {
		s.t.Fatal(err)
	}
	var once sync.Once
	closeIt := func() { once.Do(cx.Close) }
	s.t.Cleanup(closeIt)
	return cx, closeIt
}

// importSource imports a source of kind (ingest.KindEvents, ingest.KindAgents, ...) into a scope.
func importSource(t *testing.T, cx *cortex.Cortex, scopeID, kind, data string) *cortex.ImportResult {
	t.Helper()
	src, err := ingest.Open(kind, kind, strings.NewReader(data), "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Import(context.Background(), cx, scopeID, src, cortex.Meta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
