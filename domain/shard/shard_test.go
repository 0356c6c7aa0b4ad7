package shard

import (
	"strings"
	"testing"
)

const (
	scopeA = "0a4f5c3e-9a5b-4d0e-8f43-1c2b3a4d5e6f"
	scopeB = "7d9e2b1a-3c4d-4e5f-a6b7-c8d9e0f1a2b3"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" with err
		err      string
	}{
		{in: "0/2", want: "0/2"},
		{in: " 1/2 ", want: "1/2"},
		{in: "3 / 4", want: "3/4"},
		{in: "0/1", want: "all"},
		{in: "all", want: "all"},
		{in: "1023/1024", want: "1023/1024"},
		{in: scopeB + "," + scopeA + "," + scopeB, want: scopeA + "," + scopeB},
		{in: scopeA, want: scopeA},
		{in: "", err: "empty"},
		{in: "   ", err: "empty"},
		{in: "2/2", err: "I must be 0..1"},
		{in: "-1/2", err: "I must be 0..1"},
		{in: "0/0", err: "N must be"},
		{in: "0/1025", err: "N must be"},
		{in: "a/2", err: "whole numbers"},
		{in: "1/2/3", err: "whole numbers"},
		{in: "0x1/2", err: "whole numbers"},
		{in: scopeA + ",", err: "empty scope id"},
		{in: "tour", err: "neither I/N nor a scope id"},
		{in: "\"; drop all\n", err: "neither I/N nor a scope id"},
		{in: strings.Repeat("x", 200), err: "…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := Parse(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) = %v, %v; want an error with %q", tc.in, s, err, tc.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("Parse(%q): error of several lines: %q", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if got := s.String(); got != tc.want {
				t.Fatalf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
			}
			again, err := Parse(s.String())
			if err != nil || again.String() != s.String() {
				t.Fatalf("Parse(String()) = %v, %v; want %q", again, err, s)
			}
		})
	}
}

// The hash is a contract between servers: these values must never change.
func TestOfIsFNV1a(t *testing.T) {
	for _, tc := range []struct {
		id    string
		count int
		want  int
	}{
		{"", 2, 1},             // the offset basis cbf29ce484222325
		{"a", 2, 0},            // af63dc4c8601ec8c
		{"a", 7, 5},            // af63dc4c8601ec8c
		{"foobar", 1024, 1000}, // 85944171f73967e8
		{scopeA, 2, 1},         // 9f02701d18b705a3
		{scopeB, 2, 0},         // 89d50ab5f7cff338
		{scopeA, 1, 0},
	} {
		if got := Of(tc.id, tc.count); got != tc.want {
			t.Errorf("Of(%q, %d) = %d, want %d", tc.id, tc.count, got, tc.want)
		}
	}
}

func TestServesSplitsEveryScopeOnce(t *testing.T) {
	const n = 3
	specs := make([]*Spec, n)
	for i := range specs {
		s, err := Parse(strings.Join([]string{string(rune('0' + i)), "3"}, "/"))
		if err != nil {
			t.Fatal(err)
		}
		specs[i] = s
	}
	seen := make([]int, n)
	for i := 0; i < 3000; i++ {
		id := strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		owners := 0
		for j, s := range specs {
			if s.Serves(id) {
				owners++
				seen[j]++
			}
		}
		if owners != 1 {
			t.Fatalf("%q is served by %d shards, want 1", id, owners)
		}
	}
	for j, c := range seen {
		if c < 500 {
			t.Errorf("shard %d serves %d of 3000 ids: the hash does not spread", j, c)
		}
	}
	var all *Spec
	if !all.Serves(scopeA) || !all.Serves("") || !all.All() {
		t.Fatal("the nil spec must serve every scope")
	}
	list, _ := Parse(scopeA)
	if !list.Serves(scopeA) || list.Serves(scopeB) || list.Serves("") {
		t.Fatal("a list serves exactly its ids")
	}
}

func TestSuffixIsAConsumerName(t *testing.T) {
	for _, in := range []string{"0/2", "1023/1024", scopeA, scopeA + "," + scopeB} {
		s, _ := Parse(in)
		suf := s.Suffix()
		if len(suf) < 2 || len(suf) > 20 || strings.Trim(suf, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			t.Errorf("Suffix of %q = %q, want a short [a-z0-9] name", in, suf)
		}
	}
	a, _ := Parse(scopeA + "," + scopeB)
	b, _ := Parse(scopeB + "," + scopeA)
	if a.Suffix() != b.Suffix() {
		t.Fatal("the same list in another order must name the same scope set")
	}
	if (*Spec)(nil).Suffix() != "" {
		t.Fatal("every scope: no suffix")
	}
}
