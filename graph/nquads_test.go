package graph

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuoteRoundTrips(t *testing.T) {
	cases := []string{"", "plain", `"`, `\`, "\n\r\t", "\x00\x01\x1f\x7f", "🧠 記憶 ذاكرة", "e\u0301\u200b\u2028",
		`<_:x> <p> "v" .`, "[1, 2]", "uid(v)", `\u0041`, `\x41`}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, strings.ToValidUTF8(string(b), "\uFFFD"))
	}
	for _, s := range cases {
		q := quote(s)
		if strings.ContainsAny(q, "\n\r") {
			t.Fatalf("quote(%q) = %q holds a line break", s, q)
		}
		got, err := strconv.Unquote(q)
		if err != nil || got != s {
			t.Fatalf("quote(%q) = %q unquotes to %q, %v", s, q, got, err)
		}
	}
	if got, _ := strconv.Unquote(quote("a\xffb")); got != "a\uFFFDb" || !utf8.ValidString(got) {
		t.Fatalf("invalid UTF-8 became %q, want a\uFFFDb", got)
	}
}

func TestToNQuads(t *testing.T) {
	set := []map[string]any{
		{"uid": "_:m0", "dgraph.type": "Memory", "mem.content": "[1, 2]", "mem.tags": []string{"a", "b"}, "mem.salience": 0.25,
			"mem.version": int64(3), "mem.claimed": true, "counter.value": uint64(7), "mem.accessCount": 2.0,
			"assoc.TEMPORAL": map[string]any{"uid": "0x1f", "assoc.TEMPORAL|strength": 0.5, "assoc.TEMPORAL|updatedAt": "2026-03-01T12:00:00Z"}},
		{"uid": "0x2a", "ep.items": []map[string]any{{"uid": "_:i", "ev.type": "X", "ep.items|pos": 2}}},
		{"uid": "0x2b", "emb.vector": "[0.5,0.25]"},
	}
	got, err := toNQuads(set, false)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`_:m0 <assoc.TEMPORAL> <0x1f> (strength=0.5, updatedAt=2026-03-01T12:00:00Z) .`,
		`_:m0 <counter.value> "7"^^<xs:int> .`,
		`_:m0 <dgraph.type> "Memory" .`,
		`_:m0 <mem.accessCount> "2"^^<xs:int> .`,
		`_:m0 <mem.claimed> "true"^^<xs:boolean> .`,
		`_:m0 <mem.content> "[1, 2]" .`,
		`_:m0 <mem.salience> "0.25"^^<xs:float> .`,
		`_:m0 <mem.tags> "a" .`,
		`_:m0 <mem.tags> "b" .`,
		`_:m0 <mem.version> "3"^^<xs:int> .`,
		`_:i <ev.type> "X" .`,
		`<0x2a> <ep.items> _:i (pos=2) .`,
		`<0x2b> <emb.vector> "[0.5,0.25]"^^<xs:[]float32> .`,
	}, "\n") + "\n"
	if string(got) != want {
		t.Fatalf("set N-Quads:\n%s\nwant:\n%s", got, want)
	}
	del := []map[string]any{
		{"uid": "0x1", "mem.content": nil, "mem.tags": []string{"x"}},
		{"uid": "0x2", "assoc.CAUSAL": map[string]any{"uid": "0x3"}},
		{"uid": "0x4"},
	}
	got, err = toNQuads(del, true)
	if err != nil {
		t.Fatal(err)
	}
	want = "<0x1> <mem.content> * .\n<0x1> <mem.tags> \"x\" .\n<0x2> <assoc.CAUSAL> <0x3> .\n<0x4> * * .\n"
	if string(got) != want {
		t.Fatalf("delete N-Quads:\n%s\nwant:\n%s", got, want)
	}
	for name, bad := range map[string]map[string]any{
		"uid function":     {"uid": "uid(v)", "p": "x"},
		"bad blank":        {"uid": "_:a b", "p": "x"},
		"bad predicate":    {"uid": "0x1", "p> <q": "x"},
		"scalar facet":     {"uid": "0x1", "p": "x", "p|f": 1},
		"NaN":              {"uid": "0x1", "p": math.NaN()},
		"null in a set":    {"uid": "0x1", "p": nil},
		"unsupported type": {"uid": "0x1", "p": struct{}{}},
		"edge without uid": {"uid": "0x1", "p": map[string]any{"p|f": 1}},
	} {
		if _, err := toNQuads([]map[string]any{bad}, false); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
