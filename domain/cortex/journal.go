package cortex

import (
	"context"
	"fmt"
	"sort"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/journal"
)

// The journal (seed 003's MEMORY.md and memory/*.md) at the boundary: imported into knowledge
// pages of type JOURNAL, one per section, searched with SearchArtifacts and read back by path
// and lines.

// JournalFile is one file of a journal to import.
type JournalFile = journal.File

// JournalImport counts what an import did. Pages are the journal's pages after it.
type JournalImport struct {
	ScopeID   string `json:"scopeId"`
	Files     int    `json:"files"`
	Pages     int    `json:"pages"`
	Created   int    `json:"created"`
	Updated   int    `json:"updated"`
	Deleted   int    `json:"deleted"`
	Unchanged int    `json:"unchanged"`
}

// journalPages lists every JOURNAL page of a scope (of one file, when path is set), archived
// ones included.
func (c *Cortex) journalPages(ctx context.Context, ls domain.LifecycleStore, scopeID, path string) ([]*domain.Artifact, error) {
	f := domain.ArtifactFilter{Types: []string{string(domain.KnowJournal)}, Tags: []string{journal.Tag},
		States: []domain.LifecycleState{domain.StateActive, domain.StateArchived}}
	if path != "" {
		f.Tags = []string{journal.PathTagPrefix + path}
	}
	var out []*domain.Artifact
	after := ""
	for {
		p, err := ls.ListArtifacts(ctx, scopeID, domain.FamKnowledge, f, domain.Page{First: 1000, After: after})
		if err != nil {
			return nil, err
		}
		out = append(out, p.Artifacts...)
		if !p.HasNext {
			return out, nil
		}
		after = p.EndCursor
	}
}

// ImportJournal makes a scope's journal pages mirror files — the whole journal: MEMORY.md and
// memory/*.md, paths relative to the journal's folder. Each file is cut at its headings; each
// section is a knowledge page of type JOURNAL whose title is the path and the headings above it,
// tagged "journal" and "journal:PATH", its place (path, headings, lines) in its metadata under
// "journal". A page keeps its id across imports (scope, path and section), so the import is
// idempotent: unchanged sections are left alone, changed ones get a new version, new ones are
// created and sections (or files) no longer there are deleted. Errors: INVALID_ARGUMENT,
// NOT_FOUND (scope), CONFLICT (another import of the scope at the same moment).
func (c *Cortex) ImportJournal(ctx context.Context, scopeID string, files []JournalFile, m Meta) (*JournalImport, error) {
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	if len(files) > journal.MaxFiles {
		return nil, domain.FieldErrorf("files", "at most %d files per import", journal.MaxFiles)
	}
	seen := map[string]bool{}
	var want []journal.Section
	for i, f := range files {
		field := fmt.Sprintf("files[%d]", i)
		if err := journal.CheckPath(field+".path", f.Path); err != nil {
			return nil, err
		}
		if seen[f.Path] {
			return nil, domain.FieldErrorf(field+".path", "%s is given twice", f.Path)
		}
		seen[f.Path] = true
		if err := domain.CheckContentSize(field+".content", f.Content); err != nil {
			return nil, err
		}
		if err := hippocampus.CheckText(field+".content", f.Content); err != nil {
			return nil, err
		}
		want = append(want, journal.Sections(f)...)
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	have, err := c.journalPages(ctx, ls, scopeID, "")
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Artifact, len(have))
	for _, a := range have {
		byID[a.ID] = a
	}
	out := &JournalImport{ScopeID: scopeID, Files: len(files), Pages: len(want)}
	cmd := command(domain.MsgImportJournalCommand, scopeID, "", tc, domain.CtxHippocampus, map[string]any{"scopeId": scopeID,
		"files": len(files), "sections": len(want)})
	d := tc.Derive(domain.CtxHippocampus, tc.Timestamp)
	saved := func(a *domain.Artifact, version int64) *domain.Event {
		return &domain.Event{Type: domain.EvArtifactSaved, ScopeID: scopeID, MemoryID: a.ID, Context: d.Derive(domain.CtxHippocampus, tc.Timestamp),
			Payload: map[string]any{"artifactId": a.ID, "family": string(domain.FamKnowledge), "type": a.Type, "title": a.Title,
				"contentBytes": len(a.Content), "version": version}}
	}
	wanted := map[string]bool{}
	var fresh []*domain.Artifact
	var stale []journal.Section
	for _, s := range want {
		id := journal.PageID(scopeID, s)
		wanted[id] = true
		switch cur := byID[id]; {
		case cur == nil:
			fresh = append(fresh, &domain.Artifact{ID: id, ScopeID: scopeID, Family: domain.FamKnowledge, Type: string(domain.KnowJournal),
				Title: journal.Title(s), Content: s.Text, Tags: journal.Tags(s), Metadata: journal.Metadata(s), State: domain.StateActive,
				SessionID: tc.SessionID, CreatedAt: tc.Timestamp, UpdatedAt: tc.Timestamp, Version: 1})
		case journal.Same(cur, s):
			out.Unchanged++
		default:
			stale = append(stale, s)
		}
	}
	var gone []string
	for _, a := range have {
		if !wanted[a.ID] {
			gone = append(gone, a.ID)
		}
	}
	sort.Strings(gone)
	if len(fresh)+len(stale)+len(gone) == 0 {
		return out, nil
	}
	// The import's command opens its writes, so its trace shows every page it touched.
	if err := c.store.AppendEvents(ctx, []*domain.Event{cmd}); err != nil {
		return nil, err
	}
	var changed []string
	for _, s := range stale {
		sec, id := s, journal.PageID(scopeID, s)
		if _, err := ls.UpdateArtifact(ctx, domain.Request{}, id, func(a *domain.Artifact) ([]*domain.Event, error) {
			a.Title, a.Content, a.Tags, a.Metadata, a.UpdatedAt = journal.Title(sec), sec.Text, journal.Tags(sec), journal.Metadata(sec), tc.Timestamp
			return []*domain.Event{saved(a, a.Version+1)}, nil
		}); err != nil {
			return nil, err
		}
		changed = append(changed, id)
		out.Updated++
	}
	for i := 0; i < len(fresh); i += 500 {
		part := fresh[i:min(len(fresh), i+500)]
		evs := make([]*domain.Event, 0, len(part))
		for _, a := range part {
			evs = append(evs, saved(a, 1))
		}
		if _, err := ls.InsertArtifacts(ctx, domain.Request{}, part, evs); err != nil {
			if domain.ErrorCode(err) == domain.ECONFLICT {
				return nil, domain.Errorf(domain.ECONFLICT, "the journal of scope %s changed during the import (another import?); import again", scopeID)
			}
			return nil, err
		}
		for _, a := range part {
			changed = append(changed, a.ID)
		}
		out.Created += len(part)
	}
	for _, id := range gone {
		if _, err := c.Delete(ctx, domain.FamKnowledge, DeleteInput{ID: id, Reason: "no longer in the journal", Cascade: true,
			Meta: Meta{SessionID: tc.SessionID}}); err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return nil, err
		}
		out.Deleted++
	}
	if err := c.refreshIndex(ctx, changed); err != nil {
		return nil, err
	}
	c.log.Kick()
	return out, nil
}

// JournalSnippet is a part of a journal file.
type JournalSnippet struct {
	ScopeID string
	Path    string
	// FromLine is the first line given (1-based); Lines how many; TotalLines the file's length.
	FromLine   int
	Lines      int
	TotalLines int
	Text       string
}

// MaxJournalLines bounds the lines one JournalGet returns.
const MaxJournalLines = 100000

// JournalGet reads lines of a journal file as last imported: lines from fromLine (1-based; 0
// reads from the start), at most lines of them (0: to the end) — seed 003's
// journal_memory_get, after JournalSearch found where to look. Errors: INVALID_ARGUMENT,
// NOT_FOUND (the scope, or no such file in its journal).
func (c *Cortex) JournalGet(ctx context.Context, scopeID, path string, fromLine, lines int) (*JournalSnippet, error) {
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	if err := journal.CheckPath("path", path); err != nil {
		return nil, err
	}
	if fromLine < 0 {
		return nil, domain.FieldErrorf("fromLine", "must be 1 or more")
	}
	if lines < 0 || lines > MaxJournalLines {
		return nil, domain.FieldErrorf("lines", "must be within 1..%d", MaxJournalLines)
	}
	if fromLine == 0 {
		fromLine = 1
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return nil, err
	}
	pages, err := c.journalPages(ctx, ls, scopeID, path)
	if err != nil {
		return nil, err
	}
	var secs []journal.Section
	for _, a := range pages {
		if s, ok := journal.SectionOf(a); ok && s.Path == path {
			secs = append(secs, s)
		}
	}
	if len(secs) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "the journal of scope %s has no file %q", scopeID, path)
	}
	text, got, total := journal.Snippet(secs, fromLine, lines)
	if fromLine > total {
		return nil, domain.FieldErrorf("fromLine", "%s has %d lines", path, total)
	}
	return &JournalSnippet{ScopeID: scopeID, Path: path, FromLine: fromLine, Lines: got, TotalLines: total, Text: text}, nil
}

// JournalSearch searches a scope's journal (its JOURNAL pages) by full text, best first — seed
// 003's journal_memory_search. Each hit's page names its file and lines (journal.SectionOf), to
// read with JournalGet. Errors: as SearchArtifacts.
func (c *Cortex) JournalSearch(ctx context.Context, scopeID, query string, maxResults int) ([]*ArtifactHit, error) {
	return c.SearchArtifacts(ctx, ArtifactSearchInput{ScopeID: scopeID, Query: query, MaxResults: maxResults,
		Families: []domain.ArtifactFamily{domain.FamKnowledge}, KnowledgeTypes: []domain.KnowledgeType{domain.KnowJournal}})
}

// JournalSectionOf reads a knowledge page's place in the journal; nil for pages of other types.
func JournalSectionOf(a *domain.Artifact) *journal.Section {
	if s, ok := journal.SectionOf(a); ok {
		return &s
	}
	return nil
}
