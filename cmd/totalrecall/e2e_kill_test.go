package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds the totalrecall command once for the tests that need a real process.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "totalrecall-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "totalrecall")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

type process struct {
	cmd  *exec.Cmd
	addr string
}

var servingLine = regexp.MustCompile(`serving on http://([0-9.:]+)/`)

// startProcess runs `totalrecall serve` as a real process and waits until it serves.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--access-log=false"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return &process{cmd: cmd, addr: a}
	case <-time.After(5 * time.Minute): // a liveness bound: a start replays the index's missing events
		cmd.Process.Kill()
		t.Fatal("server process did not start")
	}
	return nil
}

// TestKilledServerLosesNothing kills a server with SIGKILL in the middle of a write load:
// every write it acknowledged is in the graph, and on restart its index catches up.
func TestKilledServerLosesNothing(t *testing.T) {
	for name, sf := range backends(t) {
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				t.Skip("builds and kills a real server process")
			}
			flags := sf(t)
			args := []string{"--store", flags.store}
			if flags.index != "" {
				args = append(args, "--index", flags.index)
			}
			p := startProcess(t, args...)
			s := &server{addr: p.addr}
			scope, _, _ := s.createScope(t, "kill -9")

			var mu sync.Mutex
			acked := map[string]string{} // memory id → its unique word
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for w := 0; w < 4; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						word := fmt.Sprintf("kiwi%dx%d%s", w, i, runID)
						r, err := s.try(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
							map[string]any{"in": map[string]any{"scopeId": scope, "content": "acknowledged " + word}})
						if err != nil || len(r.Errors) > 0 || r.Data == nil {
							continue
						}
						var out struct{ StoreMemory struct{ ID string } }
						if err := jsonUnmarshal(r.Data, &out); err != nil || out.StoreMemory.ID == "" {
							continue
						}
						mu.Lock()
						acked[out.StoreMemory.ID] = word
						mu.Unlock()
					}
				}(w)
			}
			for {
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= 150 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			p.cmd.Wait()
			close(stop)
			wg.Wait()
			t.Logf("killed after %d acknowledged writes", len(acked))

			// Restart on the same store and index: everything acknowledged is there and found.
			p = startProcess(t, args...)
			defer func() { p.cmd.Process.Signal(syscall.SIGTERM); p.cmd.Wait() }()
			s = &server{addr: p.addr}
			if resp, err := http.Get("http://" + p.addr + "/healthz"); err != nil || resp.StatusCode != 200 {
				t.Fatalf("restarted server not healthy: %v", err)
			}
			for id, word := range acked {
				var r struct{ Memory *memory }
				s.ok(t, `query($id: ID!) { memory(id: $id) { id content } }`, map[string]any{"id": id}, &r)
				if r.Memory == nil || r.Memory.Content != "acknowledged "+word {
					t.Fatalf("acknowledged memory %s lost: %+v", id, r.Memory)
				}
				hits := s.search(t, scope, word, false)
				// The only memory with the word is the first hit (the others of its episode may
				// follow as CONTEXT).
				if len(hits) == 0 || hits[0].Memory.ID != id || hits[0].Reason != "TEXT" || (len(hits) > 1 && hits[1].Reason == "TEXT") {
					t.Fatalf("acknowledged memory %s not searchable after restart: %d hits", id, len(hits))
				}
			}
		})
	}
}

func jsonUnmarshal(raw []byte, out any) error { return json.Unmarshal(raw, out) }

// TestKilledTwentyTimes kills a real server (embedded) with SIGKILL at a random moment of a
// write load, twenty times over the same data: after every restart nothing acknowledged is
// lost, and search agrees with the graph — a search that matches every memory finds exactly the
// memories the graph holds, and each memory written in the cycle just killed is found by its own
// word.
func TestKilledTwentyTimes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server process twenty times")
	}
	const cycles, perCycle = 20, 40
	dir := t.TempDir()
	args := []string{"--store", "file://" + dir}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	t.Logf("seed %d", seed)
	p := startProcess(t, args...)
	scope, _, _ := (&server{addr: p.addr}).createScope(t, "kill -9 cycles")
	all := map[string]string{}
	for c := range cycles {
		s := &server{addr: p.addr}
		// Kill when a random number of this cycle's stores are acknowledged, others in flight.
		killAt := 1 + rng.IntN(perCycle)
		stop := make(chan struct{})
		acked, wg, mu := storeLoad(s, scope, fmt.Sprintf("fig%dc", c), 4, stop)
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= killAt {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p.cmd.Wait()
		close(stop)
		wg.Wait()
		p = startProcess(t, args...)
		s = &server{addr: p.addr}
		for id, w := range acked {
			all[id] = w
		}
		agree(t, s, scope, all, acked, c)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.cmd.Wait()
	t.Logf("%d cycles, %d acknowledged stores, none lost", cycles, len(all))
}

// agree checks a restarted server: every acknowledged memory is in the graph; one search over
// every memory finds exactly the graph's; the last cycle's memories are found by their words.
func agree(t *testing.T, s *server, scope string, all, last map[string]string, cycle int) {
	t.Helper()
	graphIDs := map[string]bool{}
	for id, content := range scopeContents(t, s, scope) {
		graphIDs[id] = true
		if w, ok := all[id]; ok && content != "acknowledged "+w {
			t.Fatalf("cycle %d: memory %s holds %q, acknowledged as %q", cycle, id, content, w)
		}
	}
	for id := range all {
		if !graphIDs[id] {
			t.Fatalf("cycle %d: acknowledged memory %s lost", cycle, id)
		}
	}
	found := map[string]bool{}
	var r struct{ SearchMemory []ranked }
	s.ok(t, `query($s: ID!) { searchMemory(scopeId: $s, query: "acknowledged", maxResults: 1000) { memory { id } } }`, map[string]any{"s": scope}, &r)
	for _, h := range r.SearchMemory {
		found[h.Memory.ID] = true
	}
	if len(found) != len(graphIDs) {
		t.Fatalf("cycle %d: search finds %d memories, the graph holds %d", cycle, len(found), len(graphIDs))
	}
	for id := range graphIDs {
		if !found[id] {
			t.Fatalf("cycle %d: memory %s is in the graph but not found by search", cycle, id)
		}
	}
	for id, w := range last {
		hs := s.search(t, scope, w, false)
		if !onlyWordHit(hs, id) {
			t.Fatalf("cycle %d: memory %s not found by its word %s: %d hits", cycle, id, w, len(hs))
		}
	}
}

// onlyWordHit reports whether the memory id is the first of hits and the only one found by its
// words (the others of its episode may follow as CONTEXT).
func onlyWordHit(hits []ranked, id string) bool {
	return len(hits) > 0 && hits[0].Memory.ID == id && hits[0].Reason == "TEXT" && (len(hits) == 1 || hits[1].Reason != "TEXT")
}
