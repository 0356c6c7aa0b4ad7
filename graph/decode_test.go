package graph

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A string kept from a decoded answer keeps only itself alive, not the answer it came from: the
// read cache keeps ids and contents of pages of thousands of nodes.
func TestDecodedStringsKeepNothingElse(t *testing.T) {
	const answers, size = 20, 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]string, 0, answers)
	for i := range answers {
		raw := fmt.Sprintf(`{"q":[{"tr.id":"id-%d","mem.content":%q}]}`, i, strings.Repeat("x", size))
		var r struct {
			Q []struct {
				ID      string `json:"tr.id"`
				Content string `json:"mem.content"`
			} `json:"q"`
		}
		if err := decode([]byte(raw), &r); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, r.Q[0].ID)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// go-json's pool of decoders holds the last few answers until it is collected: a few.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > answers/2*size {
		t.Fatalf("%d ids kept from %d answers of %d bytes keep %d bytes alive", len(kept), answers, size, grew)
	}
	runtime.KeepAlive(kept)
}
