package graph

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dgraph-io/dgo/v250/protos/api"
	"github.com/hypermodeinc/dgraph/v25/chunker"
	"google.golang.org/protobuf/proto"
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

// The N-Quads the store sends are exactly those Dgraph's own RDF parser makes of the text
// <s> <p> "v"^^<type> (f=v) . for the same values: same subjects, objects, typed values and
// facets, in the same order.
func TestToNQuads(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	set := []map[string]any{
		{"uid": "_:m0", "dgraph.type": "Memory", "mem.content": "[1, 2]", "mem.tags": []string{"a", "b"}, "mem.salience": 0.25,
			"mem.version": int64(3), "mem.claimed": true, "counter.value": uint64(7), "mem.accessCount": 2.0,
			"assoc.TEMPORAL": map[string]any{"uid": "0x1f", "assoc.TEMPORAL|strength": 0.5, "assoc.TEMPORAL|updatedAt": "2026-03-01T12:00:00Z",
				"assoc.TEMPORAL|cost": 1, "assoc.TEMPORAL|note": `say "hi"`, "assoc.TEMPORAL|ok": true}},
		{"uid": "0x2a", "ep.items": []map[string]any{{"uid": "_:i", "ev.type": "X", "ep.items|pos": 2}}},
		{"uid": "0x2b", "emb.vector": "[0.5,0.25]"},
		{"uid": "_:s", "a.quote": `"<_:x> <p> "v" .`, "a.ctl": "\x00\x01\n\r\t\x7f\\", "a.uni": "🧠 記憶 ذاكرة e\u0301\u2028",
			"a.bad": "a\xffb", "a.when": at, "a.num": json.Number("12"), "a.numf": json.Number("1.5"), "a.f32": float32(0.5),
			"a.neg": -3, "a.big": int64(1) << 60, "a.float": 1e-300, "a.empty": "", "a.list": []any{"x", 2, false}},
	}
	got, err := toNQuads(set, false)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`_:m0 <assoc.TEMPORAL> <0x1f> (cost=1, note="say \"hi\"", ok=true, strength=0.5, updatedAt=2026-03-01T12:00:00Z) .`,
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
		`_:s <a.bad> "a\uFFFDb" .`,
		`_:s <a.big> "1152921504606846976"^^<xs:int> .`,
		`_:s <a.ctl> "\u0000\u0001\n\r\t\u007f\\" .`,
		`_:s <a.empty> "" .`,
		`_:s <a.f32> "0.5"^^<xs:float> .`,
		`_:s <a.float> "1e-300"^^<xs:float> .`,
		`_:s <a.list> "x" .`,
		`_:s <a.list> "2"^^<xs:int> .`,
		`_:s <a.list> "false"^^<xs:boolean> .`,
		`_:s <a.neg> "-3"^^<xs:int> .`,
		`_:s <a.num> "12"^^<xs:int> .`,
		`_:s <a.numf> "1.5"^^<xs:float> .`,
		`_:s <a.quote> "\"<_:x> <p> \"v\" ." .`,
		`_:s <a.uni> "🧠 記憶 ذاكرة e\u0301\u2028" .`,
		`_:s <a.when> "2026-03-01T12:00:00.123456789Z"^^<xs:dateTime> .`,
	}, "\n") + "\n"
	sameAsParsed(t, "set", got, want)
	del := []map[string]any{
		{"uid": "0x1", "mem.content": nil, "mem.tags": []string{"x"}},
		{"uid": "0x2", "assoc.CAUSAL": map[string]any{"uid": "0x3"}},
		{"uid": "0x4"},
	}
	got, err = toNQuads(del, true)
	if err != nil {
		t.Fatal(err)
	}
	sameAsParsed(t, "delete", got, "<0x1> <mem.content> * .\n<0x1> <mem.tags> \"x\" .\n<0x2> <assoc.CAUSAL> <0x3> .\n<0x4> * * .\n")
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

// sameAsParsed fails unless got are the N-Quads Dgraph's RDF parser makes of text, in order.
func sameAsParsed(t *testing.T, name string, got []*api.NQuad, text string) {
	t.Helper()
	want, _, err := chunker.ParseRDFs([]byte(text))
	if err != nil {
		t.Fatalf("%s: the reference text does not parse: %v", name, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d N-Quads, want %d:\n%v\nwant:\n%v", name, len(got), len(want), got, want)
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("%s: N-Quad %d:\n%v\nwant:\n%v", name, i, got[i], want[i])
		}
	}
}
