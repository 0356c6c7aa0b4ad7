package hippocampus

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/salience"
)

// AccessEvent is the MemoryAccessed of one retrieval the Hippocampus served for a query whose
// context is cause (the store records the access itself).
func AccessEvent(scopeID, memoryID string, cause domain.TransactionContext, now time.Time) *domain.Event {
	return &domain.Event{Type: domain.EvMemoryAccessed, ScopeID: scopeID, MemoryID: memoryID,
		Context: cause.Derive(domain.CtxHippocampus, now),
		Payload: map[string]any{"memoryId": memoryID, "accessTimestamp": now.UTC().Format(time.RFC3339Nano)}}
}

// Consolidation limits.
const (
	MinConsolidate = 2
	MaxConsolidate = 100
)

// Merge consolidates sources (memories of one scope) into one new memory (ConsolidateCommand):
//
//   - content: CONCATENATE joins the contents oldest first with a blank line between them;
//     KEEP_NEWEST keeps the content of the newest (occurredAt); KEEP_MOST_SALIENT that of the most
//     salient (ties: the newest);
//   - kind: the sources' kind if they share one, else SEMANTIC (a consolidation generalises);
//   - tier: the most prominent tier among the sources (never ARCHIVE: then LONG_TERM);
//   - tags: the union in order of appearance (the first 64); metadata: merged oldest first (newer
//     values win) plus consolidatedFrom and consolidationStrategy;
//   - occurredAt: the earliest; importance: the highest; claimed if any source was (earliest
//     claim); access count: the sum; last access: the latest.
//
// It returns the memory and its events: MemoryStored for the new memory and MemoryConsolidated
// in each source's history (the store points the sources at the new memory and takes them out
// of service). Errors: INVALID_ARGUMENT when the merge would exceed the limits of a memory.
func (h *Hippocampus) Merge(sources []*domain.Memory, strategy domain.ConsolidationStrategy, cmd domain.TransactionContext) (*domain.Memory, []*domain.Event, error) {
	if len(sources) < MinConsolidate {
		return nil, nil, domain.FieldErrorf("memoryIds", "consolidation needs at least %d memories", MinConsolidate)
	}
	now := h.Now().UTC()
	byAge := append([]*domain.Memory(nil), sources...)
	sort.SliceStable(byAge, func(i, j int) bool {
		if !byAge[i].OccurredAt.Equal(byAge[j].OccurredAt) {
			return byAge[i].OccurredAt.Before(byAge[j].OccurredAt)
		}
		return byAge[i].ID < byAge[j].ID
	})
	newest := byAge[len(byAge)-1]
	var content string
	switch strategy {
	case domain.MergeKeepNewest:
		content = newest.Content
	case domain.MergeKeepMostSalient:
		best := newest
		for i := len(byAge) - 1; i >= 0; i-- {
			if byAge[i].Salience > best.Salience {
				best = byAge[i]
			}
		}
		content = best.Content
	default:
		parts := make([]string, len(byAge))
		for i, m := range byAge {
			parts[i] = m.Content
		}
		content = strings.Join(parts, "\n\n")
	}
	if len(content) > domain.MaxContentBytes() {
		return nil, nil, domain.FieldErrorf("memoryIds", "the consolidated content would exceed the limit of %s", domain.ContentLimitText())
	}
	ids := make([]string, len(sources))
	for i, m := range sources {
		ids[i] = m.ID
	}
	m := &domain.Memory{ID: domain.NewID(), ScopeID: sources[0].ScopeID, Content: content, Kind: byAge[0].Kind,
		Tier: domain.TierArchive, Metadata: map[string]any{}, Tags: []string{}, OccurredAt: byAge[0].OccurredAt,
		CreatedAt: now, UpdatedAt: now, State: domain.StateActive, SessionID: cmd.SessionID, Version: 1}
	seen := map[string]bool{}
	for _, s := range byAge {
		if s.Kind != m.Kind {
			m.Kind = domain.KindSemantic
		}
		if s.Tier.Rank() < m.Tier.Rank() {
			m.Tier = s.Tier
		}
		for _, t := range s.Tags {
			if !seen[t] && len(m.Tags) < domain.MaxTags {
				seen[t] = true
				m.Tags = append(m.Tags, t)
			}
		}
		for k, v := range s.Metadata {
			m.Metadata[k] = v
		}
		m.Importance = max(m.Importance, s.Importance)
		if s.Claimed {
			m.Claimed = true
			if s.ClaimedAt != nil && (m.ClaimedAt == nil || s.ClaimedAt.Before(*m.ClaimedAt)) {
				t := *s.ClaimedAt
				m.ClaimedAt = &t
			}
		}
		m.AccessCount += s.AccessCount
		if s.LastAccessedAt != nil && (m.LastAccessedAt == nil || s.LastAccessedAt.After(*m.LastAccessedAt)) {
			t := *s.LastAccessedAt
			m.LastAccessedAt = &t
		}
	}
	if m.Tier == domain.TierArchive {
		m.Tier = domain.TierLongTerm
	}
	if m.Claimed && m.ClaimedAt == nil {
		m.ClaimedAt = &now
	}
	m.Metadata["consolidatedFrom"] = append([]string(nil), ids...)
	m.Metadata["consolidationStrategy"] = string(strategy)
	if raw, err := json.Marshal(m.Metadata); err != nil || len(raw) > domain.MaxMetadataBytes {
		return nil, nil, domain.FieldErrorf("memoryIds", "the merged metadata would exceed %d bytes", domain.MaxMetadataBytes)
	}
	m.Salience = salience.Reinforce(m)
	payload := StoredPayload(m)
	payload["consolidatedFrom"] = ids
	payload["strategy"] = string(strategy)
	evs := []*domain.Event{{Type: domain.EvMemoryStored, ScopeID: m.ScopeID, MemoryID: m.ID,
		Context: cmd.Derive(domain.CtxHippocampus, now), Payload: payload}}
	for _, s := range sources {
		evs = append(evs, &domain.Event{Type: domain.EvMemoryConsolidated, ScopeID: s.ScopeID, MemoryID: s.ID,
			Context: cmd.Derive(domain.CtxHippocampus, now),
			Payload: map[string]any{"memoryId": s.ID, "into": m.ID, "strategy": string(strategy)}})
	}
	return m, evs, nil
}
