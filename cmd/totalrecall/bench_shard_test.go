package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bench shard runs as a user runs it — real server processes on a cluster — and prints every
// figure for the two servers of a split and the one server of every scope.
func TestBenchShardPrintsEveryFigure(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	// A liveness bound, not a timing: the bench and the servers it starts end together.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "bench", "shard", "-n", "60", "-scopes", "4", "-queries", "10", "-warmup", "2",
		"-memory-limit", "512MiB", "-dir", t.TempDir(), "--cluster", uri)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	out := string(raw)
	if err != nil {
		t.Fatalf("bench shard: %v\n%s\n%s", err, out, stderr.String())
	}
	if !regexp.MustCompile(`(?m)^figure +server 0/2 +server 1/2 +one server, every scope$`).MatchString(out) {
		t.Fatalf("no table of the three servers:\n%s", out)
	}
	number := `\d+(\.\d+)?`
	for _, row := range []struct{ label, cells string }{
		{"scopes served", `\d+ +\d+ +\d+`},
		{"index documents", `\d+ +\d+ +\d+`},
		{"index on disk, MiB", number + ` +` + number + ` +` + number},
		{"RssAnon settled after the load, MiB", number + ` +` + number + ` +` + number},
		{"RssAnon peak while searching, MiB", number + ` +` + number + ` +` + number},
		{"searchMemory p50 direct, ms", number + ` +` + number + ` +` + number},
		{"searchMemory p99 direct, ms", number + ` +` + number + ` +` + number},
		{"searchMemory p50 routed through the other, ms", number + ` +` + number + ` +—`},
		{"searchMemory p99 routed through the other, ms", number + ` +` + number + ` +—`},
		{"the hop, p50 routed − p50 direct, ms", `[-+]` + number + ` +[-+]` + number + ` +—`},
		{"raw: Bleve top-10 of the same queries p50, ms", number + ` +` + number + ` +` + number},
		{"raw: Bleve top-10 p99, ms", number + ` +` + number + ` +` + number},
		{"raw: loopback GET /livez p50, ms", number + ` +` + number + ` +` + number},
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(row.label) + ` {2,}` + row.cells + `$`).MatchString(out) {
			t.Errorf("row %q is missing or incomplete:\n%s", row.label, out)
		}
	}
	// The split's indexes hold the documents of the one server's between them, no more.
	m := regexp.MustCompile(`(?m)^index documents +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(out)
	if m != nil {
		var a, b, all int
		for i, p := range []*int{&a, &b, &all} {
			*p = atoi(m[i+1])
		}
		if a+b != all || a == 0 || b == 0 {
			t.Errorf("documents %d + %d, want both above 0 and %d together", a, b, all)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
