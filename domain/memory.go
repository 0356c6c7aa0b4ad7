package domain

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Limits on caller input; documented in the README and enforced by the Cortex. The content
// limit is a server setting: see MaxContentBytes.
const (
	MaxTags          = 64
	MaxTagBytes      = 256
	MaxMetadataBytes = 64 << 10
	MaxNameBytes     = 256
	MaxBatch         = 10000
	MaxIDBytes       = 128
)

// The content size limit: DefaultMaxContentBytes unless `serve --max-content-bytes` sets
// another value within [1, MaxContentBytesCeiling].
const (
	DefaultMaxContentBytes = 1 << 20  // 1 MiB
	MaxContentBytesCeiling = 64 << 20 // 64 MiB
)

var maxContentBytes atomic.Int64

func init() { maxContentBytes.Store(DefaultMaxContentBytes) }

// MaxContentBytes is the largest content (in bytes) a memory, artifact or kernel may carry.
func MaxContentBytes() int { return int(maxContentBytes.Load()) }

// SetMaxContentBytes sets the content size limit for the whole process. It is meant to be
// called once, before the server accepts requests; n must lie within 1..64 MiB.
func SetMaxContentBytes(n int) error {
	if n < 1 || n > MaxContentBytesCeiling {
		return fmt.Errorf("the content size limit must be within 1..%d bytes (64 MiB), not %d", MaxContentBytesCeiling, n)
	}
	maxContentBytes.Store(int64(n))
	return nil
}

// CheckContentSize refuses content of field larger than the content size limit.
func CheckContentSize(field, content string) error {
	if len(content) > MaxContentBytes() {
		return FieldErrorf(field, "is larger than the limit of %s", ContentLimitText())
	}
	return nil
}

// ContentLimitText names the content size limit for error messages: "1 MiB", "64 KiB" or
// "1000 bytes".
func ContentLimitText() string {
	n := MaxContentBytes()
	switch {
	case n == 1:
		return "1 byte"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Scope owns artifacts; it has exactly one agent kernel and one world kernel (seed 004).
type Scope struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	CreatedAt   time.Time `json:"createdAt"`
	AgentKernel *Kernel   `json:"agentKernel"`
	WorldKernel *Kernel   `json:"worldKernel"`
}

// KernelFamily names one of the two kernel families.
type KernelFamily string

const (
	FamilyAgentKernel KernelFamily = "agent_model_kernel"
	FamilyWorldKernel KernelFamily = "world_model_kernel"
	FamilyMemory      KernelFamily = "memory"
)

// Kernel is the scope's model of itself (agent) or of its world: core truth, never cleaned up.
type Kernel struct {
	ID        string       `json:"id"`
	ScopeID   string       `json:"scopeId"`
	Family    KernelFamily `json:"family"`
	Content   string       `json:"content"`
	UpdatedAt time.Time    `json:"updatedAt"`
}

// Memory is a typed memory record.
type Memory struct {
	ID             string         `json:"id"`
	ScopeID        string         `json:"scopeId"`
	Content        string         `json:"content"`
	Kind           MemoryKind     `json:"kind"`
	Tier           Tier           `json:"tier"`
	SuggestedTier  Tier           `json:"suggestedTier"`
	Metadata       map[string]any `json:"metadata"`
	Tags           []string       `json:"tags"`
	OccurredAt     time.Time      `json:"occurredAt"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	Salience       float64        `json:"salience"`
	Importance     float64        `json:"importance"`
	Claimed        bool           `json:"claimed"`
	ClaimedAt      *time.Time     `json:"claimedAt,omitempty"`
	AccessCount    int            `json:"accessCount"`
	LastAccessedAt *time.Time     `json:"lastAccessedAt,omitempty"`
	State          LifecycleState `json:"state"`
	SessionID      string         `json:"sessionId"`
	// Version grows by one with every change; concurrent writers of one memory conflict on it.
	Version int64 `json:"version"`
}

// Clone returns a deep copy, so callers never share slices or maps.
func (m *Memory) Clone() *Memory {
	if m == nil {
		return nil
	}
	c := *m
	c.Tags = append([]string(nil), m.Tags...)
	if m.Metadata != nil {
		c.Metadata = cloneJSON(m.Metadata).(map[string]any)
	}
	if m.ClaimedAt != nil {
		t := *m.ClaimedAt
		c.ClaimedAt = &t
	}
	if m.LastAccessedAt != nil {
		t := *m.LastAccessedAt
		c.LastAccessedAt = &t
	}
	return &c
}

// cloneJSON deep-copies a decoded JSON value: maps and slices are copied, scalars shared.
func cloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneJSON(e)
		}
		return c
	}
	return v
}

// Association is a bidirectional typed edge between two memories of one scope: seen from either
// end, it has the same type and strength. SourceID is the end it was read from.
type Association struct {
	SourceID  string          `json:"sourceId"`
	TargetID  string          `json:"targetId"`
	ScopeID   string          `json:"scopeId"`
	Type      AssociationType `json:"type"`
	Strength  float64         `json:"strength"`
	UpdatedAt time.Time       `json:"updatedAt"`
}

// MemoryFilter narrows lists and searches. Empty fields do not filter.
type MemoryFilter struct {
	Tiers  []Tier
	Kinds  []MemoryKind
	Tags   []string // a memory must carry every tag listed
	States []LifecycleState
	From   *time.Time // occurredAt >= From
	To     *time.Time // occurredAt < To
	// Claimed, when set, keeps only claimed (true) or unclaimed (false) memories.
	Claimed *bool
}

// Page asks for one page of a list.
type Page struct {
	First int
	After string // opaque cursor
}

// MemoryPage is one page of memories and the cursor for the next.
type MemoryPage struct {
	Memories   []*Memory
	EndCursor  string
	HasNext    bool
	TotalCount int
}
