package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain"
)

// keys authenticates a fixed set of secrets (the Cortex's keyring is tested with the Cortex).
type keys map[string]*domain.Principal

func (k keys) Authenticate(ctx context.Context, secret, client, path string) (*domain.Principal, error) {
	if p := k[secret]; p != nil {
		return p, nil
	}
	return nil, domain.Errorf(domain.EUNAUTHENTICATED, "unknown API key")
}

// whoami answers with the key the request acts for.
var whoami = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Write([]byte(domain.PrincipalFrom(r.Context()).Label()))
})

type answer struct {
	status int
	body   string
	header http.Header
	code   string
}

func call(t *testing.T, h http.Handler, method, path, key, contentType string, body io.Reader) answer {
	t.Helper()
	r := httptest.NewRequest(method, path, body)
	if key != "" {
		r.Header.Set("Authorization", key)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	a := answer{status: w.Code, body: w.Body.String(), header: w.Header()}
	var gr struct {
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(w.Body.Bytes(), &gr) == nil && len(gr.Errors) > 0 {
		a.code, _ = gr.Errors[0].Extensions["code"].(string)
	}
	return a
}

func TestEdgeAuthenticatesEveryPathButThePublicOnes(t *testing.T) {
	p := &domain.Principal{KeyID: "key-1", Role: domain.RoleAdmin}
	e := New(Config{Auth: true, Keys: keys{"trk_good": p}, Public: func(path string) bool { return path == "/healthz" },
		WebsocketPath: "/query"})
	h := e.Handler(whoami)
	for _, tc := range []struct {
		name, method, path, key string
		status                  int
		code, body              string
	}{
		{"public path without a key", "GET", "/healthz", "", 200, "", "-"},
		{"no key", "GET", "/query?query={scopes{id}}", "", 401, domain.EUNAUTHENTICATED, ""},
		{"no key on another path", "GET", "/mcp", "", 401, domain.EUNAUTHENTICATED, ""},
		{"no key on an unknown path", "GET", "/export/x.json", "", 401, domain.EUNAUTHENTICATED, ""},
		{"unknown key", "GET", "/query", "Bearer trk_bad", 401, domain.EUNAUTHENTICATED, ""},
		{"another scheme", "GET", "/query", "Basic dXNlcjpwYXNz", 401, domain.EUNAUTHENTICATED, ""},
		{"bearer without a key", "GET", "/query", "Bearer", 401, domain.EUNAUTHENTICATED, ""},
		{"good key", "GET", "/query", "Bearer trk_good", 200, "", "key-1"},
		{"good key, scheme in lower case", "GET", "/mcp", "bearer trk_good", 200, "", "key-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, h, tc.method, tc.path, tc.key, "", nil)
			if a.status != tc.status || a.code != tc.code || (tc.body != "" && a.body != tc.body) {
				t.Fatalf("got %d %q %q, want %d %q %q", a.status, a.code, a.body, tc.status, tc.code, tc.body)
			}
			if tc.status == 401 && a.header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}
	// A websocket to the GraphQL path may come without a header: it authenticates in
	// connection_init (WebsocketInit). Anywhere else it may not.
	r := httptest.NewRequest("GET", "/query", nil)
	r.Header.Set("Upgrade", "websocket")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 || w.Body.String() != "-" {
		t.Fatalf("header-less websocket upgrade to /query: %d %q", w.Code, w.Body.String())
	}
	r = httptest.NewRequest("GET", "/mcp", nil)
	r.Header.Set("Upgrade", "websocket")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Fatalf("header-less websocket upgrade to /mcp: %d", w.Code)
	}
}

func TestEdgeWithoutAuthPassesEveryone(t *testing.T) {
	h := New(Config{}).Handler(whoami)
	if a := call(t, h, "GET", "/query", "", "", nil); a.status != 200 || a.body != "-" {
		t.Fatalf("%d %q", a.status, a.body)
	}
}

func TestEdgeBodiesAreJSONWithinTheCap(t *testing.T) {
	h := New(Config{MaxBodyBytes: 100}).Handler(whoami)
	small := `{"query":"{ scopes { id } }"}`
	for _, tc := range []struct {
		name, ct string
		body     io.Reader
		status   int
		code     string
	}{
		{"json", "application/json", strings.NewReader(small), 200, ""},
		{"json with charset", "application/json; charset=utf-8", strings.NewReader(small), 200, ""},
		{"form", "application/x-www-form-urlencoded", strings.NewReader("query=%7Bscopes%7Bid%7D%7D"), 415, EUNSUPPORTEDMEDIA},
		{"multipart", "multipart/form-data; boundary=x", strings.NewReader("--x--"), 415, EUNSUPPORTEDMEDIA},
		{"text", "text/plain", strings.NewReader(small), 415, EUNSUPPORTEDMEDIA},
		{"no type", "", strings.NewReader(small), 415, EUNSUPPORTEDMEDIA},
		{"exactly the cap", "application/json", strings.NewReader(strings.Repeat(" ", 100)), 200, ""},
		{"one byte over", "application/json", strings.NewReader(strings.Repeat(" ", 101)), 413, domain.ETOOLARGE},
		// No Content-Length: counted as it is read.
		{"streamed over", "application/json", io.MultiReader(strings.NewReader(strings.Repeat(" ", 60)), strings.NewReader(strings.Repeat(" ", 60))), 413, domain.ETOOLARGE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/query", tc.body)
			if tc.name == "streamed over" {
				r.ContentLength = -1
			}
			if tc.ct != "" {
				r.Header.Set("Content-Type", tc.ct)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			var gr struct {
				Errors []struct {
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			_ = json.Unmarshal(w.Body.Bytes(), &gr)
			code := ""
			if len(gr.Errors) > 0 {
				code, _ = gr.Errors[0].Extensions["code"].(string)
			}
			if w.Code != tc.status || code != tc.code {
				t.Fatalf("got %d %q, want %d %q (%s)", w.Code, code, tc.status, tc.code, w.Body.String())
			}
		})
	}
}

func TestEdgeRateLimitsEachKey(t *testing.T) {
	k := keys{"trk_a": {KeyID: "a", Role: domain.RoleAdmin}, "trk_b": {KeyID: "b", Role: domain.RoleAdmin}}
	h := New(Config{Auth: true, Keys: k, RateLimit: 0.5, RateBurst: 3}).Handler(whoami)
	for i := range 3 {
		if a := call(t, h, "GET", "/query", "Bearer trk_a", "", nil); a.status != 200 {
			t.Fatalf("request %d within the burst: %d", i+1, a.status)
		}
	}
	a := call(t, h, "GET", "/query", "Bearer trk_a", "", nil)
	if a.status != 429 || a.code != ERATELIMITED {
		t.Fatalf("beyond the burst: %d %q", a.status, a.code)
	}
	// One token comes every 2 s.
	if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
		t.Fatalf("Retry-After %q, want 1..2 seconds", a.header.Get("Retry-After"))
	}
	// Another key has its own budget.
	if a := call(t, h, "GET", "/query", "Bearer trk_b", "", nil); a.status != 200 {
		t.Fatalf("another key: %d", a.status)
	}
}

func TestEdgeRequestIDsAndAccessLog(t *testing.T) {
	var buf bytes.Buffer
	m := NewMetrics()
	e := New(Config{AccessLog: slog.New(slog.NewTextHandler(&buf, nil)), Metrics: m})
	h := e.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Observe(r.Context(), "storeMemory", []string{domain.EINVALID})
		w.Write([]byte(RequestID(r.Context())))
	}))
	r := httptest.NewRequest("GET", "/query", nil)
	r.Header.Set("X-Request-Id", "caller-id-42")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if got := w.Header().Get("X-Request-Id"); got != "caller-id-42" || w.Body.String() != "caller-id-42" {
		t.Fatalf("request id %q / %q, want the caller's", got, w.Body.String())
	}
	r = httptest.NewRequest("GET", "/query", nil)
	r.Header.Set("X-Request-Id", "bad id\n with spaces")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if got := w.Header().Get("X-Request-Id"); len(got) != 16 || got != w.Body.String() {
		t.Fatalf("request id %q for a malformed one, want a fresh 16-hex id", got)
	}
	log := buf.String()
	for _, want := range []string{"id=caller-id-42", "method=GET", "path=/query", "status=200", "op=storeMemory", "key=-"} {
		if !strings.Contains(log, want) {
			t.Fatalf("access log lacks %q:\n%s", want, log)
		}
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`totalrecall_requests_total{operation="storeMemory",status="200"} 2`,
		`totalrecall_errors_total{code="INVALID_ARGUMENT"} 2`, `totalrecall_request_duration_seconds_count{operation="storeMemory"} 2`,
		"go_goroutines", "process_resident_memory_bytes"} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("metrics lack %q", want)
		}
	}
}

// A websocket client's message over the cap closes the socket before it is buffered; one at the
// cap goes through, also split in continuation frames.
func TestWebsocketMessageCap(t *testing.T) {
	const cap = 1000
	upgrader := websocket.Upgrader{ReadBufferSize: 4096}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			mt, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			if err := c.WriteMessage(mt, []byte(strconv.Itoa(len(msg)))); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(New(Config{MaxWebsocketMessageBytes: cap}).Handler(echo))
	defer srv.Close()
	dial := func() *websocket.Conn {
		c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		return c
	}
	c := dial()
	defer c.Close()
	for _, n := range []int{1, 125, 126, 65535 % cap, cap} {
		if err := c.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("a"), n)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.ReadMessage()
		if err != nil || string(got) != strconv.Itoa(n) {
			t.Fatalf("a message of %d bytes: echoed %q, %v", n, got, err)
		}
	}
	// A message written in parts is one message: 3 × 400 bytes is 1,200 (continuation frames
	// are summed: TestFrameScanAcrossReads).
	wr, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		wr.Write(bytes.Repeat([]byte("b"), 400))
	}
	wr.Close()
	if _, msg, err := c.ReadMessage(); err == nil {
		t.Fatalf("a message of 1,200 bytes went through: %q", msg)
	}

	c2 := dial()
	defer c2.Close()
	if err := c2.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("c"), cap+1)); err != nil {
		t.Fatal(err)
	}
	if _, msg, err := c2.ReadMessage(); err == nil {
		t.Fatalf("a message of %d bytes went through: %q", cap+1, msg)
	}
}

// A websocket authenticated in connection_init acts for the key; its context ends when the key
// is revoked.
func TestWebsocketInit(t *testing.T) {
	revoked := make(chan struct{})
	p := &domain.Principal{KeyID: "k", Role: domain.RoleRead, ScopeID: "s", Revoked: revoked}
	e := New(Config{Auth: true, Keys: keys{"trk_good": p}, WebsocketPath: "/query"})
	if _, err := e.WebsocketInit(context.Background(), map[string]any{}); domain.ErrorCode(err) != domain.EUNAUTHENTICATED {
		t.Fatalf("no key in connection_init: %v", err)
	}
	if _, err := e.WebsocketInit(context.Background(), map[string]any{"authorization": "Bearer trk_bad"}); domain.ErrorCode(err) != domain.EUNAUTHENTICATED {
		t.Fatalf("unknown key in connection_init: %v", err)
	}
	ctx, err := e.WebsocketInit(context.Background(), map[string]any{"Authorization": "Bearer trk_good"})
	if err != nil {
		t.Fatal(err)
	}
	if got := domain.PrincipalFrom(ctx); got != p {
		t.Fatalf("principal %+v", got)
	}
	close(revoked)
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the connection's context outlived its key")
	}
	exp := time.Now().Add(50 * time.Millisecond)
	short := &domain.Principal{KeyID: "s", Role: domain.RoleAdmin, ExpiresAt: &exp}
	e = New(Config{Auth: true, Keys: keys{"trk_short": short}})
	ctx, err = e.WebsocketInit(context.Background(), map[string]any{"authorization": "Bearer trk_short"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the connection's context outlived its key's expiry")
	}
}

// The frame reader follows frames split anywhere across reads.
func TestFrameScanAcrossReads(t *testing.T) {
	frame := func(op byte, fin bool, n int) []byte {
		b := []byte{op, 0x80}
		if fin {
			b[0] |= 0x80
		}
		switch {
		case n < 126:
			b[1] |= byte(n)
		case n < 65536:
			b[1] |= 126
			b = append(b, byte(n>>8), byte(n))
		default:
			b[1] |= 127
			for i := 7; i >= 0; i-- {
				b = append(b, byte(n>>(8*i)))
			}
		}
		b = append(b, 1, 2, 3, 4) // mask
		return append(b, bytes.Repeat([]byte{'x'}, n)...)
	}
	var stream []byte
	stream = append(stream, frame(1, true, 700)...)  // a message of 700
	stream = append(stream, frame(9, true, 100)...)  // a ping, not counted
	stream = append(stream, frame(2, false, 500)...) // a message of 500 + 500
	stream = append(stream, frame(0, true, 500)...)
	stream = append(stream, frame(1, true, 70000)...) // over
	for _, chunk := range []int{1, 3, 7, 64, 4096} {
		c := &frameLimitConn{max: 1000}
		var err error
		at := 0
		for i := 0; i < len(stream) && err == nil; i += chunk {
			err = c.scan(stream[i:min(len(stream), i+chunk)])
			at = i
		}
		if err != errMessageTooBig || at < len(stream)-70000-14-chunk {
			t.Fatalf("reads of %d: error %v at byte %d; want the cap hit at the last frame (from byte %d)", chunk, err, at, len(stream)-70000-14)
		}
	}
}
