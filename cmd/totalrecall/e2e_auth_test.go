package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
)

// makeAdminKey makes the first ADMIN key the way an operator does: `keys create --store` with
// the server stopped.
func makeAdminKey(t *testing.T, sf storeFlags) string {
	t.Helper()
	var out, errs bytes.Buffer
	if err := run([]string{"keys", "create", "--role", "admin", "--name", "root", "--store", sf.store}, &out, &errs); err != nil {
		t.Fatalf("keys create --store: %v\n%s", err, errs.String())
	}
	key := strings.TrimSpace(out.String())
	if !strings.HasPrefix(key, "trk_") || len(key) != 47 || !strings.Contains(errs.String(), "shown once") {
		t.Fatalf("keys create printed %q / %q", key, errs.String())
	}
	return key
}

// startAuthServer starts `serve --auth` (introspection asked for, no rate limit) with a first
// ADMIN key.
func startAuthServer(t *testing.T, sf storeFlags) (*server, string) {
	t.Helper()
	key := makeAdminKey(t, sf)
	on := true
	sf.expose = exposeFlags{auth: true, introspection: &on, maxComplexity: defaultMaxComplexity, maxDepth: defaultMaxDepth}
	return startServer(t, sf), key
}

// rawRequest sends one request and returns its status and GraphQL error code.
func rawRequest(t *testing.T, method, url, key, contentType, accept string, body io.Reader) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var gr gqlResponse
	code := ""
	if json.Unmarshal(raw, &gr) == nil && len(gr.Errors) > 0 {
		code, _ = gr.Errors[0].Extensions["code"].(string)
	}
	return resp.StatusCode, code, resp.Header
}

func TestAuthEndToEnd(t *testing.T) {
	for _, name := range []string{"embedded", "cluster"} {
		t.Run(name, func(t *testing.T) {
			sf, ok := backends(t)[name]
			if !ok {
				t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
			}
			s, adminKey := startAuthServer(t, sf(t))
			defer s.stop(t)
			admin := s.as(adminKey)
			t.Run("Doors", func(t *testing.T) { testDoors(t, s, adminKey) })
			own, _, _ := admin.createScope(t, "granted "+runID)
			writerKey := createKey(t, admin, "WRITE", own, "writer")
			readerKey := createKey(t, admin, "READ", own, "reader")
			t.Run("ScopedKeys", func(t *testing.T) { testScopedKeys(t, s, admin, own, writerKey, readerKey) })
			t.Run("SchemaWalk", func(t *testing.T) { testSchemaWalk(t, admin, s.as(writerKey), s.as(writerKey), own) })
			t.Run("RevokedAndExpiredKeysCloseTheirSockets", func(t *testing.T) { testRevocationClosesSockets(t, s, admin, own) })
			t.Run("KeysCommandThroughTheServer", func(t *testing.T) { testKeysCommand(t, s, adminKey, own) })
			t.Run("AgentsCarryTheKey", func(t *testing.T) { testAgentsCarryTheKey(t, s, admin, own, writerKey) })
		})
	}
}

func createKey(t *testing.T, admin *server, role, scope, name string) string {
	t.Helper()
	in := map[string]any{"role": role, "name": name}
	if scope != "" {
		in["scopeId"] = scope
	}
	var r struct {
		CreateAPIKey struct {
			ID, Key string
			APIKey  struct{ ID, Role, ScopeID string } `json:"apiKey"`
		} `json:"createApiKey"`
	}
	admin.ok(t, `mutation($in: ApiKeyInput!) { createApiKey(input: $in) { id key apiKey { id role scopeId } } }`, map[string]any{"in": in}, &r)
	k := r.CreateAPIKey
	if k.ID == "" || k.APIKey.ID != k.ID || k.APIKey.Role != role || (scope != "" && k.APIKey.ScopeID != scope) || !strings.HasPrefix(k.Key, "trk_") {
		t.Fatalf("createApiKey answered %+v", k)
	}
	return k.Key
}

func testDoors(t *testing.T, s *server, adminKey string) {
	base := "http://" + s.addr
	q := `{"query":"{ scopes { id } }"}`
	for _, tc := range []struct {
		name, method, path, key, ct, accept string
		body                                string
		status                              int
		code                                string
	}{
		{"POST without a key", "POST", "/query", "", "application/json", "", q, 401, domain.EUNAUTHENTICATED},
		{"GET without a key", "GET", "/query?query=%7Bscopes%7Bid%7D%7D", "", "", "", "", 401, domain.EUNAUTHENTICATED},
		{"SSE without a key", "POST", "/query", "", "application/json", "text/event-stream",
			`{"query":"subscription { notifications(instanceId: \"x\") { __typename } }"}`, 401, domain.EUNAUTHENTICATED},
		{"unknown key", "POST", "/query", "Bearer " + domain.APIKeyPrefix + strings.Repeat("A", 43), "application/json", "", q, 401, domain.EUNAUTHENTICATED},
		{"malformed key", "POST", "/query", "Bearer hunter2", "application/json", "", q, 401, domain.EUNAUTHENTICATED},
		{"another scheme", "POST", "/query", "Basic cm9vdDpyb290", "application/json", "", q, 401, domain.EUNAUTHENTICATED},
		{"another path", "GET", "/mcp", "", "", "", "", 401, domain.EUNAUTHENTICATED},
		{"an export path", "GET", "/export/x.json", "", "", "", "", 401, domain.EUNAUTHENTICATED},
		{"the playground's neighbours", "GET", "/explorer", "", "", "", "", 401, domain.EUNAUTHENTICATED},
		{"the explorer page", "GET", "/explore", "", "", "", "", 200, ""},
		{"a page's asset", "GET", "/assets/explorer/explorer.js", "", "", "", "", 200, ""},
		{"the playground", "GET", "/", "", "", "", "", 200, ""},
		{"healthz", "GET", "/healthz", "", "", "", "", 200, ""},
		{"livez", "GET", "/livez", "", "", "", "", 200, ""},
		{"readyz", "GET", "/readyz", "", "", "", "", 200, ""},
		{"/shard of a server of every scope", "GET", "/shard", "", "", "", "", 401, domain.EUNAUTHENTICATED},
		{"POST with the key", "POST", "/query", "Bearer " + adminKey, "application/json", "", q, 200, ""},
		{"GET with the key", "GET", "/query?query=%7Bscopes%7Bid%7D%7D", "Bearer " + adminKey, "", "", "", 200, ""},
		{"a form POST with the key", "POST", "/query", "Bearer " + adminKey, "application/x-www-form-urlencoded", "", "query=%7Bscopes%7Bid%7D%7D", 415, "UNSUPPORTED_MEDIA_TYPE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			status, code, h := rawRequest(t, tc.method, base+tc.path, tc.key, tc.ct, tc.accept, body)
			if status != tc.status || code != tc.code {
				t.Fatalf("%s %s: %d %q, want %d %q", tc.method, tc.path, status, code, tc.status, tc.code)
			}
			if status == 401 && h.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		})
	}

	// The client package: no key is UNAUTHENTICATED; the key works.
	var out struct{ Scopes []struct{ ID string } }
	err := client.New(s.addr, "").Do(context.Background(), `{ scopes { id } }`, nil, &out)
	if domain.ErrorCode(err) != domain.EUNAUTHENTICATED {
		t.Fatalf("client without a key: %v", err)
	}
	if err := client.New(s.addr, adminKey).Do(context.Background(), `{ scopes { id } }`, nil, &out); err != nil {
		t.Fatalf("client with the key: %v", err)
	}

	// Websockets: the key in connection_init, or on the upgrade request; none, or a bad one, and
	// the socket is refused.
	for _, tc := range []struct {
		name    string
		header  http.Header
		payload map[string]any
		ack     bool
	}{
		{"no key", nil, map[string]any{}, false},
		{"an unknown key", nil, map[string]any{"authorization": "Bearer " + domain.APIKeyPrefix + strings.Repeat("B", 43)}, false},
		{"the key in connection_init", nil, map[string]any{"authorization": "Bearer " + adminKey}, true},
		{"the key on the upgrade", http.Header{"Authorization": {"Bearer " + adminKey}}, map[string]any{}, true},
	} {
		t.Run("websocket with "+tc.name, func(t *testing.T) {
			d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
			conn, _, err := d.Dial("ws://"+s.addr+"/query", tc.header)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": tc.payload}); err != nil {
				t.Fatal(err)
			}
			var msg map[string]any
			err = conn.ReadJSON(&msg)
			acked := err == nil && msg["type"] == "connection_ack"
			if acked != tc.ack {
				t.Fatalf("connection_init answered %v (%v), want ack %v", msg, err, tc.ack)
			}
			if !tc.ack {
				// Nothing more comes: the socket is closed.
				for err == nil {
					err = conn.ReadJSON(&msg)
					if err == nil && (msg["type"] == "next" || msg["type"] == "connection_ack") {
						t.Fatalf("a refused socket answered %v", msg)
					}
				}
			}
		})
	}
}

func testScopedKeys(t *testing.T, s, admin *server, own, writerKey, readerKey string) {
	writer, reader := s.as(writerKey), s.as(readerKey)
	other, _, _ := admin.createScope(t, "not granted "+runID)
	var r struct{ Scopes []struct{ ID string } }
	writer.ok(t, `{ scopes { id } }`, nil, &r)
	if len(r.Scopes) != 1 || r.Scopes[0].ID != own {
		t.Fatalf("a key on one scope lists %+v, want only %s", r.Scopes, own)
	}
	admin.ok(t, `{ scopes { id } }`, nil, &r)
	if len(r.Scopes) < 2 {
		t.Fatalf("the ADMIN key lists %d scopes", len(r.Scopes))
	}
	writer.fails(t, domain.EFORBIDDEN, `mutation { createScope(name: "mine") { id } }`, nil)
	writer.fails(t, domain.EFORBIDDEN, `{ apiKeys { id } }`, nil)
	writer.fails(t, domain.EFORBIDDEN, `mutation { createApiKey(input: {role: ADMIN, name: "escalate"}) { key } }`, nil)
	writer.fails(t, domain.EFORBIDDEN, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": other})
	m := writer.store(t, map[string]any{"scopeId": own, "content": "written with a WRITE key"})
	var got struct{ Memory *memory }
	reader.ok(t, `query($id: ID!) { memory(id: $id) { id content } }`, map[string]any{"id": m.ID}, &got)
	if got.Memory == nil || got.Memory.Content != "written with a WRITE key" {
		t.Fatalf("the READ key reads %+v", got.Memory)
	}
	reader.fails(t, domain.EFORBIDDEN, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"scopeId": own, "content": "a reader writes"}})
	reader.fails(t, domain.EFORBIDDEN, `mutation($id: ID!) { claimMemory(id: $id) { id } }`, map[string]any{"id": m.ID})
	// A memory of the other scope is not there for the key.
	om := admin.store(t, map[string]any{"scopeId": other, "content": "the other scope's"})
	writer.ok(t, `query($id: ID!) { memory(id: $id) { id content } }`, map[string]any{"id": om.ID}, &got)
	if got.Memory != nil {
		t.Fatalf("a key reads another scope's memory: %+v", got.Memory)
	}
}

// wsSubscribe subscribes over graphql-transport-ws with the key in connection_init.
func wsSubscribe(t *testing.T, s *server, key, query string, vars map[string]any) (*websocket.Conn, <-chan map[string]any) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := d.Dial("ws://"+s.addr+"/query", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteJSON(map[string]any{"type": "connection_init", "payload": map[string]any{"authorization": "Bearer " + key}}); err != nil {
		t.Fatal(err)
	}
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("ack = %v, %v", ack, err)
	}
	if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}}); err != nil {
		t.Fatal(err)
	}
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		for {
			var msg map[string]any
			if err := conn.ReadJSON(&msg); err != nil {
				return
			}
			switch msg["type"] {
			case "ping":
				_ = conn.WriteJSON(map[string]any{"type": "pong"})
			default:
				out <- msg
			}
		}
	}()
	return conn, out
}

// awaitEvent waits for a memoryEvents message of type typ.
func awaitEvent(t *testing.T, msgs <-chan map[string]any, typ string) {
	t.Helper()
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("the socket closed before %s came", typ)
			}
			raw, _ := json.Marshal(m)
			if m["type"] == "next" && strings.Contains(string(raw), typ) {
				return
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("no %s on the socket", typ)
		}
	}
}

// awaitClose waits until the socket closes.
func awaitClose(t *testing.T, msgs <-chan map[string]any, why string) {
	t.Helper()
	deadline := time.After(30 * time.Second) // a liveness bound
	for {
		select {
		case _, ok := <-msgs:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("the socket stayed open after %s", why)
		}
	}
}

func testRevocationClosesSockets(t *testing.T, s, admin *server, own string) {
	sub := `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId } }`
	key := createKey(t, admin, "WRITE", own, "to be revoked")
	var keys struct {
		APIKeys []struct{ ID, Name string } `json:"apiKeys"`
	}
	admin.ok(t, `{ apiKeys { id name } }`, nil, &keys)
	id := ""
	for _, k := range keys.APIKeys {
		if k.Name == "to be revoked" {
			id = k.ID
		}
	}
	conn, msgs := wsSubscribe(t, s, key, sub, map[string]any{"s": own})
	defer conn.Close()
	time.Sleep(200 * time.Millisecond) // let the subscription register
	s.as(key).store(t, map[string]any{"scopeId": own, "content": "seen before the revocation"})
	awaitEvent(t, msgs, "MemoryStored")
	var rev struct {
		RevokeAPIKey struct{ RevokedAt *string } `json:"revokeApiKey"`
	}
	admin.ok(t, `mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`, map[string]any{"id": id}, &rev)
	if rev.RevokeAPIKey.RevokedAt == nil {
		t.Fatal("revokeApiKey answered no revokedAt")
	}
	awaitClose(t, msgs, "its key was revoked")
	s.as(key).fails(t, domain.EUNAUTHENTICATED, `{ scopes { id } }`, nil)

	// A key that expires: its socket closes when it does.
	var nk struct {
		CreateAPIKey struct{ Key string } `json:"createApiKey"`
	}
	admin.ok(t, `mutation($in: ApiKeyInput!) { createApiKey(input: $in) { key } }`, map[string]any{"in": map[string]any{
		"role": "READ", "scopeId": own, "name": "short-lived", "expiresAt": time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)}}, &nk)
	conn2, msgs2 := wsSubscribe(t, s, nk.CreateAPIKey.Key, sub, map[string]any{"s": own})
	defer conn2.Close()
	awaitClose(t, msgs2, "its key expired")
	s.as(nk.CreateAPIKey.Key).fails(t, domain.EUNAUTHENTICATED, `{ scopes { id } }`, nil)
}

func testKeysCommand(t *testing.T, s *server, adminKey, own string) {
	cli := func(args ...string) (string, error) {
		var out, errs bytes.Buffer
		err := run(append([]string{"keys"}, args...), &out, &errs)
		return out.String(), err
	}
	t.Setenv(client.EnvKey, "")
	if _, err := cli("list", "--server", s.addr); domain.ErrorCode(err) != domain.EUNAUTHENTICATED {
		t.Fatalf("keys list without a key: %v", err)
	}
	t.Setenv(client.EnvKey, adminKey)
	secret, err := cli("create", "--server", s.addr, "--role", "read", "--scope", own, "--name", "made by the CLI")
	if err != nil {
		t.Fatal(err)
	}
	secret = strings.TrimSpace(secret)
	var r struct{ Scopes []struct{ ID string } }
	s.as(secret).ok(t, `{ scopes { id } }`, nil, &r)
	if len(r.Scopes) != 1 || r.Scopes[0].ID != own {
		t.Fatalf("the CLI's key lists %+v", r.Scopes)
	}
	list, err := cli("list", "--server", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, "made by the CLI") {
			f := strings.Fields(line)
			id = f[0]
			if !strings.Contains(line, "READ") || !strings.Contains(line, own) {
				t.Fatalf("keys list line %q", line)
			}
		}
	}
	if id == "" || strings.Contains(list, secret) {
		t.Fatalf("keys list:\n%s", list)
	}
	out, err := cli("revoke", "--server", s.addr, id)
	if err != nil || !strings.Contains(out, "revoked API key "+id) {
		t.Fatalf("keys revoke: %q %v", out, err)
	}
	s.as(secret).fails(t, domain.EUNAUTHENTICATED, `{ scopes { id } }`, nil)
	if _, err := cli("create", "--server", s.addr, "--role", "root", "--name", "x"); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("keys create --role root: %v", err)
	}
	// digest --server sends the key of $TOTALRECALL_KEY as well.
	digest := func() (string, error) {
		var out, errs bytes.Buffer
		err := run([]string{"digest", "--server", "http://" + s.addr, "--scope", own}, &out, &errs)
		return out.String(), err
	}
	t.Setenv(client.EnvKey, "")
	if _, err := digest(); err == nil || !strings.Contains(err.Error(), "UNAUTHENTICATED") {
		t.Fatalf("digest --server without a key: %v", err)
	}
	t.Setenv(client.EnvKey, adminKey)
	if _, err := digest(); err != nil {
		t.Fatalf("digest --server with the ADMIN key: %v", err)
	}
}
