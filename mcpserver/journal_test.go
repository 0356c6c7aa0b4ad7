package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/mcpserver"
)

const memoryMD = "# Me\n\nI keep notes in plain Markdown.\n\n## Preferences\n\nI like green tea, not coffee.\nNever \"schedule\" meetings before 10:00 <_:b> {x}.\n\n## Projects\n\nThe ledger rewrite ships in March.\n"

type journalHit struct {
	PageID   string   `json:"page_id"`
	Path     string   `json:"path"`
	Headings []string `json:"headings"`
	FromLine int      `json:"from_line"`
	Lines    int      `json:"lines"`
	Title    string   `json:"title"`
	Content  string   `json:"content"`
}

type journalSnippet struct {
	Path       string `json:"path"`
	FromLine   int    `json:"from_line"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
	Text       string `json:"text"`
}

// The journal tools, over both transports: seed 003's journal_memory_search finds the section
// and names its file and lines, journal_memory_get reads them back; neither reaches another
// scope's journal.
func TestJournalTools(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	sc, _, err := s.cx.ResolveScope(ctx, "journal-scope")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := s.cx.ImportJournal(ctx, sc.ID, []cortex.JournalFile{{Path: "MEMORY.md", Content: memoryMD},
		{Path: "memory/2026-03-01.md", Content: "# Standup\n\nThe ledger migration needs a dry run first.\n"}}, cortex.Meta{})
	if err != nil || imp.Pages != 4 {
		t.Fatalf("import: %+v %v", imp, err)
	}
	other, _, err := s.cx.ResolveScope(ctx, "other-scope")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.cx.ImportJournal(ctx, other.ID, []cortex.JournalFile{{Path: "MEMORY.md", Content: "# Secret\n\nOther's green tea recipe.\n"},
		{Path: "memory/secret.md", Content: "# Vault\n\nThe vault code.\n"}}, cortex.Meta{}); err != nil {
		t.Fatal(err)
	}

	in, out := s.bridge(t, client.BridgeOptions{Scope: "journal-scope", Instance: "journal-1"})
	c := mcp.NewClient(&mcp.Implementation{Name: "go-test-stdio", Version: "1"}, nil)
	stdio, err := c.Connect(ctx, &mcp.IOTransport{Reader: out, Writer: in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close()

	for name, cs := range map[string]*mcp.ClientSession{"http": s.connect(t, "scope=journal-scope"), "stdio": stdio} {
		t.Run(name, func(t *testing.T) {
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range tools.Tools {
				if strings.HasPrefix(tl.Name, "journal_memory_") && (!tl.Annotations.ReadOnlyHint || tl.OutputSchema == nil) {
					t.Errorf("%s: annotations %+v, output schema %v", tl.Name, tl.Annotations, tl.OutputSchema != nil)
				}
			}

			var found struct {
				Results []journalHit `json:"results"`
			}
			text := call(t, cs, "journal_memory_search", map[string]any{"query": "green tea", "max_results": 5}, &found)
			if len(found.Results) != 1 {
				t.Fatalf("search: %q %+v", text, found)
			}
			h := found.Results[0]
			if h.Path != "MEMORY.md" || fmt.Sprint(h.Headings) != "[Me Preferences]" || h.FromLine != 5 || h.Lines != 4 ||
				h.Title != "MEMORY.md › Me › Preferences" ||
				h.Content != "## Preferences\n\nI like green tea, not coffee.\nNever \"schedule\" meetings before 10:00 <_:b> {x}." {
				t.Fatalf("hit %+v", h)
			}
			if want := "Journal sections matching \"green tea\" (1):\n- MEMORY.md › Me › Preferences, lines 5–8 (score "; !strings.HasPrefix(text, want) ||
				!strings.HasSuffix(text, "): ## Preferences I like green tea, not coffee. Never \"schedule\" meetings before 10:00 <_:b> {x}.") {
				t.Fatalf("search text %q", text)
			}
			call(t, cs, "journal_memory_search", map[string]any{"q": "ledger", "limit": 10}, &found)
			var paths []string
			for _, r := range found.Results {
				paths = append(paths, r.Path)
			}
			if len(paths) != 2 || !strings.Contains(fmt.Sprint(paths), "memory/2026-03-01.md") || !strings.Contains(fmt.Sprint(paths), "MEMORY.md") {
				t.Fatalf("ledger: %v", paths)
			}

			var sn journalSnippet
			text = call(t, cs, "journal_memory_get", map[string]any{"path": h.Path, "from_line": h.FromLine, "lines": h.Lines}, &sn)
			if sn != (journalSnippet{Path: "MEMORY.md", FromLine: 5, Lines: 4, TotalLines: 12, Text: h.Content}) ||
				text != "MEMORY.md, lines 5–8 of 12:\n"+h.Content {
				t.Fatalf("get: %q %+v", text, sn)
			}
			call(t, cs, "journal_memory_get", map[string]any{"file": "MEMORY.md"}, &sn)
			if sn.FromLine != 1 || sn.Lines != 12 || sn.Text != strings.TrimSuffix(memoryMD, "\n") {
				t.Fatalf("whole file: %+v", sn)
			}
			call(t, cs, "journal_memory_get", map[string]any{"path": "memory/2026-03-01.md", "fromLine": 3, "lines": 1}, &sn)
			if sn.Text != "The ledger migration needs a dry run first." || sn.TotalLines != 3 {
				t.Fatalf("a memory/ file: %+v", sn)
			}

			// Nothing found, and bad input: a code and the argument's name.
			call(t, cs, "journal_memory_search", map[string]any{"query": "xylophone"}, &found)
			if len(found.Results) != 0 {
				t.Fatalf("xylophone: %+v", found)
			}
			if got := call(t, cs, "journal_memory_search", map[string]any{"query": "xylophone"}, nil); got != `Nothing in the journal matches "xylophone".` {
				t.Fatalf("nothing found: %q", got)
			}
			callFails(t, cs, "journal_memory_search", map[string]any{"query": "  "}, "INVALID_ARGUMENT (query)")
			callFails(t, cs, "journal_memory_get", map[string]any{"path": "../etc/passwd"}, "INVALID_ARGUMENT (path)")
			callFails(t, cs, "journal_memory_get", map[string]any{"path": "MEMORY.md", "from_line": 13}, "INVALID_ARGUMENT (from_line)")
			callFails(t, cs, "journal_memory_get", map[string]any{"path": "memory/none.md"}, "NOT_FOUND")
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "journal_memory_get", Arguments: map[string]any{"path": "MEMORY.md", "lines": 0.5}}); err != nil ||
				!res.IsError {
				t.Errorf("half a line: %v %+v", err, res)
			}

			// Another scope's journal stays out of reach, and unnamed.
			call(t, cs, "journal_memory_search", map[string]any{"query": "recipe vault"}, &found)
			if len(found.Results) != 0 {
				t.Fatalf("reached another scope's journal: %+v", found)
			}
			if got := callFails(t, cs, "journal_memory_get", map[string]any{"path": "memory/secret.md"}, "NOT_FOUND"); strings.Contains(got, "vault") {
				t.Fatalf("leaked: %s", got)
			}
		})
	}
}

// The story reaches the mind where it starts (session_start) and where it thinks
// (prompt_context with include_story), and is a resource.
func TestStoryThroughMCP(t *testing.T) {
	s := newStack(t)
	ctx := context.Background()
	cs := s.connect(t, "scope=story-scope&instance=story-1")

	var start struct {
		SessionID string `json:"session_id"`
		ScopeID   string `json:"scope_id"`
		Story     string `json:"story"`
	}
	text := call(t, cs, "session_start", map[string]any{"mind_type": "claude"}, &start)
	if start.Story != "" || strings.Contains(text, "Your story") {
		t.Fatalf("a story before the first chapter: %q %+v", text, start)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.StoryURI})
	if err != nil || rr.Contents[0].Text != "# The story of story-scope\n" {
		t.Fatalf("story resource before the first chapter: %v %+v", err, rr)
	}
	var m struct{ Memory memory }
	call(t, cs, "store_memory", map[string]any{"content": "We moved the ledger to Postgres after the March outage."}, &m)
	// The memory reaches the pending log once the Subconscious consumed its event.
	eventually(t, "the memory in the pending log", func() bool {
		p, err := s.cx.PendingNarrative(ctx, start.ScopeID)
		return err == nil && len(p.Entries) == 1 && p.Entries[0].MemoryID == m.Memory.MemoryID
	})
	ch, err := s.cx.ConsolidateStory(ctx, start.ScopeID, cortex.Meta{})
	if err != nil || ch == nil || ch.Number != 1 || ch.Memories != 1 {
		t.Fatalf("chapter: %+v %v", ch, err)
	}
	chapter := fmt.Sprintf("## Chapter 1: %s\n\n%s", ch.Title, strings.TrimSpace(ch.Page.Content))
	if !strings.Contains(chapter, "We moved the ledger to Postgres after the March outage.") {
		t.Fatalf("the chapter does not tell the memory:\n%s", chapter)
	}
	call(t, cs, "session_end", nil, nil)

	text = call(t, cs, "session_start", nil, &start)
	if start.Story != chapter || !strings.HasSuffix(text, "\n\nYour story so far (its newest chapters):\n\n"+chapter) {
		t.Fatalf("session_start's story: %q\n%+v", text, start)
	}
	var pc struct {
		Text  string `json:"text"`
		Story string `json:"story"`
	}
	call(t, cs, "prompt_context", map[string]any{"include_story": true, "max_tokens": 4000}, &pc)
	if pc.Story != chapter || !strings.HasPrefix(pc.Text, chapter) {
		t.Fatalf("prompt_context with the story: %+v", pc)
	}
	call(t, cs, "prompt_context", map[string]any{"max_tokens": 4000}, &pc)
	if pc.Story != "" || strings.Contains(pc.Text, "Chapter 1") {
		t.Fatalf("prompt_context without the story: %+v", pc)
	}
	callFails(t, cs, "prompt_context", map[string]any{"include_story": true, "max_tokens": -1}, "INVALID_ARGUMENT (max_tokens)")
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.StoryURI})
	if err != nil || !strings.HasPrefix(rr.Contents[0].Text, "# The story of story-scope\n\n<!-- LAST_PROCESSED: ") ||
		!strings.HasSuffix(rr.Contents[0].Text, "\n\n"+chapter+"\n") {
		t.Fatalf("story resource: %v\n%s", err, rr.Contents[0].Text)
	}
}
