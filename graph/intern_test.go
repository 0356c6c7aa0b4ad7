package graph

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/totalrecall/totalrecall/domain"
)

// decodeMeta decodes a metadata document as a memory's is decoded.
func decodeMeta(t testing.TB, doc string) map[string]any {
	t.Helper()
	var d memDoc
	if err := decode([]byte(`{"metadata":`+doc+`}`), &d); err != nil {
		t.Fatal(err)
	}
	return d.Metadata
}

func sameData(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// The interner's copy of a record's metadata is equal to it, down to -0 and the types of its
// numbers, and writes back as the same document.
func FuzzShareMetadata(f *testing.F) {
	for _, seed := range []string{
		`{"speaker":"Caroline","session":3,"seq":17.5,"contentTypes":["text"],"ok":true,"none":null}`,
		`{"nested":{"a":[1,2,{"b":"c"}],"d":{}},"e":[],"f":[[]]}`,
		`{"zero":-0,"list":[-0,0],"big":1e300,"tiny":5e-324}`,
		`{"quote\"d":"a\"b","nl":"x\ny","nul":"a\u0000sb","emoji":"🧠 memória","dgraph":"<_:x> <p> \"v\" ."}`,
		`{"long":"` + strings.Repeat("a", 200) + `","list":["` + strings.Repeat("b", 100) + `"]}`,
		`{"ab":["ab"],"a,b":["a","b"],"one":[1],"sone":["1"],"t":[true],"st":["true"]}`,
		`{}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var d memDoc
		if err := decode([]byte(`{"metadata":`+doc+`}`), &d); err != nil || d.Metadata == nil {
			return
		}
		want, err := json.Marshal(d.Metadata)
		if err != nil {
			return
		}
		in := &interner{}
		got := in.metadata(d.Metadata)
		if !reflect.DeepEqual(got, d.Metadata) {
			t.Fatalf("shared %#v, decoded %#v", got, d.Metadata)
		}
		again, err := json.Marshal(got)
		if err != nil || string(again) != string(want) {
			t.Fatalf("shared writes %s (%v), decoded %s", again, err, want)
		}
		// A second record with the same document shares it, and still equals it.
		if second := in.metadata(decodeMeta(t, doc)); !reflect.DeepEqual(second, got) {
			t.Fatalf("second record %#v, first %#v", second, got)
		}
	})
}

// Two records with the same metadata share its keys, its short values and its short lists;
// long values are not shared; a list is never mistaken for another that writes the same bytes
// in another way; nothing a caller changes in a clone reaches the other record.
func TestInternerShares(t *testing.T) {
	in := &interner{}
	doc := `{"speaker":"Caroline","session":3,"contentTypes":["text"],"ab":["ab"],"a,b":["a","b"],` +
		`"nul":["a\u0000s1:b"],"nul2":["a","b"],"one":[1],"sone":["1"],"zero":-0,"long":"` + strings.Repeat("x", 100) + `"}`
	a, b := in.metadata(decodeMeta(t, doc)), in.metadata(decodeMeta(t, doc))
	keys := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k := range m {
			out[k] = k
		}
		return out
	}
	ka, kb := keys(a), keys(b)
	for k := range ka {
		if !sameData(ka[k], kb[k]) {
			t.Fatalf("key %q is not shared", k)
		}
	}
	if !sameData(a["speaker"].(string), b["speaker"].(string)) {
		t.Fatal("a short value is not shared")
	}
	if sameData(a["long"].(string), b["long"].(string)) {
		t.Fatal("a long value is shared: values of more than internLen bytes are not")
	}
	if &a["contentTypes"].([]any)[0] != &b["contentTypes"].([]any)[0] {
		t.Fatal("a short list is not shared")
	}
	for _, pair := range [][2]string{{"ab", "a,b"}, {"nul", "nul2"}, {"one", "sone"}} {
		if reflect.DeepEqual(a[pair[0]], a[pair[1]]) {
			t.Fatalf("%s and %s were made one list: %v, %v", pair[0], pair[1], a[pair[0]], a[pair[1]])
		}
	}
	if z := a["zero"].(float64); z != 0 || !math.Signbit(z) {
		t.Fatalf("-0 became %v", z)
	}
	// Cached records are never changed: callers change clones, which share no list or map.
	m1 := &domain.Memory{Metadata: a}
	c := m1.Clone()
	c.Metadata["contentTypes"].([]any)[0] = "image"
	c.Metadata["speaker"] = "Melanie"
	if b["contentTypes"].([]any)[0] != "text" || a["speaker"] != "Caroline" {
		t.Fatalf("a clone's change reached the shared records: %v %v", b["contentTypes"], a["speaker"])
	}
}

// The tables forget everything when full, so values seen once cannot grow them without bound;
// what was shared before stays equal.
func TestInternerIsBounded(t *testing.T) {
	in := &interner{}
	first := in.str("first")
	for i := range internMax + 100 {
		in.str(fmt.Sprintf("id-%d", i))
		in.metadata(map[string]any{"k": fmt.Sprintf("v-%d", i), "n": float64(i)})
	}
	if len(in.strs) > internMax || len(in.vals) > internMax {
		t.Fatalf("tables of %d strings and %d values, bound %d", len(in.strs), len(in.vals), internMax)
	}
	if again := in.str("first"); again != first {
		t.Fatalf("%q after the tables were forgotten", again)
	}
	if s := strings.Repeat("y", internLen+1); in.str(s) != s {
		t.Fatal("a long string came back changed")
	}
}
