package domain

import (
	"context"
	"time"
)

// Request identifies a command for at-most-once application: a command retried with the same
// RequestID and Op is applied once and answered with the first result. A RequestID reused for a
// different input (Fingerprint) of the same Op is refused with CONFLICT. The record of an applied
// request belongs to the scopes the command wrote in: the store adds those it reads inside the
// write, ScopeID names one the caller knows (for writes the store cannot attribute itself).
// Deleting a scope deletes the records of its requests, so a retry after the deletion is applied
// afresh instead of replaying deleted data.
type Request struct {
	Op          string
	RequestID   string
	Fingerprint string
	ScopeID     string
	// FreshIDs says that the ids of the records the request inserts were drawn for it by
	// NewID (122 random bits): the store need not look them up to refuse one that is taken.
	// It still refuses an id given twice in the request, or given to a record and its scope.
	FreshIDs bool
}

// MemoryUpdate is the domain's part of a read-modify-write of one memory: it receives the current
// record (a private copy it may change) and returns the events the change emits. Returning an
// error aborts the write. It may run more than once when the store retries a conflict, so it must
// not have side effects beyond m and its result.
type MemoryUpdate func(m *Memory) ([]*Event, error)

// AssociationUpdate decides the new state of the association of type t between src and dst
// (cur is nil when none exists) and the events that emits. Returning nil removes it.
type AssociationUpdate func(cur *Association, src, dst *Memory) (*Association, []*Event, error)

// KernelUpdate changes a kernel and returns the events that emits.
type KernelUpdate func(k *Kernel) ([]*Event, error)

// SharedMemoryReader is the optional Store capability of loading memories without copying them:
// the memories it returns may be shared with the store's cache, and a caller must not modify
// them (Clone the ones it hands on). A search reads hundreds of candidates to return ten.
type SharedMemoryReader interface {
	// SharedMemories loads the memories that exist among ids, in the order of ids.
	SharedMemories(ctx context.Context, ids []string) ([]*Memory, error)
}

// Store is the knowledge graph. Every write commits the changed records and their events in one
// atomic request; events get their Seq there. The store itself refuses references across scopes
// (CROSS_SCOPE_REFERENCE) and enforces at-most-once application per Request.
// Implementations are safe for concurrent use.
type Store interface {
	// CreateScope persists s with its two kernels and events. Errors: CONFLICT.
	CreateScope(ctx context.Context, req Request, s *Scope, events []*Event) (*Scope, error)
	// Scope loads a scope with its kernels. Errors: NOT_FOUND.
	Scope(ctx context.Context, id string) (*Scope, error)
	// Scopes lists every scope, oldest first.
	Scopes(ctx context.Context) ([]*Scope, error)
	// UpdateKernel changes a kernel. Errors: NOT_FOUND.
	UpdateKernel(ctx context.Context, req Request, kernelID string, fn KernelUpdate) (*Kernel, error)

	// InsertMemories persists new memories (each in an existing scope) and events, all or none.
	// Errors: NOT_FOUND (a scope), CONFLICT (an id already taken).
	InsertMemories(ctx context.Context, req Request, ms []*Memory, events []*Event) ([]*Memory, error)
	// Memory loads one memory. Errors: NOT_FOUND.
	Memory(ctx context.Context, id string) (*Memory, error)
	// Memories loads the memories that exist among ids, in the order of ids.
	Memories(ctx context.Context, ids []string) ([]*Memory, error)
	// ListMemories pages through a scope's memories, newest occurredAt first.
	ListMemories(ctx context.Context, scopeID string, f MemoryFilter, p Page) (*MemoryPage, error)
	// UpdateMemory runs a read-modify-write of one memory. Errors: NOT_FOUND, and fn's.
	UpdateMemory(ctx context.Context, req Request, id string, fn MemoryUpdate) (*Memory, error)
	// DeleteMemory removes a memory and its associations destructively, keeping its events.
	// fn sees the record first and returns the deletion events. Errors: NOT_FOUND, and fn's.
	DeleteMemory(ctx context.Context, req Request, id string, fn MemoryUpdate) (*Memory, error)

	// Associate reads and writes the association of type t between two memories. The store
	// refuses memories of different scopes with CROSS_SCOPE_REFERENCE before fn runs.
	// Errors: NOT_FOUND, CROSS_SCOPE_REFERENCE, and fn's.
	Associate(ctx context.Context, req Request, sourceID, targetID string, t AssociationType, fn AssociationUpdate) (*Association, error)
	// Associations lists the associations of a memory, seen from it, strongest first.
	Associations(ctx context.Context, memoryID string, types []AssociationType, minStrength float64) ([]*Association, error)

	// AppendEvents persists events that change no record (queries and their touches).
	AppendEvents(ctx context.Context, events []*Event) error
	// RecordTouches adds touches to persisted messages, keyed by message id.
	RecordTouches(ctx context.Context, touches map[string][]Touch) error
	// EventsSince returns up to limit events with Seq > seq, in Seq order.
	EventsSince(ctx context.Context, seq uint64, limit int) ([]*Event, error)
	// LastSeq returns the Seq of the newest event.
	LastSeq(ctx context.Context) (uint64, error)
	// MemoryEvents returns the events about one memory (or other artifact), in Seq order: those
	// with its MemoryID, and those naming it in About, each with that MemoryID and its payload.
	MemoryEvents(ctx context.Context, memoryID string) ([]*Event, error)
	// RequestEvents returns every message of one request, in Seq order.
	RequestEvents(ctx context.Context, requestID string) ([]*Event, error)

	// Close releases the store.
	Close() error
}

// IndexDoc is what the search index keeps of a memory.
type IndexDoc struct {
	ID         string
	ScopeID    string
	Content    string
	Tags       []string
	Kind       MemoryKind
	Tier       Tier
	State      LifecycleState
	OccurredAt time.Time
	CreatedAt  time.Time
	// Version is the memory's version the document was made from.
	Version int64
}

// IndexQuery is a full-text query within one scope.
type IndexQuery struct {
	ScopeID string
	Text    string
	Limit   int
	Filter  MemoryFilter
	// WordsOnly ranks by the stemmed words alone, without the boosts of exact word forms and
	// of the text as a phrase: about half the cost of a query of several words, for callers
	// that need speed more than the finest order (flashbacks before every turn). Of a text of
	// more than four distinct words, only the four found in the fewest documents are searched:
	// the words that occur everywhere cost the most and say the least.
	WordsOnly bool
	// Expansions are words and phrases the text may mean (Lexicon): their best matches are
	// found by a query of their own, each weighted by its Weight, and returned beside the
	// text's hits with their score in IndexHit.Lexical. Only those found in the index count.
	Expansions []Expansion
	// MaxWords, with WordsOnly, is how many of the rarest words are searched instead of four
	// (0: four).
	MaxWords int
	// NoWait searches what the index has written, without first writing the documents queued
	// before the search (which would end the writer's wait for more and make small segments):
	// for background readers that know the documents they need are in.
	NoWait bool
}

// IndexHit is one full-text match.
type IndexHit struct {
	ID    string
	Score float64
	// Lexical is the hit's score for the query's expansions (0 when it matched none of them, or
	// none were given), on a scale of its own: comparable with other hits' Lexical only.
	Lexical float64
}

// Index is the full-text index, derived from the event log. Safe for concurrent use.
type Index interface {
	// Put adds or replaces documents; concurrent calls are grouped into batches.
	Put(ctx context.Context, docs []IndexDoc) error
	// Queue adds or replaces documents without waiting for their batch; they are searchable
	// by every Search that starts after it returns.
	Queue(ctx context.Context, docs []IndexDoc) error
	// Remove deletes documents by id; unknown ids are ignored.
	Remove(ctx context.Context, ids []string) error
	// RemoveScope deletes every document of a scope.
	RemoveScope(ctx context.Context, scopeID string) error
	// Search returns the best matches, best first; never a document of another scope.
	Search(ctx context.Context, q IndexQuery) ([]IndexHit, error)
	// Watermark is the Seq of the last event applied in order; SetWatermark persists it.
	Watermark() (uint64, error)
	SetWatermark(seq uint64) error
	// Reset empties the index and its watermark.
	Reset() error
	// Count returns the number of documents.
	Count() (uint64, error)
	Close() error
}

// Clock reads the time; injectable so every rule is testable in simulated time.
type Clock func() time.Time

// Access is one recorded retrieval of a memory.
type Access struct {
	MemoryID string
	At       time.Time
}

// TallyAccesses returns, per memory of acc, how many retrievals it had and the latest one.
func TallyAccesses(acc []Access) (counts map[string]int, last map[string]time.Time) {
	counts, last = make(map[string]int, len(acc)), make(map[string]time.Time, len(acc))
	for _, a := range acc {
		counts[a.MemoryID]++
		if a.At.After(last[a.MemoryID]) {
			last[a.MemoryID] = a.At
		}
	}
	return counts, last
}

// AccessRecorder is the optional store capability of recording many retrievals in one write:
// each memory's access count and last access grow, and events are appended.
type AccessRecorder interface {
	RecordAccesses(ctx context.Context, accesses []Access, events []*Event) error
}
