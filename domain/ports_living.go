package domain

import (
	"context"
	"time"
)

// ScoreRow is what scoring a memory needs, read from the graph. Rows of a sweep page carry only
// the stored checkpoint (Full false, ID empty); ScoreRows fill in everything.
type ScoreRow struct {
	// Ref is the store's reference to the memory node (opaque), for ScoreRowsByRef and updates.
	Ref            string
	Full           bool
	ID             string
	ScopeID        string
	Tier           Tier
	State          LifecycleState
	Claimed        bool
	AccessCount    int
	Importance     float64
	CreatedAt      time.Time
	LastAccessedAt *time.Time
	ClaimedAt      *time.Time
	Version        int64
	// Salience is the stored score.
	Salience float64
	// Connectivity is the sum of the strengths of the memory's associations (ScoreRows only).
	Connectivity float64
	// Scored says the Salience context has scored the memory: Potential, Recency and ScoredAt
	// hold its last checkpoint, taken at ScoredVersion of the memory with ScoredClaimed.
	Scored        bool
	Potential     float64
	Recency       float64
	ScoredAt      time.Time
	ScoredVersion int64
	ScoredClaimed bool
}

// ScoreRowOf is the row of m as its record holds it: no reference, checkpoint or connectivity.
func ScoreRowOf(m *Memory) *ScoreRow {
	return &ScoreRow{ID: m.ID, ScopeID: m.ScopeID, Tier: m.Tier, State: m.State, Claimed: m.Claimed,
		AccessCount: m.AccessCount, Importance: m.Importance, CreatedAt: m.CreatedAt, LastAccessedAt: m.LastAccessedAt,
		ClaimedAt: m.ClaimedAt, Version: m.Version, Salience: m.Salience}
}

// ScoreUpdate is a new score (and possibly a new tier) for one memory, addressed by Ref when set,
// else by MemoryID. Nil fields are left as they are.
type ScoreUpdate struct {
	MemoryID string
	Ref      string
	Salience float64
	// Potential, Recency and ScoredAt are the new checkpoint: all three or none.
	Potential    *float64
	Recency      *float64
	ScoredAt     *time.Time
	ReinforcedAt *time.Time
	// Tier, when set, moves the memory.
	Tier Tier
	// ExpectVersion, when > 0, applies the update only if the memory is still at that version.
	ExpectVersion int64
	// Events are emitted only if the update applies.
	Events []*Event
}

// ScoredInserter is the optional store capability of storing new memories with their first
// scores in one write (Scorer.PlanStored): InsertMemories, plus each update's score and
// checkpoint on its memory (one of ms, by MemoryID; no tier moves) and the updates' events
// after events.
type ScoredInserter interface {
	InsertScoredMemories(ctx context.Context, req Request, ms []*Memory, events []*Event, scores []ScoreUpdate) ([]*Memory, error)
}

// AssociationSet sets the strength of an association (both ends in one scope), creating it when
// there is none.
type AssociationSet struct {
	SourceID  string
	TargetID  string
	Type      AssociationType
	Strength  float64
	UpdatedAt time.Time
}

// SessionMemories adds memories to the list of those stored in a session.
type SessionMemories struct {
	SessionID string
	MemoryIDs []string
}

// Changes are the writes of one living-memory operation, committed together in one request.
type Changes struct {
	Scores          []ScoreUpdate
	Accesses        []Access
	Sessions        []*Session // written whole (created when new)
	SessionMemories []SessionMemories
	Associations    []AssociationSet
	WorkingMemory   []*WorkingMemory
	// Pending appends memories to their scopes' pending logs (the story's), in log order: an
	// entry whose Seq is not above the newest its log took is skipped as appended already.
	Pending []PendingEntry
	Events  []*Event
	// Growth is what the Synapse grows besides associations (stores implementing SynapseStore).
	Growth *Growth
}

// Empty reports whether c writes nothing.
func (c *Changes) Empty() bool {
	return c == nil || (len(c.Scores) == 0 && len(c.Accesses) == 0 && len(c.Sessions) == 0 &&
		len(c.SessionMemories) == 0 && len(c.Associations) == 0 && len(c.WorkingMemory) == 0 && len(c.Pending) == 0 &&
		len(c.Events) == 0 && c.Growth.Empty())
}

// Merge appends o's changes to c.
func (c *Changes) Merge(o *Changes) {
	if o == nil {
		return
	}
	c.Scores = append(c.Scores, o.Scores...)
	c.Accesses = append(c.Accesses, o.Accesses...)
	c.Sessions = append(c.Sessions, o.Sessions...)
	c.SessionMemories = append(c.SessionMemories, o.SessionMemories...)
	c.Associations = append(c.Associations, o.Associations...)
	c.WorkingMemory = append(c.WorkingMemory, o.WorkingMemory...)
	c.Pending = append(c.Pending, o.Pending...)
	c.Events = append(c.Events, o.Events...)
	if !o.Growth.Empty() {
		if c.Growth == nil {
			c.Growth = &Growth{}
		}
		g, h := c.Growth, o.Growth
		g.Streams = append(g.Streams, h.Streams...)
		g.Definitions = append(g.Definitions, h.Definitions...)
		g.Episodes = append(g.Episodes, h.Episodes...)
		g.AnalysisTypes = append(g.AnalysisTypes, h.AnalysisTypes...)
		g.Runs = append(g.Runs, h.Runs...)
		g.Facets = append(g.Facets, h.Facets...)
		g.Embeddings = append(g.Embeddings, h.Embeddings...)
	}
}

// ApplyResult counts what Apply did with the score updates.
type ApplyResult struct {
	// Applied and Skipped count score updates; skipped ones met a deleted memory or another
	// version than expected.
	Applied int `json:"applied"`
	Skipped int `json:"skipped"`
	// Moved counts the applied updates that changed a tier.
	Moved int `json:"moved"`
}

// Edge is one association seen from memory From during a traversal.
type Edge struct {
	From     string
	To       string
	Type     AssociationType
	Strength float64
}

// ReflectFilter narrows the memories reflection looks at.
type ReflectFilter struct {
	Tiers []Tier
	// StaleBefore, From/To and Weak say which criteria the caller asked for; rows matching none
	// of them may be left out by the store.
	StaleBefore *time.Time
	From        *time.Time
	To          *time.Time
	Weak        bool
}

// ReflectRow is a memory with what reflection judges it by.
type ReflectRow struct {
	Memory       *Memory
	ReinforcedAt *time.Time
	Associations int
	Strongest    float64
}

// Lineage is the consolidation lineage of a memory.
type Lineage struct {
	Into string   // the memory this one was merged into, "" if none
	From []string // the memories merged into this one
}

// MemoryMerge builds the consolidated memory from its sources (read inside the write, in the
// order asked) and returns the events that emits.
type MemoryMerge func(sources []*Memory) (*Memory, []*Event, error)

// SessionUpdate sees the active sessions of an instance (read inside the write) and returns the
// changes and the result of the operation.
type SessionUpdate func(active []*Session) (*Changes, any, error)

// LivingStore is the store capability the living memory needs: scoring and tier moves,
// exactly-once log consumers, sessions, traversal, reflection, consolidation and working
// memory. The graph store implements it; the Cortex finds it by type assertion.
// Implementations are safe for concurrent use.
type LivingStore interface {
	// ScoreRows loads what scoring needs for the memories among ids that exist.
	ScoreRows(ctx context.Context, ids []string) ([]*ScoreRow, error)
	// ScoreRowsByRef is ScoreRows for the refs of rows read before. Without full, rows carry only
	// their id, tier, claim, version, stored score and checkpoint (Full false): enough to judge a
	// memory whose checkpoint was taken at its current version.
	ScoreRowsByRef(ctx context.Context, refs []string, full bool) ([]*ScoreRow, error)
	// SweepPage returns up to limit memories of a scope in one tier after cursor (opaque; ""
	// starts), and the cursor of the next page ("" when there is none). Rows carry only their
	// Ref and tier and, once scored, their checkpoint and the score written with it (Salience):
	// what a sweep reads of every memory.
	SweepPage(ctx context.Context, scopeID string, tier Tier, cursor string, limit int) ([]*ScoreRow, string, error)
	// Apply commits ch in one write. Score updates of deleted memories, or of memories no longer
	// at their ExpectVersion, are skipped with their events. With req, the operation applies at
	// most once and result is recorded for replays. Errors: CROSS_SCOPE_REFERENCE, CONFLICT.
	Apply(ctx context.Context, req *Request, ch *Changes, result any) (ApplyResult, error)
	// Replay decodes the recorded result of req into out and reports whether there was one.
	Replay(ctx context.Context, req Request, out any) (bool, error)

	// ConsumerWatermark is the Seq a log consumer has committed up to (found false if never).
	ConsumerWatermark(ctx context.Context, consumer string) (seq uint64, found bool, err error)
	// Consume commits one batch of a log consumer exactly once across servers: fn sees the
	// consumer's committed watermark (read inside the write) and returns the changes for the
	// events after it; the watermark moves to upTo in the same write.
	Consume(ctx context.Context, consumer string, upTo uint64, fn func(watermark uint64) (*Changes, error)) (ApplyResult, error)

	// Neighbours returns the associations of at least floor of the given memories, both
	// directions, to memories of the same scope that are not archived.
	Neighbours(ctx context.Context, ids []string, floor float64) ([]Edge, error)

	// UpdateSessions runs a read-modify-write over an instance's active sessions. With req it
	// applies at most once: a replay decodes the first result into out; a first run encodes fn's
	// result into out. Errors: fn's.
	UpdateSessions(ctx context.Context, req *Request, instanceID string, fn SessionUpdate, out any) error
	// Session loads one session. Errors: NOT_FOUND.
	Session(ctx context.Context, id string) (*Session, error)
	// Sessions loads the sessions that exist among ids (any order).
	Sessions(ctx context.Context, ids []string) ([]*Session, error)
	// ActiveSessions lists up to limit active sessions, oldest heartbeat first.
	ActiveSessions(ctx context.Context, limit int) ([]*Session, error)
	// LastEndedSession returns the scope's most recently ended session, nil if none.
	LastEndedSession(ctx context.Context, scopeID string) (*Session, error)

	// ReflectRows pages through a scope's active memories matching f, after cursor.
	ReflectRows(ctx context.Context, scopeID string, f ReflectFilter, cursor string, limit int) ([]*ReflectRow, string, error)

	// Consolidate merges memories of one scope into a new one: the sources point to it and leave
	// service (ARCHIVED); the new memory takes over their associations. Errors: NOT_FOUND,
	// CROSS_SCOPE_REFERENCE, CONFLICT (a source already consolidated), and fn's.
	Consolidate(ctx context.Context, req Request, ids []string, fn MemoryMerge) (*Memory, error)
	// Lineage returns what a memory was merged into and from. Errors: NOT_FOUND.
	Lineage(ctx context.Context, id string) (*Lineage, error)

	// WorkingMemory returns a scope's working memory, nil if it has none.
	WorkingMemory(ctx context.Context, scopeID string) (*WorkingMemory, error)
}
