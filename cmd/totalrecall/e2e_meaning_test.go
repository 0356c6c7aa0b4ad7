package main

import (
	"testing"
)

// TestSearchFindsWhatIsMeant: through a real server over HTTP, a question about a category finds
// the memory that names a member of it (reason LEXICAL), below the memory that says the words;
// a server started with --no-expand searches the words alone.
func TestSearchFindsWhatIsMeant(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, storeFlags{store: "file://" + dir})
	scope, _, _ := s.createScope(t, "meaning")
	tkd := s.store(t, map[string]any{"scopeId": scope, "content": "Off to do some taekwondo!"})
	words := s.store(t, map[string]any{"scopeId": scope, "content": "Maria: is it a martial arts place or a yoga studio?"})
	s.store(t, map[string]any{"scopeId": scope, "content": "John: we had pizza with the kids"})
	byID := func(rs []ranked) map[string]ranked {
		out := map[string]ranked{}
		for _, r := range rs {
			out[r.Memory.ID] = r
		}
		return out
	}
	got := byID(s.search(t, scope, "What martial arts has John done?", false))
	if r, ok := got[tkd.ID]; !ok || r.Reason != "LEXICAL" {
		t.Fatalf("taekwondo: %+v (found %v), want reason LEXICAL", r, ok)
	}
	if got[words.ID].Reason != "TEXT" || got[words.ID].Score <= got[tkd.ID].Score {
		t.Fatalf("the words (%+v) should rank above what they mean (%+v)", got[words.ID], got[tkd.ID])
	}
	s.stop(t)

	// The same data, served with --no-expand.
	s = startServer(t, storeFlags{store: "file://" + dir, noExpand: true})
	defer s.stop(t)
	got = byID(s.search(t, scope, "What martial arts has John done?", false))
	if r, ok := got[tkd.ID]; ok && r.Reason == "LEXICAL" {
		t.Fatalf("--no-expand: %+v", r)
	}
	if _, ok := got[words.ID]; !ok {
		t.Fatal("--no-expand: the words are not found")
	}
}
