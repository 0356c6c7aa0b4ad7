package journal

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSections: whatever Markdown a mind's journal holds, its sections do not overlap, their
// titles are valid UTF-8 within 1,024 bytes, and the file put back together from them
// (Snippet, as journalGet serves it) is the file: every line as written, but blank lines that
// no section holds, which come back empty.
func FuzzSections(f *testing.F) {
	for _, s := range []string{
		"", "\n", "# A\n\ntext\n", "intro\n# A\n## B\nb\n# C\n", "```\n# not a heading\n```\n# H\n",
		"~~~~\n# x\n~~~\n~~~~\n", "#\n##\n###   ###\n", "a\r\nb\r\n\r\n# c\r\n", "x\r\r\ny", "   \n\t\n",
		"# " + strings.Repeat("é", 600) + "\nbody\n", "####### seven\n", " # indented\n    # code\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		if !utf8.ValidString(content) {
			return // importJournal refuses such content before it is split
		}
		secs := Sections(File{Path: "MEMORY.md", Content: content})
		lines := Lines(content)
		last := 0
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				last = i + 1
			}
		}
		next := 1
		keys := map[string]bool{}
		for _, s := range secs {
			if s.FromLine < next || s.Lines < 1 {
				t.Fatalf("section %q at line %d (%d lines) overlaps the one before (ends before %d)", s.Key, s.FromLine, s.Lines, next)
			}
			next = s.FromLine + s.Lines
			if keys[s.Key] {
				t.Fatalf("two sections are keyed %q", s.Key)
			}
			keys[s.Key] = true
			if title := Title(s); !utf8.ValidString(title) || len(title) > 1024 {
				t.Fatalf("title of %d bytes, valid UTF-8 %v", len(title), utf8.ValidString(title))
			}
		}
		text, got, total := Snippet(secs, 1, 0)
		if total != last {
			t.Fatalf("the sections end at line %d, the file's last line that is not blank is %d", total, last)
		}
		if total == 0 {
			return
		}
		back := strings.Split(text, "\n")
		if got != total || len(back) != total {
			t.Fatalf("Snippet gave %d lines (%d split), want %d", got, len(back), total)
		}
		for i := range total {
			if back[i] != lines[i] && (strings.TrimSpace(lines[i]) != "" || back[i] != "") {
				t.Fatalf("line %d comes back as %q, written %q", i+1, back[i], lines[i])
			}
		}
	})
}
