package domain

import "time"

// TransactionContext is the Design F envelope: six fields, none empty, carried by every message.
type TransactionContext struct {
	SessionID     string    `json:"sessionId"`
	RequestID     string    `json:"requestId"`
	MessageID     string    `json:"messageId"`
	CausationID   string    `json:"causationId"`
	Timestamp     time.Time `json:"timestamp"`
	SourceContext string    `json:"sourceContext"`
}

// Derive returns the context of a message that source emits on consuming the message of tc:
// same session and request, a fresh message id, caused by tc's message.
func (tc TransactionContext) Derive(source string, now time.Time) TransactionContext {
	return TransactionContext{
		SessionID:     tc.SessionID,
		RequestID:     tc.RequestID,
		MessageID:     NewID(),
		CausationID:   tc.MessageID,
		Timestamp:     now,
		SourceContext: source,
	}
}

// Complete reports whether every field is set.
func (tc TransactionContext) Complete() bool {
	return tc.SessionID != "" && tc.RequestID != "" && tc.MessageID != "" && tc.CausationID != "" &&
		!tc.Timestamp.IsZero() && tc.SourceContext != ""
}

// The bounded contexts, as they appear in sourceContext and touches.
const (
	CtxMind         = "Mind"
	CtxCortex       = "Cortex"
	CtxHippocampus  = "Hippocampus"
	CtxSalience     = "Salience"
	CtxSynapse      = "Synapse"
	CtxRecall       = "Recall"
	CtxSubconscious = "Subconscious"
	CtxIndex        = "Index"
	CtxNotification = "NotificationPort"
)

// EventType names a message of seed 000's catalog (commands and queries included: they are
// persisted too, so a trace shows the whole causal tree).
type EventType string

const (
	// Commands and queries.
	MsgCreateScopeCommand  EventType = "CreateScopeCommand"
	MsgStoreCommand        EventType = "StoreCommand"
	MsgClaimCommand        EventType = "ClaimCommand"
	MsgAssociateCommand    EventType = "AssociateCommand"
	MsgReclassifyCommand   EventType = "ReclassifyCommand"
	MsgDeleteCommand       EventType = "DeleteCommand"
	MsgLoadQuery           EventType = "LoadQuery"
	MsgSearchQuery         EventType = "SearchQuery"
	MsgUpdateKernelCommand EventType = "UpdateKernelCommand"

	// Domain events.
	EvScopeCreated            EventType = "ScopeCreated"
	EvKernelUpdated           EventType = "KernelUpdated"
	EvMemoryStored            EventType = "MemoryStored"
	EvMemoryAccessed          EventType = "MemoryAccessed"
	EvMemoryClaimed           EventType = "MemoryClaimed"
	EvMemoryReclassified      EventType = "MemoryReclassified"
	EvTierChanged             EventType = "TierChanged"
	EvAssociationCreated      EventType = "AssociationCreated"
	EvAssociationStrengthened EventType = "AssociationStrengthened"
	EvAssociationWeakened     EventType = "AssociationWeakened"
	EvAssociationsFound       EventType = "AssociationsFound"
	EvMemoryDeleted           EventType = "MemoryDeleted"
)

// IsCommand reports whether t is a command or query message rather than a domain event.
func (t EventType) IsCommand() bool {
	switch t {
	case MsgCreateScopeCommand, MsgStoreCommand, MsgClaimCommand, MsgAssociateCommand,
		MsgReclassifyCommand, MsgDeleteCommand, MsgLoadQuery, MsgSearchQuery, MsgUpdateKernelCommand:
		return true
	}
	return false
}

// Touch records that a bounded context consumed a message, whether or not it emitted another.
type Touch struct {
	Context string    `json:"context"`
	At      time.Time `json:"at"`
}

// Event is a persisted message: the one source for history, the search feed, subscriptions and
// traces. Seq orders the log; it is assigned by the store when the event is committed.
type Event struct {
	Seq      uint64             `json:"seq"`
	Type     EventType          `json:"type"`
	ScopeID  string             `json:"scopeId"`
	MemoryID string             `json:"memoryId,omitempty"`
	Context  TransactionContext `json:"context"`
	Payload  map[string]any     `json:"payload,omitempty"`
	Touches  []Touch            `json:"touches,omitempty"`
	// About names further artifacts the event is about, each with the payload the event has in
	// that artifact's history: Store.MemoryEvents of each returns the event with that MemoryID
	// and payload, while the log, its subscribers and traces see one event, as it is. Only a
	// write sets it (a propose pass: one event about every artifact it proposes anew, instead of
	// one event each); events read back from the store leave it empty. A payload is a map or
	// any value that encodes as a JSON object; read back, it is a map.
	About map[string]any `json:"-"`
}

// ID is the event's identity: its message id.
func (e *Event) ID() string { return e.Context.MessageID }
