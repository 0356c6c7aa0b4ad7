package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
)

// logged is a real server process whose standard error is kept.
type logged struct {
	*process
	stderr *syncBuffer
	exited chan error
}

// startLogged runs `totalrecall serve` as a real process, keeping its log.
func startLogged(t *testing.T, args ...string) *logged {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stdout, _ := cmd.StdoutPipe()
	errs := &syncBuffer{}
	cmd.Stderr = errs
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
	p := &logged{stderr: errs, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	select {
	case a := <-addr:
		p.process = &process{cmd: cmd, addr: a}
		return p
	case err := <-p.exited:
		t.Fatalf("server process exited before serving: %v\n%s", err, errs.String())
	case <-time.After(5 * time.Minute): // a liveness bound: a start replays the index's missing events
		cmd.Process.Kill()
		t.Fatal("server process did not start")
	}
	return nil
}

// waitLog waits for a line of the process's log (its standard error is copied in as it comes).
func (p *logged) waitLog(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(p.stderr.String()); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line %s in the log:\n%s", re, p.stderr.String())
		}
	}
}

var eventLogLine = regexp.MustCompile(`msg="event log" head=(\d+) indexBehind=(\d+) salienceBehind=(\d+) subconsciousBehind=(\d+)`)

// storeLoad stores memories from n clients until stop is closed, each with a unique word; it
// returns the acknowledged ones (memory id → word).
func storeLoad(s *server, scope, tag string, n int, stop <-chan struct{}) (map[string]string, *sync.WaitGroup, *sync.Mutex) {
	acked := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				word := fmt.Sprintf("%s%dx%d%s", tag, w, i, runID)
				r, err := s.try(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
					map[string]any{"in": map[string]any{"scopeId": scope, "content": "acknowledged " + word}})
				if err != nil || len(r.Errors) > 0 || r.Data == nil {
					if err != nil {
						time.Sleep(5 * time.Millisecond) // the server is gone or going
					}
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
		}()
	}
	return acked, &wg, &mu
}

// TestSigtermDuringStoresLosesNothing sends SIGTERM to a real server while eight clients store:
// it exits 0 within --shutdown-timeout, records the ShutdownCommand and its outcome, and the next
// start has nothing to catch up; every acknowledged store is there and searchable.
func TestSigtermDuringStoresLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and stops a real server process")
	}
	dir := t.TempDir()
	const timeout = 20 * time.Second
	args := []string{"--store", "file://" + dir, "--shutdown-timeout", timeout.String()}
	p := startLogged(t, args...)
	s := &server{addr: p.addr}
	scope, _, _ := s.createScope(t, "sigterm")
	stop := make(chan struct{})
	acked, wg, mu := storeLoad(s, scope, "quince", 8, stop)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 200 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var exitErr error
	select {
	case exitErr = <-p.exited:
	case <-time.After(2 * timeout):
		p.cmd.Process.Kill()
		t.Fatalf("the server did not exit %s after SIGTERM", 2*timeout)
	}
	took := time.Since(sent)
	close(stop)
	wg.Wait()
	if exitErr != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", exitErr, p.stderr.String())
	}
	if took > timeout {
		t.Fatalf("exited %s after SIGTERM, past --shutdown-timeout %s", took, timeout)
	}
	if !strings.Contains(p.stderr.String(), `msg="shut down" flushed=true`) {
		t.Fatalf("no flushed shutdown in the log:\n%s", tail(p.stderr.String(), 2000))
	}
	t.Logf("%d acknowledged stores; exited 0 %s after SIGTERM", len(acked), took.Round(time.Millisecond))

	// The ShutdownCommand (with its flush timeout) and its outcome are events of the log, the
	// last ones.
	withStore(t, "file://"+filepath.Join(dir, "graph"), func(st *graph.Store) {
		head, err := st.LastSeq(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// The flush writes what the consumers still had to do (the Synapse's associations of
		// the last stores) between the command and its completion: look back far enough.
		evs, err := st.EventsSince(t.Context(), head-min(head, 20000), 20000)
		if err != nil {
			t.Fatal(err)
		}
		var cmd, done *domain.Event
		for _, e := range evs {
			switch e.Type {
			case domain.MsgShutdownCommand:
				cmd = e
			case domain.EvShutdownCompleted:
				done = e
			}
		}
		if cmd == nil || done == nil {
			t.Fatalf("no ShutdownCommand and ShutdownCompleted among the last events")
		}
		if cmd.Payload["flushTimeout"] != timeout.String() || cmd.Context.SourceContext != domain.CtxSubconscious {
			t.Fatalf("ShutdownCommand %+v %+v", cmd.Payload, cmd.Context)
		}
		if done.Payload["flushed"] != true || done.Context.CausationID != cmd.Context.MessageID || done.Seq != head {
			t.Fatalf("ShutdownCompleted %+v (seq %d of %d), caused by %s", done.Payload, done.Seq, head, done.Context.CausationID)
		}
	})

	// The next start: nothing behind, nothing lost.
	p2 := startLogged(t, args...)
	defer func() {
		p2.cmd.Process.Signal(syscall.SIGTERM)
		<-p2.exited
	}()
	m := p2.waitLog(t, eventLogLine)
	if m[2] != "0" || m[3] != "0" || m[4] != "0" {
		t.Fatalf("the start after a clean shutdown found the index %s, the salience %s and the subconscious %s events behind",
			m[2], m[3], m[4])
	}
	if strings.Contains(p2.stderr.String(), "rebuilding") || strings.Contains(p2.stderr.String(), "caught up") {
		t.Fatalf("the start after a clean shutdown rebuilt or caught up:\n%s", p2.stderr.String())
	}
	verifyAcked(t, &server{addr: p2.addr}, scope, acked)
}

// verifyAcked checks that every acknowledged memory is in the graph with its content and found by
// search with its unique word — and that search agrees with the graph: the scope's memories are
// exactly what a search for every one of its words finds.
func verifyAcked(t *testing.T, s *server, scope string, acked map[string]string) {
	t.Helper()
	listed := scopeContents(t, s, scope)
	for id, word := range acked {
		if listed[id] != "acknowledged "+word {
			t.Fatalf("acknowledged memory %s lost: %q", id, listed[id])
		}
	}
	// Search agrees with the graph: every memory the graph holds is found by its word, and
	// nothing else is found by it (the memories of its episode may follow as CONTEXT).
	for id, content := range listed {
		word := strings.TrimPrefix(content, "acknowledged ")
		hits := s.search(t, scope, word, false)
		if !onlyWordHit(hits, id) {
			t.Fatalf("memory %s (%q) in the graph: search found %d hits", id, word, len(hits))
		}
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestGarbledIndexIsRebuiltAtStart garbles a segment of a stopped server's index: the next start
// says so, rebuilds the index from the event log, and every memory is found again.
func TestGarbledIndexIsRebuiltAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a real server process")
	}
	dir := t.TempDir()
	args := []string{"--store", "file://" + dir}
	p := startLogged(t, args...)
	s := &server{addr: p.addr}
	scope, _, _ := s.createScope(t, "garbled")
	acked := map[string]string{}
	for i := range 50 {
		word := fmt.Sprintf("medlar%dx%s", i, runID)
		acked[s.store(t, map[string]any{"scopeId": scope, "content": "acknowledged " + word}).ID] = word
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := <-p.exited; err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "index", "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatal("no index segment on disk")
	}
	for _, seg := range segs {
		raw, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		for i := len(raw) / 3; i < len(raw)/3+32 && i < len(raw); i++ {
			raw[i] ^= 0x5a
		}
		if err := os.WriteFile(seg, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p2 := startLogged(t, args...)
	defer func() {
		p2.cmd.Process.Signal(syscall.SIGTERM)
		<-p2.exited
	}()
	m := p2.waitLog(t, eventLogLine)
	log := p2.stderr.String()
	if !strings.Contains(log, "search index damaged, rebuilding it from the event log") || !strings.Contains(log, "checksum") {
		t.Fatalf("the start did not say it found the index damaged:\n%s", log)
	}
	if m[2] == "0" {
		t.Fatalf("the start did not rebuild the index from the log: %q\n%s", m, log)
	}
	verifyAcked(t, &server{addr: p2.addr}, scope, acked)
}

// scopeContents lists every memory of the scope, page by page: id → content.
func scopeContents(t *testing.T, s *server, scope string) map[string]string {
	t.Helper()
	out := map[string]string{}
	after := ""
	for {
		var r struct {
			Memories struct {
				Nodes       []memory
				EndCursor   *string
				HasNextPage bool
			}
		}
		vars := map[string]any{"s": scope}
		if after != "" {
			vars["a"] = after
		}
		s.ok(t, `query($s: ID!, $a: String) { memories(scopeId: $s, first: 1000, after: $a) { nodes { id content } endCursor hasNextPage } }`, vars, &r)
		for _, m := range r.Memories.Nodes {
			out[m.ID] = m.Content
		}
		if !r.Memories.HasNextPage {
			return out
		}
		after = *r.Memories.EndCursor
	}
}
