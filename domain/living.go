package domain

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The messages of the living memory: salience and tiers (MSG-0004), sessions (MSG-0005),
// reflection (MSG-0006), total recall (MSG-0002, MSG-0007), consolidation, working memory
// (seed 002) and flashbacks (seed 003).
const (
	// Commands and queries.
	MsgDecaySweep           EventType = "DecaySweep"
	MsgSessionStart         EventType = "SessionStart"
	MsgSessionEnd           EventType = "SessionEnd"
	MsgHeartbeatReceived    EventType = "HeartbeatReceived"
	MsgModeChanged          EventType = "ModeChanged"
	MsgLoadIdentityQuery    EventType = "LoadIdentityQuery"
	MsgTotalRecallCommand   EventType = "TotalRecallCommand"
	MsgReflectQuery         EventType = "ReflectQuery"
	MsgConsolidateCommand   EventType = "ConsolidateCommand"
	MsgUpdateContextCommand EventType = "UpdateContextCommand"
	MsgPromptContextQuery   EventType = "PromptContextQuery"
	MsgResonateQuery        EventType = "ResonateQuery"

	// Domain events.
	EvSalienceScored       EventType = "SalienceScored"
	EvTierPromoted         EventType = "TierPromoted"
	EvTierDemoted          EventType = "TierDemoted"
	EvTotalRecallAdvisory  EventType = "TotalRecallAdvisory"
	EvTotalRecallDeclined  EventType = "TotalRecallDeclined"
	EvMemoryConsolidated   EventType = "MemoryConsolidated"
	EvWorkingMemoryUpdated EventType = "WorkingMemoryUpdated"
	EvDecaySweepCompleted  EventType = "DecaySweepCompleted"

	// Notifications: pushed to minds through the notifications subscription.
	NtSessionAuditPrompt      EventType = "SessionAuditPrompt"
	NtBreakNotification       EventType = "BreakNotification"
	NtTotalRecallNotification EventType = "TotalRecallNotification"
)

// IsNotification reports whether t is a notification for the mind.
func (t EventType) IsNotification() bool {
	return t == NtSessionAuditPrompt || t == NtBreakNotification || t == NtTotalRecallNotification
}

// SessionEndReason says why a session ended.
type SessionEndReason string

const (
	EndExplicit SessionEndReason = "EXPLICIT"
	EndTimeout  SessionEndReason = "TIMEOUT"
	EndCrash    SessionEndReason = "CRASH"
)

// SessionEndReasons lists every reason.
var SessionEndReasons = []SessionEndReason{EndExplicit, EndTimeout, EndCrash}

// Valid reports whether r is a known reason.
func (r SessionEndReason) Valid() bool { return oneOf(r, SessionEndReasons) }

// SessionMode is what a connected mind is doing (seed 000, ModeChanged).
type SessionMode string

const (
	ModeTask         SessionMode = "TASK"
	ModeConversation SessionMode = "CONVERSATION"
	ModeIdle         SessionMode = "IDLE"
)

// SessionModes lists every mode.
var SessionModes = []SessionMode{ModeTask, ModeConversation, ModeIdle}

// Valid reports whether m is a known mode.
func (m SessionMode) Valid() bool { return oneOf(m, SessionModes) }

// ConsolidationStrategy says how consolidate merges memories.
type ConsolidationStrategy string

const (
	// MergeConcatenate joins the contents oldest first; tags and metadata are merged.
	MergeConcatenate ConsolidationStrategy = "CONCATENATE"
	// MergeKeepNewest keeps the newest content; tags and metadata are merged.
	MergeKeepNewest ConsolidationStrategy = "KEEP_NEWEST"
	// MergeKeepMostSalient keeps the content of the most salient memory; tags and metadata merged.
	MergeKeepMostSalient ConsolidationStrategy = "KEEP_MOST_SALIENT"
)

// ConsolidationStrategies lists every strategy.
var ConsolidationStrategies = []ConsolidationStrategy{MergeConcatenate, MergeKeepNewest, MergeKeepMostSalient}

// Valid reports whether s is a known strategy.
func (s ConsolidationStrategy) Valid() bool { return oneOf(s, ConsolidationStrategies) }

func (r *SessionEndReason) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "SessionEndReason", SessionEndReason.Valid, r)
}
func (r SessionEndReason) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(r))) }
func (m *SessionMode) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "SessionMode", SessionMode.Valid, m)
}
func (m SessionMode) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(m))) }
func (s *ConsolidationStrategy) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "ConsolidationStrategy", ConsolidationStrategy.Valid, s)
}
func (s ConsolidationStrategy) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(s))) }

// Session is one connection of a mind instance to a scope, a graph node of that scope.
type Session struct {
	ID              string           `json:"id"`
	ScopeID         string           `json:"scopeId"`
	InstanceID      string           `json:"instanceId"`
	MindType        string           `json:"mindType"`
	StartedAt       time.Time        `json:"startedAt"`
	LastHeartbeatAt time.Time        `json:"lastHeartbeatAt"`
	Heartbeats      int              `json:"heartbeats"`
	EndedAt         *time.Time       `json:"endedAt,omitempty"`
	EndReason       SessionEndReason `json:"endReason,omitempty"`
	Mode            SessionMode      `json:"mode"`
	ModeSince       time.Time        `json:"modeSince"`
	LastBreakAt     *time.Time       `json:"lastBreakAt,omitempty"`
	// MemoryIDs are the memories stored in the session (stored with its id as sessionId).
	MemoryIDs []string `json:"memoryIds,omitempty"`
}

// Active reports whether the session has not ended.
func (s *Session) Active() bool { return s.EndedAt == nil }

// Clone returns a deep copy.
func (s *Session) Clone() *Session {
	if s == nil {
		return nil
	}
	c := *s
	c.MemoryIDs = append([]string(nil), s.MemoryIDs...)
	if s.EndedAt != nil {
		t := *s.EndedAt
		c.EndedAt = &t
	}
	if s.LastBreakAt != nil {
		t := *s.LastBreakAt
		c.LastBreakAt = &t
	}
	return &c
}

// Duration is how long the session lasted (until now while it is active).
func (s *Session) Duration(now time.Time) time.Duration {
	end := now
	if s.EndedAt != nil {
		end = *s.EndedAt
	}
	if end.Before(s.StartedAt) {
		return 0
	}
	return end.Sub(s.StartedAt)
}

// WorkingItem is one memory in a scope's working memory with its relevance to the context.
type WorkingItem struct {
	MemoryID  string    `json:"memoryId"`
	Relevance float64   `json:"relevance"`
	AddedAt   time.Time `json:"addedAt"`
}

// WorkingMemory is a scope's capacity-limited buffer of the memories most relevant to the
// current context (seed 002).
type WorkingMemory struct {
	ScopeID   string        `json:"scopeId"`
	Context   string        `json:"context"`
	Capacity  int           `json:"capacity"`
	Items     []WorkingItem `json:"items"`
	UpdatedAt time.Time     `json:"updatedAt"`
}

// IsHeartbeat reports whether a message is heartbeat-only (seed 003, heartbeat isolation): every
// word is a heartbeat token such as HEARTBEAT or HEARTBEAT_OK (upper case, optionally with
// _SUFFIX parts). Such messages are never stored as memories nor used as queries; a message that
// merely mentions a heartbeat among other words is not one.
func IsHeartbeat(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		w = strings.TrimRight(w, ".!")
		rest, ok := strings.CutPrefix(w, "HEARTBEAT")
		if !ok {
			return false
		}
		for rest != "" {
			if rest[0] != '_' || len(rest) == 1 {
				return false
			}
			rest = rest[1:]
			i := 0
			for i < len(rest) && (rest[i] >= 'A' && rest[i] <= 'Z' || rest[i] >= '0' && rest[i] <= '9') {
				i++
			}
			if i == 0 {
				return false
			}
			rest = rest[i:]
		}
	}
	return true
}
