package graph

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

const memFields = `uid tr.id tr.scope mem.content mem.kind mem.tier mem.suggestedTier mem.metadata mem.tags
mem.occurredAt mem.createdAt mem.updatedAt mem.salience mem.importance mem.claimed mem.claimedAt
mem.accessCount mem.lastAccessedAt mem.state mem.sessionId mem.version`

type memNode struct {
	UID            string     `json:"uid"`
	ID             string     `json:"tr.id"`
	Scope          string     `json:"tr.scope"`
	Content        string     `json:"mem.content"`
	Kind           string     `json:"mem.kind"`
	Tier           string     `json:"mem.tier"`
	SuggestedTier  string     `json:"mem.suggestedTier"`
	Metadata       string     `json:"mem.metadata"`
	Tags           []string   `json:"mem.tags"`
	OccurredAt     time.Time  `json:"mem.occurredAt"`
	CreatedAt      time.Time  `json:"mem.createdAt"`
	UpdatedAt      time.Time  `json:"mem.updatedAt"`
	Salience       float64    `json:"mem.salience"`
	Importance     float64    `json:"mem.importance"`
	Claimed        bool       `json:"mem.claimed"`
	ClaimedAt      *time.Time `json:"mem.claimedAt"`
	AccessCount    int        `json:"mem.accessCount"`
	LastAccessedAt *time.Time `json:"mem.lastAccessedAt"`
	State          string     `json:"mem.state"`
	SessionID      string     `json:"mem.sessionId"`
	Version        int64      `json:"mem.version"`
}

func (n *memNode) memory() (*domain.Memory, error) {
	m := &domain.Memory{
		ID: n.ID, ScopeID: n.Scope, Content: n.Content, Kind: domain.MemoryKind(n.Kind),
		Tier: domain.Tier(n.Tier), SuggestedTier: domain.Tier(n.SuggestedTier), Tags: n.Tags,
		OccurredAt: n.OccurredAt.UTC(), CreatedAt: n.CreatedAt.UTC(), UpdatedAt: n.UpdatedAt.UTC(),
		Salience: n.Salience, Importance: n.Importance, Claimed: n.Claimed, ClaimedAt: utcPtr(n.ClaimedAt),
		AccessCount: n.AccessCount, LastAccessedAt: utcPtr(n.LastAccessedAt),
		State: domain.LifecycleState(n.State), SessionID: n.SessionID, Version: n.Version,
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	m.Metadata = map[string]any{}
	if n.Metadata != "" {
		if err := json.Unmarshal([]byte(n.Metadata), &m.Metadata); err != nil {
			return nil, fmt.Errorf("memory %s: bad metadata: %w", n.ID, err)
		}
	}
	return m, nil
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// memoryJSON is the set-mutation of every scalar of m on node uid.
func memoryJSON(uid string, m *domain.Memory, withTags bool) (map[string]any, error) {
	meta := "{}"
	if len(m.Metadata) > 0 {
		raw, err := json.Marshal(m.Metadata)
		if err != nil {
			return nil, domain.FieldErrorf("metadata", "is not JSON-encodable: %v", err)
		}
		meta = string(raw)
	}
	obj := map[string]any{
		"uid": uid, "tr.id": m.ID, "tr.scope": m.ScopeID,
		"mem.content": m.Content, "mem.kind": string(m.Kind), "mem.tier": string(m.Tier),
		"mem.suggestedTier": string(m.SuggestedTier), "mem.metadata": meta,
		"mem.occurredAt": ts(m.OccurredAt), "mem.createdAt": ts(m.CreatedAt), "mem.updatedAt": ts(m.UpdatedAt),
		"mem.salience": m.Salience, "mem.importance": m.Importance, "mem.claimed": m.Claimed,
		"mem.accessCount": m.AccessCount, "mem.state": string(m.State), "mem.sessionId": m.SessionID,
		"mem.version": m.Version,
	}
	if strings.HasPrefix(uid, "_:") {
		obj["dgraph.type"] = kindMemory
		obj["tr.kind"] = kindMemory
	}
	if withTags && len(m.Tags) > 0 {
		obj["mem.tags"] = m.Tags
	}
	if m.ClaimedAt != nil {
		obj["mem.claimedAt"] = ts(*m.ClaimedAt)
	}
	if m.LastAccessedAt != nil {
		obj["mem.lastAccessedAt"] = ts(*m.LastAccessedAt)
	}
	return obj, nil
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

const eventFields = `uid tr.scope ev.seq ev.type ev.memory ev.sessionId ev.requestId ev.messageId ev.causationId
ev.timestamp ev.source ev.payload ev.touches`

type eventNode struct {
	UID         string    `json:"uid"`
	Scope       string    `json:"tr.scope"`
	Seq         uint64    `json:"ev.seq"`
	Type        string    `json:"ev.type"`
	Memory      string    `json:"ev.memory"`
	SessionID   string    `json:"ev.sessionId"`
	RequestID   string    `json:"ev.requestId"`
	MessageID   string    `json:"ev.messageId"`
	CausationID string    `json:"ev.causationId"`
	Timestamp   time.Time `json:"ev.timestamp"`
	Source      string    `json:"ev.source"`
	Payload     string    `json:"ev.payload"`
	Touches     []string  `json:"ev.touches"`
}

func (n *eventNode) event() *domain.Event {
	ev := &domain.Event{
		Seq: n.Seq, Type: domain.EventType(n.Type), ScopeID: n.Scope, MemoryID: n.Memory,
		Context: domain.TransactionContext{
			SessionID: n.SessionID, RequestID: n.RequestID, MessageID: n.MessageID,
			CausationID: n.CausationID, Timestamp: n.Timestamp.UTC(), SourceContext: n.Source,
		},
	}
	if n.Payload != "" {
		_ = json.Unmarshal([]byte(n.Payload), &ev.Payload)
	}
	for _, t := range n.Touches {
		c, at, ok := strings.Cut(t, "|")
		if !ok {
			continue
		}
		when, _ := time.Parse(time.RFC3339Nano, at)
		ev.Touches = append(ev.Touches, domain.Touch{Context: c, At: when.UTC()})
	}
	sortTouches(ev.Touches)
	return ev
}

func sortTouches(ts []domain.Touch) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].At.Before(ts[j-1].At); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func touchValue(t domain.Touch) string { return t.Context + "|" + ts(t.At) }

func eventJSON(uid string, ev *domain.Event) map[string]any {
	obj := map[string]any{
		"uid": uid, "dgraph.type": kindEvent, "tr.kind": kindEvent, "tr.scope": ev.ScopeID,
		"ev.seq": ev.Seq, "ev.type": string(ev.Type),
		"ev.sessionId": ev.Context.SessionID, "ev.requestId": ev.Context.RequestID,
		"ev.messageId": ev.Context.MessageID, "ev.causationId": ev.Context.CausationID,
		"ev.timestamp": ts(ev.Context.Timestamp), "ev.source": ev.Context.SourceContext,
	}
	if ev.MemoryID != "" {
		obj["ev.memory"] = ev.MemoryID
	}
	if len(ev.Payload) > 0 {
		raw, err := json.Marshal(ev.Payload)
		if err == nil {
			obj["ev.payload"] = string(raw)
		}
	}
	if len(ev.Touches) > 0 {
		vals := make([]string, len(ev.Touches))
		for i, t := range ev.Touches {
			vals[i] = touchValue(t)
		}
		obj["ev.touches"] = vals
	}
	return obj
}

// idList renders validated ids as a DQL list literal. Callers pass only UUIDs (checked by
// domain.ValidID), so no id can carry DQL syntax.
func idList(ids []string) string {
	var b strings.Builder
	b.WriteByte('[')
	n := 0
	for _, id := range ids {
		if !domain.ValidID(id) {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(id)
		b.WriteByte('"')
		n++
	}
	b.WriteByte(']')
	return b.String()
}
