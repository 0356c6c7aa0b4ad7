package search

import (
	"context"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// Expansions are searched by a query of their own: the text's hits keep their scores, the
// expansions' hits carry Lexical, and only expansions found in the index count.
func TestSearchExpansions(t *testing.T) {
	idx := openIndex(t)
	put(t, idx,
		doc("lit", "s", "John: martial arts classes start on Monday"),
		doc("both", "s", "John: I tried karate at the martial arts place"),
		doc("tkd", "s", "John: I'm off to do some taekwondo!"),
		doc("kf", "s", "John: kung fu films are fun"),
		doc("kungonly", "s", "John: the fu of kung"),
		doc("other", "t", "Maria: taekwondo is fun"),
		doc("none", "s", "John: a quiet day at home"),
	)
	ctx := context.Background()
	text := "martial arts"
	plain, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: text, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	exp := []domain.Expansion{
		{Text: "taekwondo", Weight: 1}, {Text: "karate", Weight: 1}, {Text: "kung fu", Weight: 0.5},
		{Text: "jujitsu", Weight: 1},     // in no document: left out
		{Text: "arts", Weight: 1},        // the text's own word: adds nothing
		{Text: "the of and", Weight: 1},  // stop words only
		{Text: "zero weight", Weight: 0}, // weighs nothing
	}
	hits, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: text, Limit: 10, Expansions: exp})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]domain.IndexHit{}
	for _, h := range hits {
		by[h.ID] = h
	}
	// The text's hits come first, in their order and with their scores, as without expansions.
	for i, h := range plain {
		if hits[i].ID != h.ID || hits[i].Score != h.Score {
			t.Fatalf("hit %d = %+v, want the text's hit %+v first", i, hits[i], h)
		}
	}
	if got, want := ids(hits), []string{"lit", "both", "tkd", "kf"}; !sameSet(got, want) {
		// lit and both match the text (both first: two words of it), tkd and kf only expansions
		t.Fatalf("hits = %v, want %v", got, want)
	}
	if h := by["both"]; h.Score <= 0 || h.Lexical <= 0 {
		t.Fatalf("both = %+v, want a text score and a lexical one", h)
	}
	if h := by["lit"]; h.Score <= 0 || h.Lexical != 0 {
		t.Fatalf("lit = %+v, want a text score only", h)
	}
	if h := by["tkd"]; h.Score != 0 || h.Lexical <= 0 {
		t.Fatalf("tkd = %+v, want a lexical score only", h)
	}
	// A phrase matches as a phrase, and a lighter expansion scores less.
	if _, ok := by["kungonly"]; ok {
		t.Fatal("kung fu matched a document with both words apart")
	}
	if by["kf"].Lexical >= by["tkd"].Lexical {
		t.Fatalf("kung fu (0.5) scored %v, taekwondo (1) %v", by["kf"].Lexical, by["tkd"].Lexical)
	}
	// Never another scope's, whichever side finds it.
	if _, ok := by["other"]; ok {
		t.Fatal("a hit of another scope")
	}
	// Expansions found nowhere leave the search as it was.
	hits, err = idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: text, Limit: 10,
		Expansions: []domain.Expansion{{Text: "jujitsu", Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(plain) {
		t.Fatalf("with an absent expansion: %+v, want %+v", hits, plain)
	}
	// Filters hold for the expansions' hits too.
	hits, err = idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: text, Limit: 10, Expansions: exp,
		Filter: domain.MemoryFilter{Kinds: []domain.MemoryKind{domain.KindSemantic}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Fatalf("filtered out kind: %+v", hits)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// The dictionary an expansion is looked up in is kept for the searches of one snapshot: a word
// indexed since is found by the next search, and a search of the same snapshot asks for no new
// dictionary.
func TestExpansionDictionaryFollowsTheIndex(t *testing.T) {
	idx := openIndex(t)
	put(t, idx, doc("a", "s", "John: martial arts classes"))
	ctx := context.Background()
	q := domain.IndexQuery{ScopeID: "s", Text: "martial arts", Limit: 10, Expansions: []domain.Expansion{{Text: "judo", Weight: 1}}}
	hits, err := idx.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !sameSet(got, []string{"a"}) {
		t.Fatalf("hits = %v, want a alone: judo is in no document yet", got)
	}
	first := idx.contentDict.Load()
	if first == nil {
		t.Fatal("no dictionary kept after a search with expansions")
	}
	if _, err := idx.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	if idx.contentDict.Load() != first {
		t.Fatal("a second search of the same snapshot built another dictionary")
	}
	if ok, found := first.known["judo"]; !found || ok {
		t.Fatalf("the dictionary's answer for judo: %v (kept: %v), want absent, kept", ok, found)
	}
	put(t, idx, doc("b", "s", "John: judo on Tuesdays"))
	hits, err = idx.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(hits); !sameSet(got, []string{"a", "b"}) {
		t.Fatalf("hits = %v, want a and the judo document indexed since", got)
	}
}

// A search waits for the writer only while a document it might find is queued: watermarks
// change nothing a search finds.
func TestSyncWaitsForDocumentsOnly(t *testing.T) {
	idx := openIndex(t)
	ctx := context.Background()
	if err := idx.SetWatermark(7); err != nil {
		t.Fatal(err)
	}
	if d, q := idx.docsQueued.Load(), idx.queued.Load(); d != 0 || q != 1 {
		t.Fatalf("after a watermark: %d document requests of %d queued, want 0 of 1", d, q)
	}
	if err := idx.Queue(ctx, []domain.IndexDoc{{ID: "q", ScopeID: "s", Content: "queued words"}}); err != nil {
		t.Fatal(err)
	}
	if d, q := idx.docsQueued.Load(), idx.queued.Load(); d != 2 || q != 2 {
		t.Fatalf("after a document: %d document requests of %d queued, want 2 of 2", d, q)
	}
	hits, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "queued", Limit: 10})
	if err != nil || len(hits) != 1 {
		t.Fatalf("a queued document is not found by the search after it: %v, %v", hits, err)
	}
}
