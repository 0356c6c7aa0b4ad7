package main

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bench hook runs as a user runs it: a real process that builds its corpus, starts serve in a
// process of its own, and runs the hook binary per prompt against it.
func TestBenchHookPrintsEveryFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs real server processes")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A liveness bound, not a timing: the bench and the server it starts end together.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := func() string {
		cmd := exec.CommandContext(ctx, bin, "bench", "hook", "--corpus", "300", "--runs", "5", "--slow-runs", "2",
			"--pace", "1ms", "--memory-limit", "512MiB", "--data", dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		var stderr strings.Builder
		cmd.Stderr = &stderr
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("bench hook: %v\n%s\n%s", err, raw, stderr.String())
		}
		return string(raw)
	}
	out := run()
	for _, want := range []string{
		`set-up: 300 memories stored in `,
		`serve \(--memory-limit 512MiB\) ready in \S+, read cache warm in \S+`,
		`300 memories in one scope, \d+ cores, 5 hook runs alternated with 5 resonate queries`,
		`user-prompt-submit hook, process start to answer, p50 +\d+\.\dms +\d+\.\dms resonate query alone over HTTP`,
		`user-prompt-submit hook, process start to answer, p99 +\d+\.\dms`,
		`hook runs past their budget, answering nothing +\d+ +of 5 runs`,
		`the same hook, the engine initialised first, p99 \(2 runs\) +\d+\.\dms`,
		`hook process, max resident memory +\d+\.\dMiB`,
		`serve, peak anonymous resident memory \(RssAnon\) +\d+\.\dMiB`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the output has no line matching %q:\n%s", want, out)
		}
	}
	// A second run reuses the corpus of --data, and the folder's locks were given back.
	if again := run(); strings.Contains(again, "set-up:") || !strings.Contains(again, "300 memories in one scope") {
		t.Errorf("the second run did not reuse the corpus:\n%s", again)
	}
}
