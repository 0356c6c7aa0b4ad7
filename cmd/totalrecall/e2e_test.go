package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
	"github.com/totalrecall/totalrecall/search"
)

// server is a real totalrecall server on 127.0.0.1 over a real store and Bleve index.
type server struct {
	addr   string
	cancel context.CancelFunc
	done   chan error
	// key, when set, is sent as Authorization: Bearer with every request.
	key string
	// writes counts the store's commits made for marked requests (see fails).
	writes *writeLog
}

// writeLog counts the commits made for each GraphQL request whose text carries a marker
// comment ("# request N"): the store's commit hook reads the request from the GraphQL operation
// in the context of the write.
type writeLog struct {
	mu   sync.Mutex
	by   map[string]int
	next atomic.Int64
}

var requestMarker = regexp.MustCompile(`# request \d+\n`)

func (w *writeLog) hook(ctx context.Context) {
	if !graphql.HasOperationContext(ctx) {
		return
	}
	if m := requestMarker.FindString(graphql.GetOperationContext(ctx).RawQuery); m != "" {
		w.mu.Lock()
		w.by[m]++
		w.mu.Unlock()
	}
}

// mark returns query with a marker of its own, and the marker.
func (w *writeLog) mark(query string) (string, string) {
	m := fmt.Sprintf("# request %d\n", w.next.Add(1))
	return m + query, m
}

func (w *writeLog) commits(marker string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.by[marker]
}

// as is s acting with an API key.
// Only the address, the key and the write log are shared: stopping is the server's own.
func (s *server) as(key string) *server { return &server{addr: s.addr, key: key, writes: s.writes} }

func startServer(t testing.TB, sf storeFlags) *server {
	t.Helper()
	return startServerLogging(t, sf, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// startServerLogging starts a server that logs to logger.
func startServerLogging(t testing.TB, sf storeFlags, logger *slog.Logger) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string, 1)
	s := &server{cancel: cancel, done: make(chan error, 1), writes: &writeLog{by: map[string]int{}}}
	sf.commitHooks.After = s.writes.hook
	go func() { s.done <- serveOn(ctx, sf, "127.0.0.1:0", io.Discard, logger, started) }()
	select {
	case s.addr = <-started:
	case err := <-s.done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(5 * time.Minute):
		// A liveness bound, not a speed check: a start replays the index's missing events,
		// which on a loaded machine under the race detector can take a while. Shut the
		// server down before failing, so the embedded engine is free for the next test.
		cancel()
		<-s.done
		t.Fatal("server did not start within 5 minutes")
	}
	return s
}

func (s *server) stop(t testing.TB) {
	t.Helper()
	s.cancel()
	if err := <-s.done; err != nil {
		t.Fatalf("server stopped with %v", err)
	}
}

type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

type gqlResponse struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

func (s *server) do(t testing.TB, query string, vars map[string]any) gqlResponse {
	t.Helper()
	out, err := s.try(query, vars)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// try runs query and reports transport failures as errors (safe off the test goroutine).
func (s *server) try(query string, vars map[string]any) (gqlResponse, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, "http://"+s.addr+"/query", bytes.NewReader(body))
	if err != nil {
		return gqlResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return gqlResponse{}, err
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return gqlResponse{}, fmt.Errorf("decode response (status %d): %w", resp.StatusCode, err)
	}
	return out, nil
}

// ok runs query and decodes its data into out, failing on any error.
func (s *server) ok(t testing.TB, query string, vars map[string]any, out any) {
	t.Helper()
	r := s.do(t, query, vars)
	if len(r.Errors) > 0 {
		t.Fatalf("query failed: %+v\n%s", r.Errors, query)
	}
	if out != nil {
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatal(err)
		}
	}
}

// fails runs query and checks that it fails with code and that the store committed nothing for
// it.
func (s *server) fails(t testing.TB, code, query string, vars map[string]any) {
	t.Helper()
	if s.writes == nil {
		t.Fatal("fails checks the writes of a server started in this process")
	}
	marked, marker := s.writes.mark(query)
	r := s.do(t, marked, vars)
	if len(r.Errors) == 0 {
		t.Fatalf("query succeeded, want %s: %s", code, r.Data)
	}
	if got := r.Errors[0].Extensions["code"]; got != code {
		t.Fatalf("code = %v (%s), want %s", got, r.Errors[0].Message, code)
	}
	if n := s.writes.commits(marker); n != 0 {
		t.Fatalf("refused with %s, yet the store committed %d writes for it:\n%s", code, n, query)
	}
}

// okWrites runs query like ok and returns how many commits the store made for it.
func (s *server) okWrites(t testing.TB, query string, vars map[string]any, out any) int {
	t.Helper()
	marked, marker := s.writes.mark(query)
	s.ok(t, marked, vars, out)
	return s.writes.commits(marker)
}

const memFields = `id scopeId content tier kind metadata tags salience claimed claimedAt occurredAt accessCount state version`

type memory struct {
	ID          string         `json:"id"`
	ScopeID     string         `json:"scopeId"`
	Content     string         `json:"content"`
	Tier        string         `json:"tier"`
	Kind        string         `json:"kind"`
	Metadata    map[string]any `json:"metadata"`
	Tags        []string       `json:"tags"`
	Salience    float64        `json:"salience"`
	Claimed     bool           `json:"claimed"`
	AccessCount int            `json:"accessCount"`
	State       string         `json:"state"`
	Version     int            `json:"version"`
}

func (s *server) createScope(t testing.TB, name string) (id, agent, world string) {
	t.Helper()
	var r struct {
		CreateScope struct {
			ID          string
			AgentKernel struct{ ID string }
			WorldKernel struct{ ID string }
		}
	}
	s.ok(t, `mutation($n: String!) { createScope(name: $n) { id agentKernel { id } worldKernel { id } } }`, map[string]any{"n": name}, &r)
	return r.CreateScope.ID, r.CreateScope.AgentKernel.ID, r.CreateScope.WorldKernel.ID
}

func (s *server) store(t testing.TB, in map[string]any) memory {
	t.Helper()
	var r struct{ StoreMemory memory }
	s.ok(t, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { `+memFields+` } }`, map[string]any{"in": in}, &r)
	return r.StoreMemory
}

type ranked struct {
	Memory     memory
	Score      float64
	Reason     string
	TextScore  float64
	Activation float64
	Via        *struct{ SourceID, TargetID, Type string }
}

func (s *server) search(t testing.TB, scope, q string, assoc bool) []ranked {
	t.Helper()
	var r struct{ SearchMemory []ranked }
	s.ok(t, `query($s: ID!, $q: String!, $a: Boolean) { searchMemory(scopeId: $s, query: $q, maxResults: 50, includeAssociations: $a) {
		memory { `+memFields+` } score reason textScore activation via { sourceId targetId type } } }`, map[string]any{"s": scope, "q": q, "a": assoc}, &r)
	return r.SearchMemory
}

// runID keeps request ids of this run apart from earlier runs on the same cluster.
var runID = fmt.Sprint(time.Now().UnixNano())

// e2eTests run against every backend; each works in scopes of its own.
var e2eTests = []struct {
	name string
	fn   func(*testing.T, *server)
}{
	{"HealthAndPlayground", testHealthAndPlayground},
	{"ScopeHasExactlyTwoKernels", testScopeHasExactlyTwoKernels},
	{"StoreLoadSearchRoundTrip", testStoreLoadSearchRoundTrip},
	{"BadInputWritesNothing", testBadInputWritesNothing},
	{"AssociationsAndCrossScopeBan", testAssociationsAndCrossScopeBan},
	{"ClaimRetriedOnceHistoryAndTrace", testClaimRetriedOnceHistoryAndTrace},
	{"StoreRetriedWithSameRequestID", testStoreRetriedWithSameRequestID},
	{"ReclassifyAndDelete", testReclassifyAndDelete},
	{"MemoryEventsOverWebsocketAndSSE", testMemoryEventsOverWebsocketAndSSE},
	{"SlowSubscriberNeverBlocksWrites", testSlowSubscriberNeverBlocksWrites},
	{"SessionLifecycle", testSessionLifecycle},
	{"BreakNotification", testBreakNotification},
	{"TotalRecall", testTotalRecall},
	{"TotalRecallThrottled", testTotalRecallThrottled},
	{"DecayOverASimulatedYear", testDecayOverASimulatedYear},
	{"ReflectAndReclassify", testReflectAndReclassify},
	{"Consolidate", testConsolidate},
	{"WorkingMemoryAndPromptContext", testWorkingMemoryAndPromptContext},
	{"ResonateAndHeartbeatIsolation", testResonateAndHeartbeatIsolation},
	{"NotificationsNeedAnAddressee", testNotificationsNeedAnAddressee},
	{"ArtifactFamilies", testArtifactFamilies},
	{"RefgraphAndDerivedView", testRefgraphAndDerivedView},
	{"DigestPasses", testDigestPasses},
	{"ExplicitDelete", testExplicitDelete},
	{"DeleteScopeTwoScopes", testDeleteScopeTwoScopes},
	{"RequestReplayDiesWithScope", testRequestReplayDiesWithScope},
	{"DigestRemovesOnlyWhatADigestArchived", testDigestRemovesOnlyWhatADigestArchived},
	{"SkillsListProposeArchiveRestore", testSkillsListProposeArchiveRestore},
	{"RefusedDigestPassLeavesNothing", testRefusedDigestPassLeavesNothing},
	{"DigestCommand", testDigestCommand},
	{"ImportLoCoMo", testImportLoCoMo},
	{"ImportEventsAndEpisodes", testImportEventsAndEpisodes},
	{"ImportBadInputWritesNothing", testImportBadInputWritesNothing},
	{"AgentsAndForkContext", testAgentsAndForkContext},
	{"AnalyzeAsync", testAnalyzeAsync},
	{"StoryDigestWithoutModel", testStoryDigestWithoutModel},
	{"Journal", testJournal},
}

// backends are the stores the end-to-end suite runs on: the embedded engine always, a Dgraph
// cluster when TOTALRECALL_TEST_DGRAPH names one.
func backends(t *testing.T) map[string]func(t *testing.T) storeFlags {
	b := map[string]func(t *testing.T) storeFlags{
		"embedded": func(t *testing.T) storeFlags { return storeFlags{store: "file://" + t.TempDir()} },
	}
	if uri := os.Getenv("TOTALRECALL_TEST_DGRAPH"); uri != "" {
		b["cluster"] = func(t *testing.T) storeFlags {
			return storeFlags{store: uri, index: filepath.Join(t.TempDir(), "index")}
		}
	}
	return b
}

func TestEndToEnd(t *testing.T) {
	for _, name := range []string{"embedded", "cluster"} {
		t.Run(name, func(t *testing.T) {
			sf, ok := backends(t)[name]
			if !ok {
				t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
			}
			flags := withLiving(sf(t))
			s := startServer(t, flags)
			for _, tc := range e2eTests {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, s) })
			}
			s.stop(t)
			// Deleting the index folder and restarting loses nothing: the log rebuilds it.
			t.Run("IndexRebuiltFromEventLog", func(t *testing.T) { testRestart(t, flags) })
			t.Run("ReindexCommand", func(t *testing.T) { testReindexCommand(t, flags) })
		})
	}
}

func testHealthAndPlayground(t *testing.T, s *server) {
	resp, err := http.Get("http://" + s.addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp, err = http.Get("http://" + s.addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("playground: status %d", resp.StatusCode)
	}
	// The page's script: where GraphiQL sends queries and subscriptions, built from the page's
	// location exactly as the browser would for http://ADDR/.
	queryURL, subURL := playgroundURLs(t, string(body), "http:", s.addr)
	if queryURL != "http://"+s.addr+"/query" {
		t.Fatalf("playground sends queries to %s, want http://%s/query", queryURL, s.addr)
	}

	// The playground can run a subscription: subscribe where the page would, with the
	// subprotocol of GraphiQL's createFetcher, then store a memory through the page's query URL.
	scope, _, _ := s.createScope(t, "playground subscription")
	conn, events := subscribeWSURL(t, subURL, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }`, map[string]any{"s": scope})
	defer conn.Close()
	time.Sleep(200 * time.Millisecond) // let the subscription register
	req, _ := json.Marshal(map[string]any{
		"query":     `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
		"variables": map[string]any{"in": map[string]any{"scopeId": scope, "content": "seen in the playground"}},
	})
	resp, err = http.Post(queryURL, "application/json", bytes.NewReader(req))
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Data   struct{ StoreMemory struct{ ID string } }
		Errors []gqlError
	}
	err = json.NewDecoder(resp.Body).Decode(&stored)
	resp.Body.Close()
	if err != nil || len(stored.Errors) > 0 || stored.Data.StoreMemory.ID == "" {
		t.Fatalf("storeMemory through the playground's URL: %v %+v", err, stored.Errors)
	}
	for {
		select {
		case p, ok := <-events:
			if !ok {
				t.Fatal("the playground's subscription closed before MemoryStored arrived")
			}
			ev, _ := p["data"].(map[string]any)["memoryEvents"].(map[string]any)
			if ev["type"] == "MemoryStored" && ev["memoryId"] == stored.Data.StoreMemory.ID {
				return
			}
		case <-time.After(30 * time.Second): // a liveness bound, not a speed check
			t.Fatal("no MemoryStored on the playground's subscription URL")
		}
	}
}

// pgEndpoint is the playground page's GraphQL endpoint, relative to the page: its script sends
// queries there and opens graphql-transport-ws subscriptions on the same URL with ws: or wss:.
var pgEndpoint = regexp.MustCompile(`<meta name="totalrecall-graphql" content="([^"]*)">`)

// playgroundURLs reads the playground page and answers the query and subscription URLs its
// script computes when loaded from protocol//host/ (scripts/web/playground.jsx).
func playgroundURLs(t *testing.T, page, protocol, host string) (queryURL, subURL string) {
	t.Helper()
	m := pgEndpoint.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the playground page no longer names its GraphQL endpoint (meta totalrecall-graphql):\n%.2000s", page)
	}
	base, err := url.Parse(protocol + "//" + host + "/")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := url.Parse(m[1])
	if err != nil {
		t.Fatalf("endpoint %q: %v", m[1], err)
	}
	queryURL = base.ResolveReference(ref).String()
	return queryURL, "ws" + strings.TrimPrefix(queryURL, "http")
}

func testScopeHasExactlyTwoKernels(t *testing.T, s *server) {
	id, agent, world := s.createScope(t, "kernels")
	if agent == "" || world == "" || agent == world {
		t.Fatalf("kernels %q %q", agent, world)
	}
	var r struct {
		Scope struct {
			Name        string
			AgentKernel struct{ ID, Family string }
			WorldKernel struct{ ID, Family string }
		}
	}
	s.ok(t, `query($id: ID!) { scope(id: $id) { name agentKernel { id family } worldKernel { id family } } }`, map[string]any{"id": id}, &r)
	if r.Scope.AgentKernel.ID != agent || r.Scope.WorldKernel.Family != "world_model_kernel" {
		t.Fatalf("scope = %+v", r.Scope)
	}
	s.fails(t, "INVALID_ARGUMENT", `mutation { createScope(name: "  ") { id } }`, nil)
}

func testStoreLoadSearchRoundTrip(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "roundtrip")
	for i, nasty := range storetest.Nasty {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			content := "zebracorn remembers " + nasty
			m := s.store(t, map[string]any{"scopeId": scope, "content": content, "tags": []string{nasty},
				"metadata": map[string]any{nasty: nasty}, "kind": "SEMANTIC", "suggestedTier": "ARCHIVE"})
			if m.Content != content || m.Tags[0] != nasty || m.Metadata[nasty] != nasty {
				t.Fatalf("stored %+v", m)
			}
			if m.Tier != "LONG_TERM" {
				t.Fatalf("a new memory suggested for ARCHIVE got tier %s, want LONG_TERM", m.Tier)
			}
			var r struct{ Memory memory }
			s.ok(t, `query($id: ID!) { memory(id: $id) { `+memFields+` } }`, map[string]any{"id": m.ID}, &r)
			if r.Memory.Content != content || r.Memory.AccessCount != 1 {
				t.Fatalf("loaded %+v", r.Memory)
			}
		})
	}
	// Searchable as soon as storeMemory returned.
	hits := s.search(t, scope, "zebracorn", false)
	if len(hits) != len(storetest.Nasty) {
		t.Fatalf("search found %d, want %d", len(hits), len(storetest.Nasty))
	}
	for _, h := range hits {
		if h.Reason != "TEXT" || h.Memory.ScopeID != scope || h.Score <= 0 {
			t.Fatalf("hit %+v", h)
		}
	}
	// Never crosses scopes.
	other, _, _ := s.createScope(t, "other")
	if got := s.search(t, other, "zebracorn", false); len(got) != 0 {
		t.Fatalf("search of another scope found %d", len(got))
	}
}

func testBadInputWritesNothing(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "bad input")
	store := `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`
	// The refusals below are checked to commit nothing; a store that commits is seen to.
	other, _, _ := s.createScope(t, "bad input, the store that works")
	if n := s.okWrites(t, store, map[string]any{"in": map[string]any{"scopeId": other, "content": "fine"}}, nil); n < 1 {
		t.Fatalf("a stored memory committed %d writes the test could attribute to its request", n)
	}
	cases := []struct {
		name string
		in   map[string]any
	}{
		{"empty content", map[string]any{"scopeId": scope, "content": ""}},
		{"blank content", map[string]any{"scopeId": scope, "content": " \n\t"}},
		{"huge content", map[string]any{"scopeId": scope, "content": strings.Repeat("x", 1<<20+1)}},
		{"bad scope uuid", map[string]any{"scopeId": "not-a-uuid", "content": "x"}},
		{"dql in scope id", map[string]any{"scopeId": `"); drop all`, "content": "x"}},
		{"unknown tier", map[string]any{"scopeId": scope, "content": "x", "suggestedTier": "HEAVEN"}},
		{"importance out of range", map[string]any{"scopeId": scope, "content": "x", "importance": 2}},
		{"blank tag", map[string]any{"scopeId": scope, "content": "x", "tags": []string{""}}},
		{"nul byte", map[string]any{"scopeId": scope, "content": "a\x00b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { s.fails(t, "INVALID_ARGUMENT", store, map[string]any{"in": c.in}) })
	}
	s.fails(t, "NOT_FOUND", store, map[string]any{"in": map[string]any{"scopeId": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", "content": "x"}})
	// A batch with one bad input writes none.
	s.fails(t, "INVALID_ARGUMENT", `mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id } }`,
		map[string]any{"ins": []map[string]any{{"scopeId": scope, "content": "fine"}, {"scopeId": scope, "content": ""}}})
	var r struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &r)
	if r.Memories.TotalCount != 0 {
		t.Fatalf("bad input wrote %d memories", r.Memories.TotalCount)
	}
	s.fails(t, "INVALID_ARGUMENT", `{ memory(id: "x") { id } }`, nil)
	s.fails(t, "INVALID_ARGUMENT", `{ nosuchfield }`, nil)
	s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { searchMemory(scopeId: $s, query: "") { score } }`, map[string]any{"s": scope})
}

func testAssociationsAndCrossScopeBan(t *testing.T, s *server) {
	s1, _, _ := s.createScope(t, "assoc one")
	s2, _, _ := s.createScope(t, "assoc two")
	a := s.store(t, map[string]any{"scopeId": s1, "content": "lighthouse keeper diary"})
	b := s.store(t, map[string]any{"scopeId": s1, "content": "storm at sea"})
	x := s.store(t, map[string]any{"scopeId": s2, "content": "foreign memory"})
	assoc := `mutation($in: AssociateInput!) { associateMemories(input: $in) { sourceId targetId type strength } }`
	s.fails(t, "CROSS_SCOPE_REFERENCE", assoc, map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": x.ID, "type": "CAUSAL", "strength": 0.9}})
	s.fails(t, "INVALID_ARGUMENT", assoc, map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "CAUSAL", "strength": 1.5}})
	s.fails(t, "INVALID_ARGUMENT", assoc, map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "NOPE", "strength": 0.5}})
	s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": a.ID, "targetId": b.ID, "type": "CAUSAL", "strength": 0.6}}, nil)
	s.fails(t, "CONFLICT", assoc, map[string]any{"in": map[string]any{"sourceId": b.ID, "targetId": a.ID, "type": "CAUSAL", "strength": 0.6}})
	s.ok(t, assoc, map[string]any{"in": map[string]any{"sourceId": b.ID, "targetId": a.ID, "type": "CAUSAL", "strength": 0.2, "direction": "STRENGTHEN"}}, nil)
	for _, from := range []memory{a, b} {
		var r struct {
			Associations []struct {
				SourceID, TargetID, Type string
				Strength                 float64
			}
		}
		s.ok(t, `query($m: ID!) { associations(memoryId: $m) { sourceId targetId type strength } }`, map[string]any{"m": from.ID}, &r)
		if len(r.Associations) != 1 || r.Associations[0].SourceID != from.ID || fmt.Sprintf("%.2f", r.Associations[0].Strength) != "0.80" {
			t.Fatalf("from %s: %+v", from.Content, r.Associations)
		}
	}
	var r struct{ Associations []any }
	s.ok(t, `query($m: ID!) { associations(memoryId: $m) { type } }`, map[string]any{"m": x.ID}, &r)
	if len(r.Associations) != 0 {
		t.Fatalf("refused cross-scope association was written")
	}
	// Spreading activation: "storm" finds b by text and a through the association.
	hits := s.search(t, s1, "storm", true)
	if len(hits) != 2 || hits[0].Memory.ID != b.ID || hits[1].Memory.ID != a.ID || hits[1].Reason != "ASSOCIATION" ||
		hits[1].Via == nil || hits[1].Via.Type != "CAUSAL" || hits[1].Score >= hits[0].Score {
		t.Fatalf("spreading activation: %+v", hits)
	}
	// score = parent score × strength × 0.5, the strength 0.6 + 0.2.
	if want := hits[0].Score * 0.8 * 0.5; !nearly(hits[1].Score, want) || !nearly(hits[1].Activation, want) {
		t.Fatalf("association hit scores %v (activation %v), want %v × 0.8 × 0.5 = %v", hits[1].Score, hits[1].Activation, hits[0].Score, want)
	}
	// Without associations no hit comes through one (the Synapse's episode of the scope may
	// still bring its other memories as CONTEXT).
	got := s.search(t, s1, "storm", false)
	if len(got) == 0 || got[0].Memory.ID != b.ID || got[0].Reason != "TEXT" {
		t.Fatalf("without associations: %+v, want b first", got)
	}
	for _, h := range got {
		if h.Reason == "ASSOCIATION" || h.Via != nil {
			t.Fatalf("without associations: %+v came through an association", h)
		}
	}
}

func testClaimRetriedOnceHistoryAndTrace(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "claims")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "the user's birthday is March 3", "sessionId": "sess-1"})
	rid := "req-claim-" + runID
	claim := `mutation($id: ID!, $r: ID) { claimMemory(id: $id, requestId: $r, sessionId: "sess-1") { ` + memFields + ` } }`
	var first, again struct{ ClaimMemory memory }
	s.ok(t, claim, map[string]any{"id": m.ID, "r": rid}, &first)
	s.ok(t, claim, map[string]any{"id": m.ID, "r": rid}, &again)
	if !first.ClaimMemory.Claimed || first.ClaimMemory.Salience <= m.Salience || again.ClaimMemory.Version != first.ClaimMemory.Version {
		t.Fatalf("claim %+v, retry %+v", first.ClaimMemory, again.ClaimMemory)
	}
	var h struct {
		History []struct {
			Type    string
			Seq     int
			Context struct{ SessionID, RequestID, MessageID, CausationID, Timestamp, SourceContext string }
		}
	}
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type seq context { sessionId requestId messageId causationId timestamp sourceContext } } }`,
		map[string]any{"id": m.ID}, &h)
	var types []string
	for i, e := range h.History {
		types = append(types, e.Type)
		c := e.Context
		if c.SessionID == "" || c.RequestID == "" || c.MessageID == "" || c.CausationID == "" || c.Timestamp == "" || c.SourceContext == "" {
			t.Fatalf("event %s has an empty context field: %+v", e.Type, c)
		}
		if i > 0 && e.Seq <= h.History[i-1].Seq {
			t.Fatalf("history out of order")
		}
	}
	want := "StoreCommand MemoryStored ClaimCommand MemoryClaimed"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("history = %s, want %s (a retried claim applies once)", got, want)
	}
	// The trace of the claim: Cortex's command caused the Hippocampus's MemoryClaimed, which
	// Salience and Synapse consumed (their touches arrive asynchronously).
	deadline := time.Now().Add(5 * time.Second)
	for {
		var tr struct {
			Trace struct {
				Roots []struct {
					Event    struct{ Type string }
					Children []struct {
						Event struct {
							Type    string
							Context struct{ CausationID, SessionID string }
							Touches []struct{ Context string }
						}
					}
				}
			}
		}
		s.ok(t, `query($rid: ID!) { trace(requestId: $rid) { roots { event { type } children { event { type context { causationId sessionId } touches { context } } } } } }`, map[string]any{"rid": rid}, &tr)
		roots := tr.Trace.Roots
		if len(roots) != 1 || roots[0].Event.Type != "ClaimCommand" || len(roots[0].Children) != 1 || roots[0].Children[0].Event.Type != "MemoryClaimed" {
			t.Fatalf("trace = %+v", roots)
		}
		child := roots[0].Children[0].Event
		if child.Context.SessionID != "sess-1" {
			t.Fatalf("session not propagated: %+v", child.Context)
		}
		var touched []string
		for _, tc := range child.Touches {
			touched = append(touched, tc.Context)
		}
		got := strings.Join(touched, ",")
		if strings.Contains(got, "Salience") && strings.Contains(got, "Synapse") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("MemoryClaimed touches = %q, want Salience and Synapse", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The same requestId for a different claim is refused.
	other := s.store(t, map[string]any{"scopeId": scope, "content": "another"})
	s.fails(t, "CONFLICT", claim, map[string]any{"id": other.ID, "r": rid})
}

func testStoreRetriedWithSameRequestID(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "retries")
	in := map[string]any{"scopeId": scope, "content": "said once", "requestId": "store-req-" + runID}
	a, b := s.store(t, in), s.store(t, in)
	if a.ID != b.ID {
		t.Fatalf("retry stored a second memory: %s vs %s", a.ID, b.ID)
	}
	var r struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &r)
	if r.Memories.TotalCount != 1 {
		t.Fatalf("%d memories after a retry, want 1", r.Memories.TotalCount)
	}
}

func testReclassifyAndDelete(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "lifecycle")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "quokka sighting on the island"})
	var r struct{ ReclassifyMemory memory }
	s.ok(t, `mutation($id: ID!) { reclassifyMemory(input: {id: $id, tier: IDENTITY_CORE, metadata: {why: "core"}, reason: "mind says so"}) { `+memFields+` } }`,
		map[string]any{"id": m.ID}, &r)
	if r.ReclassifyMemory.Tier != "IDENTITY_CORE" || r.ReclassifyMemory.Metadata["why"] != "core" {
		t.Fatalf("reclassified %+v", r.ReclassifyMemory)
	}
	var f struct {
		SearchMemory []ranked
	}
	s.ok(t, `query($s: ID!) { searchMemory(scopeId: $s, query: "quokka", filters: {tiers: [IDENTITY_CORE]}) { memory { id tier } } }`, map[string]any{"s": scope}, &f)
	if len(f.SearchMemory) != 1 {
		t.Fatalf("tier filter after reclassify: %d hits", len(f.SearchMemory))
	}
	s.ok(t, `mutation($id: ID!) { deleteMemory(id: $id, reason: "asked") { id } }`, map[string]any{"id": m.ID}, nil)
	var l struct{ Memory *memory }
	s.ok(t, `query($id: ID!) { memory(id: $id) { id } }`, map[string]any{"id": m.ID}, &l)
	if l.Memory != nil {
		t.Fatal("deleted memory still loads")
	}
	if got := s.search(t, scope, "quokka", false); len(got) != 0 {
		t.Fatalf("deleted memory still searchable")
	}
	var h struct{ History []struct{ Type string } }
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": m.ID}, &h)
	if last := h.History[len(h.History)-1].Type; last != "MemoryDeleted" {
		t.Fatalf("last event %s, want MemoryDeleted (audited)", last)
	}
	s.fails(t, "NOT_FOUND", `mutation($id: ID!) { deleteMemory(id: $id) { id } }`, map[string]any{"id": m.ID})
}

// wsClient speaks graphql-transport-ws.
func subscribeWS(t *testing.T, addr, query string, vars map[string]any) (*websocket.Conn, <-chan map[string]any) {
	t.Helper()
	return subscribeWSURL(t, "ws://"+addr+"/query", query, vars)
}

// subscribeWSURL subscribes over graphql-transport-ws at url (ws://HOST/PATH).
func subscribeWSURL(t *testing.T, url, query string, vars map[string]any) (*websocket.Conn, <-chan map[string]any) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, resp, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if resp.Header.Get("Sec-Websocket-Protocol") != "graphql-transport-ws" {
		t.Fatalf("negotiated protocol %q", resp.Header.Get("Sec-Websocket-Protocol"))
	}
	must := func(v any) {
		if err := conn.WriteJSON(v); err != nil {
			t.Fatal(err)
		}
	}
	must(map[string]any{"type": "connection_init"})
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("ack = %v, %v", ack, err)
	}
	must(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}})
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		for {
			var msg map[string]any
			if err := conn.ReadJSON(&msg); err != nil {
				return
			}
			switch msg["type"] {
			case "next":
				out <- msg["payload"].(map[string]any)
			case "ping":
				_ = conn.WriteJSON(map[string]any{"type": "pong"})
			}
		}
	}()
	return conn, out
}

func testMemoryEventsOverWebsocketAndSSE(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "subscriptions")
	other, _, _ := s.createScope(t, "subscriptions other")
	sub := `subscription($s: ID!) { memoryEvents(scopeId: $s) { type scopeId memoryId context { requestId } } }`
	conn, events := subscribeWS(t, s.addr, sub, map[string]any{"s": scope})
	defer conn.Close()

	// SSE on the same subscription.
	body, _ := json.Marshal(map[string]any{"query": sub, "variables": map[string]any{"s": scope}})
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/query", bytes.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sse := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data:") {
				sse <- line
			}
		}
	}()
	time.Sleep(200 * time.Millisecond) // let both subscriptions register

	s.store(t, map[string]any{"scopeId": other, "content": "not for this subscriber"})
	m := s.store(t, map[string]any{"scopeId": scope, "content": "pushed to subscribers", "requestId": "sub-req-" + runID})
	var got []string
	timeout := time.After(5 * time.Second)
	for len(got) < 2 {
		select {
		case p := <-events:
			ev := p["data"].(map[string]any)["memoryEvents"].(map[string]any)
			if ev["scopeId"] != scope {
				t.Fatalf("event of another scope delivered: %v", ev)
			}
			if ev["memoryId"] == m.ID {
				got = append(got, ev["type"].(string))
			}
		case <-timeout:
			t.Fatalf("websocket got %v within 5s, want StoreCommand and MemoryStored", got)
		}
	}
	if strings.Join(got, " ") != "StoreCommand MemoryStored" {
		t.Fatalf("websocket events %v", got)
	}
	select {
	case line := <-sse:
		if !strings.Contains(line, scope) {
			t.Fatalf("SSE event %s", line)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no SSE event within 5s")
	}
}

func testRestart(t *testing.T, sf storeFlags) {
	s := startServer(t, sf)
	scope, _, _ := s.createScope(t, "restart")
	m := s.store(t, map[string]any{"scopeId": scope, "content": "narwhal tusks are teeth"})
	s.stop(t)

	idx := sf.index
	if idx == "" {
		idx = filepath.Join(strings.TrimPrefix(sf.store, "file://"), "index")
	}
	if err := os.RemoveAll(idx); err != nil {
		t.Fatal(err)
	}
	s = startServer(t, sf)
	defer s.stop(t)
	hits := s.search(t, scope, "narwhal", false)
	if len(hits) != 1 || hits[0].Memory.ID != m.ID {
		t.Fatalf("after deleting the index and restarting: %+v", hits)
	}
	// And the graph kept everything.
	var r struct{ Memory memory }
	s.ok(t, `query($id: ID!) { memory(id: $id) { `+memFields+` } }`, map[string]any{"id": m.ID}, &r)
	if r.Memory.Content != m.Content {
		t.Fatalf("after restart: %+v", r.Memory)
	}
}

// testReindexCommand rebuilds the index with `totalrecall reindex` and finds every memory again.
func testReindexCommand(t *testing.T, sf storeFlags) {
	args := []string{"reindex", "--store", sf.store}
	if sf.index != "" {
		args = append(args, "--index", sf.index)
	}
	var out bytes.Buffer
	if err := run(args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(out.String(), "reindexed %d memories", &n); err != nil || n == 0 {
		t.Fatalf("reindex said %q", out.String())
	}
	s := startServer(t, sf)
	defer s.stop(t)
	scope, _, _ := s.createScope(t, "after reindex")
	if hits := s.search(t, scope, "narwhal", false); len(hits) != 0 {
		t.Fatalf("a new scope found %d hits", len(hits))
	}
	var r struct{ Scopes []struct{ ID, Name string } }
	s.ok(t, `{ scopes { id name } }`, nil, &r)
	restarted := 0
	for _, sc := range r.Scopes {
		if sc.Name == "restart" {
			restarted++
			if hits := s.search(t, sc.ID, "narwhal", false); len(hits) != 1 {
				t.Fatalf("after reindex the restart scope's memory is found %d times, want once", len(hits))
			}
		}
	}
	// IndexRebuiltFromEventLog made one (a shared cluster may hold those of earlier runs).
	if restarted == 0 {
		t.Fatal("no scope of IndexRebuiltFromEventLog to search after the reindex")
	}
}

// openStack opens the store, index and Cortex of sf in the test's process, closed when the
// test ends.
func openStack(t *testing.T, sf storeFlags) (*graph.Store, *search.Index, *cortex.Cortex) {
	t.Helper()
	st, idx, cx, err := sf.open(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sf.unlockData() })
	t.Cleanup(func() { st.Close() })
	t.Cleanup(func() { idx.Close() })
	t.Cleanup(func() { cx.Close() })
	return st, idx, cx
}
