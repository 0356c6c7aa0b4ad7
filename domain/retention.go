package domain

import (
	"context"
	"slices"
	"time"
)

// ReadEvents are the messages of reading: the queries and what they cause that changes no
// record but counters and scores — a search's SearchQuery and MemoryMatchRequest, a
// MemoryAccessed and a SalienceScored for each memory it returned, a load, a resonate, a
// prompt context, a heartbeat. A mind that searches on every prompt writes some twenty of them a
// search; their effect stays on the memories (access counts, last access, salience), so the log
// may let them go after a while (EventPruner) without changing what anything ranks or keeps.
var ReadEvents = []EventType{
	MsgSearchQuery, MsgLoadQuery, EvMemoryMatchRequest, EvMemoryAccessed, EvSalienceScored,
	MsgResonateQuery, MsgPromptContextQuery, MsgLoadIdentityQuery, MsgReflectQuery, MsgHeartbeatReceived,
}

// EvMemoryMatchRequest is Recall's query to the Hippocampus for the memories a search matched.
const EvMemoryMatchRequest EventType = "MemoryMatchRequest"

// IsReadEvent reports whether t is among ReadEvents.
func IsReadEvent(t EventType) bool { return slices.Contains(ReadEvents, t) }

// PruneResult is what one call of EventPruner.PruneEvents did.
type PruneResult struct {
	// Scanned events of the log were looked at; Deleted of them deleted.
	Scanned, Deleted int
	// Watermark is the Seq up to which the log has been pruned: every read event at or below it
	// that was older than the cutoff is gone.
	Watermark uint64
	// More is set when the call stopped at its page's end with more of the log below upTo to
	// look at; a call that stopped at a read event newer than the cutoff, or at upTo, leaves it
	// unset.
	More bool
}

// EventPruner deletes old read events from the log.
type EventPruner interface {
	// PruneEvents looks at up to page events of the log after its watermark and at or below
	// upTo, in Seq order, deletes those of ReadEvents whose time is before the cutoff, and moves
	// the watermark past them. It stops at the first read event at or after the cutoff (the log
	// is in time order, so the rest are newer). Other events stay. One call is one write.
	PruneEvents(ctx context.Context, before time.Time, upTo uint64, page int) (PruneResult, error)
}
