package graph

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hypermodeinc/dgraph/v25/chunker"
	"google.golang.org/protobuf/proto"

	"github.com/totalrecall/totalrecall/domain"
)

// FuzzToNQuads feeds the N-Quad writer a node with a fuzzed predicate, string value, edge facet
// and blank node. It never panics; it refuses predicates, facets and blank nodes Dgraph would
// read otherwise; and what it writes is exactly what Dgraph's own RDF parser makes of the same
// node written as text — the value (quotes, newlines, NUL, invalid UTF-8, DQL) arrives as sent.
func FuzzToNQuads(f *testing.F) {
	f.Add("mem.content", "plain", "note", "a note", "m0")
	f.Add("mem.content", `"<_:x> <p> "v" .`, "n", "\x00\x01\n\r\t\x7f\\", "m-1.x_y")
	f.Add("p> <q", "x", "f,g", "v", "a b")
	f.Add("mem.tags", "\xff\xfe", "f=g", "2026-01-01T00:00:00Z", "")
	f.Add("mem.content", "uid(v) @filter(eq(tr.scope, \"x\"))", "(f)", `"`, "_:x")
	f.Add("*", "🧠 記憶 ذاكرة e\u0301\u2028", "strength", "0.5", "ok")
	f.Fuzz(func(t *testing.T, pred, value, facet, facetVal, blank string) {
		obj := map[string]any{"uid": "_:" + blank, pred: value,
			"assoc.CAUSAL": map[string]any{"uid": "0x1f", "assoc.CAUSAL|" + facet: facetVal}}
		got, err := toNQuads([]map[string]any{obj}, false)
		if err != nil {
			return
		}
		// Written as text, Dgraph's parser must make the same N-Quads of it.
		fv, ferr := facetValue(facetVal)
		if ferr != nil {
			t.Fatalf("facet value %q accepted by the writer but not renderable: %v", facetVal, ferr)
		}
		var lines []string
		subj := "_:" + blank
		if pred < "assoc.CAUSAL" {
			lines = append(lines, "<"+subj+"> <"+pred+"> "+quote(value)+" .")
		}
		lines = append(lines, "<"+subj+"> <assoc.CAUSAL> <0x1f> ("+facet+"="+fv+") .")
		if pred > "assoc.CAUSAL" {
			lines = append(lines, "<"+subj+"> <"+pred+"> "+quote(value)+" .")
		}
		want, _, perr := chunker.ParseRDFs([]byte(strings.Join(lines, "\n") + "\n"))
		if perr != nil {
			t.Fatalf("the writer accepted what Dgraph cannot read (%v):\n%s", perr, strings.Join(lines, "\n"))
		}
		if len(got) != len(want) {
			t.Fatalf("%d N-Quads, Dgraph's parser makes %d:\n%v\n%v", len(got), len(want), got, want)
		}
		for i := range want {
			// The writer emits the node's keys in map order: match by predicate.
			j := i
			for k := range got {
				if got[k].Predicate == want[i].Predicate {
					j = k
				}
			}
			if !proto.Equal(got[j], want[i]) {
				t.Fatalf("N-Quad %v, Dgraph's parser makes %v", got[j], want[i])
			}
		}
	})
}

// FuzzQuote: every string quotes to a literal that unquotes to it (invalid UTF-8 as U+FFFD),
// on one line.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, "\n\r\t\x00\x7f", "\xff", "🧠", `\u0041`, "<_:x> <p> * ."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := quote(s)
		if strings.ContainsAny(q, "\n\r") {
			t.Fatalf("quote(%q) = %q spans lines", s, q)
		}
		got, err := strconv.Unquote(q)
		if err != nil || got != strings.ToValidUTF8(s, "\uFFFD") {
			t.Fatalf("quote(%q) = %q unquotes to %q, %v", s, q, got, err)
		}
	})
}

// FuzzCursor: a page cursor that decodes names a canonical id and a time, and encoding them
// again gives a cursor that decodes to the same; every other string is INVALID_ARGUMENT on
// "after".
func FuzzCursor(f *testing.F) {
	f.Add(encodeCursor(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e"))
	f.Add("")
	f.Add("not base64 !")
	f.Add("MjAyNi0wMS0wMlQwMzowNDowNVp8eA") // "2026-01-02T03:04:05Z|x"
	f.Add(`"}) { uid }`)
	f.Fuzz(func(t *testing.T, c string) {
		at, id, err := decodeCursor(c)
		if err != nil {
			if de, ok := err.(*domain.Error); !ok || de.Code != domain.EINVALID || de.Field != "after" {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		if !domain.ValidID(id) {
			t.Fatalf("cursor %q decodes to id %q", c, id)
		}
		at2, id2, err := decodeCursor(encodeCursor(at, id))
		if err != nil || !at2.Equal(at) || id2 != id {
			t.Fatalf("cursor %q: re-encoded decodes to %v %q %v", c, at2, id2, err)
		}
	})
}

// FuzzIDList: an id list in a query holds only canonical ids, whatever it is given, and is a
// JSON array of them.
func FuzzIDList(f *testing.F) {
	f.Add("9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e", `9a3f2c1e-8b7d-4c6a-9e5f-1d2c3b4a5f6e"] ) { uid } #`)
	f.Add("", "\x00")
	f.Fuzz(func(t *testing.T, a, b string) {
		out := idList([]string{a, b})
		var ids []string
		if err := json.Unmarshal([]byte(out), &ids); err != nil {
			t.Fatalf("idList(%q, %q) = %q is not a list: %v", a, b, out, err)
		}
		for _, id := range ids {
			if !domain.ValidID(id) {
				t.Fatalf("idList let %q through", id)
			}
		}
		if domain.CheckID("id", a) == nil != domain.ValidID(a) {
			t.Fatalf("CheckID and ValidID disagree on %q", a)
		}
	})
}
