package graph

import (
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
