package domain

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseEdgeTypes(t *testing.T) {
	f, err := ParseEdgeTypes("types", nil)
	if err != nil || f != nil || !f.FollowsAssoc(AssocCausal) || !f.FollowsRef(RefCites) || !f.Follows(EdgeFacet) {
		t.Fatalf("no types: %+v %v, want every edge", f, err)
	}
	f, err = ParseEdgeTypes("types", []string{"thematic", " SUPPORTS ", "EPISODE_MEMBER"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"THEMATIC", f.FollowsAssoc(AssocThematic), true},
		{"CAUSAL", f.FollowsAssoc(AssocCausal), false},
		{"SUPPORTS", f.FollowsRef(RefSupports), true},
		{"CITES", f.FollowsRef(RefCites), false},
		{"EPISODE_MEMBER", f.Follows(EdgeEpisodeMember), true},
		{"FACET", f.Follows(EdgeFacet), false},
		{"CONSOLIDATION", f.Follows(EdgeConsolidation), false},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("follows %s = %v, want %v", c.name, c.got, c.want)
		}
	}
	f, _ = ParseEdgeTypes("types", []string{"ASSOCIATION", "REFERENCE"})
	if !f.FollowsAssoc(AssocPerson) || !f.FollowsRef(RefContradicts) || f.Follows(EdgeFacet) {
		t.Fatalf("whole kinds: %+v", f)
	}
	for _, bad := range []string{"", "MEMBER", `THEMATIC") { uid }`, strings.Repeat("x", 10000), "🧠"} {
		_, err := ParseEdgeTypes("types", []string{"THEMATIC", bad})
		var de *Error
		if !asError(err, &de) || de.Code != EINVALID || de.Field != "types" || len(de.Message) > 600 {
			t.Fatalf("%.20q: %v, want INVALID_ARGUMENT on types, a short message", bad, err)
		}
	}
}

func asError(err error, out **Error) bool {
	e, ok := err.(*Error)
	*out = e
	return ok
}

func TestLabel(t *testing.T) {
	cases := []struct{ in, want string }{
		{"short", "short"},
		{"  spaces\n\tand\r\nlines  ", "spaces and lines"},
		{"", ""},
		{strings.Repeat("ab ", 50), strings.TrimSpace(strings.Repeat("ab ", 40)[:MaxLabelRunes-1]) + "…"},
	}
	for _, c := range cases {
		if got := Label(c.in); got != c.want {
			t.Errorf("Label(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// A megabyte of multi-byte runes: cut on a rune boundary, at most MaxLabelRunes runes.
	big := strings.Repeat("記憶", 1<<19)
	got := Label(big)
	if !utf8.ValidString(got) || utf8.RuneCountInString(got) != MaxLabelRunes || !strings.HasSuffix(got, "…") {
		t.Fatalf("Label of 1 MiB: %d runes, valid %v, %q…", utf8.RuneCountInString(got), utf8.ValidString(got), got[:12])
	}
}
