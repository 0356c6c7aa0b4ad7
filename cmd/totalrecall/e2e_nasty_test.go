package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// nastyStrings go into every string field: N-Quad and DQL metacharacters, control characters,
// unicode, sizes, and words that mean something elsewhere.
var nastyStrings = []any{
	"", " ", "\x00", "a\x00b", "\x01\x1f\x7f", "\"", "\\", `\"`, "\n\r\t", "<_:x> <mem.content> \"v\" .", "<0x1> * * .",
	"uid(v)", "}) { uid }", "@filter(eq(tr.scope, \"x\"))", "*", "_:x", "0x1", "🧠 記憶 ذاكرة", "e\u0301\u200b\u2028\u2029",
	"\ufeff", strings.Repeat("a", 70000), "'; DROP ALL; --", "${jndi:ldap://x}", "%00", "../../etc/passwd", "NaN", "-1",
	"1e309", "null", "[heartbeat]", "<script>alert(1)</script>", "\u202eevil",
}

// nastyValues are values of the wrong kind.
var nastyValues = []any{5, -1, 1.5, 1e300, -1e300, true, false, []any{}, []any{1, "x"}, map[string]any{}, map[string]any{"a": []any{nil}}}

// nastyIDs are ids that are not ids, or not anyone's.
var nastyIDs = []any{"", "not-a-uuid", "00000000-0000-0000-0000-000000000000", "9A3F2C1E-8B7D-4C6A-9E5F-1D2C3B4A5F6E",
	"{9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e}", "9a3f2c1e8b7d4c6a9e5f1d2c3b4a5f6e", strings.Repeat("9", 5000), "<0x1>", "uid(x)",
	"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e\x00", 12345, map[string]any{"id": 1}}

// nastyTimes are times that are not times.
var nastyTimes = []any{"not-a-time", "", "2023-13-45T00:00:00Z", "2024-02-30T00:00:00Z", "0000-00-00T00:00:00Z",
	"9999-12-31T23:59:60Z", "2024-05-01", "2024-05-01T12:00:00", "10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", 1714560000,
	true, map[string]any{}, []any{"2024-05-01T00:00:00Z"}}

// TestNastyRequestsAreNeverInternal sends a few hundred bad requests as a careless or hostile
// client would — metacharacters, unicode, bad ids, wrong types, malformed times, broken JSON —
// to a real server: each is answered with a stable code other than INTERNAL, never a 5xx, never
// a stack trace, and the server serves on.
func TestNastyRequestsAreNeverInternal(t *testing.T) {
	s := startServer(t, storeFlags{store: "file://" + t.TempDir()})
	defer s.stop(t)
	scope, kernel, _ := s.createScope(t, "nasty")
	m1 := s.store(t, map[string]any{"scopeId": scope, "content": "a fine memory"})
	m2 := s.store(t, map[string]any{"scopeId": scope, "content": "another fine memory"})

	type probe struct {
		query string
		base  map[string]any // the variables; each key of fields is replaced in turn
		at    []string       // path of the input object in base, if any
		field string
		vals  []any
	}
	storeIn := func() map[string]any { return map[string]any{"scopeId": scope, "content": "fine"} }
	var probes []probe
	add := func(query string, base func() map[string]any, at []string, fields map[string][]any) {
		for f, vals := range fields {
			probes = append(probes, probe{query: query, base: base(), at: at, field: f, vals: vals})
		}
	}
	strs := append(append([]any{}, nastyStrings...), nastyValues...)
	add(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`, func() map[string]any { return map[string]any{"in": storeIn()} },
		[]string{"in"}, map[string][]any{"scopeId": nastyIDs, "content": strs, "kind": strs[:8], "suggestedTier": strs[:8],
			"metadata":   append([]any{"{}", "x", 5, []any{1}, map[string]any{"salience": 1}, map[string]any{strings.Repeat("k", 70000): 1}}, nil),
			"tags":       {[]any{""}, []any{"\x00"}, []any{strings.Repeat("t", 500)}, []any{5}, "tag", []any{"a", "b", "<_:x>"}},
			"occurredAt": nastyTimes, "importance": {-1, 2, "0.5", 1e300, nil}, "requestId": nastyIDs, "sessionId": nastyIDs})
	add(`mutation($ins: [StoreMemoryInput!]!) { storeMemories(inputs: $ins) { id } }`, func() map[string]any {
		return map[string]any{"ins": []any{storeIn(), storeIn()}}
	}, nil, map[string][]any{"ins": {[]any{}, []any{storeIn(), map[string]any{"scopeId": scope, "content": "x", "occurredAt": "not-a-time"}},
		[]any{storeIn(), map[string]any{"scopeId": "nope", "content": "x"}}, []any{nil}, "x", []any{storeIn(), 5}}})
	add(`mutation($in: AssociateInput!) { associateMemories(input: $in) { type } }`, func() map[string]any {
		return map[string]any{"in": map[string]any{"sourceId": m1.ID, "targetId": m2.ID, "type": "CAUSAL", "strength": 0.5}}
	}, []string{"in"}, map[string][]any{"sourceId": nastyIDs, "targetId": nastyIDs, "type": strs[:10], "strength": {-0.1, 1.1, "0.5", 1e300, nil, true},
		"direction": strs[:8], "requestId": nastyIDs})
	add(`query($s: ID!, $q: String!, $n: Int, $f: MemoryFilter) { searchMemory(scopeId: $s, query: $q, maxResults: $n, filters: $f) { score } }`,
		func() map[string]any { return map[string]any{"s": scope, "q": "fine"} }, nil,
		map[string][]any{"s": nastyIDs, "q": strs, "n": {0, -1, 100000, 2147483648, 1.5, "5"},
			"f": {map[string]any{"from": "not-a-time"}, map[string]any{"to": "2023-13-45T00:00:00Z"}, map[string]any{"tags": []any{"\x00"}},
				map[string]any{"tiers": []any{"NOPE"}}, "x"}})
	add(`query($s: ID!, $a: String, $n: Int) { memories(scopeId: $s, after: $a, first: $n) { totalCount } }`,
		func() map[string]any { return map[string]any{"s": scope} }, nil,
		map[string][]any{"s": nastyIDs, "a": append(append([]any{}, nastyStrings[:20]...), "MjAyNi0wMS0wMlQwMzowNDowNVp8eA", "fHg"),
			"n": {0, -5, 1e9, 2147483648}})
	add(`query($id: ID!) { memory(id: $id) { id } }`, func() map[string]any { return map[string]any{"id": m1.ID} }, nil,
		map[string][]any{"id": nastyIDs})
	add(`mutation($in: ReclassifyInput!) { reclassifyMemory(input: $in) { id } }`, func() map[string]any {
		return map[string]any{"in": map[string]any{"id": m1.ID, "tier": "LONG_TERM"}}
	}, []string{"in"}, map[string][]any{"metadata": {"x", map[string]any{"salience": 5}, map[string]any{"k": strings.Repeat("v", 70000)}},
		"reason": nastyStrings, "tier": strs[:6]})
	add(`mutation($n: String!) { createScope(name: $n) { id } }`, func() map[string]any { return map[string]any{"n": "x"} }, nil,
		map[string][]any{"n": strs})
	add(`mutation($k: ID!, $c: String!) { updateKernel(kernelId: $k, content: $c) { id } }`,
		func() map[string]any { return map[string]any{"k": kernel, "c": "fine"} }, nil, map[string][]any{"k": nastyIDs, "c": nastyValues})
	add(`mutation($in: SaveKnowledgeInput!) { saveKnowledge(input: $in) { id } }`, func() map[string]any {
		return map[string]any{"in": map[string]any{"scopeId": scope, "type": "FACT", "title": "t", "content": "c"}}
	}, []string{"in"}, map[string][]any{"title": strs[:12], "content": strs[:12], "metadata": {"x", 5}, "id": nastyIDs})
	add(`mutation($i: ID!, $m: String!, $s: ID!) { sessionStart(instanceId: $i, mindType: $m, scopeId: $s) { welcome } }`,
		func() map[string]any { return map[string]any{"i": "mind", "m": "claude", "s": scope} }, nil,
		map[string][]any{"i": nastyIDs, "m": strs[:14]})
	add(`query($s: ID!, $m: String!) { resonate(scopeId: $s, message: $m) { score } }`,
		func() map[string]any { return map[string]any{"s": scope, "m": "fine"} }, nil, map[string][]any{"m": strs})
	add(`query($r: ID!) { trace(requestId: $r) { requestId } }`, func() map[string]any { return map[string]any{"r": "x"} }, nil,
		map[string][]any{"r": nastyIDs})
	add(`query($m: ID!) { history(memoryId: $m) { id } }`, func() map[string]any { return map[string]any{"m": m1.ID} }, nil,
		map[string][]any{"m": nastyIDs})
	add(`mutation($s: ID!, $d: String!, $f: ImportFormat!) { importData(scopeId: $s, format: $f, data: $d) { imported } }`,
		func() map[string]any { return map[string]any{"s": scope, "d": "{}", "f": "EVENTS"} }, nil,
		map[string][]any{"d": append(append([]any{}, nastyStrings...), `{"timestamp":"not-a-time","content":"x"}`, "{\"content\":", `[`), "f": {"NOPE", 1}})
	add(`query($s: ID!, $c: ReflectCriteria) { reflect(scopeId: $s, criteria: $c) { reasons } }`,
		func() map[string]any { return map[string]any{"s": scope} }, nil,
		map[string][]any{"c": {map[string]any{"from": "not-a-time"}, map[string]any{"from": "2024-05-01T00:00:00Z", "to": "2023-01-01T00:00:00Z"},
			map[string]any{"staleDays": -1}, map[string]any{"staleDays": 1e300}, map[string]any{"weakAssociationsBelow": 2}}})

	requests := 0
	check := func(what string, status int, body []byte) {
		t.Helper()
		requests++
		if status >= 500 {
			t.Fatalf("%s: HTTP %d: %s", what, status, body)
		}
		for _, leak := range []string{"goroutine ", "panic", ".go:", "runtime."} {
			if bytes.Contains(body, []byte(leak)) {
				t.Fatalf("%s: the answer shows %q: %s", what, leak, body)
			}
		}
		var r gqlResponse
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%s: HTTP %d, not JSON: %q", what, status, body)
		}
		for _, e := range r.Errors {
			code, _ := e.Extensions["code"].(string)
			if code == "" || code == "INTERNAL" || strings.Contains(e.Message, "internal error") {
				t.Fatalf("%s: answered %q %q", what, code, e.Message)
			}
		}
	}
	send := func(body []byte, ct string) (int, []byte) {
		resp, err := http.Post("http://"+s.addr+"/query", ct, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, p := range probes {
		for i, v := range p.vals {
			vars := deepCopy(p.base)
			target := vars
			for _, k := range p.at {
				target = target[k].(map[string]any)
			}
			if v == nil {
				delete(target, p.field)
			} else {
				target[p.field] = v
			}
			body, _ := json.Marshal(map[string]any{"query": p.query, "variables": vars})
			status, b := send(body, "application/json")
			check(fmt.Sprintf("%s with %s = value %d", firstLine(p.query), p.field, i), status, b)
		}
	}
	// Broken bodies and documents.
	raws := []string{
		`{`, `{"query":`, `{"query": 5}`, `[]`, `null`, `""`, `{"query":"{ scopes { id } }","variables":"x"}`, `{"query":"{ scopes { id }"}`,
		`{"query":"query($x: ID!) { scope(id: $x) { id } }","variables":{"x":[1,2]}}`, `{"query":"{ scopes { id } }"` + "\xff\xfe" + `}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"a` + "\xff" + `b\"}) { id } }"}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"x\", occurredAt: \"not-a-time\"}) { id } }"}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"x\", occurredAt: \"\"}) { id } }"}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"x\", occurredAt: \"2023-13-45T00:00:00Z\"}) { id } }"}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"x\", metadata: \"x\"}) { id } }"}`,
		`{"query":"mutation { storeMemory(input: {scopeId: \"` + scope + `\", content: \"x\", importance: 1e400}) { id } }"}`,
		`{"query":"{ scopes { id ...F } } fragment F on Scope { ...F }"}`, `{"query":"{ __typename @skip(if: \"x\") }"}`,
		`{"query":"subscription { memoryEvents(scopeId: \"x\") { id } }"}`, `{"query":"{ a: scopes { id } a: scopes { name } }"}`,
		`{"query":"` + strings.Repeat("{ scopes ", 300) + strings.Repeat("}", 300) + `"}`,
		`{"query":"{ scopes { id } }","operationName":"nope"}`, `{"query":"query A { scopes { id } } query A { scopes { id } }"}`,
		`{"query":"{ scopes { id } }","variables":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	}
	for i, raw := range raws {
		status, b := send([]byte(raw), "application/json")
		check(fmt.Sprintf("raw body %d %.60q", i, raw), status, b)
	}
	t.Logf("%d nasty requests, none INTERNAL", requests)
	if requests < 400 {
		t.Fatalf("only %d requests: the probe lists lost their values", requests)
	}
	if resp, err := http.Get("http://" + s.addr + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the server does not serve on after the nasty requests: %v", err)
	}
}

func firstLine(q string) string {
	if i := strings.IndexAny(q, "{("); i > 0 {
		return strings.TrimSpace(q[:i])
	}
	return q
}

func deepCopy(m map[string]any) map[string]any {
	raw, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}
