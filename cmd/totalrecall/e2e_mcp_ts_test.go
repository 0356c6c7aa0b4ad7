package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMCPTypeScriptClient drives the MCP server with an independent client, the TypeScript SDK
// from npm, over streamable HTTP and over `totalrecall mcp` on stdio. It runs when
// TOTALRECALL_TEST_MCP_TS names the node_modules folder holding @modelcontextprotocol/sdk (.ci/run
// installs it), and fails loudly when that is named but broken.
func TestMCPTypeScriptClient(t *testing.T) {
	mods := os.Getenv("TOTALRECALL_TEST_MCP_TS")
	if mods == "" {
		t.Skip("TOTALRECALL_TEST_MCP_TS not set: no TypeScript MCP SDK installed")
	}
	if _, err := os.Stat(filepath.Join(mods, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("TOTALRECALL_TEST_MCP_TS=%s holds no @modelcontextprotocol/sdk: %v", mods, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("TOTALRECALL_TEST_MCP_TS is set but node is not on PATH: %v", err)
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The script resolves the SDK from a node_modules beside it.
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-ts-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mods, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, withLiving(storeFlags{store: "file://" + t.TempDir()}))
	defer s.stop(t)
	// Each transport's scope has a journal for the journal tools to read.
	for _, name := range []string{"ts-http", "ts-stdio"} {
		var r struct {
			R struct {
				Scope struct{ ID string } `json:"scope"`
			} `json:"resolveScope"`
		}
		s.ok(t, `mutation($n: String!) { resolveScope(scope: $n) { scope { id } } }`, map[string]any{"n": name}, &r)
		s.ok(t, `mutation($s: ID!, $f: [JournalFileInput!]!) { importJournal(scopeId: $s, files: $f) { pages } }`,
			map[string]any{"s": r.R.Scope.ID, "f": []map[string]any{{"path": "MEMORY.md", "content": "# Me\n\n## Tastes\n\nI like green tea.\n\n## Work\n\nI review Go.\n"}}}, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), "http://"+s.addr, bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
	}
	var out map[string]struct {
		ChannelCapability bool
		Tools             []string
		Instance, Scope   string
		Found             int
		Claimed           bool
		Recalled          []string
		RecalledExpected  string
		Channel           []struct{ Kind, Instance, Head string }
		Journal           struct {
			Path            string
			Headings        []string
			FromLine, Lines int
			Text            string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("the TypeScript client printed %q: %v", stdout.String(), err)
	}
	for transport, inst := range map[string]string{"http": "ts-http-1", "stdio": "ts-stdio-1"} {
		r, ok := out[transport]
		if !ok {
			t.Fatalf("no result over %s: %s", transport, stdout.String())
		}
		if !r.ChannelCapability || fmt.Sprint(r.Tools) != fmt.Sprint([]string{"associate_memories", "claim_memory", "delete_memory", "heartbeat", "history",
			"journal_memory_get", "journal_memory_search", "prompt_context", "reclassify_memory", "reflect", "resonate", "search_memory", "session_end", "session_start", "store_memory", "total_recall_advisory"}) ||
			r.Instance != inst || r.Scope != "ts-"+transport || r.Found != 2 || !r.Claimed ||
			fmt.Sprint(r.Recalled) != fmt.Sprint([]string{r.RecalledExpected}) {
			t.Errorf("over %s: %+v", transport, r)
		}
		if j := r.Journal; j.Path != "MEMORY.md" || fmt.Sprint(j.Headings) != "[Me Tastes]" || j.FromLine != 3 || j.Lines != 3 ||
			j.Text != "## Tastes\n\nI like green tea." {
			t.Errorf("the journal over %s: %+v", transport, j)
		}
		if len(r.Channel) != 1 || r.Channel[0].Kind != "SessionAuditPrompt" || r.Channel[0].Instance != inst ||
			r.Channel[0].Head != "SessionAuditPrompt: What do you refuse to lose?" {
			t.Errorf("channel notifications over %s: %+v", transport, r.Channel)
		}
	}
}
