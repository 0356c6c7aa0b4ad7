package scripts

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The manual holds itself to what a reader needs: README.md is a front page of at most 200
// lines whose two commands are the server and the very test command CI runs; every page of
// docs/ opens with a summary and is linked from the manual's index; every relative link of
// README.md and docs/ reaches an existing file and, with a #fragment, a heading of it.

const root = ".."

// mdPages are README.md and the Markdown pages of docs/, relative to the repository.
func mdPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
	}
	return out
}

// prose returns the lines of a Markdown file outside fenced code blocks, with their numbers.
func prose(t *testing.T, page string) (lines []string, numbers []int) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, l)
			numbers = append(numbers, n)
		}
	}
	return lines, numbers
}

var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// anchors returns the fragments GitHub gives the headings of a page: lower case, punctuation
// dropped, spaces as hyphens, a repeated one suffixed -1, -2, ...
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	lines, _ := prose(t, page)
	out := map[string]bool{}
	for _, l := range lines {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := githubSlug(m[1])
		a := s
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", s, i)
		}
		out[a] = true
	}
	return out
}

func githubSlug(h string) string {
	// Links in a heading count by their text.
	h = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestEveryRelativeLinkResolves(t *testing.T) {
	checked := 0
	for _, page := range mdPages(t) {
		lines, numbers := prose(t, page)
		for i, l := range lines {
			// Inline code is not a link.
			l = regexp.MustCompile("`[^`]*`").ReplaceAllString(l, "")
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", page, numbers[i], target)
						continue
					}
				}
				if frag == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link to %s: a fragment of a file that is not Markdown", page, numbers[i], target)
					continue
				}
				if !anchors(t, dest)[frag] {
					t.Errorf("%s:%d: link to %s: %s has no heading #%s", page, numbers[i], target, dest, frag)
				}
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked %d links: the manual links far more", checked)
	}
}

func TestGitHubSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Salience and decay":                   "salience-and-decay",
		"Events and the TransactionContext":    "events-and-the-transactioncontext",
		"`totalrecall import locomo|events`":   "totalrecall-import-locomoevents",
		"Export, import and backups":           "export-import-and-backups",
		"A five-minute tour":                   "a-five-minute-tour",
		"Memories: scopes — and [links](x.md)": "memories-scopes--and-links",
	} {
		if got := githubSlug(h); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", h, got, want)
		}
	}
}

func TestReadmeIsAFrontPage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; a front page has at most 200 (the rest belongs in docs/)", n)
	}
	// Its first two blocks are the two commands: the server, and the test command .ci/run runs.
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindAllStringSubmatch(string(raw), 2)
	if len(blocks) != 2 || blocks[0][1] != "go run ./cmd/totalrecall serve" || !strings.HasPrefix(blocks[1][1], "go test ") {
		t.Fatalf("README.md's first two sh blocks = %q, want the serve command and the test command", blocks)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(string(ci), "\n") {
		found = found || l == blocks[1][1]
	}
	if !found {
		t.Errorf(".ci/run does not run README.md's test command %q", blocks[1][1])
	}
}

func TestEveryPageOpensWithASummaryAndIsIndexed(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	if !strings.Contains(string(readme), "](docs/README.md)") {
		t.Error("README.md does not link the manual's index, docs/README.md")
	}
	for _, page := range mdPages(t) {
		lines, _ := prose(t, page)
		// The title, then a paragraph of prose.
		var first []string
		for _, l := range lines {
			if strings.TrimSpace(l) != "" {
				first = append(first, l)
			}
			if len(first) == 2 {
				break
			}
		}
		if len(first) < 2 || !strings.HasPrefix(first[0], "# ") || strings.ContainsAny(first[1][:1], "#|-*>") {
			t.Errorf("%s does not open with a title and a summary paragraph: %q", page, first)
		}
		name := filepath.Base(page)
		if page == "README.md" || name == "README.md" {
			continue
		}
		if !strings.Contains(string(index), "]("+name+")") {
			t.Errorf("docs/README.md does not link %s: add it to the manual's index", name)
		}
	}
}
