package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveProcess runs `totalrecall serve` as a process of its own and answers as a server of the
// suite; stopping it sends SIGTERM and waits for a clean exit.
func serveProcess(t *testing.T, args ...string) *server {
	t.Helper()
	p := startProcess(t, args...)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	return &server{addr: p.addr, done: done, cancel: func() { _ = p.cmd.Process.Signal(syscall.SIGTERM) }}
}

// TestManyServersOneGraph runs two `totalrecall serve` processes on one Dgraph cluster, each
// with its own Bleve index following the shared event log, under concurrent load from clients
// of both.
func TestManyServersOneGraph(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	// The Synapse connects nothing here and strengthens nothing on claims: the strengths these
	// subtests count are their own (the Synapse across servers is TestSynapseConnectsOnceAcrossRestarts's).
	quiet := []string{"--synapse-claim-strengthen", "0", "--synapse-thematic-max", "0", "--synapse-person-max", "0", "--synapse-session-gap", "1ns"}
	a := serveProcess(t, append([]string{"--store", uri, "--index", filepath.Join(t.TempDir(), "a")}, quiet...)...)
	defer a.stop(t)
	b := serveProcess(t, append([]string{"--store", uri, "--index", filepath.Join(t.TempDir(), "b")}, quiet...)...)
	defer b.stop(t)
	scope, _, _ := a.createScope(t, "many servers")

	t.Run("StoredOnASearchableAndDeliveredOnB", func(t *testing.T) {
		conn, events := subscribeWS(t, b.addr, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }`, map[string]any{"s": scope})
		defer conn.Close()
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		m := a.store(t, map[string]any{"scopeId": scope, "content": "axolotl regrows its limbs"})
		delivered := time.Duration(0)
		for delivered == 0 {
			select {
			case p := <-events:
				ev := p["data"].(map[string]any)["memoryEvents"].(map[string]any)
				if ev["memoryId"] == m.ID && ev["type"] == "MemoryStored" {
					delivered = time.Since(start)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("B's subscriber never got A's MemoryStored")
			}
		}
		var found time.Duration
		for found == 0 {
			if hits := b.search(t, scope, "axolotl", false); len(hits) == 1 && hits[0].Memory.ID == m.ID {
				found = time.Since(start)
				break
			}
			if time.Since(start) > 30*time.Second {
				t.Fatal("A's memory never became searchable on B")
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("A → B: event delivered after %v, searchable after %v", delivered, found)
	})

	t.Run("RetryOnTheOtherServerIsNoDuplicate", func(t *testing.T) {
		in := map[string]any{"scopeId": scope, "content": "stored once across servers", "requestId": "cross-" + runID}
		x, y := a.store(t, in), b.store(t, in)
		if x.ID != y.ID {
			t.Fatalf("retry on B stored a second memory: %s vs %s", x.ID, y.ID)
		}
	})

	t.Run("ConcurrentRetryOnBothServersIsNoDuplicate", func(t *testing.T) {
		// A client whose request timed out retries it on the other server while the first
		// attempt still runs: both at once, several rounds, two clients per server.
		sc, _, _ := a.createScope(t, "concurrent retries")
		const rounds, perServer = 5, 2
		for r := 0; r < rounds; r++ {
			in := map[string]any{"scopeId": sc, "content": fmt.Sprint("stored once though sent four times, round ", r),
				"requestId": fmt.Sprint("cross-concurrent-", runID, "-", r)}
			var wg sync.WaitGroup
			start := make(chan struct{})
			answers := make(chan gqlResponse, 2*perServer)
			errs := make(chan error, 2*perServer)
			for _, srv := range []*server{a, b} {
				for c := 0; c < perServer; c++ {
					wg.Add(1)
					go func(srv *server) {
						defer wg.Done()
						<-start
						resp, err := srv.try(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { `+memFields+` } }`, map[string]any{"in": in})
						if err != nil {
							errs <- err
							return
						}
						answers <- resp
					}(srv)
				}
			}
			close(start)
			wg.Wait()
			close(answers)
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			var first *memory
			for resp := range answers {
				if len(resp.Errors) > 0 {
					t.Fatalf("round %d: %+v", r, resp.Errors)
				}
				var got struct{ StoreMemory memory }
				if err := json.Unmarshal(resp.Data, &got); err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = &got.StoreMemory
				} else if !reflect.DeepEqual(*first, got.StoreMemory) {
					t.Fatalf("round %d: two answers to one request:\n %+v\n %+v", r, *first, got.StoreMemory)
				}
			}
			var total struct{ Memories struct{ TotalCount int } }
			b.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": sc}, &total)
			if total.Memories.TotalCount != r+1 {
				t.Fatalf("round %d: %d memories in the scope, want %d (a retry stored a duplicate)", r, total.Memories.TotalCount, r+1)
			}
			var h struct{ History []struct{ Type string } }
			a.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": first.ID}, &h)
			types := map[string]int{}
			for _, e := range h.History {
				types[e.Type]++
			}
			if types["MemoryStored"] != 1 || types["StoreCommand"] != 1 {
				t.Fatalf("round %d: history %+v, want one StoreCommand and one MemoryStored", r, h.History)
			}
		}
	})

	t.Run("ConcurrentClaimsAndStrengthensLoseNothing", func(t *testing.T) {
		m1 := a.store(t, map[string]any{"scopeId": scope, "content": "hot memory one"})
		m2 := b.store(t, map[string]any{"scopeId": scope, "content": "hot memory two"})
		const perServer, clients = 500, 8
		claim := `mutation($id: ID!) { claimMemory(id: $id) { id } }`
		assoc := `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`
		var wg sync.WaitGroup
		errs := make(chan error, 4*clients)
		for _, srv := range []*server{a, b} {
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func(srv *server, c int) {
					defer wg.Done()
					for i := c; i < perServer; i += clients {
						r := srv.do(t, claim, map[string]any{"id": m1.ID})
						if len(r.Errors) > 0 {
							errs <- fmt.Errorf("claim: %v", r.Errors)
							return
						}
						src, dst := m1.ID, m2.ID
						if i%2 == 1 {
							src, dst = dst, src
						}
						r = srv.do(t, assoc, map[string]any{"in": map[string]any{"sourceId": src, "targetId": dst, "type": "THEMATIC",
							"strength": 1.0 / 1024, "direction": "STRENGTHEN"}})
						if len(r.Errors) > 0 {
							errs <- fmt.Errorf("strengthen: %v", r.Errors)
							return
						}
					}
				}(srv, c)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		var h struct{ History []struct{ Type string } }
		a.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": m1.ID}, &h)
		claims := 0
		for _, e := range h.History {
			if e.Type == "MemoryClaimed" {
				claims++
			}
		}
		var mv struct{ Memory memory }
		b.ok(t, `query($id: ID!) { memory(id: $id) { `+memFields+` } }`, map[string]any{"id": m1.ID}, &mv)
		var as struct{ Associations []struct{ Strength float64 } }
		b.ok(t, `query($id: ID!) { associations(memoryId: $id) { strength } }`, map[string]any{"id": m2.ID}, &as)
		want := 2 * perServer
		if claims != want {
			t.Fatalf("%d MemoryClaimed events (of %d in history; version %d), want %d", claims, len(h.History), mv.Memory.Version, want)
		}
		// Version: 1 at store, +1 per claim, +1 per strengthen, +1 for the load just made.
		if got, wantV := mv.Memory.Version, 1+2*want+1; got != wantV {
			t.Fatalf("version %d, want %d (a lost update)", got, wantV)
		}
		if len(as.Associations) != 1 || as.Associations[0].Strength != float64(want)/1024 {
			t.Fatalf("associations %+v, want one of strength %v", as.Associations, float64(want)/1024)
		}
	})
}
