package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain"
)

// syncBuffer is a buffer safe to write from the server and read from the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServerCapturing starts a server whose stdout and log are kept.
func startServerCapturing(t *testing.T, sf storeFlags) (*server, *syncBuffer, *syncBuffer) {
	t.Helper()
	out, logs := &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string, 1)
	s := &server{cancel: cancel, done: make(chan error, 1), writes: &writeLog{by: map[string]int{}}}
	sf.commitHooks.After = s.writes.hook
	go func() {
		s.done <- serveOn(ctx, sf, "127.0.0.1:0", out, slog.New(slog.NewTextHandler(logs, nil)), started)
	}()
	select {
	case s.addr = <-started:
	case err := <-s.done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(5 * time.Minute): // a liveness bound
		cancel()
		<-s.done
		t.Fatal("server did not start")
	}
	return s, out, logs
}

func TestLimitsEndToEnd(t *testing.T) {
	sf := storeFlags{store: "file://" + t.TempDir()}
	key := makeAdminKey(t, sf)
	sf.expose = exposeFlags{auth: true, maxComplexity: 40, maxDepth: 5, maxBodyBytes: 64 << 10, rateLimit: 2, rateBurst: 40,
		maxSubscriptions: 2, maxWSMessageBytes: 4096, readHeaderTimeout: 300 * time.Millisecond, idleTimeout: 300 * time.Millisecond,
		allowOrigins: []string{"http://allowed.example"}, adminAddr: "127.0.0.1:0", accessLog: true}
	s, out, logs := startServerCapturing(t, sf)
	defer s.stop(t)
	admin := s.as(key)
	scope, _, _ := admin.createScope(t, "limits")

	t.Run("Complexity", func(t *testing.T) {
		var fields []string
		for i := range 45 {
			fields = append(fields, "a"+strconv.Itoa(i)+": __typename")
		}
		admin.fails(t, "COMPLEXITY_LIMIT_EXCEEDED", "{ "+strings.Join(fields, " ")+" }", nil)
		admin.ok(t, `{ scopes { id name } }`, nil, nil)
	})
	t.Run("Depth", func(t *testing.T) {
		r := admin.do(t, `query($r: ID!) { trace(requestId: $r) { roots { children { children { event { id } } } } } }`, map[string]any{"r": "x"})
		if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != "DEPTH_LIMIT_EXCEEDED" || !strings.Contains(r.Errors[0].Message, "limit of 5") {
			t.Fatalf("a query 6 deep under --max-depth 5: %+v", r.Errors)
		}
		admin.ok(t, `{ scopes { agentKernel { id } } }`, nil, nil)
	})
	t.Run("IntrospectionIsOffUnderAuth", func(t *testing.T) {
		r := admin.do(t, `{ __schema { types { name } } }`, nil)
		if len(r.Errors) == 0 || !strings.Contains(strings.ToLower(r.Errors[0].Message), "introspection") {
			t.Fatalf("introspection under --auth: %s %+v", r.Data, r.Errors)
		}
	})
	t.Run("Body", func(t *testing.T) {
		// The cap is raised to fit content of --max-content-bytes (1 MiB) twice over: 3 MiB.
		big := `{"query":"{ scopes { id } }","variables":{"pad":"` + strings.Repeat("p", 4<<20) + `"}}`
		status, code, _ := rawRequest(t, "POST", "http://"+s.addr+"/query", "Bearer "+key, "application/json", "", strings.NewReader(big))
		if status != http.StatusRequestEntityTooLarge || code != domain.ETOOLARGE {
			t.Fatalf("a 4 MiB body: %d %q", status, code)
		}
	})
	m := regexp.MustCompile(`admin on http://([0-9.:]+)/`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no admin address in %q", out.String())
	}
	adminAddr := m[1]
	metric := func(name string) string {
		resp, err := http.Get("http://" + adminAddr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
				return v
			}
		}
		return ""
	}
	t.Run("Subscriptions", func(t *testing.T) {
		sub := `subscription($s: ID!) { memoryEvents(scopeId: $s) { type } }`
		var all []<-chan map[string]any
		for i := range 3 {
			c, msgs := wsSubscribe(t, s, key, sub, map[string]any{"s": scope})
			defer c.Close()
			all = append(all, msgs)
			if i < 2 {
				// Each is open before the next is asked for.
				for deadline := time.Now().Add(30 * time.Second); metric("totalrecall_subscriptions_open") != strconv.Itoa(i+1); {
					if time.Now().After(deadline) {
						t.Fatalf("subscription %d never opened", i+1)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		}
		select {
		case m := <-all[2]:
			if !strings.Contains(jsonOf(m), domain.ESUBSCRIPTIONLIMIT) {
				t.Fatalf("a third subscription under --max-subscriptions 2: %s", jsonOf(m))
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a third subscription was neither refused nor answered")
		}
	})
	t.Run("WebsocketMessageSize", func(t *testing.T) {
		c, msgs := wsSubscribe(t, s, key, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type } }`, map[string]any{"s": scope})
		defer c.Close()
		// The server may close the connection while the message is still being written, as soon
		// as it reads the frame's length: the write then fails with a reset or a broken pipe, and
		// the close is awaited all the same.
		err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"ping","payload":{"pad":"`+strings.Repeat("x", 8192)+`"}}`))
		if err != nil && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
			t.Fatal(err)
		}
		awaitClose(t, msgs, "an 8 KiB message under --max-ws-message-bytes 4096")
	})
	t.Run("WebsocketOrigin", func(t *testing.T) {
		for origin, ok := range map[string]bool{"": true, "http://" + s.addr: true, "http://allowed.example": true, "http://evil.example": false} {
			h := http.Header{"Authorization": {"Bearer " + key}}
			if origin != "" {
				h.Set("Origin", origin)
			}
			d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
			c, resp, err := d.Dial("ws://"+s.addr+"/query", h)
			if ok != (err == nil) {
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				t.Fatalf("Origin %q: dial error %v (status %d), want accepted %v", origin, err, status, ok)
			}
			if c != nil {
				c.Close()
			}
		}
	})
	t.Run("ReadHeaderTimeout", func(t *testing.T) {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte("GET /livez HTTP/1.1\r\nHost: x\r\n")) // and never the end of the headers
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		start := time.Now()
		if _, err := io.ReadAll(conn); err != nil {
			t.Fatalf("the server did not close a connection that never finished its headers: %v", err)
		}
		t.Logf("closed after %s (--read-header-timeout 300ms)", time.Since(start).Round(time.Millisecond))
	})
	t.Run("IdleTimeout", func(t *testing.T) {
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n"))
		conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("livez: %v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		// Kept alive, then closed once idle.
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("an idle keep-alive connection: %v, want it closed", err)
		}
	})
	t.Run("RateLimit", func(t *testing.T) {
		var limited *http.Response
		for i := 0; i < 200 && limited == nil; i++ {
			req, _ := http.NewRequest("GET", "http://"+s.addr+"/query?query=%7Bscopes%7Bid%7D%7D", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				limited = resp
			}
		}
		if limited == nil {
			t.Fatal("200 requests at once under --rate-limit 2 --rate-burst 40 were all served")
		}
		if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Fatalf("429 with Retry-After %q", limited.Header.Get("Retry-After"))
		}
	})

	// The admin listener: metrics, profiles and probes, apart from the public address.
	t.Run("AdminListener", func(t *testing.T) {
		get := func(base, path string) (int, string) {
			resp, err := http.Get("http://" + base + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		status, metrics := get(adminAddr, "/metrics")
		if status != 200 {
			t.Fatalf("/metrics: %d", status)
		}
		for _, want := range []string{
			`totalrecall_requests_total{operation="createScope",status="200"} 1`,
			`totalrecall_request_duration_seconds_bucket{operation="scopes"`,
			`totalrecall_errors_total{code="COMPLEXITY_LIMIT_EXCEEDED"} 1`,
			`totalrecall_errors_total{code="PAYLOAD_TOO_LARGE"} 1`,
			`totalrecall_errors_total{code="RATE_LIMITED"}`,
			`totalrecall_errors_total{code="SUBSCRIPTION_LIMIT_EXCEEDED"} 1`,
			"totalrecall_store_commits_total", "totalrecall_store_aborts_total 0", "totalrecall_index_lag_events",
			`totalrecall_consumer_lag_events{consumer="salience"}`, "totalrecall_subscriptions_open", "totalrecall_websockets_open",
			`totalrecall_read_cache_bytes{cache="memories"}`, `totalrecall_read_cache_hits_total{cache="memories"}`,
			`totalrecall_read_cache_misses_total{cache="walks"}`, "totalrecall_api_keys 1", "totalrecall_event_log_head",
			"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes",
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		// The data folders' bytes on disk, the graph's and the index's: both hold data by now.
		for _, part := range []string{"graph", "index"} {
			m := regexp.MustCompile(`(?m)^totalrecall_disk_bytes\{part="` + part + `"\} (\S+)$`).FindStringSubmatch(metrics)
			if m == nil {
				t.Errorf("/metrics lacks totalrecall_disk_bytes of %s", part)
			} else if v, err := strconv.ParseFloat(m[1], 64); err != nil || v <= 0 {
				t.Errorf("totalrecall_disk_bytes of %s = %s", part, m[1])
			}
		}
		if status, body := get(adminAddr, "/debug/pprof/"); status != 200 || !strings.Contains(body, "goroutine") {
			t.Fatalf("/debug/pprof/: %d", status)
		}
		if status, body := get(adminAddr, "/readyz"); status != 200 || !strings.HasPrefix(body, "ok") {
			t.Fatalf("/readyz: %d %q", status, body)
		}
		if status, _ := get(adminAddr, "/livez"); status != 200 {
			t.Fatalf("/livez: %d", status)
		}
		// Never on the public address: with a key it is the playground's page, not the metrics.
		req, _ := http.NewRequest("GET", "http://"+s.addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "totalrecall_requests_total") || strings.Contains(string(b), "go_goroutines") {
			t.Fatal("the public address serves the metrics")
		}
	})
	t.Run("AccessLog", func(t *testing.T) {
		re := regexp.MustCompile(`msg=request id=[0-9a-f]{16} method=POST path=/query status=200 bytes=\d+ ms=[0-9.]+ op=createScope key=[0-9a-f-]{36} remote=127\.0\.0\.1:\d+`)
		if !re.MatchString(logs.String()) {
			t.Fatalf("no access-log line for createScope in:\n%s", logs.String())
		}
	})
}

func jsonOf(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// TestServeRefusesAnOpenAddressWithoutAuth: off loopback, serve wants --auth or --insecure; the
// admin listener is never the public one.
func TestServeRefusesAnOpenAddressWithoutAuth(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.1:8080"} {
		err := serveOn(context.Background(), storeFlags{store: "file://" + t.TempDir()}, addr, io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
		if err == nil || !strings.Contains(err.Error(), "--auth") || !strings.Contains(err.Error(), "--insecure") {
			t.Fatalf("serve on %s without --auth: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		f := exposeFlags{}
		if err := f.checkExposure(addr); err != nil {
			t.Fatalf("%s is loopback: %v", addr, err)
		}
	}
	sf := storeFlags{store: "file://" + t.TempDir(), expose: exposeFlags{insecure: true}}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveOn(ctx, sf, "0.0.0.0:0", io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)), started)
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("serve --insecure on 0.0.0.0: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sf = storeFlags{store: "file://" + t.TempDir(), expose: exposeFlags{adminAddr: "127.0.0.1:9"}}
	if err := serveOn(context.Background(), sf, "127.0.0.1:9", io.Discard, slog.New(slog.NewTextHandler(io.Discard, nil)), nil); err == nil ||
		!strings.Contains(err.Error(), "--admin-addr") {
		t.Fatalf("--admin-addr equal to --addr: %v", err)
	}
}
