package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// buildIndex makes an index of n documents with watermark 42, closed, and returns its folder
// and the segment files it holds.
func buildIndex(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var docs []domain.IndexDoc
	for i := range n {
		docs = append(docs, domain.IndexDoc{ID: fmt.Sprintf("doc-%d", i), ScopeID: "scope", Content: fmt.Sprintf("persimmon number %d", i)})
	}
	if err := idx.Put(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	if err := idx.SetWatermark(42); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatal("no segment on disk after a clean close")
	}
	return dir, segs
}

func countAndWatermark(t *testing.T, dir string) (uint64, uint64) {
	t.Helper()
	idx, err := Open(dir)
	if err != nil {
		t.Fatalf("open after damage: %v", err)
	}
	defer idx.Close()
	n, err := idx.Count()
	if err != nil {
		t.Fatal(err)
	}
	wm, err := idx.Watermark()
	if err != nil {
		t.Fatal(err)
	}
	// The rebuilt index works: a document goes in and is found.
	if err := idx.Put(context.Background(), []domain.IndexDoc{{ID: "after", ScopeID: "scope", Content: "quince after the damage"}}); err != nil {
		t.Fatal(err)
	}
	hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "scope", Text: "quince", Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].ID != "after" {
		t.Fatalf("search after reopening: %v %v", hits, err)
	}
	return n, wm
}

// An index garbled or truncated on disk is found at Open and rebuilt empty (watermark 0, so the
// Cortex replays the whole log into it); an intact one opens as it was.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	const docs = 500
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, dir string, segs []string)
		rebuilt bool
	}{
		{"intact", func(*testing.T, string, []string) {}, false},
		{"segment garbled in the middle", func(t *testing.T, dir string, segs []string) {
			garble(t, segs[0], 0.5)
		}, true},
		{"segment truncated", func(t *testing.T, dir string, segs []string) {
			truncate(t, segs[0], 0.5)
		}, true},
		{"segment truncated to nothing", func(t *testing.T, dir string, segs []string) {
			truncate(t, segs[0], 0)
		}, true},
		{"root.bolt garbled", func(t *testing.T, dir string, segs []string) {
			// Both of bolt's meta pages (4 KiB each, at its start).
			root := filepath.Join(dir, "store", "root.bolt")
			garbleAt(t, root, 16)
			garbleAt(t, root, 4096+16)
		}, true},
		{"root.bolt truncated", func(t *testing.T, dir string, segs []string) {
			truncate(t, filepath.Join(dir, "store", "root.bolt"), 0.3)
		}, true},
		{"root.bolt missing", func(t *testing.T, dir string, segs []string) {
			if err := os.Remove(filepath.Join(dir, "store", "root.bolt")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"mapping file garbled", func(t *testing.T, dir string, segs []string) {
			if err := os.WriteFile(filepath.Join(dir, metaFile), []byte("{\"storage\": \x00\x01"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"mapping file missing", func(t *testing.T, dir string, segs []string) {
			if err := os.Remove(filepath.Join(dir, metaFile)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"garbled segment the index never took in", func(t *testing.T, dir string, segs []string) {
			// What a writer killed mid-segment leaves: a file newer than root.bolt, named by no
			// snapshot. It is not the index's, so it is no damage.
			left := filepath.Join(dir, "store", "0000000000ff.zap")
			if err := os.WriteFile(left, []byte("half a segment"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, segs := buildIndex(t, docs)
			tc.damage(t, dir, segs)
			n, wm := countAndWatermark(t, dir)
			if tc.rebuilt {
				if n != 0 || wm != 0 {
					t.Fatalf("damaged index kept %d documents at watermark %d; want it rebuilt empty at 0", n, wm)
				}
				return
			}
			if n != docs || wm != 42 {
				t.Fatalf("intact index reopened with %d documents at watermark %d; want %d at 42", n, wm, docs)
			}
		})
	}
}

// A folder that holds something other than an index is still refused: Reset would delete it.
func TestForeignFolderIsRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); err == nil {
		t.Fatal("opened a folder holding someone else's files as an index")
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatalf("the folder's file is gone: %v", err)
	}
}

func garble(t *testing.T, path string, at float64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	garbleAt(t, path, int(float64(fi.Size())*at))
}

// garbleAt flips the bits of 64 bytes of the file at offset i.
func garbleAt(t *testing.T, path string, i int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for k := i; k < min(len(data), i+64); k++ {
		data[k] ^= 0xA5
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string, keep float64) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(fi.Size())*keep)); err != nil {
		t.Fatal(err)
	}
}
