package main

import (
	"io"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// TestServeMaxContentBytes runs a real `serve --max-content-bytes 1000`: content of exactly the
// limit is stored, one byte more is INVALID_ARGUMENT naming the limit and writes nothing, for
// storeMemory and for storeMemories batches alike.
func TestServeMaxContentBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real server process")
	}
	const limit = 1000
	s := serveProcess(t, "--store", "file://"+t.TempDir(), "--max-content-bytes", "1000")
	defer s.stop(t)
	scope, _, _ := s.createScope(t, "content limit")
	count := func() int {
		t.Helper()
		var r struct{ Memories struct{ TotalCount int } }
		s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &r)
		return r.Memories.TotalCount
	}
	atLimit := strings.Repeat("a", limit)
	over := strings.Repeat("b", limit+1)
	tooLarge := func(t *testing.T, query string, vars map[string]any) {
		t.Helper()
		before := count()
		r := s.do(t, query, vars)
		if len(r.Errors) == 0 {
			t.Fatalf("content of %d bytes accepted under a limit of %d: %s", limit+1, limit, r.Data)
		}
		if code := r.Errors[0].Extensions["code"]; code != "INVALID_ARGUMENT" {
			t.Fatalf("code = %v (%s), want INVALID_ARGUMENT", code, r.Errors[0].Message)
		}
		if !strings.Contains(r.Errors[0].Message, "1000 bytes") {
			t.Fatalf("error %q does not name the limit", r.Errors[0].Message)
		}
		if after := count(); after != before {
			t.Fatalf("refused write changed the scope's memories from %d to %d", before, after)
		}
	}

	t.Run("StoreMemory", func(t *testing.T) {
		m := s.store(t, map[string]any{"scopeId": scope, "content": atLimit})
		if len(m.Content) != limit {
			t.Fatalf("stored %d bytes, want %d", len(m.Content), limit)
		}
		if n := count(); n != 1 {
			t.Fatalf("%d memories after one store", n)
		}
		tooLarge(t, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"scopeId": scope, "content": over}})
	})

	t.Run("StoreMemories", func(t *testing.T) {
		batch := `mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id content } }`
		before := count()
		var r struct{ StoreMemories []memory }
		s.ok(t, batch, map[string]any{"ins": []map[string]any{
			{"scopeId": scope, "content": atLimit}, {"scopeId": scope, "content": strings.Repeat("c", limit)}}}, &r)
		if len(r.StoreMemories) != 2 || len(r.StoreMemories[1].Content) != limit {
			t.Fatalf("batch at the limit stored %+v", r.StoreMemories)
		}
		if n := count(); n != before+2 {
			t.Fatalf("%d memories after a batch of two, want %d", n, before+2)
		}
		// One input one byte over the limit refuses the whole batch.
		tooLarge(t, batch, map[string]any{"ins": []map[string]any{
			{"scopeId": scope, "content": "fine"}, {"scopeId": scope, "content": over}}})
	})
}

// TestServeMaxContentBytesOutOfRange: serve refuses a limit outside 1..64 MiB before it opens
// anything, and leaves the process-wide limit as it was.
func TestServeMaxContentBytesOutOfRange(t *testing.T) {
	for _, v := range []string{"0", "-5", "67108865"} {
		err := run([]string{"serve", "--store", "file://" + t.TempDir(), "--addr", "127.0.0.1:0", "--max-content-bytes", v}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--max-content-bytes") || !strings.Contains(err.Error(), "1..67108864") {
			t.Fatalf("serve --max-content-bytes %s: %v, want a range error naming the flag", v, err)
		}
		if got := domain.MaxContentBytes(); got != domain.DefaultMaxContentBytes {
			t.Fatalf("a refused flag changed the limit to %d", got)
		}
	}
}

// --cache-mb takes a whole number of MiB; 0 turns the cache off, and anything else is refused
// before the store opens.
func TestCacheFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"0", -1}, {"1", 1 << 20}, {"256", 256 << 20}} {
		var c cacheFlag
		if err := c.Set(tc.in); err != nil || c.bytes != tc.want {
			t.Fatalf("--cache-mb %s: %d, %v; want %d", tc.in, c.bytes, err, tc.want)
		}
	}
	for _, v := range []string{"-1", "x", "1.5", "", "1048577"} {
		err := run([]string{"serve", "--store", "file://" + t.TempDir(), "--addr", "127.0.0.1:0", "--cache-mb", v}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "--cache-mb") {
			t.Fatalf("serve --cache-mb %q: %v, want an error naming the flag", v, err)
		}
	}
}
