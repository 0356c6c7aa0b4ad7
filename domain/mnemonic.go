package domain

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The records of seed 001 (Mnemonic): ingested sources become ledger records (the events
// ledger's threads and events, the agents ledger's sessions, messages, turns and tool calls),
// events are chunked into episodes, and analyses of episodes produce facets. Every record belongs
// to exactly one scope.

// mnemonicNamespace seeds the ids derived from source keys.
var mnemonicNamespace = uuid.MustParse("5b0c8f0e-3a51-4f5e-9d8a-7f1e2c4b6a90")

// DeriveID returns the id a record keyed by parts always gets within a scope. Importing the same
// source record twice therefore addresses the same node, which is what makes ingest idempotent
// on (source adapter, source id).
func DeriveID(scopeID string, parts ...string) string {
	return uuid.NewSHA1(mnemonicNamespace, []byte(scopeID+"\x00"+strings.Join(parts, "\x00"))).String()
}

// Thread is a conversation of the events ledger (a chat, a mail thread, an agent session, a
// LoCoMo session); threads may nest (ParentID).
type Thread struct {
	ID            string    `json:"id"`
	ScopeID       string    `json:"scopeId"`
	Channel       string    `json:"channel"`
	Name          string    `json:"name,omitempty"`
	SourceAdapter string    `json:"sourceAdapter"`
	SourceID      string    `json:"sourceId"`
	ParentID      string    `json:"parentId,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// Directions of a ledger event.
const (
	DirectionSent     = "sent"
	DirectionReceived = "received"
	DirectionObserved = "observed"
)

// LedgerEvent is an event of the events ledger: a memory (the content a mind can recall) with the
// source fields of seed 001. The memory's metadata carries the same fields for readers.
type LedgerEvent struct {
	Memory        *Memory
	ThreadID      string
	Channel       string
	Direction     string
	Speaker       string
	ReplyTo       string
	SourceAdapter string
	SourceID      string
	// Seq is the event's position in its source, the order within a thread when timestamps tie.
	Seq int64
	// TurnID links a trimmed agent turn to the agents ledger.
	TurnID string
}

// AgentSession is an AI agent session of the agents ledger, at full fidelity.
type AgentSession struct {
	ID                string         `json:"id"`
	ScopeID           string         `json:"scopeId"`
	SourceID          string         `json:"sourceId"`
	Source            string         `json:"source"`
	Model             string         `json:"model,omitempty"`
	Project           string         `json:"project,omitempty"`
	CreatedAt         *time.Time     `json:"createdAt,omitempty"`
	MessageCount      int            `json:"messageCount"`
	ParentSessionID   string         `json:"parentSessionId,omitempty"`
	ParentMessageID   string         `json:"parentMessageId,omitempty"`
	ToolCallID        string         `json:"toolCallId,omitempty"`
	TaskDescription   string         `json:"taskDescription,omitempty"`
	TaskStatus        string         `json:"taskStatus,omitempty"`
	IsSubagent        bool           `json:"isSubagent,omitempty"`
	ContextTokenLimit int            `json:"contextTokenLimit,omitempty"`
	ContextTokensUsed int            `json:"contextTokensUsed,omitempty"`
	IsAgentic         bool           `json:"isAgentic,omitempty"`
	ForceMode         string         `json:"forceMode,omitempty"`
	WorkspacePath     string         `json:"workspacePath,omitempty"`
	Context           map[string]any `json:"context,omitempty"`
	ConversationState string         `json:"conversationState,omitempty"`
	Raw               map[string]any `json:"raw,omitempty"`
}

// AgentMessage is one message of an agent session.
type AgentMessage struct {
	ID              string         `json:"id"`
	ScopeID         string         `json:"scopeId"`
	SessionID       string         `json:"sessionId"`
	SourceID        string         `json:"sourceId"`
	Role            string         `json:"role"`
	Content         string         `json:"content"`
	Sequence        int            `json:"sequence"`
	Timestamp       *time.Time     `json:"timestamp,omitempty"`
	CheckpointID    string         `json:"checkpointId,omitempty"`
	IsAgentic       bool           `json:"isAgentic,omitempty"`
	IsPlanExecution bool           `json:"isPlanExecution,omitempty"`
	Context         map[string]any `json:"context,omitempty"`
	Metadata        map[string]any `json:"metadata,omitempty"`
}

// AgentTurn is a user query and the agent's work up to its final response; its id is derived
// from the final response message.
type AgentTurn struct {
	ID                string     `json:"id"`
	ScopeID           string     `json:"scopeId"`
	SessionID         string     `json:"sessionId"`
	SourceID          string     `json:"sourceId"`
	ParentTurnID      string     `json:"parentTurnId,omitempty"`
	QueryMessageIDs   []string   `json:"queryMessageIds"`
	ResponseMessageID string     `json:"responseMessageId,omitempty"`
	MessageIDs        []string   `json:"messageIds"`
	Model             string     `json:"model,omitempty"`
	TokenCount        int        `json:"tokenCount"`
	Timestamp         *time.Time `json:"timestamp,omitempty"`
	HasChildren       bool       `json:"hasChildren,omitempty"`
	ToolCallCount     int        `json:"toolCallCount"`
	Sequence          int        `json:"sequence"`
}

// AgentToolCall is one tool call of an agent message; ChildSessionID links a subagent.
type AgentToolCall struct {
	ID             string     `json:"id"`
	ScopeID        string     `json:"scopeId"`
	SessionID      string     `json:"sessionId"`
	MessageID      string     `json:"messageId,omitempty"`
	SourceID       string     `json:"sourceId"`
	ToolName       string     `json:"toolName"`
	ToolNumber     int        `json:"toolNumber"`
	Params         any        `json:"params,omitempty"`
	Result         any        `json:"result,omitempty"`
	Status         string     `json:"status,omitempty"`
	ChildSessionID string     `json:"childSessionId,omitempty"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	CompletedAt    *time.Time `json:"completedAt,omitempty"`
}

// EpisodeStrategy names how a definition chunks events into episodes (seed 001).
type EpisodeStrategy string

const (
	// StrategyTimeGap starts a new episode when consecutive events (per thread) are further
	// apart than config gap_seconds.
	StrategyTimeGap EpisodeStrategy = "time_gap"
	// StrategyThread makes one episode per thread.
	StrategyThread EpisodeStrategy = "thread"
	// StrategySingleEvent makes one episode per event.
	StrategySingleEvent EpisodeStrategy = "single_event"
	// StrategyTurn makes one episode of a user turn (sent events) with the reply that follows.
	StrategyTurn EpisodeStrategy = "turn"
	// StrategyAgentTurn makes one episode per agent turn (its messages).
	StrategyAgentTurn EpisodeStrategy = "agent_turn"
	// StrategyAgentSession makes one episode per agent session (its messages).
	StrategyAgentSession EpisodeStrategy = "agent_session"
)

// EpisodeStrategies lists every strategy.
var EpisodeStrategies = []EpisodeStrategy{StrategyTimeGap, StrategyThread, StrategySingleEvent, StrategyTurn,
	StrategyAgentTurn, StrategyAgentSession}

// Valid reports whether s is a known strategy.
func (s EpisodeStrategy) Valid() bool { return oneOf(s, EpisodeStrategies) }

// OverAgents reports whether the strategy chunks the agents ledger rather than events.
func (s EpisodeStrategy) OverAgents() bool {
	return s == StrategyAgentTurn || s == StrategyAgentSession
}

// UnmarshalGQL and MarshalGQL map the strategy onto the GraphQL enum (TIME_GAP, ...).
func (s *EpisodeStrategy) UnmarshalGQL(v any) error {
	str, ok := v.(string)
	if !ok {
		return FieldErrorf("strategy", "must be a string")
	}
	x := EpisodeStrategy(strings.ToLower(str))
	if !x.Valid() {
		return FieldErrorf("strategy", "unknown strategy %q", str)
	}
	*s = x
	return nil
}

func (s EpisodeStrategy) MarshalGQL(w io.Writer) {
	fmt.Fprint(w, strconv.Quote(strings.ToUpper(string(s))))
}

// EpisodeDefinition says how to chunk a channel's events (Channel "" = every channel).
type EpisodeDefinition struct {
	ID          string          `json:"id"`
	ScopeID     string          `json:"scopeId"`
	Name        string          `json:"name"`
	Channel     string          `json:"channel,omitempty"`
	Strategy    EpisodeStrategy `json:"strategy"`
	Config      map[string]any  `json:"config"`
	Description string          `json:"description,omitempty"`
	CreatedAt   time.Time       `json:"createdAt"`
	UpdatedAt   time.Time       `json:"updatedAt"`
}

// Episode groups events (memories) or agent messages, in order.
type Episode struct {
	ID           string    `json:"id"`
	ScopeID      string    `json:"scopeId"`
	DefinitionID string    `json:"definitionId"`
	Channel      string    `json:"channel,omitempty"`
	ThreadID     string    `json:"threadId,omitempty"`
	StartTime    time.Time `json:"startTime"`
	EndTime      time.Time `json:"endTime"`
	EventCount   int       `json:"eventCount"`
	FirstEventID string    `json:"firstEventId,omitempty"`
	LastEventID  string    `json:"lastEventId,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	// Items are the ids of the grouped records in order (memories, or agent messages).
	Items []string `json:"items,omitempty"`
}

// AnalysisStatus is the state of an analysis run.
type AnalysisStatus string

const (
	RunPending   AnalysisStatus = "pending"
	RunRunning   AnalysisStatus = "running"
	RunCompleted AnalysisStatus = "completed"
	RunFailed    AnalysisStatus = "failed"
)

// AnalysisStatuses lists every status.
var AnalysisStatuses = []AnalysisStatus{RunPending, RunRunning, RunCompleted, RunFailed}

// Valid reports whether s is a known status.
func (s AnalysisStatus) Valid() bool { return oneOf(s, AnalysisStatuses) }

func (s *AnalysisStatus) UnmarshalGQL(v any) error {
	str, ok := v.(string)
	if !ok {
		return FieldErrorf("status", "must be a string")
	}
	x := AnalysisStatus(strings.ToLower(str))
	if !x.Valid() {
		return FieldErrorf("status", "unknown status %q", str)
	}
	*s = x
	return nil
}

func (s AnalysisStatus) MarshalGQL(w io.Writer) {
	fmt.Fprint(w, strconv.Quote(strings.ToUpper(string(s))))
}

// AnalysisType describes an analysis that runs on episodes and produces facets.
type AnalysisType struct {
	ID             string         `json:"id"`
	ScopeID        string         `json:"scopeId"`
	Name           string         `json:"name"`
	Version        string         `json:"version"`
	OutputType     string         `json:"outputType"`
	FacetsConfig   map[string]any `json:"facetsConfig,omitempty"`
	PromptTemplate string         `json:"promptTemplate,omitempty"`
	Model          string         `json:"model,omitempty"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
}

// AnalysisRun is one run of an analysis type on one episode: unique per (type, episode).
type AnalysisRun struct {
	ID           string         `json:"id"`
	ScopeID      string         `json:"scopeId"`
	TypeID       string         `json:"typeId"`
	TypeName     string         `json:"typeName"`
	EpisodeID    string         `json:"episodeId"`
	Status       AnalysisStatus `json:"status"`
	StartedAt    *time.Time     `json:"startedAt,omitempty"`
	CompletedAt  *time.Time     `json:"completedAt,omitempty"`
	OutputText   string         `json:"outputText,omitempty"`
	ErrorMessage string         `json:"errorMessage,omitempty"`
	CreatedAt    time.Time      `json:"createdAt"`
	// RequestID, SessionID and CommandID are the TransactionContext of the AnalyzeCommand that
	// asked for the run (CommandID is its message id): a run executed later, by the background
	// worker or after a restart, emits its AnalysisRunCompleted or AnalysisRunFailed as a
	// consequence of that command. Empty on the runs an import writes.
	RequestID string `json:"requestId,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	CommandID string `json:"commandId,omitempty"`
}

// Facet types of the built-in analysers; analysers may produce others.
const (
	FacetPerson        = "person"
	FacetEntity        = "entity"
	FacetTopic         = "topic"
	FacetFileReference = "file_reference"
	FacetDate          = "date"
)

// Facet is one finding of an analysis run about an episode (and, when known, the memory it was
// found in).
type Facet struct {
	ID         string         `json:"id"`
	ScopeID    string         `json:"scopeId"`
	RunID      string         `json:"runId"`
	EpisodeID  string         `json:"episodeId"`
	MemoryID   string         `json:"memoryId,omitempty"`
	Type       string         `json:"type"`
	Value      string         `json:"value"`
	PersonID   string         `json:"personId,omitempty"`
	Confidence float64        `json:"confidence"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
}

// EmbeddingConfig names the model vectors were made with.
type EmbeddingConfig struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Model      string    `json:"model"`
	Dimensions int       `json:"dimensions"`
	CreatedAt  time.Time `json:"createdAt"`
}

// Embedding is the vector of one memory (or episode) under one config.
type Embedding struct {
	ID        string
	ScopeID   string
	ConfigID  string
	MemoryID  string
	EpisodeID string
	Vector    []float32
	CreatedAt time.Time
}

// Limits of the ledger records.
const (
	MaxEpisodeItems  = 100000
	MaxFacetValue    = 1024
	MaxImportRecords = 1000 // records per ingest write
)

// Metadata keys under which a ledger event's source fields live in its memory's metadata.
const (
	MetaChannel       = "channel"
	MetaDirection     = "direction"
	MetaSpeaker       = "speaker"
	MetaReplyTo       = "replyTo"
	MetaSourceAdapter = "sourceAdapter"
	MetaSourceID      = "sourceId"
	MetaThreadID      = "threadId"
	MetaSeq           = "seq"
	MetaTurnID        = "turnId"
)

// Stamp writes e's source fields into its memory's metadata.
func (e *LedgerEvent) Stamp() {
	if e.Memory.Metadata == nil {
		e.Memory.Metadata = map[string]any{}
	}
	md := e.Memory.Metadata
	set := func(k, v string) {
		if v != "" {
			md[k] = v
		}
	}
	set(MetaChannel, e.Channel)
	set(MetaDirection, e.Direction)
	set(MetaSpeaker, e.Speaker)
	set(MetaReplyTo, e.ReplyTo)
	set(MetaSourceAdapter, e.SourceAdapter)
	set(MetaSourceID, e.SourceID)
	set(MetaThreadID, e.ThreadID)
	set(MetaTurnID, e.TurnID)
	md[MetaSeq] = float64(e.Seq)
}

// LedgerEventOf reads a ledger event back from its memory.
func LedgerEventOf(m *Memory) *LedgerEvent {
	str := func(k string) string { s, _ := m.Metadata[k].(string); return s }
	seq, _ := m.Metadata[MetaSeq].(float64)
	return &LedgerEvent{Memory: m, ThreadID: str(MetaThreadID), Channel: str(MetaChannel), Direction: str(MetaDirection),
		Speaker: str(MetaSpeaker), ReplyTo: str(MetaReplyTo), SourceAdapter: str(MetaSourceAdapter),
		SourceID: str(MetaSourceID), Seq: int64(seq), TurnID: str(MetaTurnID)}
}
