package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/shard"
)

// routedServer is a router in front of a handler that records what reached it, serving /shard
// as serve does: the routing alone, without a store (TestShardedServersRouteByScope runs it on
// real servers).
type routedServer struct {
	*httptest.Server
	router *shardRouter
	hits   atomic.Int64
	last   atomic.Pointer[http.Request]
	body   atomic.Pointer[string]
}

func newRoutedServer(t *testing.T, spec string, claims string, handler http.HandlerFunc) *routedServer {
	t.Helper()
	sp, err := parseServes(spec)
	if err != nil {
		t.Fatal(err)
	}
	rs := &routedServer{}
	inner := http.NewServeMux()
	inner.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		rs.hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		s := string(b)
		rs.body.Store(&s)
		rs.last.Store(r)
		if handler != nil {
			handler(w, r)
			return
		}
		fmt.Fprintf(w, `{"data":{"servedBy":%q}}`, spec)
	})
	instance := newInstanceID()
	outer := http.NewServeMux()
	rs.Server = httptest.NewServer(outer)
	t.Cleanup(rs.Close)
	rs.router = newShardRouter(sp, instance, nil, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	answer := shardHandler(rs.router, sp, instance)
	if claims != "" {
		// A server whose /shard says something else than what it serves: the servers disagree.
		answer = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"serves":%q,"hash":"fnv1a64","instance":"liar"}`, claims)
		})
	}
	outer.Handle("/shard", answer)
	outer.Handle("/", rs.router.Wrap(inner))
	return rs
}

func (rs *routedServer) peer(t *testing.T, others ...*routedServer) {
	for _, o := range others {
		u, _ := url.Parse(o.URL)
		rs.router.peers = append(rs.router.peers, &peer{url: u})
	}
}

type routedAnswer struct {
	status int
	header http.Header
	code   string
	body   string
}

func postQuery(t *testing.T, base, query string, vars map[string]any, header map[string]string) routedAnswer {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, base+"/query?x=1", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out struct {
		Errors []struct {
			Extensions struct{ Code string }
		}
	}
	_ = json.Unmarshal(raw, &out)
	a := routedAnswer{status: resp.StatusCode, header: resp.Header, body: string(raw)}
	if len(out.Errors) > 0 {
		a.code = out.Errors[0].Extensions.Code
	}
	return a
}

const searchQ = `query($s: ID!) { searchMemory(scopeId: $s, query: "x") { score } }`

func TestShardRouterForwardsByScope(t *testing.T) {
	a := newRoutedServer(t, "0/2", "", nil)
	b := newRoutedServer(t, "1/2", "", nil)
	a.peer(t, b, a) // a lists itself too, as a configuration shared by every server would
	b.peer(t, a)

	t.Run("OwnScopeIsAnsweredHere", func(t *testing.T) {
		got := postQuery(t, a.URL, searchQ, map[string]any{"s": shard0Scope}, nil)
		if got.status != 200 || got.header.Get(shardHeader) != "0/2" || !strings.Contains(got.body, `"0/2"`) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("OtherScopeIsForwardedAsItCame", func(t *testing.T) {
		before := a.hits.Load()
		got := postQuery(t, a.URL, searchQ, map[string]any{"s": shard1Scope}, map[string]string{"Authorization": "Bearer trk_secret", "X-Request-Id": "r-1"})
		if got.status != 200 || got.header.Get(shardHeader) != "1/2" || !strings.Contains(got.body, `"1/2"`) {
			t.Fatalf("%+v", got)
		}
		if a.hits.Load() != before {
			t.Fatal("the forwarding server's handler answered too")
		}
		r := b.last.Load()
		if r.Method != http.MethodPost || r.URL.Path != "/query" || r.URL.RawQuery != "x=1" || r.Header.Get("Authorization") != "Bearer trk_secret" ||
			r.Header.Get("X-Request-Id") != "r-1" || r.Header.Get(hopHeader) != "0/2" || !strings.Contains(*b.body.Load(), shard1Scope) {
			t.Fatalf("forwarded as %s %s?%s headers %v body %q", r.Method, r.URL.Path, r.URL.RawQuery, r.Header, *b.body.Load())
		}
	})
	t.Run("KnowsItsPeers", func(t *testing.T) {
		resp, err := http.Get(a.URL + "/shard")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var info shardInfo
		if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
			t.Fatal(err)
		}
		if info.Serves != "0/2" || info.Shard == nil || *info.Shard != 0 || *info.Of != 2 || len(info.Peers) != 2 ||
			info.Peers[0].Serves == nil || *info.Peers[0].Serves != "1/2" || info.Peers[1].Serves == nil || *info.Peers[1].Serves != "self" {
			t.Fatalf("%+v", info)
		}
	})
	t.Run("ScopesOfTwoServersAreRefused", func(t *testing.T) {
		before := a.hits.Load() + b.hits.Load()
		got := postQuery(t, a.URL, `{ x: memories(scopeId: "`+shard0Scope+`") { totalCount } y: memories(scopeId: "`+shard1Scope+`") { totalCount } }`, nil, nil)
		if got.status != http.StatusMisdirectedRequest || got.code != ESCOPESSPLIT || a.hits.Load()+b.hits.Load() != before {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("UnscopedIsAnsweredHere", func(t *testing.T) {
		before := b.hits.Load()
		got := postQuery(t, a.URL, `{ scopes { id } }`, nil, nil)
		if got.status != 200 || !strings.Contains(got.body, `"0/2"`) || b.hits.Load() != before {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("StreamsAsWritten", func(t *testing.T) {
		release := make(chan struct{})
		c := newRoutedServer(t, "1/2", "", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: next\ndata: first\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
			fmt.Fprint(w, "event: next\ndata: second\n\n")
		})
		d := newRoutedServer(t, "0/2", "", nil)
		d.peer(t, c)
		resp, err := http.Get(d.URL + "/export/" + shard1Scope + ".graphml")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended before its first event arrived: %v", err)
			}
			if strings.Contains(line, "first") {
				break
			}
		}
		close(release) // the second event is written only once the first was read through the hop
		rest, _ := io.ReadAll(br)
		if !strings.Contains(string(rest), "second") {
			t.Fatalf("rest %q", rest)
		}
	})
}

func TestShardRouterNeverLoops(t *testing.T) {
	// b says it serves shard 1 but serves shard 0: a forwards to b, which must not forward back.
	a := newRoutedServer(t, "0/2", "", nil)
	b := newRoutedServer(t, "0/2", "1/2", nil)
	a.peer(t, b)
	b.peer(t, a)
	got := postQuery(t, a.URL, searchQ, map[string]any{"s": shard1Scope}, nil)
	if got.status != http.StatusMisdirectedRequest || got.code != cortex.ESCOPENOTSERVED || !strings.Contains(got.body, "disagree") {
		t.Fatalf("%+v", got)
	}
	if a.hits.Load() != 0 || b.hits.Load() != 0 {
		t.Fatalf("a handler answered: a %d, b %d", a.hits.Load(), b.hits.Load())
	}
	// A client's own hop header only stops the forward.
	got = postQuery(t, a.URL, searchQ, map[string]any{"s": shard1Scope}, map[string]string{hopHeader: "x"})
	if got.code != cortex.ESCOPENOTSERVED || a.hits.Load() != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestShardRouterScopeNotServed(t *testing.T) {
	list, err := shard.Parse(shard0Scope)
	if err != nil {
		t.Fatal(err)
	}
	a := newRoutedServer(t, list.String(), "", nil)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // a peer that does not answer
	u, _ := url.Parse(downURL)
	a.router.peers = append(a.router.peers, &peer{url: u})
	for _, q := range []struct {
		query string
		vars  map[string]any
	}{
		{searchQ, map[string]any{"s": shard1Scope}},
		{`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`, map[string]any{"in": map[string]any{"scopeId": shard1Scope, "content": "x"}}},
	} {
		got := postQuery(t, a.URL, q.query, q.vars, nil)
		if got.status != http.StatusMisdirectedRequest || got.code != cortex.ESCOPENOTSERVED || !strings.Contains(got.body, shard1Scope) {
			t.Fatalf("%+v", got)
		}
	}
	if a.hits.Load() != 0 {
		t.Fatal("a request for a scope no one serves reached the handler")
	}
	// The scope a list names is served.
	if got := postQuery(t, a.URL, searchQ, map[string]any{"s": shard0Scope}, nil); got.status != 200 || a.hits.Load() != 1 {
		t.Fatalf("%+v", got)
	}
}

func TestShardFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{args: []string{"--serve-scopes", "0/2"}},
		{args: []string{"--serve-scopes", "0/2", "--peers", "http://127.0.0.1:1, https://h:2/"}},
		{args: []string{"--serve-scopes", "0/1", "--store", "file://x"}},
		{args: []string{}},
		{args: []string{"--serve-scopes", ""}, err: "--serve-scopes is empty"},
		{args: []string{"--serve-scopes", "2/2"}, err: "I must be 0..1"},
		{args: []string{"--serve-scopes", "tour"}, err: "neither I/N nor a scope id"},
		{args: []string{"--serve-scopes", "0/2", "--store", "file://x"}, err: "needs a Dgraph cluster"},
		{args: []string{"--peers", "http://h:1"}, err: "--peers needs --serve-scopes"},
		{args: []string{"--serve-scopes", "0/2", "--peers", "h:1"}, err: "--peers \"h:1\""},
		{args: []string{"--serve-scopes", "0/2", "--peers", "http://h:1/query"}, err: "http://HOST:PORT"},
		{args: []string{"--serve-scopes", "0/2", "--peers", "http://h:1,,http://h:2"}, err: "--peers \"\""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := newFlagSet()
			var f shardFlags
			f.register(fs)
			store := fs.String("store", "dgraph://127.0.0.1:9080", "")
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := f.parse(*store)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("parse = %v, want %q", err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
		})
	}
}

func newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Under --auth a server of some scopes answers GET /shard without a key: its peers ask it
// without one, and it holds no memory.
func TestShardAnswersWithoutAKeyUnderAuth(t *testing.T) {
	sp, err := shard.Parse("0/2")
	if err != nil {
		t.Fatal(err)
	}
	xf := exposeFlags{auth: true, shardPublic: true}
	gate, _ := xf.buildEdge(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	srv := httptest.NewServer(gate.Handler(shardHandler(nil, sp, "i")))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/shard")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info shardInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != http.StatusOK || info.Serves != "0/2" {
		t.Fatalf("HTTP %d %v %+v", resp.StatusCode, err, info)
	}
}

// A peer that goes away is asked again: its scopes are refused while no server serves them, and
// routed again once a server of them answers at the address.
func TestShardRouterFollowsAPeerThatComesAndGoes(t *testing.T) {
	a := newRoutedServer(t, "0/2", "", nil)
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://" + addr)
	a.router.peers = append(a.router.peers, &peer{url: u})
	startAt := func(spec string) *routedServer {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		rs := newRoutedServer(t, spec, "", nil)
		// The same server, answering at the peer's address.
		moved := httptest.NewUnstartedServer(rs.Config.Handler)
		moved.Listener.Close()
		moved.Listener = ln
		moved.Start()
		t.Cleanup(moved.Close)
		rs.URL = moved.URL
		rs.Server.Close()
		rs.Server = moved
		return rs
	}
	send := func() routedAnswer { return postQuery(t, a.URL, searchQ, map[string]any{"s": shard1Scope}, nil) }

	b := startAt("1/2")
	if got := send(); got.status != 200 || got.header.Get(shardHeader) != "1/2" || b.hits.Load() != 1 {
		t.Fatalf("%+v", got)
	}
	b.Close()
	if got := send(); got.status != http.StatusMisdirectedRequest || got.code != cortex.ESCOPENOTSERVED {
		t.Fatalf("with the peer gone: %+v", got)
	}
	b2 := startAt("1/2")
	if got := send(); got.status != 200 || got.header.Get(shardHeader) != "1/2" || b2.hits.Load() != 1 {
		t.Fatalf("with the peer back: %+v", got)
	}
	if a.hits.Load() != 0 {
		t.Fatal("a answered a scope it does not serve")
	}
}
