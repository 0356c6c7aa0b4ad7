package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// Scope ids whose FNV-1a hash falls in shard 1 and shard 0 of 2.
const (
	shard1Scope = "0a4f5c3e-9a5b-4d0e-8f43-1c2b3a4d5e6f"
	shard0Scope = "7d9e2b1a-3c4d-4e5f-a6b7-c8d9e0f1a2b3"
)

func TestGraphQLScopes(t *testing.T) {
	a, b := shard1Scope, shard0Scope
	for _, tc := range []struct {
		name, query, op string
		vars            map[string]any
		want            []string
	}{
		{name: "literal argument", query: `{ searchMemory(scopeId: "` + a + `", query: "x") { score } }`, want: []string{a}},
		{name: "variable", query: `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, vars: map[string]any{"s": a}, want: []string{a}},
		{name: "input object variable", query: `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
			vars: map[string]any{"in": map[string]any{"scopeId": b, "content": "x"}}, want: []string{b}},
		{name: "input object literal", query: `mutation { storeMemory(input: {content: "scopeId: ` + a + `", scopeId: "` + b + `"}) { id } }`, want: []string{b}},
		{name: "literal object holding a variable", query: `mutation($s: ID!) { storeMemory(input: {scopeId: $s, content: "x"}) { id } }`,
			vars: map[string]any{"s": a}, want: []string{a}},
		{name: "list of inputs", query: `mutation($in: [StoreMemoryInput!]!) { storeMemories(inputs: $in) { id } }`,
			vars: map[string]any{"in": []any{map[string]any{"scopeId": a}, map[string]any{"scopeId": b}, map[string]any{"scopeId": a}}}, want: []string{a, b}},
		{name: "literal list", query: `mutation { storeMemories(inputs: [{scopeId: "` + a + `", content: "1"}, {scopeId: "` + a + `", content: "2"}]) { id } }`, want: []string{a}},
		{name: "two fields", query: `{ x: memories(scopeId: "` + a + `") { totalCount } y: memories(scopeId: "` + b + `") { totalCount } }`, want: []string{a, b}},
		{name: "default value", query: `query($s: ID = "` + b + `") { memories(scopeId: $s) { totalCount } }`, want: []string{b}},
		{name: "given value beats default", query: `query($s: ID = "` + b + `") { memories(scopeId: $s) { totalCount } }`, vars: map[string]any{"s": a}, want: []string{a}},
		{name: "fragment", query: `query { ...F } fragment F on Query { memories(scopeId: "` + a + `") { totalCount } }`, want: []string{a}},
		{name: "fragment cycle", query: `query { ...F } fragment F on Query { ...F memories(scopeId: "` + a + `") { totalCount } }`, want: []string{a}},
		{name: "inline fragment", query: `query { ... on Query { memories(scopeId: "` + a + `") { totalCount } } }`, want: []string{a}},
		{name: "nested field", query: `{ memory(id: "` + b + `") { episodes(scopeId: "` + a + `") { id } } }`, want: []string{a}},
		{name: "operation by name", query: `query A { memories(scopeId: "` + a + `") { totalCount } } query B { memories(scopeId: "` + b + `") { totalCount } }`,
			op: "B", want: []string{b}},
		{name: "several operations, none named", query: `query A { memories(scopeId: "` + a + `") { totalCount } } query B { scopes { id } }`},
		{name: "unknown operation", query: `query A { memories(scopeId: "` + a + `") { totalCount } }`, op: "C"},
		{name: "subscription", query: `subscription { memoryEvents(scopeId: "` + a + `") { seq } }`},
		{name: "no scope", query: `{ scopes { id name } }`},
		{name: "memory by id", query: `{ memory(id: "` + a + `") { id } }`},
		{name: "scopeId of another name", query: `{ x(scopeID: "` + a + `", scope: "` + b + `") { id } }`},
		{name: "not a uuid", query: `{ memories(scopeId: "tour") { totalCount } }`},
		{name: "nasty string", query: `{ memories(scopeId: "\"}) { x } } mutation { deleteScope(id: \"` + a + `\") }") { totalCount } }`},
		{name: "block string", query: `{ memories(scopeId: """` + a + `""") { totalCount } }`, want: []string{a}},
		{name: "unicode and controls", query: "{ memories(scopeId: \"\u202e" + a + "\\u0000\") { totalCount } }"},
		{name: "missing variable", query: `query($s: ID!) { memories(scopeId: $s) { totalCount } }`},
		{name: "variable of another type", query: `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, vars: map[string]any{"s": 42.0}},
		{name: "variable object with nested scopeId", query: `mutation($in: X!) { f(input: $in) { id } }`,
			vars: map[string]any{"in": map[string]any{"deep": []any{map[string]any{"scopeId": b}}, "scopeId": []any{a}}}, want: []string{a, b}},
		{name: "does not parse", query: `{ memories(scopeId: "` + a + `" { totalCount }`},
		{name: "empty", query: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := graphqlScopes(tc.query, tc.op, tc.vars)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("graphqlScopes = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRequestScopes(t *testing.T) {
	resolve := func(_ context.Context, name string) (string, error) {
		if name == "tour" {
			return shard0Scope, nil
		}
		return "", errors.New("no such scope")
	}
	q := `query($s: ID!) { memories(scopeId: $s) { totalCount } }`
	post := `{"query":` + jsonString(q) + `,"variables":{"s":"` + shard1Scope + `"}}`
	for _, tc := range []struct {
		name, method, target, body string
		header                     map[string]string
		want                       []string
	}{
		{name: "POST /query", method: "POST", target: "/query", body: post, want: []string{shard1Scope}},
		{name: "GET /query", method: "GET", target: "/query?query=" + url.QueryEscape(q) + "&variables=" + url.QueryEscape(`{"s":"`+shard0Scope+`"}`), want: []string{shard0Scope}},
		{name: "GET /query with bad variables", method: "GET", target: "/query?query=" + url.QueryEscape(q) + "&variables=%7B"},
		{name: "POST /query not JSON", method: "POST", target: "/query", body: "{"},
		{name: "websocket", method: "GET", target: "/query", header: map[string]string{"Upgrade": "websocket"}},
		{name: "mcp by id", method: "POST", target: "/mcp?scope=" + shard1Scope, body: `{"jsonrpc":"2.0"}`, want: []string{shard1Scope}},
		{name: "mcp by name", method: "GET", target: "/mcp?scope=tour", want: []string{shard0Scope}},
		{name: "mcp unknown name", method: "DELETE", target: "/mcp?scope=nope"},
		{name: "mcp without scope", method: "POST", target: "/mcp", body: "{}"},
		{name: "export", method: "GET", target: "/export/" + shard1Scope + ".graphml", want: []string{shard1Scope}},
		{name: "export not a scope", method: "GET", target: "/export/tour.graphml"},
		{name: "whole dump", method: "GET", target: "/export"},
		{name: "import", method: "POST", target: "/import", body: "{}\n"},
		{name: "page", method: "GET", target: "/explore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			r := httptest.NewRequest(tc.method, tc.target, body)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			got, _, err := requestScopes(r, resolve)
			if err != nil {
				t.Fatal(err)
			}
			if !(len(got) == 0 && len(tc.want) == 0) && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("requestScopes = %q, want %q", got, tc.want)
			}
			// Whatever was read, the handler still reads the whole body.
			if r.Body != nil {
				rest, _ := io.ReadAll(r.Body)
				if string(rest) != tc.body {
					t.Fatalf("the body left for the handler is %q, want %q", rest, tc.body)
				}
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
