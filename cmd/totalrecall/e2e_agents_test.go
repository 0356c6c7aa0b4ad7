package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The front door for agents, end to end with the real binary: the CLI's clients of a running
// server, held data folders, the data commands' --server paths, the MCP stdio command, and the
// fast path that keeps the engine's initialisation out of them.

// runBin runs the totalrecall binary with args (and stdin, env) and returns stdout, stderr and
// the exit code; a liveness bound of a minute turns a hang into a failure.
func runBin(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("totalrecall %v hung", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func deadServer(t *testing.T) string {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL
	srv.Close()
	return u
}

// TestFastPathSkipsTheEngine: the client commands run before the Dgraph engine's packages are
// initialised (their initialisation hashes the whole executable).
func TestFastPathSkipsTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const engine = "init github.com/hypermodeinc/dgraph/v25/x @"
	dead := deadServer(t)
	for _, args := range [][]string{
		{"hook", "user-prompt-submit", "--server", dead},
		{"scopes", "--server", dead},
		{"mcp", "--server", dead, "--scope", "x"},
	} {
		// The fast path exits from the cli package's init, before its own trace line is printed.
		_, stderr, _ := runBin(t, `{"session_id":"s","prompt":"hi"}`, []string{"GODEBUG=inittrace=1"}, args...)
		if strings.Contains(stderr, engine) || !strings.Contains(stderr, "UNAVAILABLE: no totalrecall server answers at "+dead) {
			t.Errorf("totalrecall %v initialised the engine (or did not run):\n%s", args, grepLines(stderr, "dgraph/v25/x|UNAVAILABLE"))
		}
		// Without the fast path the same command pays for the engine: the check above can fail.
		_, stderr, _ = runBin(t, `{"session_id":"s","prompt":"hi"}`, []string{"GODEBUG=inittrace=1", "TOTALRECALL_NO_FASTPATH=1"}, args...)
		if !strings.Contains(stderr, engine) {
			t.Errorf("without the fast path, totalrecall %v did not initialise the engine", args)
		}
	}
}

func grepLines(s, pattern string) string {
	re := regexp.MustCompile(pattern)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHeldFolders: every command that opens a data folder held by a running server fails at
// once with one line naming the folder and pointing at --server.
func TestHeldFolders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := buildBinary(); err != nil { // before the clock starts
		t.Fatal(err)
	}
	for name, sf := range backends(t) {
		t.Run(name, func(t *testing.T) {
			flags := sf(t)
			s := startServer(t, flags)
			defer s.stop(t)
			uri, idx, err := flags.paths()
			if err != nil {
				t.Fatal(err)
			}
			held := idx
			if p, ok := strings.CutPrefix(uri, "file://"); ok {
				held = p
			}
			abs, _ := filepath.Abs(held)
			want := fmt.Sprintf("totalrecall: UNAVAILABLE: the data folder %s is held by another process (pid %d): stop it, or talk to the server that holds it with --server URL (default $TOTALRECALL_SERVER, else http://127.0.0.1:8080)\n",
				abs, os.Getpid())
			dump := filepath.Join(t.TempDir(), "dump.jsonl")
			os.WriteFile(dump, []byte("{}\n"), 0o600)
			store := []string{"--store", flags.store}
			if flags.index != "" {
				store = append(store, "--index", flags.index)
			}
			commands := [][]string{
				{"serve", "--addr", "127.0.0.1:0"},
				{"reindex"},
				{"fork", "--query", "x"},
				{"analyze", "--scope", "00000000-0000-4000-8000-000000000000", "--type", "persons"},
				{"digest"},
				{"import", "agents", "--scope", "00000000-0000-4000-8000-000000000000"},
			}
			if strings.HasPrefix(flags.store, "file://") {
				// export and import dump open the embedded graph alone.
				commands = append(commands, []string{"export"}, []string{"import", "dump"})
			}
			for _, c := range commands {
				args := append(append([]string{}, c...), store...)
				if c[0] == "import" {
					args = append(args, dump)
				}
				start := time.Now()
				stdout, stderr, code := runBin(t, "", nil, args...)
				if code != 1 || stderr != want || stdout != "" {
					t.Errorf("totalrecall %v: exit %d after %s\nstdout %q\nstderr %q\nwant %q", c, code, time.Since(start).Round(time.Millisecond), stdout, stderr, want)
				} else {
					t.Logf("totalrecall %s refused in %s", strings.Join(c, " "), time.Since(start).Round(time.Millisecond))
				}
			}
			// The server it stood up to is untouched.
			s.ok(t, `{ scopes { id } }`, nil, nil)
		})
	}
}

// TestCLIAgainstServer: store, search, claim, recall and scopes against --server, as tables and
// as JSON.
func TestCLIAgainstServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	s := startServer(t, withLiving(storeFlags{store: "file://" + t.TempDir()}))
	defer s.stop(t)
	srv := "--server=http://" + s.addr
	out, stderr, code := runBin(t, "", nil, "store", srv, "--scope", "notes", "--tier", "long_term", "--tag", "infra,decision",
		"--metadata", `{"file":"DESIGN.md"}`, "--json", `We keep the index in Bleve; "FAISS" <_:x> cannot be built here.`)
	if code != 0 {
		t.Fatalf("store: %d %s", code, stderr)
	}
	var m memory
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("store --json: %q: %v", out, err)
	}
	if m.Content != `We keep the index in Bleve; "FAISS" <_:x> cannot be built here.` || m.Tier != "LONG_TERM" ||
		fmt.Sprint(m.Tags) != "[infra decision]" || m.Metadata["file"] != "DESIGN.md" {
		t.Fatalf("stored %+v", m)
	}
	out, _, code = runBin(t, "The index is derived from the event log.\n", nil, "store", srv, "--scope", "notes", "-")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !regexp.MustCompile(`^ID +TIER +SALIENCE +CLAIMED +CONTENT$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^[0-9a-f-]{36} +ACTIVE_CONTEXT +0\.\d{3} +false +The index is derived from the event log\.$`).MatchString(lines[1]) {
		t.Fatalf("store table:\n%s", out)
	}
	second := strings.Fields(lines[1])[0]

	out, _, code = runBin(t, "", nil, "search", "index", "Bleve", "--json", srv, "--scope", "notes", "--no-associations")
	var rs []struct {
		Memory memory
		Reason string
	}
	if code != 0 || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 2 || rs[0].Memory.ID != m.ID || rs[0].Reason != "TEXT" {
		t.Fatalf("search --json (%d): %s", code, out)
	}
	out, _, _ = runBin(t, "", nil, "search", srv, "--scope", "notes", "--tag", "infra", "index")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "SCORE  REASON  ID") || !strings.Contains(lines[1], m.ID) {
		t.Fatalf("search table:\n%s", out)
	}

	out, _, code = runBin(t, "", nil, "claim", srv, m.ID)
	if code != 0 || !regexp.MustCompile(m.ID+` +LONG_TERM +\d\.\d{3} +true +We keep the index`).MatchString(out) {
		t.Fatalf("claim (%d):\n%s", code, out)
	}

	s.ok(t, `mutation($a: ID!, $b: ID!) { associateMemories(input: {sourceId: $a, targetId: $b, type: CAUSAL, strength: 0.9}) { strength } }`,
		map[string]any{"a": m.ID, "b": second}, nil)
	out, stderr, code = runBin(t, "", nil, "recall", srv, m.ID)
	if code != 0 || !strings.HasPrefix(out, "recalled 1 memory, depth 1 reached (request ") ||
		!regexp.MustCompile(`(?m)^1 +\d\.\d{3} +`+second+` +ACTIVE_CONTEXT +The index is derived`).MatchString(out) {
		t.Fatalf("recall (%d):\n%s%s", code, out, stderr)
	}

	out, _, _ = runBin(t, "", nil, "scopes", srv)
	if !regexp.MustCompile(`(?s)^ID +NAME +CREATED\n[0-9a-f-]{36} +notes +\d{4}-`).MatchString(out) {
		t.Fatalf("scopes:\n%s", out)
	}

	// Refusals: one line, a code.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", srv, "--scope", "nope", "x"}, `totalrecall: NOT_FOUND: no scope "nope" on http://` + s.addr + " (`totalrecall scopes` lists them)\n"},
		{[]string{"claim", srv, "not-an-id"}, "totalrecall: INVALID_ARGUMENT: is not a valid UUID: \"not-an-id\" (id)\n"},
		{[]string{"store", srv, "--scope", "notes", "--tier", "SOMEWHERE", "x"}, "totalrecall: INVALID_ARGUMENT: "},
		{[]string{"store", srv, "x"}, "totalrecall: INVALID_ARGUMENT: name the scope with --scope (an id or a name) or $TOTALRECALL_SCOPE (scope)\n"},
		{[]string{"scopes", "--server", deadServer(t)}, "totalrecall: UNAVAILABLE: no totalrecall server answers at "},
	} {
		_, stderr, code := runBin(t, "", []string{"TOTALRECALL_SCOPE="}, tc.args...)
		if code != 1 || !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("totalrecall %v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestDataCommandsOverServer: export, import, fork, analyze and digest with --server.
func TestDataCommandsOverServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a second server process")
	}
	s := startServer(t, withLiving(storeFlags{store: "file://" + t.TempDir()}))
	defer s.stop(t)
	srv := "--server=http://" + s.addr
	out, stderr, code := runBin(t, "", nil, "import", "agents", srv, "--json", "../../ingest/testdata/codex-rollout.jsonl")
	var res struct {
		ScopeID                   string
		Events, Imported, Threads int
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Events != 2 || res.Imported != 2 || !strings.HasPrefix(stderr, "created scope "+res.ScopeID) {
		t.Fatalf("import agents --server (%d): %s %s", code, out, stderr)
	}
	out, _, code = runBin(t, "", nil, "fork", srv, "--scope", res.ScopeID, "--query", "decay sweep claimed")
	var fc struct {
		RelevantTurns []struct {
			Messages []struct{ Content string }
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &fc) != nil || len(fc.RelevantTurns) != 1 || len(fc.RelevantTurns[0].Messages) != 2 ||
		fc.RelevantTurns[0].Messages[0].Content != "Why does the decay sweep skip claimed memories?" {
		t.Fatalf("fork --server (%d): %s", code, out)
	}
	if out, stderr, code = runBin(t, "", nil, "analyze", srv, "--scope", res.ScopeID, "--type", "persons"); code != 0 || !strings.HasPrefix(out, "persons: ") {
		t.Fatalf("analyze --server (%d): %s %s", code, out, stderr)
	}
	if out, stderr, code = runBin(t, "", nil, "digest", srv, "--scope", res.ScopeID); code != 0 || !strings.Contains(out, "scope "+res.ScopeID+": evaluated 2") {
		t.Fatalf("digest --server (%d): %s %s", code, out, stderr)
	}
	if _, stderr, code = runBin(t, "", nil, "embed", srv, "--scope", res.ScopeID); code != 1 || stderr != "totalrecall: UNAVAILABLE: no embedding model is configured\n" {
		t.Fatalf("embed --server on a server without a model (%d): %q", code, stderr)
	}

	dump := filepath.Join(t.TempDir(), "dump.jsonl")
	out, _, code = runBin(t, "", nil, "export", srv, "--out", dump)
	raw, _ := os.ReadFile(dump)
	n := bytes.Count(raw, []byte("\n"))
	if code != 0 || n < 10 || out != fmt.Sprintf("exported %d lines to %s\n", n, dump) {
		t.Fatalf("export --server (%d): %q, %d lines", code, out, n)
	}
	// Into another server: a process of its own (one engine per process).
	p := startProcess(t, "--store", "file://"+t.TempDir())
	defer p.cmd.Process.Kill()
	out, stderr, code = runBin(t, "", nil, "import", "dump", "--server", "http://"+p.addr, dump)
	if code != 0 || out != fmt.Sprintf("imported %d lines; the server's search index catches up when it next starts\n", n) {
		t.Fatalf("import dump --server (%d): %q %q", code, out, stderr)
	}
	out, _, _ = runBin(t, "", nil, "scopes", "--server", "http://"+p.addr, "--json")
	if !strings.Contains(out, res.ScopeID) {
		t.Fatalf("the imported server lacks the scope %s:\n%s", res.ScopeID, out)
	}
}

// TestMCPStdioCommand: a go-sdk client runs `totalrecall mcp` as Claude Code would.
func TestMCPStdioCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	s := startServer(t, withLiving(storeFlags{store: "file://" + t.TempDir()}))
	defer s.stop(t)
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--server", "http://"+s.addr, "--scope", "stdio-e2e")
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_SESSION_ID=cc-e2e-1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	// Seed 000's fourteen tools and seed 003's two journal tools.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 16 {
		t.Fatalf("tools: %v %d", err, len(tools.Tools))
	}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		json.Unmarshal(raw, &m)
		return m
	}
	started := call("session_start", map[string]any{"mind_type": "claude"})
	if started["instance_id"] != "cc-e2e-1" || started["scope"] != "stdio-e2e" {
		t.Fatalf("session_start: the instance of $CLAUDE_CODE_SESSION_ID, the scope of --scope: %v", started)
	}
	a := call("store_memory", map[string]any{"content": "Release trains leave every other Tuesday."})["memory"].(map[string]any)["memory_id"].(string)
	b := call("store_memory", map[string]any{"content": "A hotfix skips the release train."})["memory"].(map[string]any)["memory_id"].(string)
	if rs := call("search_memory", map[string]any{"query": "release train"})["results"].([]any); len(rs) != 2 {
		t.Fatalf("search: %v", rs)
	}
	if !call("claim_memory", map[string]any{"memory_id": a})["memory"].(map[string]any)["claimed"].(bool) {
		t.Fatal("claim")
	}
	call("associate_memories", map[string]any{"source_id": a, "target_id": b, "type": "THEMATIC", "strength": 0.7})
	rec := call("total_recall_advisory", map[string]any{"source_memory_ids": []string{a}})
	if rec["status"] != "recalled" || len(rec["recalled"].([]any)) != 1 {
		t.Fatalf("total recall: %v", rec)
	}
	call("session_end", map[string]any{})

	// No server: one line, a non-zero exit.
	_, stderr, code := runBin(t, "", nil, "mcp", "--server", deadServer(t), "--scope", "x")
	if code != 1 || !strings.HasPrefix(stderr, "totalrecall: UNAVAILABLE: no totalrecall server answers at ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("mcp without a server: %d %q", code, stderr)
	}
}
