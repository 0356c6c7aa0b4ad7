package domain

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
)

// The story of a mind (seed 003's narrative consolidation): the memories stored in a mind's
// sessions wait in their scope's pending log until the Subconscious tells them as the next
// chapter of a first-person story — a knowledge page of type NARRATIVE that derives from them —
// and the journal, a mind's Markdown notes (MEMORY.md, memory/*.md) kept as knowledge pages of
// type JOURNAL.

// The knowledge types of the story and the journal. Only the Subconscious writes NARRATIVE
// pages and only the journal import writes JOURNAL pages.
const (
	KnowNarrative KnowledgeType = "NARRATIVE"
	KnowJournal   KnowledgeType = "JOURNAL"
)

// Written reports whether pages of type k are written by the server alone (the story's
// chapters, the journal's sections), never saved by callers.
func (k KnowledgeType) Written() bool { return k == KnowNarrative || k == KnowJournal }

// The messages of the story.
const (
	MsgConsolidateStoryCommand EventType = "ConsolidateStoryCommand"
	MsgImportJournalCommand    EventType = "ImportJournalCommand"

	// EvStoryChapterWritten: a chapter was written; the pending log gave up the memories it
	// tells and the anchor moved, in the same write. Its MemoryID is the chapter's; it is about
	// every memory the chapter tells.
	EvStoryChapterWritten EventType = "StoryChapterWritten"
	// EvStoryConsolidationFailed: the model failed, timed out or answered something unusable (or
	// the write failed); the pending log is as it was and the consolidation is retried later.
	EvStoryConsolidationFailed EventType = "StoryConsolidationFailed"
)

// PendingEntry is one memory in a scope's pending log: a memory stored in a mind's session that
// no chapter tells yet.
type PendingEntry struct {
	ScopeID  string `json:"scopeId"`
	MemoryID string `json:"memoryId"`
	// Seq is the Seq of the memory's MemoryStored event: the log's order.
	Seq uint64 `json:"seq"`
	// Tokens estimates the memory's content (bytes / 4, rounded up).
	Tokens    int       `json:"tokens"`
	StoredAt  time.Time `json:"storedAt"`
	SessionID string    `json:"sessionId"`
}

// StoryState is a scope's story as the store keeps it: how many chapters it has, how far it
// has narrated (the anchor) and what waits to be told.
type StoryState struct {
	ScopeID string
	// Chapters counts the chapters written: the story's version, which every chapter write
	// checks and moves.
	Chapters int
	// Anchor is LAST_PROCESSED: the time the newest memory told was stored (nil before the
	// first chapter); AnchorSeq is its MemoryStored event's Seq.
	Anchor    *time.Time
	AnchorSeq uint64
	// Pending is the pending log, oldest first; Tokens is their sum.
	Pending []PendingEntry
	Tokens  int
	// LeaseOwner holds the scope's consolidation until LeaseUntil ("" when nobody does).
	LeaseOwner string
	LeaseUntil time.Time
}

// ChapterPlan is what one chapter write commits, together: the new NARRATIVE page, its
// DERIVED_FROM references to the memories it tells (those deleted meanwhile are skipped) and to
// the chapter before it, the entries that leave the pending log, the moved anchor, the cleared
// lease and the events.
type ChapterPlan struct {
	Chapter   *Artifact
	Told      []string
	Previous  string
	Consumed  []PendingEntry
	Anchor    time.Time
	AnchorSeq uint64
	Events    []*Event
}

// StoryWrite sees the story as it is inside the write and plans the chapter; returning an
// error writes nothing.
type StoryWrite func(cur *StoryState) (*ChapterPlan, error)

// StoryStore is the store capability of the story: the pending log (appended through
// LivingStore's changes, Changes.Pending), the consolidation lease, and the one write that
// commits a chapter. The graph store implements it; the Cortex finds it by type assertion.
// Safe for concurrent use.
type StoryStore interface {
	// StoryState reads a scope's story state (empty for a scope without one).
	StoryState(ctx context.Context, scopeID string) (*StoryState, error)
	// PendingScopes lists the scopes whose pending log holds at least minTokens (minTokens ≥ 1).
	PendingScopes(ctx context.Context, minTokens int) ([]string, error)
	// ClaimStory takes the scope's consolidation lease for owner until until, unless another
	// owner holds it past now. Errors: CONFLICT (held), NOT_FOUND (no pending log).
	ClaimStory(ctx context.Context, scopeID, owner string, now, until time.Time) (*StoryState, error)
	// ReleaseStory gives up owner's lease (nothing when another owner holds it).
	ReleaseStory(ctx context.Context, scopeID, owner string) error
	// WriteChapter commits a chapter in one write: fn sees the story read inside the write and
	// returns the plan. The chapter's scope must exist, every memory it tells must be of that
	// scope. With req it applies at most once (a replay returns the first chapter).
	// Errors: NOT_FOUND, CROSS_SCOPE_REFERENCE, CONFLICT, and fn's.
	WriteChapter(ctx context.Context, req Request, scopeID string, fn StoryWrite) (*Artifact, error)
	// ReplayedChapter returns the chapter a request wrote, if it was applied ("" if not).
	// Errors: CONFLICT (the request id was used for another request).
	ReplayedChapter(ctx context.Context, req Request) (string, error)
}

// StoryMode says how a chapter was written: by a chat model, or as a digest without one.
type StoryMode string

const (
	StoryModel  StoryMode = "MODEL"
	StoryDigest StoryMode = "DIGEST"
)

func (m *StoryMode) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "StoryMode", func(x StoryMode) bool { return x == StoryModel || x == StoryDigest }, m)
}
func (m StoryMode) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(m))) }
