package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testAgentsCarryTheKey: under --auth the agents' doors — the CLI's clients, the hooks and the
// MCP stdio bridge — send $TOTALRECALL_KEY, reach the scope the key is bound to, and nothing else.
func testAgentsCarryTheKey(t *testing.T, s *server, admin *server, own, writerKey string) {
	base := "http://" + s.addr
	env := func(key string) []string {
		e := []string{"TOTALRECALL_SERVER=" + base}
		if key != "" {
			e = append(e, "TOTALRECALL_KEY="+key)
		}
		return e
	}
	other, _, _ := admin.createScope(t, "not granted agents "+runID)

	// The CLI: the key's own scope works; another scope is not there; no key is one line.
	out, stderr, code := runBin(t, "", env(writerKey), "store", "--scope", own, "the agents' doors are locked")
	if code != 0 || !strings.Contains(out, "the agents' doors are locked") {
		t.Fatalf("store with the key: %d %q %q", code, out, stderr)
	}
	_, stderr, code = runBin(t, "", env(writerKey), "store", "--scope", other, "must not land")
	if code != 1 || !strings.HasPrefix(stderr, "totalrecall: FORBIDDEN: ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("store into another scope: %d %q", code, stderr)
	}
	_, stderr, code = runBin(t, "", env(""), "search", "--scope", own, "doors")
	if code != 1 || stderr != "totalrecall: UNAUTHENTICATED: a valid API key is required (Authorization: Bearer trk_…)\n" {
		t.Fatalf("search without a key: %d %q", code, stderr)
	}

	// The hook: with the key it brings the memory back; without, it answers nothing and exits 0
	// (an agent's prompt is never blocked), saying why on stderr.
	prompt := `{"session_id":"auth-hook-1","prompt":"are the agents' doors locked","hook_event_name":"UserPromptSubmit","cwd":"/tmp/x"}`
	out, _, code = runBin(t, prompt, env(writerKey), "hook", "user-prompt-submit", "--scope", own, "--record=false")
	if code != 0 || !strings.Contains(out, "the agents' doors are locked") {
		t.Fatalf("hook with the key: %d %q", code, out)
	}
	out, stderr, code = runBin(t, prompt, env(""), "hook", "user-prompt-submit", "--scope", own, "--record=false")
	if code != 0 || out != "" || !strings.Contains(stderr, "UNAUTHENTICATED") {
		t.Fatalf("hook without a key: %d %q %q", code, out, stderr)
	}

	// The MCP stdio bridge: its tools reach the key's scope.
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--scope", own)
	cmd.Env = append(os.Environ(), env(writerKey)...)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "auth-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": "doors locked"}})
	if err != nil || res.IsError {
		t.Fatalf("search_memory over the bridge with the key: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), "the agents' doors are locked") {
		t.Fatalf("search_memory over the bridge: %s", raw)
	}
	var stored struct{ StoreMemory struct{ ID string } }
	admin.ok(t, `mutation($s: ID!) { storeMemory(input: {scopeId: $s, content: "not the writer's"}) { id } }`, map[string]any{"s": other}, &stored)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "claim_memory", Arguments: map[string]any{"memory_id": stored.StoreMemory.ID}})
	if err != nil || !res.IsError {
		t.Fatalf("claim_memory of another scope's memory: %v %+v", err, res)
	}
	raw, _ = json.Marshal(res.Content)
	if !strings.Contains(string(raw), "NOT_FOUND") || strings.Contains(string(raw), "not the writer's") {
		t.Fatalf("claim_memory of another scope's memory answered %s", raw)
	}
}
