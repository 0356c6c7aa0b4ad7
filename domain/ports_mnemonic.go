package domain

import "context"

// The ports of seed 001's pipeline (ingest → episodes → analysis → search). They are optional
// capabilities of a Store, found by type assertion; the graph store implements all of them.

// IngestBatch is what one atomic ingest write carries. Every record belongs to the batch's scope.
// Ids are derived from source keys (DeriveID), so writing the same batch twice changes nothing:
// ledger events (memories) that exist are left untouched, the other records are upserted.
type IngestBatch struct {
	Threads      []*Thread
	Events       []*LedgerEvent
	Associations []*Association
	Definitions  []*EpisodeDefinition
	Episodes     []*Episode
	// RemoveEpisodes are episodes a re-chunking no longer makes; their runs and facets go too.
	RemoveEpisodes []string
	AnalysisTypes  []*AnalysisType
	Runs           []*AnalysisRun
	// Facets replace the facets of their runs: a run's facets not in the batch are removed.
	Facets     []*Facet
	Sessions   []*AgentSession
	Messages   []*AgentMessage
	Turns      []*AgentTurn
	ToolCalls  []*AgentToolCall
	Embeddings []*Embedding
	// Scores are the Salience context's checkpoints of the batch's new memories, by memory id
	// (Potential, Recency, ScoredAt and Salience set; no events): a memory ingested in bulk is
	// scored in the write that stores it, as a stored one is, so the first decay sweep reads its
	// checkpoint instead of scoring it in full. A memory without one is scored by that sweep.
	Scores map[string]ScoreUpdate
}

// Empty reports whether the batch writes nothing.
func (b *IngestBatch) Empty() bool {
	return len(b.Threads)+len(b.Events)+len(b.Associations)+len(b.Definitions)+len(b.Episodes)+
		len(b.AnalysisTypes)+len(b.Runs)+len(b.Facets)+len(b.Sessions)+len(b.Messages)+len(b.Turns)+
		len(b.ToolCalls)+len(b.Embeddings)+len(b.RemoveEpisodes) == 0
}

// IngestWritten tells the domain what an ingest write changes, so it can emit the events.
type IngestWritten struct {
	// NewEvents are the ledger events whose memories did not exist yet.
	NewEvents []*LedgerEvent
	// Skipped counts ledger events that already existed.
	Skipped int
	// NewAssociations are the associations written (those with a new memory at one end).
	NewAssociations []*Association
}

// IngestEvents builds the events of an ingest write from what it changes. It may run more than
// once when the store retries a conflict.
type IngestEvents func(w *IngestWritten) ([]*Event, error)

// IngestStore writes ingest batches.
type IngestStore interface {
	// Ingest commits b and the events fn returns in one atomic write, applied at most once per
	// req. Errors: NOT_FOUND (the scope, or a memory an association or episode refers to),
	// CROSS_SCOPE_REFERENCE (a reference to a record of another scope), INVALID_ARGUMENT.
	Ingest(ctx context.Context, req Request, scopeID string, b *IngestBatch, fn IngestEvents) (*IngestWritten, error)
	// ExistingIDs reports which of ids name a node of any kind.
	ExistingIDs(ctx context.Context, ids []string) (map[string]bool, error)
}

// EpisodeFilter narrows an episode listing; empty fields do not filter.
type EpisodeFilter struct {
	DefinitionID string
	ThreadID     string
	// ThreadIDs keeps the episodes of any of these threads (with ThreadID too, of both at once).
	ThreadIDs []string
	// MemoryID keeps the episodes that group this memory (or agent message).
	MemoryID string
	IDs      []string
	First    int
	// WithItems loads the episodes' items too.
	WithItems bool
}

// FacetFilter narrows a facet listing; empty fields do not filter.
type FacetFilter struct {
	EpisodeID string
	RunID     string
	MemoryID  string
	Type      string
	Value     string
	First     int
}

// RunFilter narrows an analysis-run listing.
type RunFilter struct {
	TypeID    string
	EpisodeID string
	Status    AnalysisStatus
	First     int
}

// EpisodeStore reads episodes, their definitions, and what chunking needs.
type EpisodeStore interface {
	EpisodeDefinitions(ctx context.Context, scopeID string) ([]*EpisodeDefinition, error)
	// Episodes lists a scope's episodes, oldest start first (without items).
	Episodes(ctx context.Context, scopeID string, f EpisodeFilter) ([]*Episode, error)
	// Episode loads one episode with its items in order. Errors: NOT_FOUND.
	Episode(ctx context.Context, id string) (*Episode, error)
	// LedgerEvents loads a scope's ledger events (memories with their source fields), in
	// thread, time and source order.
	LedgerEvents(ctx context.Context, scopeID string) ([]*LedgerEvent, error)
}

// FacetStore reads analysis types, runs and facets.
type FacetStore interface {
	AnalysisTypes(ctx context.Context, scopeID string) ([]*AnalysisType, error)
	AnalysisRuns(ctx context.Context, scopeID string, f RunFilter) ([]*AnalysisRun, error)
	// UnfinishedRuns lists the runs of every scope that are pending or running, limit at a time
	// (0: the store's largest page): cursor "" starts, the cursor returned continues, "" after
	// the last page. It reads by the runs' status, not scope by scope. Errors: INVALID_ARGUMENT
	// (a cursor not of this store).
	UnfinishedRuns(ctx context.Context, cursor string, limit int) ([]*AnalysisRun, string, error)
	Facets(ctx context.Context, scopeID string, f FacetFilter) ([]*Facet, error)
}

// AgentStore reads the agents ledger.
type AgentStore interface {
	AgentSessions(ctx context.Context, ids []string) ([]*AgentSession, error)
	// ScopeAgentSessions lists a scope's sessions, oldest first.
	ScopeAgentSessions(ctx context.Context, scopeID string) ([]*AgentSession, error)
	AgentTurns(ctx context.Context, ids []string) ([]*AgentTurn, error)
	// SessionTurns lists the turns of sessions in order.
	SessionTurns(ctx context.Context, sessionIDs []string) ([]*AgentTurn, error)
	AgentMessages(ctx context.Context, ids []string) ([]*AgentMessage, error)
	// SessionMessages lists the messages of sessions in order.
	SessionMessages(ctx context.Context, sessionIDs []string) ([]*AgentMessage, error)
	// SessionToolCalls lists the tool calls of sessions.
	SessionToolCalls(ctx context.Context, sessionIDs []string) ([]*AgentToolCall, error)
}

// Neighbour is a memory associated with another, seen from it.
type Neighbour struct {
	ID       string
	Type     AssociationType
	Strength float64
}

// MemoryContext is what the graph knows around one memory that search ranks with.
type MemoryContext struct {
	// Episodes are the ids of the episodes grouping the memory.
	Episodes []string
	// Temporal are its TEMPORAL neighbours (the events just before and after it).
	Temporal []Neighbour
	// Associated are its PERSON and THEMATIC associations (the memories naming the same person,
	// about the same thing), either direction: what spreading activation in search follows.
	Associated []Neighbour
}

// Clone returns a copy that shares nothing with c.
func (c *MemoryContext) Clone() *MemoryContext {
	return &MemoryContext{Episodes: append([]string(nil), c.Episodes...), Temporal: append([]Neighbour(nil), c.Temporal...),
		Associated: append([]Neighbour(nil), c.Associated...)}
}

// RecallContextReader is the store capability Recall ranks with beyond the text: episodes and
// temporal neighbours of candidate memories, and the persons a scope knows.
type RecallContextReader interface {
	// MemoryContexts returns the context of each of ids that exists in scope. The contexts may
	// be shared with the store's cache: callers must not modify them.
	MemoryContexts(ctx context.Context, scopeID string, ids []string) (map[string]*MemoryContext, error)
	// ScopePersons returns the distinct values of the scope's person facets.
	ScopePersons(ctx context.Context, scopeID string) ([]string, error)
}

// EpisodeMemberReader reads the members of episodes for ranking: cheaper than EpisodeStore's
// Episodes with items, as it reads neither the episodes' documents nor their members' order.
type EpisodeMemberReader interface {
	// EpisodeMembers returns the member memory ids of each of ids that is an episode of the
	// scope, in no particular order; other ids are left out. The lists may be shared with the
	// store's cache: callers must not modify them.
	EpisodeMembers(ctx context.Context, scopeID string, ids []string) (map[string][]string, error)
}

// VectorHit is one nearest neighbour of a vector search.
type VectorHit struct {
	MemoryID string
	// Similarity is the cosine similarity, -1..1.
	Similarity float64
}

// VectorStore keeps embeddings and finds the nearest ones within a scope.
type VectorStore interface {
	// SimilarMemories returns up to k memories of scope nearest to vec, most similar first.
	SimilarMemories(ctx context.Context, scopeID string, vec []float32, k int) ([]VectorHit, error)
	// HasEmbeddings reports whether any memory of scope has a vector.
	HasEmbeddings(ctx context.Context, scopeID string) (bool, error)
	// MissingEmbeddings returns up to limit memories of scope without a vector.
	MissingEmbeddings(ctx context.Context, scopeID string, limit int) ([]*Memory, error)
}

// Embedder turns texts into vectors (an embedding model). Safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order. Errors: UNAVAILABLE.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model; Dimensions is the length of its vectors (0 until known).
	Model() string
}

// ChatMessage is one message of a chat completion request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatModel completes chats (a language model behind an OpenAI-compatible endpoint).
type ChatModel interface {
	// Complete returns the assistant's reply. Errors: UNAVAILABLE.
	Complete(ctx context.Context, messages []ChatMessage) (string, error)
	Model() string
}

// SharedFacetReader reads what spreading activation over facets needs.
type SharedFacetReader interface {
	// SharedFacets returns the facets of the given types of episodes of the scope (own), and
	// the facets of the same types and values in the scope's other episodes (shared; a bounded
	// number of them).
	SharedFacets(ctx context.Context, scopeID string, episodeIDs, types []string) (own, shared []*Facet, err error)
}
