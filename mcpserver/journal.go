package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// Seed 003's journal tools: a mind's Markdown notes (MEMORY.md, memory/*.md, imported with
// `totalrecall import journal` or importJournal) searched beside the graph and read back by file
// and lines. Both stay in the connection's scope, as every tool does.

type journalSearchIn struct {
	Query      string `json:"query" jsonschema:"What to look for in the journal, in words."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"How many sections (default 10)."`
}

type journalHitOut struct {
	// PageID is the section's knowledge page (history and derivedView take it).
	PageID   string   `json:"page_id"`
	Path     string   `json:"path"`
	Headings []string `json:"headings"`
	FromLine int      `json:"from_line"`
	Lines    int      `json:"lines"`
	Title    string   `json:"title"`
	Content  string   `json:"content"`
	Score    float64  `json:"score"`
}

type journalSearchOut struct {
	Results []journalHitOut `json:"results"`
}

type journalGetIn struct {
	Path     string `json:"path" jsonschema:"The journal file, as journal_memory_search names it: MEMORY.md or memory/NAME.md."`
	FromLine int    `json:"from_line,omitempty" jsonschema:"The first line to read, 1-based (default 1)."`
	Lines    int    `json:"lines,omitempty" jsonschema:"How many lines to read (default: to the end of the file)."`
}

type journalGetOut struct {
	Path       string `json:"path"`
	FromLine   int    `json:"from_line"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
	Text       string `json:"text"`
}

// JournalSnippetRunes is how much of a section's text journal_memory_search's text shows.
const JournalSnippetRunes = 300

// cortexFields are the Cortex's names of the tools' arguments, as the tools spell them.
var cortexFields = map[string]string{"maxResults": "max_results", "fromLine": "from_line", "maxMemories": "max_memories", "maxTokens": "max_tokens"}

// snakeField renames the field of a Cortex error to the tool's argument name.
func snakeField(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && cortexFields[de.Field] != "" {
		return &domain.Error{Code: de.Code, Message: de.Message, Field: cortexFields[de.Field]}
	}
	return err
}

func (s *Server) addJournalTools() {
	addTool(s, "journal_memory_search", "Search the journal",
		"Search your journal — the Markdown notes of MEMORY.md and memory/*.md — by words, best sections first. "+
			"Check both memory systems before answering about prior work, decisions or preferences: search_memory for the graph, this for the journal. "+
			"Each result names its file and lines; read more around it with journal_memory_get.",
		readOnly, schemaFor[journalSearchIn](nil, map[string][2]float64{"max_results": {1, cortex.MaxSearchResults}}),
		func(ctx context.Context, b *binding, in journalSearchIn) (string, journalSearchOut, error) {
			hits, err := s.cx.JournalSearch(ctx, b.scope.ID, in.Query, in.MaxResults)
			if err != nil {
				return "", journalSearchOut{}, snakeField(err)
			}
			out := journalSearchOut{Results: []journalHitOut{}}
			for _, h := range hits {
				if h.Artifact == nil {
					continue
				}
				o := journalHitOut{PageID: h.ID, Title: h.Artifact.Title, Content: h.Artifact.Content, Score: h.Score, Headings: []string{}}
				if sec := cortex.JournalSectionOf(h.Artifact); sec != nil {
					o.Path, o.FromLine, o.Lines = sec.Path, sec.FromLine, sec.Lines
					if sec.Headings != nil {
						o.Headings = sec.Headings
					}
				}
				out.Results = append(out.Results, o)
			}
			if len(out.Results) == 0 {
				return fmt.Sprintf("Nothing in the journal matches %s.", quote(in.Query)), out, nil
			}
			lines := []string{fmt.Sprintf("Journal sections matching %s (%d):", quote(in.Query), len(out.Results))}
			for _, o := range out.Results {
				where := o.Path
				if len(o.Headings) > 0 {
					where += " › " + strings.Join(o.Headings, " › ")
				}
				lines = append(lines, fmt.Sprintf("- %s, lines %d–%d (score %.3f): %s", where, o.FromLine, o.FromLine+max(o.Lines, 1)-1, o.Score,
					client.Snippet(o.Content, JournalSnippetRunes)))
			}
			return strings.Join(lines, "\n"), out, nil
		})

	addTool(s, "journal_memory_get", "Read the journal",
		"Read lines of a journal file (MEMORY.md or memory/NAME.md) as last imported: from from_line (1-based, default 1), at most lines of them (default: to the end). "+
			"Use it after journal_memory_search to read a section whole, or what surrounds it.",
		readOnly, schemaFor[journalGetIn](nil, map[string][2]float64{"from_line": {1, 1e9}, "lines": {1, cortex.MaxJournalLines}}),
		func(ctx context.Context, b *binding, in journalGetIn) (string, journalGetOut, error) {
			sn, err := s.cx.JournalGet(ctx, b.scope.ID, in.Path, in.FromLine, in.Lines)
			if err != nil {
				return "", journalGetOut{}, snakeField(err)
			}
			out := journalGetOut{Path: sn.Path, FromLine: sn.FromLine, Lines: sn.Lines, TotalLines: sn.TotalLines, Text: sn.Text}
			head := fmt.Sprintf("%s, lines %d–%d of %d:", sn.Path, sn.FromLine, sn.FromLine+max(sn.Lines, 1)-1, sn.TotalLines)
			return head + "\n" + sn.Text, out, nil
		})
}
