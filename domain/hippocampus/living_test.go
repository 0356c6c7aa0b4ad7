package hippocampus

import (
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func TestMergeStrategies(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	claimedAt := t0.Add(time.Hour)
	mk := func(content string, day int, tier domain.Tier, kind domain.MemoryKind, sal float64) *domain.Memory {
		return &domain.Memory{ID: domain.NewID(), ScopeID: "s", Content: content, Kind: kind, Tier: tier, Salience: sal,
			OccurredAt: t0.AddDate(0, 0, day), Tags: []string{content[:1], "common"}, Metadata: map[string]any{"k": content, content: true}}
	}
	a := mk("alpha", 2, domain.TierLongTerm, domain.KindEpisodic, 0.2)
	b := mk("beta", 1, domain.TierArchive, domain.KindEpisodic, 0.9)
	c := mk("gamma", 3, domain.TierActiveContext, domain.KindObservational, 0.5)
	b.Claimed, b.ClaimedAt, b.Importance, b.AccessCount = true, &claimedAt, 0.7, 2
	h := New(func() time.Time { return t0.AddDate(0, 1, 0) })
	tc := domain.TransactionContext{SessionID: "sess", RequestID: "r", MessageID: "m", CausationID: "r", Timestamp: t0, SourceContext: domain.CtxCortex}
	m, evs, err := h.Merge([]*domain.Memory{a, b, c}, domain.MergeConcatenate, tc)
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "beta\n\nalpha\n\ngamma" || m.Kind != domain.KindSemantic || m.Tier != domain.TierActiveContext ||
		!m.OccurredAt.Equal(b.OccurredAt) || !m.Claimed || m.Importance != 0.7 || m.AccessCount != 2 ||
		strings.Join(m.Tags, ",") != "b,common,a,g" || m.Metadata["k"] != "gamma" || m.Metadata["consolidationStrategy"] != "CONCATENATE" {
		t.Fatalf("concatenated = %+v", m)
	}
	if len(evs) != 4 || evs[0].Type != domain.EvMemoryStored || evs[0].MemoryID != m.ID || evs[1].Type != domain.EvMemoryConsolidated ||
		evs[1].MemoryID != a.ID || evs[1].Payload["into"] != m.ID || evs[1].Context.CausationID != "m" {
		t.Fatalf("events = %+v", evs)
	}
	if m, _, _ := h.Merge([]*domain.Memory{a, b, c}, domain.MergeKeepNewest, tc); m.Content != "gamma" {
		t.Fatalf("KEEP_NEWEST kept %q", m.Content)
	}
	if m, _, _ := h.Merge([]*domain.Memory{a, b, c}, domain.MergeKeepMostSalient, tc); m.Content != "beta" {
		t.Fatalf("KEEP_MOST_SALIENT kept %q", m.Content)
	}
	archived := mk("delta", 0, domain.TierArchive, domain.KindEpisodic, 0)
	if m, _, _ := h.Merge([]*domain.Memory{b, archived}, domain.MergeKeepNewest, tc); m.Tier != domain.TierLongTerm {
		t.Fatalf("merged archive memories born in %s, want LONG_TERM", m.Tier)
	}
	huge := mk("h"+strings.Repeat("x", domain.MaxContentBytes()/2+1), 0, domain.TierLongTerm, domain.KindEpisodic, 0)
	if _, _, err := h.Merge([]*domain.Memory{huge, huge}, domain.MergeConcatenate, tc); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("oversized merge: %v", err)
	}
	if _, _, err := h.Merge([]*domain.Memory{a}, domain.MergeConcatenate, tc); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("merge of one: %v", err)
	}
}

func TestHeartbeatsAreNeverStored(t *testing.T) {
	err := Validate("", StoreInput{ScopeID: domain.NewID(), Content: "HEARTBEAT_OK"})
	if domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("Validate(HEARTBEAT_OK) = %v", err)
	}
	if err := Validate("", StoreInput{ScopeID: domain.NewID(), Content: "the HEARTBEAT_OK message is noise"}); err != nil {
		t.Fatalf("a memory about heartbeats was refused: %v", err)
	}
}
