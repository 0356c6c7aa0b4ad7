package graph

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestPackDoc(t *testing.T) {
	small := `{"a":1}`
	if got := packDoc(small); got != small {
		t.Fatalf("small document packed: %q", got)
	}
	big := strings.Repeat(`{"artifactId":"x","reasons":[{"code":"STALE","detail":"not used since \"then\"\t\n"}]}`+"\n", 2000)
	p := packDoc(big)
	if !strings.HasPrefix(p, packPrefix) || len(p) >= len(big)/4 {
		t.Fatalf("big document of %d bytes packed to %d (prefix %q)", len(big), len(p), p[:min(len(p), 3)])
	}
	for _, in := range []string{p, small, big, ""} {
		out, err := unpackDoc(in)
		want := in
		if in == p {
			want = big
		}
		if err != nil || out != want {
			t.Fatalf("unpack: %v (equal: %v)", err, out == want)
		}
	}
	if _, err := unpackDoc(packPrefix + "not base64 gzip"); err == nil {
		t.Fatal("a damaged packed document unpacked without error")
	}
}

// packJSON gives what packDoc gives of the JSON, without holding it: plain below packAbove,
// packed above, whatever sizes the encoder writes in; docReader reads both.
func TestPackJSON(t *testing.T) {
	type doc struct {
		Items []string `json:"items"`
	}
	for _, n := range []int{0, 1, 10, 300, 3000} {
		v := doc{Items: []string{}}
		for i := range n {
			v.Items = append(v.Items, fmt.Sprintf("item %d \"quoted\" <tag> \t 🧠", i))
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := packJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if packed := strings.HasPrefix(got, packPrefix); packed != (len(want) >= packAbove) {
			t.Fatalf("%d items (%d bytes of JSON): packed %v", n, len(want), packed)
		}
		if !strings.HasPrefix(got, packPrefix) && got != string(want) {
			t.Fatalf("%d items: plain document %q, want %q", n, got, want)
		}
		r, err := docReader(got)
		if err != nil {
			t.Fatal(err)
		}
		read, err := io.ReadAll(r)
		if err != nil || strings.TrimSuffix(string(read), "\n") != string(want) {
			t.Fatalf("%d items: read back %d bytes (%v), want %d", n, len(read), err, len(want))
		}
	}
	if _, err := docReader(packPrefix + "not base64 gzip"); err == nil {
		t.Fatal("a damaged packed document opened without error")
	}
}
