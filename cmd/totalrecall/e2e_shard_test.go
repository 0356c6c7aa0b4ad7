package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/shard"
	"github.com/totalrecall/totalrecall/search"
)

// routedDo sends a GraphQL request with extra headers and returns the answer, its HTTP status
// and the server that answered it (X-Totalrecall-Shard).
func routedDo(t testing.TB, addr, query string, vars map[string]any, header map[string]string) (gqlResponse, int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/query", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decode response (status %d): %v", resp.StatusCode, err)
	}
	return out, resp.StatusCode, resp.Header.Get(shardHeader)
}

var consumersLine = regexp.MustCompile(`consumers map\[([^\]]*)\]`)

// caughtUp waits until every consumer and the index of the server at addr passed seq.
func caughtUp(t *testing.T, addr string, seq uint64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a liveness bound, not a speed check
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			line := string(raw)
			done := resp.StatusCode == http.StatusOK
			if m := consumersLine.FindStringSubmatch(line); done && m != nil {
				for _, kv := range strings.Fields(m[1]) {
					_, v, _ := strings.Cut(kv, ":")
					n, _ := strconv.ParseUint(v, 10, 64)
					done = done && n >= seq
				}
			}
			var head, index uint64
			fmt.Sscanf(line, "ok: head %d, index %d", &head, &index)
			if done && index >= seq {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server at %s did not pass event %d", addr, seq)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// headSeq is the log's head as the server at addr sees it.
func headSeq(t *testing.T, addr string) uint64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	i := bytes.Index(raw, []byte("head "))
	if i < 0 {
		t.Fatalf("/readyz: %s", raw)
	}
	var head uint64
	fmt.Sscanf(string(raw[i:]), "head %d", &head)
	return head
}

// TestShardedServersRouteByScope runs two `totalrecall serve` processes on one Dgraph cluster,
// one serving the scopes of shard 0 of 2 and one of shard 1, each the other's peer: requests
// sent to either reach the server of their scope, each index holds only its scopes' documents,
// and the living consumers act on each event once.
func TestShardedServersRouteByScope(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	addrA, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	addrB, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	dirA, dirB, dirC := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b"), filepath.Join(t.TempDir(), "c")
	a := serveProcess(t, "--store", uri, "--index", dirA, "--addr", addrA, "--serve-scopes", "0/2", "--peers", "http://"+addrB)
	stopped := false
	defer func() {
		if !stopped {
			a.stop(t)
		}
	}()
	b := serveProcess(t, "--store", uri, "--index", dirB, "--addr", addrB, "--serve-scopes", "1/2", "--peers", "http://"+addrA+",http://"+addrB)
	defer func() {
		if !stopped {
			b.stop(t)
		}
	}()

	// Scopes are made anywhere (the graph is one); two of each shard.
	var scopes [2][]string
	names := map[string]string{}
	for i := 0; len(scopes[0]) < 2 || len(scopes[1]) < 2; i++ {
		if i == 64 {
			t.Fatal("64 scopes and still not two of each shard: the hash does not split")
		}
		name := fmt.Sprint("sharded ", runID, " ", i)
		id, _, _ := a.createScope(t, name)
		sh := shard.Of(id, 2)
		scopes[sh] = append(scopes[sh], id)
		names[id] = name
	}
	s0, s1 := scopes[0][0], scopes[1][0]
	servers := map[string]*server{"a": a, "b": b}
	owner := map[string]string{s0: "0/2", s1: "1/2"}
	word := map[string]string{s0: "quokka" + runID, s1: "pangolin" + runID}
	stored := map[string][]string{}

	t.Run("StoresThroughEitherServerReachTheOwner", func(t *testing.T) {
		for _, via := range []string{"a", "b"} {
			for _, sc := range []string{s0, s1} {
				var r struct{ StoreMemory memory }
				resp, status, by := routedDo(t, servers[via].addr, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { `+memFields+` } }`,
					map[string]any{"in": map[string]any{"scopeId": sc, "content": fmt.Sprintf("the %s seen from %s", word[sc], via)}}, nil)
				if status != http.StatusOK || len(resp.Errors) > 0 {
					t.Fatalf("store in %s via %s: HTTP %d %+v", sc, via, status, resp.Errors)
				}
				if by != owner[sc] {
					t.Fatalf("store in %s via %s answered by %q, want %q", sc, via, by, owner[sc])
				}
				if err := json.Unmarshal(resp.Data, &r); err != nil || r.StoreMemory.ScopeID != sc {
					t.Fatalf("%v %+v", err, r)
				}
				stored[sc] = append(stored[sc], r.StoreMemory.ID)
			}
		}
	})

	t.Run("SearchesThroughEitherServerFindTheirScope", func(t *testing.T) {
		for _, via := range []string{"a", "b"} {
			for _, sc := range []string{s0, s1} {
				var r struct{ SearchMemory []ranked }
				resp, status, by := routedDo(t, servers[via].addr, `query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { memory { id scopeId } } }`,
					map[string]any{"s": sc, "q": word[sc]}, nil)
				if status != http.StatusOK || len(resp.Errors) > 0 || by != owner[sc] {
					t.Fatalf("search %s via %s: HTTP %d by %q %+v", sc, via, status, by, resp.Errors)
				}
				_ = json.Unmarshal(resp.Data, &r)
				got := map[string]bool{}
				for _, h := range r.SearchMemory {
					got[h.Memory.ID] = true
				}
				if len(r.SearchMemory) != 2 || !got[stored[sc][0]] || !got[stored[sc][1]] {
					t.Fatalf("search %s via %s found %+v, want %v", sc, via, r.SearchMemory, stored[sc])
				}
			}
		}
	})

	t.Run("ExportIsRouted", func(t *testing.T) {
		resp, err := http.Get("http://" + a.addr + "/export/" + s1 + ".cyjs")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get(shardHeader) != "1/2" || !strings.Contains(string(raw), stored[s1][0]) {
			t.Fatalf("HTTP %d by %q: %.200s", resp.StatusCode, resp.Header.Get(shardHeader), raw)
		}
	})

	t.Run("AnMCPSessionLivesOnTheServerOfItsScope", func(t *testing.T) {
		// Bound by the scope's name, opened on the other server: every request of the session
		// (initialize, the tools, the stream, the close) is answered by the scope's server.
		rec := &shardRecorder{}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + a.addr + "/mcp?scope=" + url.QueryEscape(names[s1]),
			HTTPClient: &http.Client{Transport: rec}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "shard-e2e", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": word[s1]}})
		if err != nil || res.IsError {
			t.Fatalf("search_memory: %v %+v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(raw), stored[s1][0]) || !strings.Contains(string(raw), stored[s1][1]) {
			t.Fatalf("search_memory found %s, want %v", raw, stored[s1])
		}
		cs.Close()
		if by := rec.servers(); len(by) == 0 || strings.Join(by, ",") != strings.Repeat("1/2,", len(by)-1)+"1/2" {
			t.Fatalf("the session's requests were answered by %v, want 1/2 alone", by)
		}
	})

	t.Run("UnscopedRequestsAreAnsweredWhereTheyArrive", func(t *testing.T) {
		resp, _, by := routedDo(t, a.addr, `query($id: ID!) { memory(id: $id) { id } }`, map[string]any{"id": stored[s1][0]}, nil)
		if len(resp.Errors) > 0 || by != "0/2" || !strings.Contains(string(resp.Data), stored[s1][0]) {
			t.Fatalf("by %q: %s %+v", by, resp.Data, resp.Errors)
		}
	})

	t.Run("ShardTellsWhatEachServes", func(t *testing.T) {
		// b lists itself among its peers: it learns so once it answers (a second after its start
		// at most, while a peer is unknown).
		deadline := time.Now().Add(time.Minute) // a liveness bound
		for {
			resp, err := http.Get("http://" + b.addr + "/shard")
			if err != nil {
				t.Fatal(err)
			}
			var info shardInfo
			err = json.NewDecoder(resp.Body).Decode(&info)
			resp.Body.Close()
			if err != nil || info.Serves != "1/2" || info.Shard == nil || *info.Shard != 1 || *info.Of != 2 || len(info.Peers) != 2 ||
				info.Peers[0].Serves == nil || *info.Peers[0].Serves != "0/2" {
				t.Fatalf("%v %+v", err, info)
			}
			if info.Peers[1].Serves != nil && *info.Peers[1].Serves == "self" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("b never knew itself among its peers: %+v", info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("ConsumersActOnce", func(t *testing.T) {
		// Both memories of a scope, stored one after the other, are one episode: the Synapse of
		// the scope's server connects them, once.
		temporal := func(sc string) (n, created int) {
			var as struct {
				Associations []struct{ Type, TargetID string }
			}
			a.ok(t, `query($id: ID!) { associations(memoryId: $id) { type targetId } }`, map[string]any{"id": stored[sc][1]}, &as)
			for _, x := range as.Associations {
				if x.Type == "TEMPORAL" {
					n++
				}
			}
			return n, len(eventsOf(a.history(t, stored[sc][1]), string(domain.EvAssociationCreated)))
		}
		for _, sc := range []string{s0, s1} {
			deadline := time.Now().Add(time.Minute) // a liveness bound
			for n, _ := temporal(sc); n == 0; n, _ = temporal(sc) {
				if time.Now().After(deadline) {
					t.Fatalf("scope %s: the Synapse never connected its two memories", sc)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		// A claim is re-scored by the Salience consumer of its scope's server, and by no other;
		// the Synapse strengthens the claimed memory's association once.
		for _, sc := range []string{s0, s1} {
			r, _, _ := routedDo(t, b.addr, `mutation($id: ID!, $r: ID) { claimMemory(id: $id, requestId: $r) { id } }`,
				map[string]any{"id": stored[sc][0], "r": "claim-" + sc}, nil)
			if len(r.Errors) > 0 {
				t.Fatalf("%+v", r.Errors)
			}
		}
		head := max(headSeq(t, a.addr), headSeq(t, b.addr))
		caughtUp(t, a.addr, head)
		caughtUp(t, b.addr, head)
		for _, sc := range []string{s0, s1} {
			var tr struct {
				Trace struct {
					Messages []struct {
						Type    string
						Payload map[string]any
						Context struct{ MessageID, CausationID string }
					}
				}
			}
			a.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type payload context { messageId causationId } } } }`,
				map[string]any{"r": "claim-" + sc}, &tr)
			count := map[string]int{}
			scored := map[string]int{} // a memory scored for the event that caused it: twice is a consumer acting twice
			for _, m := range tr.Trace.Messages {
				count[m.Type]++
				if m.Type == string(domain.EvSalienceScored) {
					scored[fmt.Sprint(m.Context.CausationID, " ", m.Payload["memoryId"])]++
				}
			}
			if count["MemoryClaimed"] != 1 || count[string(domain.EvSalienceScored)] == 0 || count[string(domain.EvAssociationStrengthened)] != 1 {
				t.Fatalf("scope %s: the claim's trace holds %v, want one MemoryClaimed, SalienceScored and one AssociationStrengthened", sc, count)
			}
			for k, n := range scored {
				if n != 1 {
					t.Fatalf("scope %s: memory scored %d times for one event (cause and memory: %s)", sc, n, k)
				}
			}
			if n, created := temporal(sc); n != 1 || created != 1 {
				t.Fatalf("scope %s: %d TEMPORAL associations, %d AssociationCreated; want one of each", sc, n, created)
			}
		}
	})

	t.Run("AForwardedRequestIsNeverForwardedAgain", func(t *testing.T) {
		before := len(stored[s1])
		resp, status, _ := routedDo(t, a.addr, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"scopeId": s1, "content": "never stored"}}, map[string]string{hopHeader: "0/2"})
		if status != http.StatusMisdirectedRequest || len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != cortex.ESCOPENOTSERVED {
			t.Fatalf("HTTP %d %+v", status, resp.Errors)
		}
		var total struct{ Memories struct{ TotalCount int } }
		b.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": s1}, &total)
		if total.Memories.TotalCount != before {
			t.Fatalf("%d memories in the scope, want %d: a refused request wrote", total.Memories.TotalCount, before)
		}
	})

	t.Run("NoServerOfTheScope", func(t *testing.T) {
		// A server of one scope whose only peer is down.
		c := serveProcess(t, "--store", uri, "--index", dirC, "--serve-scopes", s0, "--peers", "http://127.0.0.1:1")
		defer c.stop(t)
		resp, status, by := routedDo(t, c.addr, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"scopeId": s1, "content": "never stored either"}}, nil)
		if status != http.StatusMisdirectedRequest || len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != cortex.ESCOPENOTSERVED ||
			!strings.Contains(resp.Errors[0].Message, s1) || by != s0 {
			t.Fatalf("HTTP %d by %q %+v", status, by, resp.Errors)
		}
		var total struct{ Memories struct{ TotalCount int } }
		b.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": s1}, &total)
		if total.Memories.TotalCount != len(stored[s1]) {
			t.Fatalf("%d memories in the scope, want %d", total.Memories.TotalCount, len(stored[s1]))
		}
		// Its own scope it answers, from an index that holds it alone.
		hits := c.search(t, s0, word[s0], false)
		if len(hits) != 2 {
			t.Fatalf("%d hits in its own scope, want 2", len(hits))
		}
		// A websocket is answered where it is open: a search of another scope is refused there
		// rather than answered from an index without it.
		conn, msgs := subscribeWSRaw(t, c.addr, `query($s: ID!) { searchMemory(scopeId: $s, query: "x") { score } }`, map[string]any{"s": s1})
		defer conn.Close()
		select {
		case m := <-msgs:
			raw, _ := json.Marshal(m)
			if !strings.Contains(string(raw), cortex.ESCOPENOTSERVED) {
				t.Fatalf("over a websocket: %s", raw)
			}
		case <-time.After(time.Minute):
			t.Fatal("no answer over the websocket")
		}
	})

	t.Run("ABadSpecIsOneLine", func(t *testing.T) {
		bin, err := buildBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range []string{"2/2", "tour", ""} {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "serve", "--store", uri, "--addr", "127.0.0.1:0", "--serve-scopes", spec)
			cmd.Stderr = &stderr
			err := cmd.Run()
			msg := strings.TrimSpace(stderr.String())
			if err == nil || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "totalrecall: serve --serve-scopes") || strings.Contains(msg, "goroutine") {
				t.Fatalf("spec %q: %v, stderr %q", spec, err, msg)
			}
		}
	})

	// The indexes, read once their servers stopped: each holds its scopes' documents alone.
	a.stop(t)
	b.stop(t)
	stopped = true
	for _, tc := range []struct {
		dir        string
		has, lacks string
	}{{dirA, s0, s1}, {dirB, s1, s0}} {
		idx, err := search.Open(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		has, err1 := idx.Search(context.Background(), domain.IndexQuery{ScopeID: tc.has, Text: word[tc.has], Limit: 10})
		lacks, err2 := idx.Search(context.Background(), domain.IndexQuery{ScopeID: tc.lacks, Text: word[tc.lacks], Limit: 10})
		idx.Close()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if len(has) != 2 || len(lacks) != 0 {
			t.Fatalf("index %s: %d documents of its scope, %d of the other's; want 2 and 0", tc.dir, len(has), len(lacks))
		}
	}
}

// shardRecorder is a client transport that notes which server answered each request.
type shardRecorder struct {
	mu sync.Mutex
	by []string
}

func (r *shardRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.by = append(r.by, resp.Header.Get(shardHeader))
		r.mu.Unlock()
	}
	return resp, err
}

func (r *shardRecorder) servers() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.by...)
}
