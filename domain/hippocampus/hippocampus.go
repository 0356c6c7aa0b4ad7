// Package hippocampus is the Hippocampus context: it validates and forms memories, assigns
// their tier, and changes them on claims, reclassifications, retrievals and deletions, emitting
// the domain events of each change. It decides; the store persists.
package hippocampus

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/salience"
)

// StoreInput is a StoreCommand's payload.
type StoreInput struct {
	ScopeID       string
	Content       string
	Kind          domain.MemoryKind
	SuggestedTier domain.Tier
	Metadata      map[string]any
	Tags          []string
	OccurredAt    *time.Time
	Importance    *float64
}

// Hippocampus forms and changes memories. Safe for concurrent use.
type Hippocampus struct {
	Now domain.Clock
}

// New returns a Hippocampus reading the clock now.
func New(now domain.Clock) *Hippocampus { return &Hippocampus{Now: now} }

// Validate checks a StoreInput; field prefixes name the input in errors (e.g. "inputs[3].").
func Validate(prefix string, in StoreInput) error {
	if err := domain.CheckID(prefix+"scopeId", in.ScopeID); err != nil {
		return err
	}
	if strings.TrimSpace(in.Content) == "" {
		return domain.FieldErrorf(prefix+"content", "must not be empty")
	}
	if err := domain.CheckContentSize(prefix+"content", in.Content); err != nil {
		return err
	}
	if err := CheckText(prefix+"content", in.Content); err != nil {
		return err
	}
	if domain.IsHeartbeat(in.Content) {
		return domain.FieldErrorf(prefix+"content", "is a heartbeat-only message: heartbeats are never stored as memories")
	}
	if in.Kind != "" && !in.Kind.Valid() {
		return domain.FieldErrorf(prefix+"kind", "unknown kind %q", in.Kind)
	}
	if in.SuggestedTier != "" && !in.SuggestedTier.Valid() {
		return domain.FieldErrorf(prefix+"suggestedTier", "unknown tier %q", in.SuggestedTier)
	}
	if len(in.Tags) > domain.MaxTags {
		return domain.FieldErrorf(prefix+"tags", "at most %d tags", domain.MaxTags)
	}
	for _, tag := range in.Tags {
		if strings.TrimSpace(tag) == "" || len(tag) > domain.MaxTagBytes {
			return domain.FieldErrorf(prefix+"tags", "a tag must be 1..%d bytes and not blank", domain.MaxTagBytes)
		}
		if err := CheckText(prefix+"tags", tag); err != nil {
			return err
		}
	}
	if in.Metadata != nil {
		raw, err := json.Marshal(in.Metadata)
		if err != nil {
			return domain.FieldErrorf(prefix+"metadata", "is not a JSON object")
		}
		if len(raw) > domain.MaxMetadataBytes {
			return domain.FieldErrorf(prefix+"metadata", "is larger than %d bytes", domain.MaxMetadataBytes)
		}
		if err := domain.CheckNoDerivedFields(prefix+"metadata", in.Metadata); err != nil {
			return err
		}
	}
	if in.Importance != nil && !(*in.Importance >= 0 && *in.Importance <= 1) { // also refuses NaN
		return domain.FieldErrorf(prefix+"importance", "must be within 0..1")
	}
	if in.OccurredAt != nil && (in.OccurredAt.Year() < 1 || in.OccurredAt.Year() > 9999) {
		return domain.FieldErrorf(prefix+"occurredAt", "is out of range")
	}
	return nil
}

// CheckText refuses text that is not valid UTF-8 or holds NUL bytes.
func CheckText(field, s string) error {
	if !utf8.ValidString(s) {
		return domain.FieldErrorf(field, "is not valid UTF-8")
	}
	if strings.ContainsRune(s, 0) {
		return domain.FieldErrorf(field, "must not contain NUL characters")
	}
	return nil
}

// AssignTier decides where a new memory lives. A suggestion is honoured, except that a new
// memory is never born in ARCHIVE (archive is reached by decay or digest): it goes to LONG_TERM.
// Without a suggestion, SEMANTIC memories go to LONG_TERM and the others to ACTIVE_CONTEXT.
func AssignTier(suggested domain.Tier, kind domain.MemoryKind) domain.Tier {
	switch {
	case suggested == domain.TierArchive:
		return domain.TierLongTerm
	case suggested != "":
		return suggested
	case kind == domain.KindSemantic:
		return domain.TierLongTerm
	}
	return domain.TierActiveContext
}

// Form builds a new memory from a validated input and its MemoryStored event, emitted in
// response to the command whose context is cmd.
func (h *Hippocampus) Form(in StoreInput, cmd domain.TransactionContext) (*domain.Memory, *domain.Event) {
	now := h.Now().UTC()
	kind := in.Kind
	if kind == "" {
		kind = domain.KindEpisodic
	}
	m := &domain.Memory{
		ID: domain.NewID(), ScopeID: in.ScopeID, Content: in.Content, Kind: kind,
		SuggestedTier: in.SuggestedTier, Tier: AssignTier(in.SuggestedTier, kind),
		Metadata: copyMap(in.Metadata), Tags: dedupe(in.Tags), OccurredAt: now, CreatedAt: now,
		UpdatedAt: now, State: domain.StateActive, SessionID: cmd.SessionID, Version: 1,
	}
	if in.OccurredAt != nil {
		m.OccurredAt = in.OccurredAt.UTC()
	}
	if in.Importance != nil {
		m.Importance = *in.Importance
	}
	m.Salience = salience.Initial(m.Importance)
	ev := &domain.Event{Type: domain.EvMemoryStored, ScopeID: m.ScopeID, MemoryID: m.ID,
		Context: cmd.Derive(domain.CtxHippocampus, now), Payload: StoredPayload(m)}
	return m, ev
}

// StoredPayload is MemoryStored's payload: memory id, content, metadata, tier and what the
// index needs.
func StoredPayload(m *domain.Memory) map[string]any {
	return map[string]any{
		"memoryId": m.ID, "content": m.Content, "metadata": m.Metadata, "tier": string(m.Tier),
		"suggestedTier": string(m.SuggestedTier), "kind": string(m.Kind), "tags": m.Tags,
		"occurredAt": m.OccurredAt.Format(time.RFC3339Nano), "createdAt": m.CreatedAt.Format(time.RFC3339Nano),
		"state": string(m.State), "salience": m.Salience,
	}
}

// Claim marks m claimed: its salience is boosted and it resists decay.
func (h *Hippocampus) Claim(m *domain.Memory, cmd domain.TransactionContext) []*domain.Event {
	now := h.Now().UTC()
	first := !m.Claimed
	if first {
		m.Claimed, m.ClaimedAt = true, &now
	}
	m.Salience = salience.Reinforce(m)
	m.UpdatedAt = now
	return []*domain.Event{{Type: domain.EvMemoryClaimed, ScopeID: m.ScopeID, MemoryID: m.ID,
		Context: cmd.Derive(domain.CtxHippocampus, now),
		Payload: map[string]any{"memoryId": m.ID, "claimTimestamp": now.Format(time.RFC3339Nano),
			"firstClaim": first, "salience": m.Salience}}}
}

// Access records one retrieval of m.
func (h *Hippocampus) Access(m *domain.Memory, cause domain.TransactionContext) *domain.Event {
	now := h.Now().UTC()
	m.AccessCount++
	m.LastAccessedAt = &now
	m.Salience = salience.Reinforce(m)
	return &domain.Event{Type: domain.EvMemoryAccessed, ScopeID: m.ScopeID, MemoryID: m.ID,
		Context: cause.Derive(domain.CtxHippocampus, now),
		Payload: map[string]any{"memoryId": m.ID, "accessTimestamp": now.Format(time.RFC3339Nano)}}
}

// Reclassify moves m to tier and merges metadata (a null value removes a key), emitting
// MemoryReclassified and, when the tier changes, TierChanged.
func (h *Hippocampus) Reclassify(m *domain.Memory, tier domain.Tier, metadata map[string]any, reason string, cmd domain.TransactionContext) []*domain.Event {
	now := h.Now().UTC()
	old := m.Tier
	if tier != "" {
		m.Tier = tier
	}
	if metadata != nil {
		if m.Metadata == nil {
			m.Metadata = map[string]any{}
		}
		for k, v := range metadata {
			if v == nil {
				delete(m.Metadata, k)
			} else {
				m.Metadata[k] = v
			}
		}
	}
	m.UpdatedAt = now
	rc := cmd.Derive(domain.CtxHippocampus, now)
	evs := []*domain.Event{{Type: domain.EvMemoryReclassified, ScopeID: m.ScopeID, MemoryID: m.ID, Context: rc,
		Payload: map[string]any{"memoryId": m.ID, "oldTier": string(old), "newTier": string(m.Tier),
			"reason": reason, "metadata": m.Metadata}}}
	if old != m.Tier {
		evs = append(evs, &domain.Event{Type: domain.EvTierChanged, ScopeID: m.ScopeID, MemoryID: m.ID,
			Context: rc.Derive(domain.CtxHippocampus, now),
			Payload: map[string]any{"memoryId": m.ID, "oldTier": string(old), "newTier": string(m.Tier), "reason": reason}})
	}
	return evs
}

// Delete emits the audited deletion of m.
func (h *Hippocampus) Delete(m *domain.Memory, reason string, cmd domain.TransactionContext) *domain.Event {
	now := h.Now().UTC()
	return &domain.Event{Type: domain.EvMemoryDeleted, ScopeID: m.ScopeID, MemoryID: m.ID,
		Context: cmd.Derive(domain.CtxHippocampus, now),
		Payload: map[string]any{"memoryId": m.ID, "reason": reason, "tier": string(m.Tier), "content": m.Content}}
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func dedupe(tags []string) []string {
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
