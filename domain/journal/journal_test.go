package journal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

func TestSections(t *testing.T) {
	text := "Preamble line.\n\n# Top\n\nBody of top.\n\n## Child\nchild text\n\n```md\n# inside a fence\n```\n\n## Child\nsecond child\n### \n#hashtag is text\n# Top\nagain\n\n\n"
	secs := Sections(File{Path: "MEMORY.md", Content: text})
	type row struct {
		key, headings string
		from, lines   int
		text          string
	}
	var got []row
	for _, s := range secs {
		got = append(got, row{s.Key, strings.Join(s.Headings, "|"), s.FromLine, s.Lines, s.Text})
	}
	want := []row{
		{"#1", "", 1, 1, "Preamble line."},
		{"Top#1", "Top", 3, 3, "# Top\n\nBody of top."},
		{"Top\x1fChild#1", "Top|Child", 7, 6, "## Child\nchild text\n\n```md\n# inside a fence\n```"},
		{"Top\x1fChild#2", "Top|Child", 14, 2, "## Child\nsecond child"},
		{"Top\x1fChild\x1f####1", "Top|Child|###", 16, 2, "### \n#hashtag is text"},
		{"Top#2", "Top", 18, 2, "# Top\nagain"},
	}
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
		t.Fatalf("sections =\n%#v\nwant\n%#v", got, want)
	}
	// The file comes back whole from its sections, blank lines included (up to its last text).
	whole, n, total := Snippet(secs, 1, 0)
	if want := strings.TrimRight(text, "\n"); whole != want || n != 19 || total != 19 {
		t.Fatalf("snippet = %q (%d of %d lines), want %q", whole, n, total, want)
	}
	if s, n, _ := Snippet(secs, 8, 2); s != "child text\n" || n != 2 {
		t.Fatalf("lines 8-9 = %q (%d)", s, n)
	}
	if s, n, total := Snippet(secs, 20, 1); s != "" || n != 0 || total != 19 {
		t.Fatalf("past the end = %q %d %d", s, n, total)
	}
	if s, _, _ := Snippet(secs, 19, 50); s != "again" {
		t.Fatalf("the last line = %q", s)
	}
}

func TestSectionsCRLFAndEmpty(t *testing.T) {
	if secs := Sections(File{Path: "MEMORY.md", Content: "\n\n  \n"}); len(secs) != 0 {
		t.Fatalf("blank file: %+v", secs)
	}
	secs := Sections(File{Path: "memory/a.md", Content: "# A\r\ntext\r\n"})
	if len(secs) != 1 || secs[0].Text != "# A\ntext" || secs[0].Lines != 2 {
		t.Fatalf("CRLF: %+v", secs)
	}
}

func TestSectionKeysSurviveEdits(t *testing.T) {
	before := Sections(File{Path: "MEMORY.md", Content: "# A\none\n# B\ntwo\n"})
	after := Sections(File{Path: "MEMORY.md", Content: "intro\n\n# A\none, edited\n# B\ntwo\n"})
	if PageID("s", before[1]) != PageID("s", after[2]) || before[1].Text != after[2].Text {
		t.Fatalf("section B changed identity: %+v vs %+v", before[1], after[2])
	}
	if PageID("s", before[0]) != PageID("s", after[1]) || before[0].Text == after[1].Text {
		t.Fatalf("section A: %+v vs %+v", before[0], after[1])
	}
	if PageID("s", before[0]) == PageID("t", before[0]) {
		t.Fatal("two scopes share a page id")
	}
}

func TestPageRoundTrip(t *testing.T) {
	s := Sections(File{Path: "memory/2025-01-31.md", Content: "# Plans\n## \"Q1\" <_:x> *\ngo"})[1]
	a := &domain.Artifact{Family: domain.FamKnowledge, Type: string(domain.KnowJournal), Title: Title(s), Content: s.Text, Metadata: Metadata(s)}
	got, ok := SectionOf(a)
	if !ok || got.Path != s.Path || got.Key != s.Key || got.FromLine != 2 || got.Lines != 2 ||
		strings.Join(got.Headings, "|") != `Plans|"Q1" <_:x> *` || !Same(a, s) {
		t.Fatalf("round trip = %+v, %v", got, ok)
	}
	if a.Title != `memory/2025-01-31.md › Plans › "Q1" <_:x> *` {
		t.Fatalf("title = %q", a.Title)
	}
	if fmt.Sprint(Tags(s)) != "[journal journal:memory/2025-01-31.md]" {
		t.Fatalf("tags = %v", Tags(s))
	}
	a.Type = string(domain.KnowFact)
	if _, ok := SectionOf(a); ok {
		t.Fatal("a FACT page read as a journal section")
	}
}

func TestCheckPath(t *testing.T) {
	for _, ok := range []string{"MEMORY.md", "memory/2025-01-31.md", "memory/projects/atlas.md", "memory/記憶.md"} {
		if err := CheckPath("path", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "memory.md", "MEMORY.txt", "memory/.md", "memory/a.txt", "/MEMORY.md", "../MEMORY.md",
		"memory/../MEMORY.md", "memory//a.md", "memory/./a.md", `memory\a.md`, "memory/a\x00.md", "memory/a\n.md",
		"memory/\xff.md", "memory/" + strings.Repeat("x", MaxPathBytes) + ".md", "notes/a.md"} {
		if err := CheckPath("path", bad); domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("%q: %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}
