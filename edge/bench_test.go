package edge

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// BenchmarkEdge is the edge's cost per request — a GraphQL POST of a store's size — with keys
// and without, beside the raw baseline of the same handler without the edge. (The Cortex's key
// lookup is BenchmarkAuthenticate in domain/cortex.)
func BenchmarkEdge(b *testing.B) {
	body := `{"query":"mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }","variables":{"in":{"scopeId":"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e","content":"` +
		strings.Repeat("word ", 30) + `"}}}`
	p := &domain.Principal{KeyID: "k", Role: domain.RoleWrite, ScopeID: "9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e"}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"data":{}}`)) })
	for _, tc := range []struct {
		name string
		h    http.Handler
		key  string
	}{
		{"raw handler", next, ""},
		{"edge without keys", New(Config{MaxBodyBytes: DefaultMaxBodyBytes}).Handler(next), ""},
		{"edge with a key", New(Config{Auth: true, Keys: keys{"trk_k": p}, MaxBodyBytes: DefaultMaxBodyBytes,
			RateLimit: 1e9, RateBurst: 1 << 30}).Handler(next), "Bearer trk_k"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/query", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				if tc.key != "" {
					r.Header.Set("Authorization", tc.key)
				}
				tc.h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
