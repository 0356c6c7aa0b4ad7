package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/mcpserver"
	"github.com/totalrecall/totalrecall/search"
)

// stack is a real server: the embedded engine, a Bleve index on disk, the Cortex with the
// living memory, and the MCP server on a real HTTP listener.
type stack struct {
	cx  *cortex.Cortex
	srv *httptest.Server
}

func newStack(t *testing.T) *stack {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+filepath.Join(dir, "graph"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := search.Open(filepath.Join(dir, "index"))
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx, Logger: logger, Living: cortex.LivingConfig{
		Subconscious: subconscious.Config{SessionCheckInterval: 50 * time.Millisecond, RecallBurst: 100, RecallRefill: time.Hour}}})
	if err != nil {
		idx.Close()
		st.Close()
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.New(cx, mcpserver.Options{Logger: logger}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	s := &stack{cx: cx, srv: httptest.NewServer(mux)}
	t.Cleanup(func() {
		s.srv.CloseClientConnections()
		s.srv.Close()
		cx.Close()
		idx.Close()
		st.Close()
	})
	return s
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// connect opens a go-sdk client session over streamable HTTP.
func (s *stack) connect(t *testing.T, query string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.srv.URL + "/mcp?" + query}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result; it fails on a tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := resultText(res)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	if out != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", name, raw, err)
		}
	}
	return text
}

// callFails calls a tool that must fail with code; it returns the error text.
func callFails(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, code string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := resultText(res)
	if !res.IsError || !strings.HasPrefix(text, code) {
		t.Fatalf("%s(%v) = %q (error %v), want a %s error", name, args, text, res.IsError, code)
	}
	return text
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

type memory struct {
	MemoryID string         `json:"memory_id"`
	ScopeID  string         `json:"scope_id"`
	Content  string         `json:"content"`
	Tier     string         `json:"tier"`
	Tags     []string       `json:"tags"`
	Metadata map[string]any `json:"metadata"`
	Claimed  bool           `json:"claimed"`
}

var wantTools = []string{"associate_memories", "claim_memory", "delete_memory", "heartbeat", "history", "journal_memory_get", "journal_memory_search", "prompt_context",
	"reclassify_memory", "reflect", "resonate", "search_memory", "session_end", "session_start", "store_memory", "total_recall_advisory"}

func TestToolsOverStreamableHTTP(t *testing.T) {
	s := newStack(t)
	cs := s.connect(t, "scope=project-alpha&instance=inst-1")
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
		if len(tl.Description) < 80 || tl.InputSchema == nil || tl.OutputSchema == nil || tl.Annotations == nil {
			t.Errorf("tool %s: description %q, schemas %v/%v, annotations %v", tl.Name, tl.Description, tl.InputSchema != nil, tl.OutputSchema != nil, tl.Annotations)
		}
	}
	sort.Strings(names)
	if fmt.Sprint(names) != fmt.Sprint(wantTools) {
		t.Fatalf("tools = %v\nwant %v", names, wantTools)
	}
	if a := byName["delete_memory"].Annotations; a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint {
		t.Errorf("delete_memory annotations = %+v", a)
	}
	for _, n := range []string{"search_memory", "resonate", "history", "reflect"} {
		if a := byName[n].Annotations; !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations = %+v, want read-only", n, a)
		}
	}
	in, _ := json.Marshal(byName["store_memory"].InputSchema)
	for _, want := range []string{`"required":["content"]`, `"IDENTITY_CORE"`, `"additionalProperties":false`, `"maximum":1`} {
		if !strings.Contains(string(in), want) {
			t.Errorf("store_memory's input schema lacks %s: %s", want, in)
		}
	}

	// Forgiving names: text for content, tier for suggested_tier, camelCase elsewhere.
	var stored struct{ Memory memory }
	text := call(t, cs, "store_memory", map[string]any{"text": `The team chose Bleve over "Elastic" <_:x> for the index.`,
		"tier": "LONG_TERM", "tags": []string{"decision"}, "metadata": map[string]any{"file": "DESIGN.md"}}, &stored)
	m := stored.Memory
	if !domain.ValidID(m.MemoryID) || m.Content != `The team chose Bleve over "Elastic" <_:x> for the index.` || m.Tier != "LONG_TERM" ||
		fmt.Sprint(m.Tags) != "[decision]" || m.Metadata["file"] != "DESIGN.md" || text != fmt.Sprintf("Stored memory %s in tier LONG_TERM.", m.MemoryID) {
		t.Fatalf("stored %+v, text %q", m, text)
	}
	var other struct{ Memory memory }
	call(t, cs, "store_memory", map[string]any{"content": "Bleve indexes are derived from the event log and can be rebuilt.", "suggestedTier": "LONG_TERM"}, &other)

	var found struct {
		Results []struct {
			Memory memory `json:"memory"`
			Reason string `json:"reason"`
		} `json:"results"`
	}
	text = call(t, cs, "search_memory", map[string]any{"q": "Bleve index", "maxResults": 5}, &found)
	if len(found.Results) != 2 || !strings.HasPrefix(text, `Memories matching "Bleve index" (2):`) || !strings.Contains(text, m.MemoryID) {
		t.Fatalf("search: %q %+v", text, found)
	}

	var claimed struct{ Memory memory }
	call(t, cs, "claim_memory", map[string]any{"id": m.MemoryID}, &claimed)
	if !claimed.Memory.Claimed {
		t.Fatalf("claim: %+v", claimed)
	}

	// No tool reaches another scope: a memory of another scope is not found.
	elsewhere := s.connect(t, "scope=project-beta")
	var theirs struct{ Memory memory }
	call(t, elsewhere, "store_memory", map[string]any{"content": "beta's secret plan"}, &theirs)
	if theirs.Memory.ScopeID == m.ScopeID {
		t.Fatal("two scope names, one scope")
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"claim_memory", map[string]any{"memory_id": theirs.Memory.MemoryID}},
		{"history", map[string]any{"memory_id": theirs.Memory.MemoryID}},
		{"delete_memory", map[string]any{"memory_id": theirs.Memory.MemoryID}},
		{"reclassify_memory", map[string]any{"memory_id": theirs.Memory.MemoryID, "tier": "ARCHIVE"}},
		{"associate_memories", map[string]any{"source_id": m.MemoryID, "target_id": theirs.Memory.MemoryID, "type": "THEMATIC", "strength": 0.5}},
		{"total_recall_advisory", map[string]any{"source_memory_ids": []string{theirs.Memory.MemoryID}, "wait_seconds": 0}},
	} {
		got := callFails(t, cs, tc.tool, tc.args, "NOT_FOUND")
		if strings.Contains(got, "secret") {
			t.Errorf("%s leaked: %s", tc.tool, got)
		}
	}
	var res struct {
		Results []struct{ Memory memory }
	}
	call(t, cs, "search_memory", map[string]any{"query": "secret plan"}, &res)
	if len(res.Results) != 0 {
		t.Fatalf("search reached another scope: %+v", res)
	}

	// Bad input: a clear code and field, nothing written.
	if got := callFails(t, cs, "store_memory", map[string]any{"content": ""}, "INVALID_ARGUMENT"); !strings.Contains(got, "content") {
		t.Errorf("empty content: %q", got)
	}
	callFails(t, cs, "store_memory", map[string]any{"content": "x", "occurred_at": "not-a-time"}, "INVALID_ARGUMENT (occurred_at)")
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: map[string]any{"content": "x", "colour": "red"}}); err != nil || !res.IsError ||
		!strings.Contains(resultText(res), "colour") {
		t.Errorf("an unknown argument: %v %+v", err, res)
	}

	// Associated memories come back from a total recall, which the tool waits for.
	call(t, cs, "associate_memories", map[string]any{"from": m.MemoryID, "to": other.Memory.MemoryID, "type": "CAUSAL", "strength": 0.9}, nil)
	var rec struct {
		Status   string `json:"status"`
		Recalled []struct {
			Memory memory `json:"memory"`
			Depth  int    `json:"depth"`
		} `json:"recalled"`
	}
	text = call(t, cs, "total_recall_advisory", map[string]any{"source_memory_ids": []string{m.MemoryID}, "wait_seconds": 20}, &rec)
	if rec.Status != "recalled" || len(rec.Recalled) != 1 || rec.Recalled[0].Memory.MemoryID != other.Memory.MemoryID || rec.Recalled[0].Depth != 1 ||
		!strings.HasPrefix(text, "TotalRecallNotification: total recall from "+m.MemoryID+" reached depth") {
		t.Fatalf("total recall: %q %+v", text, rec)
	}
	// Returned by the tool, it left the instance's queue.
	if q, err := s.cx.QueuedNotifications(ctx, "inst-1", m.ScopeID); err != nil || len(q) != 0 {
		t.Fatalf("queue after a returned recollection: %d, %v", len(q), err)
	}

	// The scope's identity is a resource.
	var identity struct{ Memory memory }
	call(t, cs, "store_memory", map[string]any{"content": "I am a careful reviewer of Go code.", "suggested_tier": "IDENTITY_CORE"}, &identity)
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.IdentityURI})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; !strings.Contains(got, `# Identity in scope "project-alpha"`) || !strings.Contains(got, identity.Memory.MemoryID+"] I am a careful reviewer of Go code.") {
		t.Fatalf("identity resource:\n%s", got)
	}
}

// rawSession speaks MCP's streamable HTTP by hand, as a client that accepts Claude Code's
// channel notifications: every message of its standalone stream lands on stream.
type rawSession struct {
	t       *testing.T
	url     string
	session string
	stream  chan map[string]any
	cancel  context.CancelFunc
}

func openRaw(t *testing.T, s *stack, query string, declareChannel bool) *rawSession {
	t.Helper()
	caps := map[string]any{}
	if declareChannel {
		caps["experimental"] = map[string]any{mcpserver.ChannelCapability: map[string]any{}}
	}
	r := &rawSession{t: t, url: s.srv.URL + "/mcp?" + query, stream: make(chan map[string]any, 16)}
	init := r.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": caps, "clientInfo": map[string]any{"name": "claude-code", "version": "2.1.163"}}})
	if init["result"] == nil {
		t.Fatalf("initialize: %v", init)
	}
	exp, _ := init["result"].(map[string]any)["capabilities"].(map[string]any)["experimental"].(map[string]any)
	if _, ok := exp[mcpserver.ChannelCapability]; !ok {
		t.Fatalf("the server does not declare %s: %v", mcpserver.ChannelCapability, init)
	}
	r.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", r.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	go func() {
		defer resp.Body.Close()
		readSSE(resp.Body, func(m map[string]any) { r.stream <- m })
	}()
	t.Cleanup(cancel)
	return r
}

func readSSE(body interface{ Read([]byte) (int, error) }, fn func(map[string]any)) {
	buf := make([]byte, 0, 1<<16)
	tmp := make([]byte, 4096)
	for {
		n, err := body.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			i := strings.Index(string(buf), "\n\n")
			if i < 0 {
				break
			}
			ev := string(buf[:i])
			buf = buf[i+2:]
			for _, line := range strings.Split(ev, "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok {
					var m map[string]any
					if json.Unmarshal([]byte(d), &m) == nil {
						fn(m)
					}
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// post sends one message and returns the first message answering it (nil for none).
func (r *rawSession) post(msg map[string]any) map[string]any {
	r.t.Helper()
	raw, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(string(raw)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		r.session = id
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil
	}
	if resp.StatusCode != 200 {
		r.t.Fatalf("POST %v: %s", msg["method"], resp.Status)
	}
	var first map[string]any
	readSSE(resp.Body, func(m map[string]any) {
		if first == nil {
			first = m
		}
	})
	return first
}

func (r *rawSession) tool(name string, args map[string]any) map[string]any {
	r.t.Helper()
	res := r.post(map[string]any{"jsonrpc": "2.0", "id": time.Now().UnixNano(), "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	result, _ := res["result"].(map[string]any)
	if result == nil || result["isError"] == true {
		r.t.Fatalf("%s: %v", name, res)
	}
	sc, _ := result["structuredContent"].(map[string]any)
	return sc
}

// channel waits for the next channel notification of the stream.
func (r *rawSession) channel(within time.Duration) map[string]any {
	r.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m := <-r.stream:
			if m["method"] == mcpserver.ChannelMethod {
				return m["params"].(map[string]any)
			}
		case <-deadline:
			r.t.Fatalf("no %s within %s", mcpserver.ChannelMethod, within)
			return nil
		}
	}
}

func (r *rawSession) noChannel(within time.Duration) {
	r.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m := <-r.stream:
			if m["method"] == mcpserver.ChannelMethod {
				r.t.Fatalf("unexpected channel notification: %v", m)
			}
		case <-deadline:
			return
		}
	}
}

func TestChannelNotificationsAndQueue(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()

	// A client that declares the channel capability gets its instance's notifications pushed.
	r := openRaw(t, s, "scope=proj&instance=cc-session-1", true)
	started := r.tool("session_start", map[string]any{"mind_type": "claude"})
	scopeID := started["scope_id"].(string)
	stored := r.tool("store_memory", map[string]any{"content": "we ship on Fridays", "tags": []string{"process"}})
	memID := stored["memory"].(map[string]any)["memory_id"].(string)
	r.tool("session_end", map[string]any{})
	p := r.channel(10 * time.Second)
	meta := p["meta"].(map[string]any)
	content := p["content"].(string)
	if meta["kind"] != "SessionAuditPrompt" || meta["instance_id"] != "cc-session-1" || meta["scope"] != "proj" || meta["scope_id"] != scopeID ||
		!strings.HasPrefix(content, "SessionAuditPrompt: What do you refuse to lose?\n") || !strings.Contains(content, "1 memories stored in it: "+memID) {
		t.Fatalf("channel notification: %v", p)
	}
	// Pushed, it leaves the queue: the next hook does not get it again.
	eventually(t, "the pushed notification leaves the queue", func() bool {
		q, err := s.cx.QueuedNotifications(ctx, "cc-session-1", scopeID)
		return err == nil && len(q) == 0
	})

	// A recollection the tool waits for is the tool's to return, not the channel's to push.
	other := r.tool("store_memory", map[string]any{"content": "we also ship hotfixes on Mondays"})["memory"].(map[string]any)["memory_id"].(string)
	r.tool("associate_memories", map[string]any{"source_id": memID, "target_id": other, "type": "THEMATIC", "strength": 0.6})
	if rec := r.tool("total_recall_advisory", map[string]any{"source_memory_ids": []string{memID}}); rec["status"] != "recalled" {
		t.Fatalf("total recall: %v", rec)
	}
	r.noChannel(500 * time.Millisecond)

	// Nothing listens for another instance: its notification waits in the queue.
	quiet := s.connect(t, "scope=proj&instance=cc-session-2")
	call(t, quiet, "session_start", map[string]any{}, nil)
	call(t, quiet, "session_end", map[string]any{"reason": "EXPLICIT"}, nil)
	r.noChannel(300 * time.Millisecond)
	var queued []*domain.Event
	eventually(t, "the audit prompt is queued", func() bool {
		var err error
		queued, err = s.cx.QueuedNotifications(ctx, "cc-session-2", scopeID)
		return err == nil && len(queued) > 0
	})
	if len(queued) != 1 || queued[0].Type != domain.NtSessionAuditPrompt {
		t.Fatalf("queue of the instance nobody listens to: %+v", queued)
	}

	// A channel client that connects later for that instance gets what waited.
	late := openRaw(t, s, "scope=proj&instance=cc-session-2", true)
	if p := late.channel(10 * time.Second); p["meta"].(map[string]any)["notification_id"] != queued[0].ID() {
		t.Fatalf("the queued notification was not pushed on connect: %v", p)
	}
	eventually(t, "the notification pushed on connect leaves the queue", func() bool {
		q, err := s.cx.QueuedNotifications(ctx, "cc-session-2", scopeID)
		return err == nil && len(q) == 0
	})

	// channels=false refuses pushes whatever the client declares.
	off := openRaw(t, s, "scope=proj&instance=cc-session-3&channels=false", true)
	off.tool("session_start", map[string]any{})
	off.tool("session_end", map[string]any{})
	off.noChannel(500 * time.Millisecond)
	if q, _ := s.cx.TakeNotifications(ctx, "cc-session-3", scopeID); len(q) != 1 {
		t.Fatalf("with channels=false the notification stays queued: %d", len(q))
	}
}

// bridge runs the stdio bridge (`totalrecall mcp`) in-process: the test writes the client's
// stdin and reads its stdout.
func (s *stack) bridge(t *testing.T, opts client.BridgeOptions) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	if opts.Log == nil {
		opts.Log = testWriter{t}
	}
	go func() {
		done <- client.New(s.srv.URL, "").BridgeMCP(context.Background(), inR, outW, opts)
		inR.Close() // the client's writes fail rather than block
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("bridge: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the bridge did not end with its stdin")
		}
	})
	return inW, outR
}

func TestToolsOverStdioBridge(t *testing.T) {
	s := newStack(t)
	in, out := s.bridge(t, client.BridgeOptions{Scope: "stdio-scope", Instance: "bridge-1"})
	c := mcp.NewClient(&mcp.Implementation{Name: "go-test-stdio", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: out, Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != len(wantTools) {
		t.Fatalf("tools over stdio: %v %v", err, tools)
	}
	var a, b struct{ Memory memory }
	call(t, cs, "store_memory", map[string]any{"content": "Claude Code talks to totalrecall over stdio."}, &a)
	call(t, cs, "store_memory", map[string]any{"content": "The bridge relays JSON-RPC to /mcp."}, &b)
	var found struct {
		Results []struct{ Memory memory } `json:"results"`
	}
	call(t, cs, "search_memory", map[string]any{"query": "stdio bridge"}, &found)
	if len(found.Results) == 0 {
		t.Fatal("search over stdio found nothing")
	}
	var claimed struct{ Memory memory }
	call(t, cs, "claim_memory", map[string]any{"memory_id": a.Memory.MemoryID}, &claimed)
	call(t, cs, "associate_memories", map[string]any{"source_id": a.Memory.MemoryID, "target_id": b.Memory.MemoryID, "type": "THEMATIC", "strength": 0.8}, nil)
	var rec struct {
		Status   string                    `json:"status"`
		Recalled []struct{ Memory memory } `json:"recalled"`
	}
	call(t, cs, "total_recall_advisory", map[string]any{"source_memory_ids": []string{a.Memory.MemoryID}}, &rec)
	if !claimed.Memory.Claimed || rec.Status != "recalled" || len(rec.Recalled) != 1 || rec.Recalled[0].Memory.MemoryID != b.Memory.MemoryID {
		t.Fatalf("claim %+v, recall %+v", claimed, rec)
	}
}

// mailbox holds the bridge's stdout, a JSON message a line; take returns the first message
// that matches, keeping the others for later takes (a push may overtake a tool's answer).
type mailbox struct {
	t    *testing.T
	ch   chan map[string]any
	kept []map[string]any
}

func lines(t *testing.T, out io.Reader) *mailbox {
	mb := &mailbox{t: t, ch: make(chan map[string]any, 32)}
	go func() {
		defer close(mb.ch)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the bridge wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			mb.ch <- m
		}
	}()
	return mb
}

func (mb *mailbox) take(want func(map[string]any) bool) map[string]any {
	mb.t.Helper()
	for i, m := range mb.kept {
		if want(m) {
			mb.kept = append(mb.kept[:i], mb.kept[i+1:]...)
			return m
		}
	}
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m, ok := <-mb.ch:
			if !ok {
				mb.t.Fatal("the bridge's stdout ended")
			}
			if want(m) {
				return m
			}
			mb.kept = append(mb.kept, m)
		case <-deadline:
			mb.t.Fatalf("no such message from the bridge (kept: %v)", mb.kept)
		}
	}
}

// eventually polls cond until it holds, for at most ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

func TestChannelNotificationOverStdio(t *testing.T) {
	s := newStack(t)
	in, out := s.bridge(t, client.BridgeOptions{Scope: "stdio-channels", Instance: "cc-stdio"})
	msgs := lines(t, out)
	send := func(m map[string]any) {
		raw, _ := json.Marshal(m)
		if _, err := in.Write(append(raw, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id }
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18",
		"capabilities": map[string]any{"experimental": map[string]any{"claude/channel": map[string]any{}}}, "clientInfo": map[string]any{"name": "claude-code", "version": "2"}}})
	init := msgs.take(byID(1))
	if init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"] != "totalrecall" {
		t.Fatalf("initialize: %v", init)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "session_start", "arguments": map[string]any{}}})
	msgs.take(byID(2))
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "session_end", "arguments": map[string]any{}}})
	msgs.take(byID(3))
	n := msgs.take(func(m map[string]any) bool { return m["method"] == mcpserver.ChannelMethod })
	p := n["params"].(map[string]any)
	if p["meta"].(map[string]any)["kind"] != "SessionAuditPrompt" || !strings.HasPrefix(p["content"].(string), "SessionAuditPrompt: What do you refuse to lose?") {
		t.Fatalf("channel notification over stdio: %v", n)
	}
	// A message that is not JSON gets a JSON-RPC parse error, and the bridge carries on.
	in.Write([]byte("{not json\n"))
	if e := msgs.take(func(m map[string]any) bool { return m["error"] != nil }); e["error"].(map[string]any)["code"] != float64(-32700) {
		t.Fatalf("parse error: %v", e)
	}
}

func TestBridgeWithoutServer(t *testing.T) {
	ln := httptest.NewServer(http.NotFoundHandler())
	url := ln.URL
	ln.Close() // nothing listens here now
	err := client.New(url, "").BridgeMCP(context.Background(), strings.NewReader(""), io.Discard, client.BridgeOptions{Scope: "x"})
	want := "UNAVAILABLE: no totalrecall server answers at " + url + " (start one with `totalrecall serve`, or name another with --server or $TOTALRECALL_SERVER)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestSessionBoundToItsKey(t *testing.T) {
	s := newStack(t)
	r := openRaw(t, s, "scope=keys", false)
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
	for key, want := range map[string]int{"": http.StatusOK, "Bearer trk_other": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(string(raw)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", r.session)
		if key != "" {
			req.Header.Set("Authorization", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("with Authorization %q: %s %s, want %d", key, resp.Status, body, want)
		}
		if want == http.StatusForbidden && string(body) != "totalrecall: FORBIDDEN: the MCP session was opened with another key\n" {
			t.Errorf("refusal: %q", body)
		}
	}
}
