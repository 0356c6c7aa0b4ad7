package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer collects a server's log lines from its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serve warms the read cache at start from what the graph holds — every memory's associations
// and record — and logs what it loaded; with --no-warm it does not.
func TestServeWarmsTheReadCache(t *testing.T) {
	sf := storeFlags{store: "file://" + t.TempDir()}
	s := startServer(t, sf)
	scope, _, _ := s.createScope(t, "warm")
	a := s.store(t, map[string]any{"scopeId": scope, "content": "the harbour at dawn"})
	b := s.store(t, map[string]any{"scopeId": scope, "content": "gulls over the pier"})
	s.store(t, map[string]any{"scopeId": scope, "content": "a letter never sent"})
	s.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { type } }`,
		map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "TEMPORAL", "strength": 0.7}}, nil)
	s.stop(t)

	for _, noWarm := range []bool{false, true} {
		var logs lockedBuffer
		sf.noWarm = noWarm
		s := startServerLogging(t, sf, slog.New(slog.NewTextHandler(&logs, nil)))
		// A request answered while (or after) the cache warms: serving does not wait for it.
		var r struct{ Memory struct{ Content string } }
		s.ok(t, `query($id: ID!) { memory(id: $id) { content } }`, map[string]any{"id": a.ID}, &r)
		if r.Memory.Content != "the harbour at dawn" {
			t.Fatalf("memory after the restart: %q", r.Memory.Content)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for !noWarm && !strings.Contains(logs.String(), "read cache warm") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		s.stop(t)
		line := ""
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "read cache warm") {
				line = l
			}
		}
		switch {
		case noWarm && line != "":
			t.Fatalf("--no-warm: the server warmed its cache: %s", line)
		case !noWarm && line == "":
			t.Fatalf("no warm-up logged:\n%s", logs.String())
		case !noWarm:
			// Three memories and two associations seen from both ends — the one made above and
			// the Synapse's TEMPORAL one between the second and the third, stored one after the
			// other (the first two already associated get none; the stop flushed the Synapse) —
			// all records in the budget.
			for _, want := range []string{"memories=3", "walks=3", "associations=4", "budgetSpent=false"} {
				if !strings.Contains(line, want) {
					t.Fatalf("warm-up logged %q, want %s", line, want)
				}
			}
		}
	}
}
