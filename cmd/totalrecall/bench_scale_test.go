package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bench scale runs as a user runs it — a real process that starts its own server, its raw
// baselines' process, and restarts the server — and prints every figure at every size.
func TestBenchScalePrintsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs real server processes")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A liveness bound, not a timing: the bench and the servers it starts end together.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "bench", "scale", "-n", "200", "-at", "not-a-size,500", "-turns", "100",
		"-queries", "20", "-warmup", "5", "-stores", "10", "-resonates", "5", "-pace", "10ms", "-recalls", "5",
		"-memory-limit", "512MiB", "-data", dir, "-locomo", filepath.Join("..", "..", "..", "shared", "data", "locomo"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	out := string(raw)
	if err != nil {
		t.Fatalf("bench scale: %v\n%s\n%s", err, out, stderr.String())
	}
	// One size: -at names none below -n.
	if strings.Count(out, "\nfigure") != 1 {
		t.Fatalf("want one table:\n%s", out)
	}
	last := out[strings.LastIndex(out, "\nfigure"):]
	if !regexp.MustCompile(`(?m)^figure +@200 +raw baseline`).MatchString(last) {
		t.Fatalf("the table's header is not figure @200:\n%s", out)
	}
	for _, label := range []string{
		"RssAnon peak (load, measure, restart)", "RssAnon settled after the load", "RssAnon after a restart, cache warm",
		"RssFile (mapped files) peak / settled", "data on disk, graph + index", "start-up to ready after a restart",
		"import (storeMemories in bulk), turns/s", "storeMemory over HTTP, 1 client", "searchMemory over HTTP p50",
		"storeMemory over HTTP, concurrent clients",
		"searchMemory over HTTP p99", "resonate over HTTP, one per pace, p99", "total recall d3, advisory → websocket, p99",
		"decay sweep, memories/s", "digest propose pass, artifacts/s",
		"  server CPU per search, until idle", "  bytes written per search, until idle",
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + ` {2,}\S`).MatchString(last) {
			t.Errorf("no row %q in the last table:\n%s", label, last)
		}
	}
	// The rankings in process, today's beside the previous method's, both timed.
	for _, p := range []string{"p50", "p99"} {
		if !regexp.MustCompile(`(?m)^  the ranking in process, ` + p + ` +\d+\.\d\d ms +\d+\.\d\d ms the previous method's, same queries$`).MatchString(last) {
			t.Errorf("no timed rankings at %s in the last table:\n%s", p, last)
		}
	}
	// A search records its retrievals: the server writes for it.
	if got := regexp.MustCompile(`(?m)^  bytes written per search, until idle +(\d+\.\d) KiB +\d+\.\d KiB of graph on disk per memory$`).FindStringSubmatch(last); got == nil || got[1] == "0.0" {
		t.Errorf("no bytes written per search:\n%s", last)
	}
	// The sweep's and the digest's own peaks, each sampled while the server runs (never zero).
	if got := regexp.MustCompile(`(?m)^  in the decay sweep / the digest pass, MiB +([1-9]\d*)/([1-9]\d*)\s*$`).FindStringSubmatch(last); got == nil {
		t.Errorf("no peaks of the sweep and the digest:\n%s", last)
	}
	if got := regexp.MustCompile(`(?m)^server on SIGTERM +exited cleanly `).FindString(last); got == "" {
		t.Errorf("the server did not exit cleanly:\n%s", last)
	}
	// What the sweep and the digest evaluated: the 200 imported turns and the 10 memories stored
	// from one client and 10 more from the concurrent clients.
	for _, what := range []string{"memories the sweep evaluated", "artifacts the digest evaluated"} {
		if got := regexp.MustCompile(`(?m)^  ` + what + ` +(\d+) `).FindStringSubmatch(last); got == nil || got[1] != "220" {
			t.Errorf("%s: %q, want 220:\n%s", what, got, last)
		}
	}
	// The concurrent clients' rate, beside its ratio to one client's.
	if !regexp.MustCompile(`(?m)^storeMemory over HTTP, concurrent clients +\d+/s +8 clients: \d+\.\d\d× one client$`).MatchString(last) {
		t.Errorf("no concurrent clients' rate beside its ratio:\n%s", last)
	}
	if !strings.Contains(out, "serve --memory-limit 512MiB") {
		t.Errorf("the header does not name the budget:\n%s", out)
	}
}
