package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSearchSpreadsOverFacets: through a real server over HTTP, a question answered in one
// conversation reaches another conversation on the same topic, at the memory where it raises
// that topic, with reason FACET and the facet named — once the topics were analysed, and not
// before. The words of the question are not in that memory.
func TestSearchSpreadsOverFacets(t *testing.T) {
	s := startServer(t, storeFlags{store: "file://" + t.TempDir()})
	defer s.stop(t)
	scope, _, _ := s.createScope(t, "facets")
	at := func(day, minute int) string {
		return time.Date(2026, 3, day, 10, minute, 0, 0, time.UTC).Format(time.RFC3339)
	}
	store := func(session string, day, minute int, content string) memory {
		return s.store(t, map[string]any{"scopeId": scope, "content": content, "sessionId": session, "occurredAt": at(day, minute)})
	}
	store("harbour-1", 2, 0, `Ana: The lighthouse restoration needs volunteers for the "big" weekend.`)
	store("harbour-1", 2, 1, "Ben: I love the lighthouse, count me in for the restoration.")
	store("harbour-1", 2, 2, "Ana: Great, the restoration crew meets at the pier.")
	raised := store("harbour-2", 27, 0, "Ben: We finally repainted the lighthouse on Saturday!")
	store("harbour-2", 27, 1, "Ana: The lighthouse looks brand new, the whole town came to see it.")
	store("harbour-2", 27, 2, "Ben: Next spring we fix the lamp of the lighthouse.")
	store("garden-1", 14, 0, "Ana: My tomatoes finally ripened in the garden.")
	store("garden-1", 14, 1, "Ben: Your garden tomatoes are the best.")
	eventually(t, func() string {
		var eps struct{ Episodes []struct{ ID string } }
		s.ok(t, `query($s: ID!) { episodes(scopeId: $s) { id } }`, map[string]any{"s": scope}, &eps)
		if len(eps.Episodes) != 3 {
			return fmt.Sprintf("%d episodes, want 3 (one a session)", len(eps.Episodes))
		}
		return ""
	})
	const q = "Who needs volunteers?"
	type facetHit struct {
		Memory   struct{ ID string }
		Reason   string
		ViaFacet *struct {
			Type, Value, EpisodeID, MemoryID, RunID, CreatedAt string
			Confidence                                         float64
		}
	}
	search := func() map[string]facetHit {
		var r struct{ SearchMemory []facetHit }
		s.ok(t, `query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) {
			memory { id } reason viaFacet { type value episodeId memoryId runId createdAt confidence } } }`, map[string]any{"s": scope, "q": q}, &r)
		out := map[string]facetHit{}
		for _, h := range r.SearchMemory {
			out[h.Memory.ID] = h
		}
		return out
	}
	// Before any analysis there are no facets: the other conversation is not reached by them.
	for id, h := range search() {
		if h.Reason == "FACET" || h.ViaFacet != nil {
			t.Fatalf("before the topics were analysed: %s %+v", id, h)
		}
	}
	var runs struct{ AnalyzeEpisodes []struct{ Status string } }
	s.ok(t, `mutation($s: ID!) { analyzeEpisodes(scopeId: $s, type: "topics") { status } }`, map[string]any{"s": scope}, &runs)
	if len(runs.AnalyzeEpisodes) != 3 {
		t.Fatalf("topic runs = %+v, want 3", runs.AnalyzeEpisodes)
	}
	got := search()
	h, ok := got[raised.ID]
	if !ok || h.Reason != "FACET" || h.ViaFacet == nil || h.ViaFacet.Type != "topic" || h.ViaFacet.Value != "lighthouse" ||
		h.ViaFacet.MemoryID != raised.ID || h.ViaFacet.EpisodeID == "" || h.ViaFacet.RunID == "" || h.ViaFacet.Confidence <= 0 ||
		!strings.HasPrefix(h.ViaFacet.CreatedAt, "20") {
		t.Fatalf("the memory raising the lighthouse in the other conversation: %+v (found %v), want FACET via topic lighthouse", h, ok)
	}
	for id, h := range got {
		if id != raised.ID && h.Reason == "FACET" {
			t.Fatalf("only the memory raising the shared topic is reached through it: %s %+v", id, h)
		}
		if strings.Contains(h.Reason, "FACET") && h.ViaFacet == nil {
			t.Fatalf("a FACET result names no facet: %+v", h)
		}
	}
	// The garden conversation shares no topic with the question's: nothing of it is reached.
	for id, h := range got {
		if h.ViaFacet != nil && h.ViaFacet.Value != "lighthouse" && h.ViaFacet.Value != "restoration" {
			t.Fatalf("reached through an unrelated facet: %s %+v", id, h)
		}
	}
}
