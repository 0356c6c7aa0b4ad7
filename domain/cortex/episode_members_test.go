package cortex_test

import (
	"context"
	"slices"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
)

// EpisodeMembers (what search in context reads) returns the members Episodes returns with items,
// and nothing for ids of another scope or of other kinds.
func TestEpisodeMembersAreTheEpisodesItems(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	scope, byWord := analysisScope(t, cx)
	other, err := cx.CreateScope(ctx, "other", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	importSource(t, cx, other.ID, ingest.KindEvents, analysisEvents)
	otherEps, err := s.st.Episodes(ctx, other.ID, domain.EpisodeFilter{})
	if err != nil || len(otherEps) == 0 {
		t.Fatalf("other scope's episodes: %v, %v", otherEps, err)
	}
	var ids []string
	for _, e := range byWord {
		ids = append(ids, e.ID)
	}
	asked := append(slices.Clone(ids), otherEps[0].ID, byWord["zebra"].Items[0], domain.NewID(), "not-an-id")
	got, err := s.st.EpisodeMembers(ctx, scope, asked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ids) {
		t.Fatalf("members of %d episodes, want the %d of the scope: %v", len(got), len(ids), got)
	}
	for _, e := range byWord {
		if len(e.Items) == 0 {
			t.Fatalf("episode %s has no items to compare", e.ID)
		}
		if !slices.Equal(slices.Sorted(slices.Values(got[e.ID])), slices.Sorted(slices.Values(e.Items))) {
			t.Fatalf("episode %s: members %v, Episodes' items %v", e.ID, got[e.ID], e.Items)
		}
	}
}
