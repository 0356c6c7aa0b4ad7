package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// locomoDir is the LoCoMo development set, beside the repository (never copied into it).
var locomoDir = filepath.Join("..", "..", "..", "shared", "data", "locomo")

// TestEvalLoCoMo runs `totalrecall eval locomo --via store` on the development conversations
// and holds the search to its bar: evidence recall@10 of at least 0.81 (multi-hop questions 0.54),
// above raw full-text search of the same index — through the import, and through storeMemory one
// turn at a time, at least 0.80 and within 0.03 of the import. It skips only when the data folder
// is absent.
func TestEvalLoCoMo(t *testing.T) {
	if _, err := os.Stat(locomoDir); err != nil {
		t.Skipf("LoCoMo data not found at %s", locomoDir)
	}
	if testing.Short() {
		t.Skip("the evaluation imports and asks the whole development set; it runs without -short")
	}
	res, err := runLoCoMoEval(context.Background(), storeFlags{}, locomoDir, io.Discard, evalOptions{rounds: 1, viaStore: true})
	if err != nil {
		t.Fatal(err)
	}
	at10, raw10 := res.Overall.at(2), res.Raw.at(2)
	t.Logf("recall@10 %.3f (raw full text %.3f) over %d questions", at10, raw10, res.Questions)
	if res.Questions < 300 {
		t.Fatalf("%d questions, want the whole development set", res.Questions)
	}
	if at10 < 0.81 {
		t.Fatalf("recall@10 = %.3f, want at least 0.81", at10)
	}
	if m := cat(res.ByCategory, 1).at(2); m < 0.54 {
		t.Fatalf("multi-hop recall@10 = %.3f, want at least 0.54", m)
	}
	if at10 < raw10+0.05 {
		t.Fatalf("recall@10 = %.3f, not clearly above raw full text (%.3f)", at10, raw10)
	}
	for i := 1; i < len(evalKs); i++ {
		if res.Overall.at(i) < res.Overall.at(i-1) {
			t.Fatalf("recall@%d < recall@%d", evalKs[i], evalKs[i-1])
		}
	}
	// Stored one turn per storeMemory call, as a mind stores them, the conversations are found as
	// well as imported ones.
	st := res.Store
	if st == nil || st.Overall.n != res.Questions {
		t.Fatalf("via store: %+v, want the %d questions asked", st, res.Questions)
	}
	store10 := st.Overall.at(2)
	t.Logf("via store recall@10 %.3f, settled %s after the last call", store10, st.Settle)
	if store10 < 0.80 || store10 < at10-0.03 {
		t.Fatalf("via store recall@10 = %.3f, want at least 0.80 and within 0.03 of the import's %.3f", store10, at10)
	}
	// The import's commits, replayed by themselves: every turn's memory at least.
	if e := res.Engine; e == nil || e.Turns != res.Turns || e.Commits < len(locomoFiles(t)) || e.Quads < 10*e.Turns || e.Took <= 0 {
		t.Fatalf("graph writes alone: %+v, want the %d turns of the import in at least a commit per conversation", e, res.Turns)
	}
	var out bytes.Buffer
	printEval(&out, res)
	for _, want := range []string{"overall", "multi-hop", "temporal", "open-domain", "single-hop", "search latency p50", "import, end to end",
		"graph writes alone", "via store (one storeMemory call per turn)", "difference @10", "consumers connected what was stored",
		"same storeMemory calls", "with spreading activation (Wg 0.5)", "sensitivity via store, of spreading activation"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func locomoFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(locomoDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestRecallSums(t *testing.T) {
	var r recallSums
	r.add([]string{"a", "x", "b"}, []string{"a", "b"})
	r.add([]string{"x"}, []string{"c"})
	// @1: (1/2 + 0)/2, @5: (2/2 + 0)/2.
	if r.at(0) != 0.25 || r.at(1) != 0.5 || r.n != 2 {
		t.Fatalf("sums = %+v", r)
	}
}

func TestEvalVia(t *testing.T) {
	err := evalCmd([]string{"locomo", "--via", "mail", "dir"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `--via "mail"`) {
		t.Fatalf("eval --via mail: %v", err)
	}
}
