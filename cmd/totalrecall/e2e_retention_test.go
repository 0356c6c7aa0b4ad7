package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
)

// TestReadEventRetentionEndToEnd: serve with --keep-read-events 1h prunes a search's messages
// (the query, the match, the retrievals and their scores) once they are older — the server's
// clock is moved on two hours — while the memory keeps what they did (its access count) and its
// history keeps everything else.
func TestReadEventRetentionEndToEnd(t *testing.T) {
	var clock offsetClock
	sf := storeFlags{store: "file://" + t.TempDir(), retention: cortex.Retention{Keep: time.Hour, Interval: 100 * time.Millisecond}}
	sf.now = clock.now
	sf.expose = exposeFlags{adminAddr: "127.0.0.1:0"}
	s, out, _ := startServerCapturing(t, sf)
	running := s
	defer func() {
		if running != nil {
			running.stop(t)
		}
	}()
	scope, _, _ := s.createScope(t, "retention")
	m := s.store(t, map[string]any{"scopeId": scope, "content": `the heron nests by the "old" mill <_:x> .`})
	var r struct{ SearchMemory []ranked }
	s.ok(t, `query($s: ID!) { searchMemory(scopeId: $s, query: "heron mill", requestId: "retention-1") { memory { id } } }`,
		map[string]any{"s": scope}, &r)
	if len(r.SearchMemory) == 0 || r.SearchMemory[0].Memory.ID != m.ID {
		t.Fatalf("search found %+v, want %s", r.SearchMemory, m.ID)
	}
	trace := func() []string {
		var tr struct {
			Trace struct{ Messages []struct{ Type string } }
		}
		res := s.do(t, `query { trace(requestId: "retention-1") { messages { type } } }`, nil)
		if len(res.Errors) > 0 {
			if res.Errors[0].Extensions["code"] != "NOT_FOUND" {
				t.Fatalf("trace: %+v", res.Errors)
			}
			return nil // no message of the request in the log
		}
		if err := json.Unmarshal(res.Data, &tr); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range tr.Trace.Messages {
			types = append(types, e.Type)
		}
		return types
	}
	// The search's messages are written off its path: first they are there.
	eventuallyWithin(t, 2*time.Second, func() string {
		if got := trace(); !contains(got, "SearchQuery") || !contains(got, "MemoryAccessed") {
			return fmt.Sprintf("trace of the search: %v", got)
		}
		return ""
	})
	if h := s.historyTypes(t, m.ID); !contains(h, "MemoryAccessed") || !contains(h, "MemoryStored") {
		t.Fatalf("history before pruning: %v", h)
	}
	adminAddr := regexp.MustCompile(`admin on http://([0-9.:]+)/`).FindStringSubmatch(out.String())
	if adminAddr == nil {
		t.Fatalf("no admin address in %q", out.String())
	}
	pruned := func() string {
		resp, err := http.Get("http://" + adminAddr[1] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "totalrecall_read_events_pruned_total "); ok {
				return v
			}
		}
		return ""
	}
	// Pruning runs every 100 ms; none of them is an hour old yet.
	time.Sleep(300 * time.Millisecond)
	if p := pruned(); p != "0" {
		t.Fatalf("read events pruned before they are an hour old: %q", p)
	}
	if got := trace(); !contains(got, "SearchQuery") {
		t.Fatalf("trace of the search before it is an hour old: %v", got)
	}
	// Two hours later, they go.
	clock.advance(2 * time.Hour)
	eventuallyWithin(t, 30*time.Second, func() string {
		if got := trace(); len(got) > 0 {
			return fmt.Sprintf("trace of the search after --keep-read-events: %v", got)
		}
		return ""
	})
	if p := pruned(); p == "" || p == "0" {
		t.Fatalf("totalrecall_read_events_pruned_total = %q after pruning", p)
	}
	h := s.historyTypes(t, m.ID)
	if contains(h, "MemoryAccessed") || !contains(h, "MemoryStored") {
		t.Fatalf("history after pruning: %v, want MemoryStored without MemoryAccessed", h)
	}
	var got struct{ Memory memory }
	s.ok(t, `query($id: ID!) { memory(id: $id) { `+memFields+` } }`, map[string]any{"id": m.ID}, &got)
	// The load above is a retrieval of its own; the search's stays counted.
	if got.Memory.AccessCount < 1 || got.Memory.Content != m.Content {
		t.Fatalf("memory after pruning: %+v", got.Memory)
	}
	// The server searches on as before; so does one whose index is rebuilt from the pruned log
	// (the index reads each memory as the store holds it).
	s.ok(t, `query($s: ID!) { searchMemory(scopeId: $s, query: "heron") { memory { id } } }`, map[string]any{"s": scope}, &r)
	if len(r.SearchMemory) == 0 {
		t.Fatal("search after pruning found nothing")
	}
	s.stop(t)
	running = nil
	var re bytes.Buffer
	if err := run([]string{"reindex", "--store", sf.store}, &re, io.Discard); err != nil || !strings.HasPrefix(re.String(), "reindexed 1 memories") {
		t.Fatalf("reindex after pruning: %q, %v", re.String(), err)
	}
	s = startServer(t, sf)
	running = s
	s.ok(t, `query($s: ID!) { searchMemory(scopeId: $s, query: "heron mill") { memory { `+memFields+` } } }`, map[string]any{"s": scope}, &r)
	if len(r.SearchMemory) != 1 || r.SearchMemory[0].Memory.ID != m.ID || r.SearchMemory[0].Memory.AccessCount < 2 {
		t.Fatalf("search after reindexing the pruned log: %+v", r.SearchMemory)
	}
}

// TestServeRefusesNegativeRetention: a negative --keep-read-events or --prune-interval is refused
// before anything opens.
func TestServeRefusesNegativeRetention(t *testing.T) {
	for _, flag := range []string{"--keep-read-events", "--prune-interval"} {
		dir := t.TempDir()
		err := run([]string{"serve", "--store", "file://" + dir, "--addr", "127.0.0.1:0", flag, "-1s"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "must not be negative") {
			t.Fatalf("serve %s -1s: %v", flag, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("serve %s -1s wrote %d entries to the data folder", flag, len(entries))
		}
	}
}
