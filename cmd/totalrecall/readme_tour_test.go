package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadmeTour runs the five-minute tour of README.md, its shell blocks read from the file,
// against a fresh server, as a reader runs them: the built command for ./totalrecall, curl for
// the subscription. The only change is the server's address (the tour names the default,
// 127.0.0.1:8080; the test's server listens where it can): $TOTALRECALL_SERVER for the command,
// the URL in curl's line.
func TestReadmeTour(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(raw), "\n## A five-minute tour\n")
	if !ok {
		t.Fatal("README.md has no section \"## A five-minute tour\"")
	}
	tour, _, _ = strings.Cut(tour, "\n## ")
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindAllStringSubmatch(tour, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) != 5 {
		t.Fatalf("the tour has %d shell blocks; this test runs the five steps it knows (update both together)", len(blocks))
	}
	if blocks[0] != "go build -o totalrecall ./cmd/totalrecall" {
		t.Fatalf("the tour builds the command as %q; this test runs the command built by buildBinary", blocks[0])
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("the tour's step 3 runs curl, which is not installed")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, storeFlags{store: "file://" + t.TempDir()})
	defer s.stop(t)
	base := "http://" + s.addr
	t.Setenv("TOTALRECALL_SERVER", base)

	// run runs one line of the tour: ./totalrecall ARGS with the built command.
	run := func(line string) string {
		t.Helper()
		words := shellWords(t, line)
		if len(words) == 0 || words[0] != "./totalrecall" {
			t.Fatalf("the tour runs %q; this test knows ./totalrecall lines", line)
		}
		cmd := exec.Command(bin, words[1:]...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s%s", line, err, out.String(), errb.String())
		}
		return out.String()
	}
	lines := func(block string) []string { return strings.Split(block, "\n") }

	// Step 1: two memories, then the scope they created.
	step1 := lines(blocks[1])
	if len(step1) != 3 {
		t.Fatalf("step 1 has %d lines, want the two stores and scopes", len(step1))
	}
	if out := run(step1[0]); !regexp.MustCompile(`(?m)^[0-9a-f-]{36}  LONG_TERM  0\.490     false    Ada's birthday is on March 3$`).MatchString(out) {
		t.Fatalf("step 1, the birthday:\n%s", out)
	}
	if out := run(step1[1]); !regexp.MustCompile(`(?m)^[0-9a-f-]{36}  ACTIVE_CONTEXT  0\.250     false    Ada loves lemon cake$`).MatchString(out) {
		t.Fatalf("step 1, the cake:\n%s", out)
	}
	if out := run(step1[2]); !regexp.MustCompile(`(?m)^[0-9a-f-]{36}  tour  `).MatchString(out) {
		t.Fatalf("step 1, the scopes:\n%s", out)
	}

	// Step 2: the Synapse connects the two; the search finds the birthday by its words and the
	// cake as its context. The tour waits two seconds; a loaded machine may need longer, so the
	// search is repeated (as a reader would) for up to 20 s.
	step2 := lines(blocks[2])
	if len(step2) != 2 || step2[0] != "sleep 2" {
		t.Fatalf("step 2 is %q, want a sleep and the search", step2)
	}
	time.Sleep(2 * time.Second)
	want := regexp.MustCompile(`(?s)^SCORE +REASON +ID +TIER +CONTENT\n0\.\d+ +TEXT +[0-9a-f-]{36} +\S+ +Ada's birthday is on March 3\n0\.\d+ +CONTEXT +[0-9a-f-]{36} +\S+ +Ada loves lemon cake\n$`)
	var out string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if out = run(step2[1]); want.MatchString(out) || time.Now().After(deadline) {
			break
		}
	}
	if !want.MatchString(out) {
		t.Fatalf("step 2 printed:\n%s", out)
	}

	// Step 3: curl's subscription over server-sent events, left running.
	sub := strings.ReplaceAll(strings.ReplaceAll(blocks[3], "\\\n", " "), "http://127.0.0.1:8080", base)
	if !strings.HasPrefix(sub, "curl ") {
		t.Fatalf("step 3 is %q, want curl", blocks[3])
	}
	words := shellWords(t, sub)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cc := exec.CommandContext(ctx, curl, words[1:]...)
	var events syncBuffer
	cc.Stdout = &events
	if err := cc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cc.Wait() }()
	time.Sleep(500 * time.Millisecond) // let the subscription register before anything is pushed

	// Step 4: the total recall, printed by the command and pushed to the subscription.
	if !strings.HasPrefix(blocks[4], "./totalrecall recall ") {
		t.Fatalf("step 4 is %q", blocks[4])
	}
	out = run(blocks[4])
	if !regexp.MustCompile(`(?s)^recalled 1 memory, depth 1 reached \(request [0-9a-f-]{36}\)\nDEPTH +SCORE +ID +TIER +CONTENT\n1 +\d\.\d{3} +[0-9a-f-]{36} +\S+ +Ada loves lemon cake\n$`).MatchString(out) {
		t.Fatalf("step 4 printed:\n%s", out)
	}
	wantEvent := `event: next` + "\n" + `data: {"data":{"notifications":{"__typename":"TotalRecallNotification","recalled":[{"depth":1,"memory":{"content":"Ada loves lemon cake"}}]}}}`
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(events.String(), wantEvent); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("step 3's subscription received, within 15 s of step 4:\n%s", events.String())
		}
	}
}

// shellWords splits one line of the tour as a POSIX shell does for the quoting the tour uses:
// words apart by blanks, '…' literal, "…" with \" and \\ escapes, $PWD-like expansions refused.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unclosed ' in %q", line)
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				} else if line[i] == '$' {
					t.Fatalf("the tour's line %q expands a variable; this test runs it without a shell", line)
				}
				w.WriteByte(line[i])
			}
			in = true
		case c == '$' || c == '`' || c == '|' || c == ';' || c == '&' || c == '>' || c == '<':
			t.Fatalf("the tour's line %q uses %c; this test runs it without a shell", line, c)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
