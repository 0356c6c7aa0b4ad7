package hippocampus

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
)

// FuzzValidateStoreInput feeds every string field of a store input (scope id, content, kind,
// suggested tier, a tag, metadata as JSON text) with an importance and a time. Validate never
// panics; what it accepts is what the store may write: a valid scope id, content that is
// valid UTF-8 without NUL within the limit, known kind and tier, sane tags, metadata that encodes
// as JSON within its cap, an importance in 0..1, a time in years 1..9999 — and the memory the
// Hippocampus forms of it encodes as JSON.
func FuzzValidateStoreInput(f *testing.F) {
	for _, seed := range []struct {
		scope, content, kind, tier, tag, meta string
		importance                            float64
		unix                                  int64
	}{
		{"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "a plain memory", "EPISODIC", "LONG_TERM", "tag", `{"k":"v"}`, 0.5, 1700000000},
		{"", "", "", "", "", "", 0, 0},
		{"not-a-uuid", `<_:x> <mem.content> "v" .`, "episodic", "TIER", " ", `[1,2]`, -1, -62135596801},
		{"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "\x00nul", "SEMANTIC", "IDENTITY_CORE", "a\x00b", `{"salience": 1}`, math.NaN(), 253402300800},
		{"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "\xff\xfe invalid utf-8", "", "", "🧠", `{"nested":{"deep":[1,{"x":null}]}}`, math.Inf(1), 0},
		{"9A3F2C1E-8B7D-4C6A-9E5F-1D2C3B4A5F6E", "uid(v) @filter(eq(tr.scope, \"x\")) { uid }", "", "", "tag", `"just a string"`, 1, 1},
		{"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "[heartbeat]", "", "", "", `null`, 0.25, 1},
		{"9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "e\u0301\u200b\u2028 ذاكرة 記憶", "OBSERVATIONAL", "ARCHIVE", strings.Repeat("t", 300), `{"` + strings.Repeat("k", 70000) + `":1}`, 1e-300, -1},
	} {
		f.Add(seed.scope, seed.content, seed.kind, seed.tier, seed.tag, seed.meta, seed.importance, seed.unix)
	}
	f.Fuzz(func(t *testing.T, scope, content, kind, tier, tag, meta string, importance float64, unix int64) {
		in := StoreInput{ScopeID: scope, Content: content, Kind: domain.MemoryKind(kind), SuggestedTier: domain.Tier(tier),
			Tags: []string{tag}, Importance: &importance}
		var md any
		if json.Unmarshal([]byte(meta), &md) == nil {
			if m, ok := md.(map[string]any); ok {
				in.Metadata = m
			}
		}
		when := time.Unix(unix, 0).UTC()
		in.OccurredAt = &when
		err := Validate("", in)
		if err == nil {
			return
		}
		if de, ok := err.(*domain.Error); !ok || de.Code != domain.EINVALID || de.Field == "" {
			t.Fatalf("Validate refused with %v: want INVALID_ARGUMENT naming a field", err)
		}
	})
}

// FuzzAcceptedStoreInputIsWritable checks the other side: whatever Validate accepts forms a
// memory whose every string is valid UTF-8 without NUL and which encodes as JSON.
func FuzzAcceptedStoreInputIsWritable(f *testing.F) {
	f.Add("9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "a plain memory", "tag", `{"k":"v"}`, 0.5)
	f.Add("9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "quotes \" and \\ and \n newlines", "\t", `{"a":"\u0000"}`, math.NaN())
	f.Add("9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", "}]) ; DROP ALL", "<p>", `{"tr.scope":"other"}`, 1.0)
	f.Fuzz(func(t *testing.T, scope, content, tag, meta string, importance float64) {
		in := StoreInput{ScopeID: scope, Content: content, Tags: []string{tag}, Importance: &importance}
		var md map[string]any
		if json.Unmarshal([]byte(meta), &md) == nil {
			in.Metadata = md
		}
		if err := Validate("", in); err != nil {
			return
		}
		if !domain.ValidID(scope) {
			t.Fatalf("accepted scope id %q", scope)
		}
		if !utf8.ValidString(content) || strings.ContainsRune(content, 0) || strings.TrimSpace(content) == "" ||
			len(content) > domain.MaxContentBytes() {
			t.Fatalf("accepted content %q", content)
		}
		if !utf8.ValidString(tag) || strings.ContainsRune(tag, 0) || strings.TrimSpace(tag) == "" {
			t.Fatalf("accepted tag %q", tag)
		}
		if !(importance >= 0 && importance <= 1) {
			t.Fatalf("accepted importance %v", importance)
		}
		m, ev := New(time.Now).Form(in, domain.TransactionContext{SessionID: "s", RequestID: "r", MessageID: "m",
			CausationID: "c", Timestamp: time.Now(), SourceContext: domain.CtxCortex})
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("the formed memory does not encode: %v", err)
		}
		if _, err := json.Marshal(ev.Payload); err != nil {
			t.Fatalf("its MemoryStored does not encode: %v", err)
		}
	})
}
