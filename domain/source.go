package domain

import "time"

// What source adapters (LoCoMo files, JSON Lines events, agent transcripts) hand the Cortex:
// records keyed by their source ids. The Cortex derives record ids from them (DeriveID), so a
// record read twice is the same record.

// SourceThread is a thread as its source names it.
type SourceThread struct {
	SourceID       string
	Channel        string
	Name           string
	ParentSourceID string
	CreatedAt      time.Time
}

// SourceEvent is an event as its source has it.
type SourceEvent struct {
	// Adapter overrides the batch's adapter for this event (its source id is unique per adapter).
	Adapter        string
	SourceID       string
	ThreadSourceID string
	Timestamp      time.Time
	Channel        string
	ContentTypes   []string
	Content        string
	Direction      string
	Speaker        string
	ReplyTo        string
	Metadata       map[string]any
	Tags           []string
	// TurnSourceID links a trimmed agent turn to the agents ledger.
	TurnSourceID string
	// Line is where the event is in its file (1-based; 0 when the format has no lines), for
	// problem reports.
	Line int
}

// SourceBatch is what an adapter read from one source. The agents-ledger records carry source ids
// in their id and reference fields (ID, SessionID, MessageID, ParentSessionID, ChildSessionID,
// QueryMessageIDs, ...); the Cortex rewrites them into derived ids.
type SourceBatch struct {
	Adapter string
	// AgentAdapter keys the agents-ledger records (default Adapter).
	AgentAdapter string
	Threads      []*SourceThread
	Events       []*SourceEvent
	Sessions     []*AgentSession
	Messages     []*AgentMessage
	ToolCalls    []*AgentToolCall
	Turns        []*AgentTurn
}

// Len is the number of records in the batch.
func (b *SourceBatch) Len() int {
	return len(b.Threads) + len(b.Events) + len(b.Sessions) + len(b.Messages) + len(b.ToolCalls) + len(b.Turns)
}

// Metadata keys naming the ingest write that created a memory (its request and message), so
// the memory's history finds it.
const (
	MetaIngestRequest = "ingestRequestId"
	MetaIngestMessage = "ingestMessageId"
)

// IngestedIDs reads the memory ids of a MemoriesIngested event (in memory: []string; read back
// from the log: []any).
func IngestedIDs(e *Event) []string {
	switch ids := e.Payload["memoryIds"].(type) {
	case []string:
		return ids
	case []any:
		out := make([]string, 0, len(ids))
		for _, x := range ids {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// SourceProblem is a record an adapter or the Cortex could not take; the rest goes on.
type SourceProblem struct {
	// Line is the 1-based line of the record in its file (0 when the format has no lines).
	Line int `json:"line"`
	// Record names the record within its file (a path such as session_3[4], or a source id).
	Record  string `json:"record,omitempty"`
	Message string `json:"message"`
}

// Messages of seed 001's pipeline.
const (
	MsgImportCommand        EventType = "ImportCommand"
	MsgDefineEpisodeCommand EventType = "DefineEpisodeCommand"
	MsgChunkCommand         EventType = "ChunkCommand"
	MsgAnalyzeCommand       EventType = "AnalyzeCommand"
	MsgEmbedCommand         EventType = "EmbedCommand"
	MsgForkContextQuery     EventType = "ForkContextQuery"

	// EvMemoriesIngested is the fact of one ingest write: the memories it created (payload
	// memoryIds). Bulk ingest states it once per write rather than once per memory.
	EvMemoriesIngested     EventType = "MemoriesIngested"
	EvLedgerIngested       EventType = "LedgerIngested"
	EvAssociationsFormed   EventType = "AssociationsFormed"
	EvEpisodeDefined       EventType = "EpisodeDefined"
	EvEpisodesChunked      EventType = "EpisodesChunked"
	EvAnalysisRunCompleted EventType = "AnalysisRunCompleted"
	EvAnalysisRunFailed    EventType = "AnalysisRunFailed"
	EvMemoriesEmbedded     EventType = "MemoriesEmbedded"
)
