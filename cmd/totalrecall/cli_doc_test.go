package main

import (
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The CLI's manual, docs/cli.md, has a section "## `totalrecall COMMAND`" for every command the
// usage text names (alternatives as the usage writes them: `import locomo|events|agents`), with a
// table whose rows start with the flags the command takes ("| `--store URI` | ..."). The test
// asks every command for its flags (COMMAND -h, as a user would) and fails when the manual lacks
// a command or a flag, or documents one the command does not take.

const cliDoc = "../../docs/cli.md"

// usageCommands returns the commands the usage text names: the lowercase words after
// "totalrecall" on each of its "  totalrecall ..." lines.
func usageCommands(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "totalrecall ")
		if !ok || !strings.HasPrefix(line, "  ") {
			continue
		}
		var words []string
		for _, w := range strings.Fields(rest) {
			if !regexp.MustCompile(`^[a-z][a-z0-9|-]*$`).MatchString(w) {
				break
			}
			words = append(words, w)
		}
		if len(words) > 0 && !slices.Contains(out, strings.Join(words, " ")) {
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}

// expand turns "import locomo|events|agents" into the three commands it names.
func expand(cmd string) [][]string {
	out := [][]string{nil}
	for _, w := range strings.Fields(cmd) {
		var next [][]string
		for _, alt := range strings.Split(w, "|") {
			for _, prefix := range out {
				next = append(next, append(slices.Clone(prefix), alt))
			}
		}
		out = next
	}
	return out
}

var helpFlag = regexp.MustCompile(`(?m)^  -([a-z0-9][a-z0-9-]*)`)

// commandFlags runs `totalrecall ARGS -h` through run and returns the flags the flag package
// lists (it writes them to standard error), each with the default it prints ("" for none).
func commandFlags(t *testing.T, args []string) map[string]string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	var stdout, stderr strings.Builder
	runErr := run(append(slices.Clone(args), "-h"), &stdout, &stderr)
	os.Stderr = saved
	w.Close()
	help := <-read + stderr.String()
	if runErr != nil && !strings.Contains(runErr.Error(), "help requested") {
		t.Fatalf("totalrecall %s -h: %v\n%s", strings.Join(args, " "), runErr, help)
	}
	flags := map[string]string{}
	locs := helpFlag.FindAllStringSubmatchIndex(help, -1)
	for i, l := range locs {
		end := len(help)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		def := ""
		if m := helpDefault.FindStringSubmatch(strings.TrimSpace(help[l[1]:end])); m != nil {
			def = strings.Trim(m[1], `"`)
		}
		flags[help[l[2]:l[3]]] = def
	}
	return flags
}

var helpDefault = regexp.MustCompile(`\(default (.*)\)$`)

// sameDefault reports whether the default a manual's table gives (its first `code`) is the one
// the help prints; durations compare by value (1h is 1h0m0s).
func sameDefault(cell, help string) bool {
	m := regexp.MustCompile("`([^`]*)`").FindStringSubmatch(cell)
	if m == nil {
		return false
	}
	if m[1] == help {
		return true
	}
	a, errA := time.ParseDuration(m[1])
	b, errB := time.ParseDuration(help)
	return errA == nil && errB == nil && a == b
}

// docSections returns the sections of the manual by command: the text under each
// "## `totalrecall COMMAND`" heading.
func docSections(doc string) map[string]string {
	out := map[string]string{}
	head := regexp.MustCompile("(?m)^## `totalrecall ([^`]+)`\\s*$")
	locs := head.FindAllStringSubmatchIndex(doc, -1)
	for i, l := range locs {
		end := len(doc)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := doc[l[1]:end]
		if j := strings.Index(body, "\n## "); j >= 0 {
			body = body[:j]
		}
		out[doc[l[2]:l[3]]] = body
	}
	return out
}

var docFlag = regexp.MustCompile("(?m)^\\| `--([a-z0-9][a-z0-9-]*)[^`]*` \\| ([^|]*) \\|")

func TestCLIDocCoversEveryCommandAndFlag(t *testing.T) {
	raw, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := docSections(string(raw))
	cmds := usageCommands(usage)
	// The usage names at least the commands of this list; fewer means it was misread.
	for _, want := range []string{"serve", "reindex", "export", "import dump", "import locomo|events|agents", "bench", "bench living", "digest", "version"} {
		if !slices.Contains(cmds, want) {
			t.Fatalf("usage commands %q lack %q", cmds, want)
		}
	}
	for _, cmd := range cmds {
		body, ok := sections[cmd]
		if !ok {
			t.Errorf("docs/cli.md has no section \"## `totalrecall %s`\"", cmd)
			continue
		}
		flags := map[string]string{}
		for _, args := range expand(cmd) {
			for f, def := range commandFlags(t, args) {
				flags[f] = def
			}
		}
		documented := map[string]string{}
		for _, m := range docFlag.FindAllStringSubmatch(body, -1) {
			documented[m[1]] = m[2]
		}
		for _, f := range slices.Sorted(maps.Keys(flags)) {
			cell, ok := documented[f]
			switch {
			case !ok:
				t.Errorf("docs/cli.md, `totalrecall %s`: flag --%s is not in its table (a row \"| `--%s ...` | default | what it does |\")", cmd, f, f)
			case flags[f] != "" && !sameDefault(cell, flags[f]):
				t.Errorf("docs/cli.md, `totalrecall %s`: --%s defaults to %q, the table says %s", cmd, f, flags[f], cell)
			}
		}
		for _, f := range slices.Sorted(maps.Keys(documented)) {
			if _, ok := flags[f]; !ok {
				t.Errorf("docs/cli.md, `totalrecall %s`: documents --%s, which the command does not take", cmd, f)
			}
		}
	}
	for name := range sections {
		if !slices.Contains(cmds, name) {
			t.Errorf("docs/cli.md documents `totalrecall %s`, which the usage text does not name", name)
		}
	}
}

func TestUsageCommandsReadsTheUsageLines(t *testing.T) {
	got := usageCommands("x\n  totalrecall serve   [--addr A]\n  totalrecall import locomo|events|agents [--store URI] FILE\n" +
		"  totalrecall eval locomo DIR   evidence\n                      [--stale-after 720h]\n  totalrecall version\n")
	if want := []string{"serve", "import locomo|events|agents", "eval locomo", "version"}; !slices.Equal(got, want) {
		t.Fatalf("usageCommands = %q, want %q", got, want)
	}
	if got := expand("import locomo|events"); len(got) != 2 || strings.Join(got[1], " ") != "import events" {
		t.Fatalf("expand = %q", got)
	}
	for _, c := range []struct {
		cell, help string
		want       bool
	}{{"`1h`", "1h0m0s", true}, {"`90m`", "1h30m0s", true}, {"`1h`", "2h0m0s", false}, {"`0` (never)", "0s", true},
		{"`127.0.0.1:8080`", "127.0.0.1:8080", true}, {"8080", "8080", false}, {"`5`", "6", false}} {
		if got := sameDefault(c.cell, c.help); got != c.want {
			t.Errorf("sameDefault(%q, %q) = %v", c.cell, c.help, got)
		}
	}
}
