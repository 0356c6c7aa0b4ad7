// Package journal reads a mind's journal — seed 003's MEMORY.md and memory/*.md, Markdown files
// the mind writes itself — into sections: the lines under each heading, with the path of the
// file and the headings above them. Each section becomes a knowledge page of type JOURNAL; a
// file is whole again from its pages (Snippet), so a mind can search its journal and then read a
// snippet by path and lines.
package journal

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/totalrecall/totalrecall/domain"
)

// Limits of a journal.
const (
	// MaxPathBytes bounds a file's path (it is a tag of its pages: "journal:PATH").
	MaxPathBytes = domain.MaxTagBytes - len(PathTagPrefix)
	// MaxFiles bounds the files of one import.
	MaxFiles = 10000
)

// Tags of journal pages: every page carries Tag, and PathTagPrefix+path.
const (
	Tag           = "journal"
	PathTagPrefix = "journal:"
)

// File is one file of the journal: its path relative to the journal's folder ("MEMORY.md",
// "memory/2025-01-31.md") and its text.
type File struct {
	Path    string
	Content string
}

// Section is the part of a file under one heading (or before the first).
type Section struct {
	Path string
	// Key names the section within its file across edits: its heading path and, among sections
	// of the same heading path, its place.
	Key string
	// Headings is the heading path, outermost first (empty before the first heading).
	Headings []string
	// FromLine is its first line (1-based); Lines how many lines it spans, up to its last line
	// that is not blank (so a section keeps its place and text when another one grows).
	FromLine int
	Lines    int
	Text     string
}

// CheckPath refuses a path that is not MEMORY.md or a Markdown file under memory/: relative,
// clean, of printable UTF-8, at most MaxPathBytes.
func CheckPath(field, p string) error {
	switch {
	case p == "":
		return domain.FieldErrorf(field, "must not be empty")
	case len(p) > MaxPathBytes:
		return domain.FieldErrorf(field, "is longer than %d bytes", MaxPathBytes)
	case !utf8.ValidString(p):
		return domain.FieldErrorf(field, "is not valid UTF-8")
	case strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) }) >= 0:
		return domain.FieldErrorf(field, "must not contain control characters")
	case strings.Contains(p, `\`):
		return domain.FieldErrorf(field, "separates folders with /, not \\")
	case path.Clean(p) != p || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == "..":
		return domain.FieldErrorf(field, "%q is not a clean path inside the journal's folder", p)
	case p == "MEMORY.md":
		return nil
	case strings.HasPrefix(p, "memory/") && strings.HasSuffix(p, ".md") && len(p) > len("memory/.md"):
		return nil
	}
	return domain.FieldErrorf(field, "%q is neither MEMORY.md nor a Markdown file under memory/", p)
}

var headingRE = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)

// Lines splits a file's text into lines ("\r\n" and "\n" end a line; a final line break adds
// no empty line).
func Lines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// Sections splits a file at its ATX headings (# to ######; not inside fenced code). Sections
// holding only blank lines are left out, and blank lines end no section: Snippet gives them back
// blank.
func Sections(f File) []Section {
	lines := Lines(f.Content)
	var out []Section
	var stack []struct {
		level int
		text  string
	}
	seen := map[string]int{}
	start, headings := 0, []string{}
	flush := func(end int) {
		if end <= start {
			return
		}
		for end > start && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		if end == start {
			return
		}
		body := lines[start:end]
		base := strings.Join(headings, "\x1f")
		seen[base]++
		out = append(out, Section{Path: f.Path, Key: fmt.Sprintf("%s#%d", base, seen[base]), Headings: append([]string{}, headings...),
			FromLine: start + 1, Lines: end - start, Text: strings.Join(body, "\n")})
	}
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, string(fence[0])+" \t") == "" {
				fence = ""
			}
			continue
		}
		if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		flush(i)
		level := len(m[1])
		text := strings.TrimSpace(strings.TrimRight(m[2], "#"))
		if text == "" {
			text = strings.Repeat("#", level)
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, struct {
			level int
			text  string
		}{level, text})
		headings = make([]string, len(stack))
		for j, h := range stack {
			headings[j] = h.text
		}
		start = i
	}
	flush(len(lines))
	return out
}

// pageNamespace makes page ids: one page per scope, path and section key, so a second import
// of the same file finds the pages the first made.
var pageNamespace = uuid.MustParse("5b0e8f3a-2d6c-4b7e-9c41-7a9d2e6f1c08")

// PageID is the id of the page of a section of a scope's journal.
func PageID(scopeID string, s Section) string {
	return uuid.NewSHA1(pageNamespace, []byte(scopeID+"\x00"+s.Path+"\x00"+s.Key)).String()
}

// Title is a section page's title: the path and the headings above the section.
func Title(s Section) string {
	t := strings.Join(append([]string{s.Path}, s.Headings...), " › ")
	if len(t) > 1024 {
		t = t[:1024]
		for !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	return t
}

// Tags are a section page's tags.
func Tags(s Section) []string { return []string{Tag, PathTagPrefix + s.Path} }

type meta struct {
	Path     string   `json:"path"`
	Key      string   `json:"key"`
	Headings []string `json:"headings"`
	FromLine int      `json:"fromLine"`
	Lines    int      `json:"lines"`
}

// Metadata is a section page's metadata: where the section lies, under "journal".
func Metadata(s Section) map[string]any {
	raw, _ := json.Marshal(meta{Path: s.Path, Key: s.Key, Headings: s.Headings, FromLine: s.FromLine, Lines: s.Lines})
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return map[string]any{"journal": m}
}

// SectionOf reads a JOURNAL page back as its section; false for any other page.
func SectionOf(a *domain.Artifact) (Section, bool) {
	if a == nil || a.Family != domain.FamKnowledge || a.Type != string(domain.KnowJournal) {
		return Section{}, false
	}
	raw, _ := json.Marshal(a.Metadata["journal"])
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil || m.Path == "" || m.FromLine < 1 {
		return Section{}, false
	}
	if m.Headings == nil {
		m.Headings = []string{}
	}
	return Section{Path: m.Path, Key: m.Key, Headings: m.Headings, FromLine: m.FromLine, Lines: m.Lines, Text: a.Content}, true
}

// Same reports whether a page already holds section s as it is now.
func Same(a *domain.Artifact, s Section) bool {
	cur, ok := SectionOf(a)
	return ok && a.Title == Title(s) && cur.Text == s.Text && cur.Key == s.Key && cur.FromLine == s.FromLine &&
		cur.Lines == s.Lines && strings.Join(cur.Headings, "\x1f") == strings.Join(s.Headings, "\x1f")
}

// Snippet puts a file back together from its sections (lines no section holds are blank) and
// returns n of its lines from line from (1-based; n ≤ 0: to the end), and the file's length up
// to its last line that is not blank.
func Snippet(secs []Section, from, n int) (text string, got, total int) {
	for _, s := range secs {
		total = max(total, s.FromLine+s.Lines-1)
	}
	lines := make([]string, total)
	sort.Slice(secs, func(i, j int) bool { return secs[i].FromLine < secs[j].FromLine })
	for _, s := range secs {
		// Text holds the file's lines joined by "\n": split back exactly (a "\r" ending a line is
		// the line's, not half of a line break).
		for i, l := range strings.Split(s.Text, "\n") {
			if k := s.FromLine - 1 + i; k < total {
				lines[k] = l
			}
		}
	}
	if from < 1 || from > total {
		return "", 0, total
	}
	end := total
	if n > 0 {
		end = min(total, from-1+n)
	}
	return strings.Join(lines[from-1:end], "\n"), end - from + 1, total
}
