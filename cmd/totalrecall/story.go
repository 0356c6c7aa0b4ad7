package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
)

// registerStoryFlags adds narrative consolidation's settings to serve (every other command, and
// tests, write chapters only when asked).
func registerStoryFlags(fs *flag.FlagSet, sc *subconscious.StoryConfig) {
	fs.IntVar(&sc.ThresholdTokens, "story-threshold-tokens", subconscious.DefaultStoryThreshold,
		"write a scope's next chapter once its pending log holds this many tokens (bytes/4); 0: only when asked")
	fs.IntVar(&sc.ContextTokens, "story-context-tokens", subconscious.DefaultStoryContextTokens,
		"tokens of the story (its newest chapters) a session start hands the mind")
	fs.DurationVar(&sc.Timeout, "story-timeout", subconscious.DefaultStoryTimeout, "how long the model may take to write a chapter")
	fs.DurationVar(&sc.RetryAfter, "story-retry", subconscious.DefaultStoryRetryAfter,
		"wait after a failed consolidation; doubled after each further failure, up to --story-retry-max")
	fs.DurationVar(&sc.RetryMax, "story-retry-max", subconscious.DefaultStoryRetryMax, "longest wait between attempts")
	fs.DurationVar(&sc.ScanInterval, "story-scan", subconscious.DefaultStoryScanInterval,
		"how often scopes over the threshold are looked for (those another server or an earlier run left)")
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// storyCmd is `totalrecall story consolidate|show`: through a running server, or on --store
// with the server stopped.
func storyCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 || (args[0] != "consolidate" && args[0] != "show") {
		return errors.New("story: say consolidate (write the next chapter now) or show (print the story)")
	}
	verb := args[0]
	fs := flag.NewFlagSet("story "+verb, flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	var mf modelFlags
	mf.register(fs)
	server := fs.String("server", "", "the running server (default $TOTALRECALL_SERVER or "+client.DefaultServer+"); ignored with --store")
	scope := fs.String("scope", "", "the scope (required)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *scope == "" {
		return fmt.Errorf("story %s: give --scope", verb)
	}
	ctx := context.Background()
	if !flagSet(fs, "store") {
		return storyOverHTTP(ctx, client.FromEnv(*server), verb, *scope, *asJSON, stdout)
	}
	mc, err := mf.config()
	if err != nil {
		return err
	}
	sf.mnemonic = mc
	st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	if verb == "consolidate" {
		ch, err := cx.ConsolidateStory(ctx, *scope, cortex.Meta{})
		if err != nil {
			return err
		}
		var out *chapterJSON
		if ch != nil {
			out = &chapterJSON{ID: ch.ID(), Number: ch.Number, Title: ch.Title, Content: ch.Content(), Memories: ch.Memories,
				Tokens: ch.Tokens, Mode: string(ch.Mode), LastProcessed: ch.LastProcessed}
		}
		return printChapter(stdout, out, *asJSON)
	}
	s, err := cx.Story(ctx, *scope)
	if err != nil {
		return err
	}
	out := storyJSON{Markdown: s.Markdown, Chapters: []chapterJSON{}}
	for _, ch := range s.Chapters {
		out.Chapters = append(out.Chapters, chapterJSON{ID: ch.ID(), Number: ch.Number, Title: ch.Title, Memories: ch.Memories,
			Tokens: ch.Tokens, Mode: string(ch.Mode), LastProcessed: ch.LastProcessed})
	}
	return printStory(stdout, out, *asJSON)
}

type chapterJSON struct {
	ID            string    `json:"id"`
	Number        int       `json:"number"`
	Title         string    `json:"title"`
	Content       string    `json:"content,omitempty"`
	Memories      int       `json:"memories"`
	Tokens        int       `json:"tokens"`
	Mode          string    `json:"mode"`
	LastProcessed time.Time `json:"lastProcessed"`
}

type storyJSON struct {
	Markdown string        `json:"markdown"`
	Chapters []chapterJSON `json:"chapters"`
}

func storyOverHTTP(ctx context.Context, c *client.Client, verb, scope string, asJSON bool, stdout io.Writer) error {
	if verb == "consolidate" {
		var r struct{ ConsolidateStory *chapterJSON }
		if err := c.Do(ctx, `mutation($s: ID!) { consolidateStory(scopeId: $s) { id number title content memories tokens mode lastProcessed } }`,
			map[string]any{"s": scope}, &r); err != nil {
			return err
		}
		return printChapter(stdout, r.ConsolidateStory, asJSON)
	}
	var r struct{ Story storyJSON }
	if err := c.Do(ctx, `query($s: ID!) { story(scopeId: $s) { markdown chapters { id number title memories tokens mode lastProcessed } } }`,
		map[string]any{"s": scope}, &r); err != nil {
		return err
	}
	return printStory(stdout, r.Story, asJSON)
}

func printChapter(w io.Writer, ch *chapterJSON, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(ch)
	}
	if ch == nil {
		fmt.Fprintln(w, "nothing pending: no chapter written")
		return nil
	}
	fmt.Fprintf(w, "chapter %d written (%s, %d memories, %d tokens): %s\n", ch.Number, strings.ToLower(ch.Mode), ch.Memories, ch.Tokens, ch.Title)
	return nil
}

func printStory(w io.Writer, s storyJSON, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(s)
	}
	_, err := io.WriteString(w, s.Markdown)
	return err
}

// readJournal reads a journal's folder: MEMORY.md and every Markdown file under memory/, with
// paths relative to dir (/-separated), in path order.
func readJournal(dir string) ([]cortex.JournalFile, error) {
	var files []cortex.JournalFile
	add := func(path string) error {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files = append(files, cortex.JournalFile{Path: filepath.ToSlash(rel), Content: string(raw)})
		return nil
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "MEMORY.md")); err == nil {
		if err := add(filepath.Join(dir, "MEMORY.md")); err != nil {
			return nil, err
		}
	}
	mem := filepath.Join(dir, "memory")
	if _, err := os.Stat(mem); err == nil {
		if err := filepath.WalkDir(mem, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".md") {
				return add(path)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// importJournal is `totalrecall import journal DIR`: the journal's pages mirror DIR's MEMORY.md
// and memory/*.md, through a running server or on --store.
func importJournal(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("import journal", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	server := fs.String("server", "", "the running server (default $TOTALRECALL_SERVER or "+client.DefaultServer+"); ignored with --store")
	scope := fs.String("scope", "", "the scope (required)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("import journal: give the journal's folder (holding MEMORY.md and/or memory/)")
	}
	if *scope == "" {
		return errors.New("import journal: give --scope")
	}
	dir := fs.Arg(0)
	files, err := readJournal(dir)
	if err != nil {
		return fmt.Errorf("import journal: %w", err)
	}
	if len(files) == 0 {
		return fmt.Errorf("import journal: %s holds neither MEMORY.md nor Markdown files under memory/", dir)
	}
	ctx := context.Background()
	var res cortex.JournalImport
	if !flagSet(fs, "store") {
		in := make([]map[string]any, len(files))
		for i, f := range files {
			in[i] = map[string]any{"path": f.Path, "content": f.Content}
		}
		var r struct{ ImportJournal cortex.JournalImport }
		if err := client.FromEnv(*server).Do(ctx, `mutation($s: ID!, $f: [JournalFileInput!]!) { importJournal(scopeId: $s, files: $f) {
			scopeId files pages created updated deleted unchanged } }`, map[string]any{"s": *scope, "f": in}, &r); err != nil {
			return err
		}
		res = r.ImportJournal
	} else {
		st, idx, cx, err := sf.open(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return err
		}
		defer st.Close()
		defer idx.Close()
		defer cx.Close()
		out, err := cx.ImportJournal(ctx, *scope, files, cortex.Meta{})
		if err != nil {
			return err
		}
		res = *out
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "journal: %d files, %d pages (%d created, %d updated, %d deleted, %d unchanged)\n",
		res.Files, res.Pages, res.Created, res.Updated, res.Deleted, res.Unchanged)
	return nil
}
