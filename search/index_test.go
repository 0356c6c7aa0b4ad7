package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func openIndex(t *testing.T, opts ...Option) *Index {
	t.Helper()
	idx, err := Open(filepath.Join(t.TempDir(), "index"), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	return idx
}

func doc(id, scope, content string) domain.IndexDoc {
	return domain.IndexDoc{
		ID: id, ScopeID: scope, Content: content,
		Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, State: domain.StateActive,
		OccurredAt: t0, CreatedAt: t0,
	}
}

func put(t *testing.T, idx *Index, docs ...domain.IndexDoc) {
	t.Helper()
	if err := idx.Put(context.Background(), docs); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

// find returns the ids of the hits of text in scope, best first.
func find(t *testing.T, idx *Index, scope, text string, f domain.MemoryFilter) []string {
	t.Helper()
	hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: scope, Text: text, Limit: MaxLimit, Filter: f})
	if err != nil {
		t.Fatalf("Search(%q): %v", text, err)
	}
	return ids(hits)
}

func ids(hits []domain.IndexHit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func count(t *testing.T, idx *Index) uint64 {
	t.Helper()
	n, err := idx.Count()
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	return n
}

func TestScopeIsolation(t *testing.T) {
	idx := openIndex(t)
	put(t, idx,
		doc("a1", "scope-a", "the quarterly budget review"),
		doc("b1", "scope-b", "the quarterly budget review"),
		doc("b2", "scope-b", "budget"),
	)
	tests := []struct {
		scope string
		want  []string
	}{
		{"scope-a", []string{"a1"}},
		{"scope-b", []string{"b1", "b2"}},
		{"scope-c", []string{}},
		{"scope", []string{}}, // a prefix of a scope is another scope
	}
	for _, tt := range tests {
		t.Run(tt.scope, func(t *testing.T) {
			got := sorted(find(t, idx, tt.scope, "budget review", domain.MemoryFilter{}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("empty scope", func(t *testing.T) {
		_, err := idx.Search(context.Background(), domain.IndexQuery{Text: "budget"})
		if got, want := domain.ErrorCode(err), domain.EINVALID; got != want {
			t.Errorf("got %q (%v), want %q", got, err, want)
		}
	})
}

func TestFilters(t *testing.T) {
	idx := openIndex(t)
	mk := func(id string, tier domain.Tier, kind domain.MemoryKind, state domain.LifecycleState, at time.Time, tags ...string) domain.IndexDoc {
		d := doc(id, "s", "garden party")
		d.Tier, d.Kind, d.State, d.OccurredAt, d.Tags = tier, kind, state, at, tags
		return d
	}
	put(t, idx,
		mk("d1", domain.TierIdentityCore, domain.KindEpisodic, domain.StateActive, t0, "home", "family"),
		mk("d2", domain.TierActiveContext, domain.KindSemantic, domain.StateActive, t0.Add(time.Hour), "home"),
		mk("d3", domain.TierLongTerm, domain.KindObservational, domain.StateArchived, t0.Add(2*time.Hour), "work"),
		mk("d4", domain.TierArchive, domain.KindEpisodic, domain.StateArchived, t0.Add(3*time.Hour)),
		mk("d5", domain.TierLongTerm, domain.KindSemantic, domain.StateActive, time.Time{}, "Home"),
	)
	ptr := func(t time.Time) *time.Time { return &t }
	yes := true
	tests := []struct {
		name   string
		filter domain.MemoryFilter
		want   []string
	}{
		{"none", domain.MemoryFilter{}, []string{"d1", "d2", "d3", "d4", "d5"}},
		{"one tier", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierLongTerm}}, []string{"d3", "d5"}},
		{"two tiers", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierIdentityCore, domain.TierArchive}}, []string{"d1", "d4"}},
		{"kind", domain.MemoryFilter{Kinds: []domain.MemoryKind{domain.KindEpisodic}}, []string{"d1", "d4"}},
		{"kinds", domain.MemoryFilter{Kinds: []domain.MemoryKind{domain.KindSemantic, domain.KindObservational}}, []string{"d2", "d3", "d5"}},
		{"state", domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}, []string{"d1", "d2", "d5"}},
		{"states", domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive, domain.StateArchived}}, []string{"d1", "d2", "d3", "d4", "d5"}},
		{"tag", domain.MemoryFilter{Tags: []string{"home"}}, []string{"d1", "d2"}},
		{"tags are all required", domain.MemoryFilter{Tags: []string{"home", "family"}}, []string{"d1"}},
		{"tags are case sensitive keywords", domain.MemoryFilter{Tags: []string{"Home"}}, []string{"d5"}},
		{"unknown tag", domain.MemoryFilter{Tags: []string{"nope"}}, []string{}},
		{"from is inclusive", domain.MemoryFilter{From: ptr(t0.Add(2 * time.Hour))}, []string{"d3", "d4"}},
		{"to is exclusive", domain.MemoryFilter{To: ptr(t0.Add(2 * time.Hour))}, []string{"d1", "d2"}},
		{"from and to", domain.MemoryFilter{From: ptr(t0.Add(time.Hour)), To: ptr(t0.Add(3 * time.Hour))}, []string{"d2", "d3"}},
		{"empty window", domain.MemoryFilter{From: ptr(t0.Add(time.Hour)), To: ptr(t0.Add(time.Hour))}, []string{}},
		{"far bounds", domain.MemoryFilter{From: ptr(time.Time{}), To: ptr(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))}, []string{"d1", "d2", "d3", "d4", "d5"}},
		{"far from", domain.MemoryFilter{From: ptr(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))}, []string{}},
		{"combined", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierLongTerm, domain.TierActiveContext}, States: []domain.LifecycleState{domain.StateActive}, Tags: []string{"home"}}, []string{"d2"}},
		{"claimed is left to the caller", domain.MemoryFilter{Claimed: &yes}, []string{"d1", "d2", "d3", "d4", "d5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sorted(find(t, idx, "s", "party", tt.filter))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestStemming(t *testing.T) {
	idx := openIndex(t)
	put(t, idx,
		doc("runs", "s", "she runs every day"),
		doc("run", "s", "a long run by the river"),
		doc("running", "s", "running shoes for the marathon"),
		doc("walk", "s", "a walk in the park"),
		doc("news", "s", "the evening news"),
		doc("new", "s", "a new bicycle"),
	)
	tests := []struct {
		query string
		want  []string
		first string
	}{
		{"running", []string{"run", "running", "runs"}, "running"},
		{"runs", []string{"run", "running", "runs"}, "runs"},
		{"RUN", []string{"run", "running", "runs"}, "run"},
		{"walking", []string{"walk"}, "walk"},
		{"news", []string{"new", "news"}, "news"},
		{"the", []string{}, ""}, // stop words alone find nothing
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := find(t, idx, "s", tt.query, domain.MemoryFilter{})
			if !slices.Equal(sorted(got), tt.want) {
				t.Errorf("got %v, want %v", sorted(got), tt.want)
			}
			if tt.first != "" && got[0] != tt.first {
				t.Errorf("got first %q, want %q (exact form ranks first): %v", got[0], tt.first, got)
			}
		})
	}
}

func TestPhraseRanksFirst(t *testing.T) {
	idx := openIndex(t)
	put(t, idx,
		doc("apart", "s", "york was new to him, and the old city too"),
		doc("phrase", "s", "we flew to new york in may and the old city too"),
	)
	got := find(t, idx, "s", "new york", domain.MemoryFilter{})
	if want := []string{"phrase", "apart"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestNastyStrings(t *testing.T) {
	nasty := []struct {
		name string
		text string
		// word is a plain word of text that must find it; "" when text has none.
		word string
	}{
		{"double quote", `"`, ""},
		{"unbalanced quotes", `say "hello and 'bye`, "hello"},
		{"sql", `"; DROP TABLE memories; --`, "drop"},
		{"nquad", `<_:x> <p> "v" .`, ""},
		{"nquad words", `<_:alice> <knows> "bob"^^<xs:string> .`, "knows"},
		{"query string syntax", `+foo -bar title:baz ~ * ?`, "foo"},
		{"more syntax", `foo^2 bar~3 "a phrase" (x OR y) AND NOT z /re.*gex/ \ field:>5`, "phrase"},
		{"lone operators", `+ - : ^ ~ * ? \ / ( ) { } [ ] ! && ||`, ""},
		{"blank node", `_:b0`, ""},
		{"emoji", "🦄🔥 unicorn party 🎉👨‍👩‍👧", "unicorn"},
		{"cjk", "東京で会議がありました", "東京"},
		{"rtl arabic", "مرحبا بالعالم", "مرحبا"},
		{"rtl hebrew", "שלום עולם reunion", "reunion"},
		{"control chars", "a\x00b\x01c\td\x7f\u200bgopher\u202e", "gopher"},
		{"soft hyphen", "inter\u00adnational\u200e", "international"},
		{"bom and joiners", "\ufeffzero\u200dwidth\u200cjoiner", "zerowidthjoiner"},
		{"invalid utf8", "\xff\xfe\xfd broken bytes", "broken"},
		{"long word", strings.Repeat("x", 5000) + " tail", "tail"},
		{"json", `{"scopeId":"other","content":"escape"}`, "escape"},
	}
	idx := openIndex(t)
	for k, n := range nasty {
		// Each document also carries a marker word unique to it.
		put(t, idx, doc(fmt.Sprintf("d%d", k), "s", n.text+" marker"+fmt.Sprint(k)))
	}
	for k, n := range nasty {
		t.Run(n.name, func(t *testing.T) {
			id := fmt.Sprintf("d%d", k)
			// Round trip: the document is findable by its marker word.
			if got := find(t, idx, "s", "marker"+fmt.Sprint(k), domain.MemoryFilter{}); !slices.Equal(got, []string{id}) {
				t.Errorf("by marker: got %v, want [%s]", got, id)
			}
			if n.word != "" && !slices.Contains(find(t, idx, "s", n.word, domain.MemoryFilter{}), id) {
				t.Errorf("by word %q: %s not found", n.word, id)
			}
			// As query text: no error, and never a hit outside the scope.
			hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "s", Text: n.text})
			if err != nil {
				t.Fatalf("Search(%q): %v", n.text, err)
			}
			for _, h := range hits {
				if !strings.HasPrefix(h.ID, "d") {
					t.Errorf("unexpected hit %q", h.ID)
				}
			}
			if n.word != "" && !slices.Contains(ids(hits), id) {
				t.Errorf("its own text does not find %s: %v", id, ids(hits))
			}
		})
	}
	for _, empty := range []string{"", " ", "\t\n\r", "\u00a0\u2003\u3000"} {
		t.Run(fmt.Sprintf("empty %q", empty), func(t *testing.T) {
			_, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "s", Text: empty})
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.EINVALID || de.Field != "query" {
				t.Errorf("got %v, want INVALID_ARGUMENT on query", err)
			}
		})
	}
}

func TestConcurrentPut(t *testing.T) {
	const goroutines, perGoroutine = 16, 200
	idx := openIndex(t)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range perGoroutine {
				id := fmt.Sprintf("g%dd%d", g, k)
				if err := idx.Put(context.Background(), []domain.IndexDoc{doc(id, "s", "shared words "+id)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Put: %v", err)
	}
	if got, want := count(t, idx), uint64(goroutines*perGoroutine); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
	if got, want := len(find(t, idx, "s", "shared", domain.MemoryFilter{})), goroutines*perGoroutine; got != want {
		t.Errorf("hits: got %d, want %d", got, want)
	}
	for g := range goroutines {
		id := fmt.Sprintf("g%dd%d", g, g*7)
		if got := find(t, idx, "s", id, domain.MemoryFilter{}); !slices.Equal(got, []string{id}) {
			t.Errorf("got %v, want [%s]", got, id)
		}
	}
}

func TestConcurrentMixed(t *testing.T) {
	idx := openIndex(t, WithMaxBatch(50))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for k := range 50 {
				id := fmt.Sprintf("g%dd%d", g, k)
				if err := idx.Put(ctx, []domain.IndexDoc{doc(id, "s", "mixed "+id)}); err != nil {
					t.Errorf("Put: %v", err)
					return
				}
				if k%2 == 1 {
					if err := idx.Remove(ctx, []string{id}); err != nil {
						t.Errorf("Remove: %v", err)
					}
				}
				if _, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "mixed"}); err != nil {
					t.Errorf("Search: %v", err)
				}
				if err := idx.SetWatermark(uint64(g*1000 + k)); err != nil {
					t.Errorf("SetWatermark: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if got, want := count(t, idx), uint64(8*25); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
}

func TestPutInManyBatches(t *testing.T) {
	idx := openIndex(t, WithMaxBatch(7))
	var docs []domain.IndexDoc
	for k := range 100 {
		docs = append(docs, doc(fmt.Sprint(k), "s", "bulk"))
	}
	put(t, idx, docs...)
	if got, want := count(t, idx), uint64(100); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
}

func TestPutValidates(t *testing.T) {
	idx := openIndex(t)
	tests := []struct {
		name  string
		doc   domain.IndexDoc
		field string
	}{
		{"no id", doc("", "s", "x"), "id"},
		{"no scope", doc("x", "", "x"), "scopeId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := idx.Put(context.Background(), []domain.IndexDoc{tt.doc})
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.EINVALID || de.Field != tt.field {
				t.Errorf("got %v, want INVALID_ARGUMENT on %s", err, tt.field)
			}
		})
	}
}

func TestReplace(t *testing.T) {
	idx := openIndex(t)
	put(t, idx, doc("x", "s", "apple banana"), doc("y", "s", "apple pie"))
	replaced := doc("x", "s", "cherry")
	replaced.Tier = domain.TierArchive
	put(t, idx, replaced)
	tests := []struct {
		query  string
		filter domain.MemoryFilter
		want   []string
	}{
		{"apple", domain.MemoryFilter{}, []string{"y"}},
		{"banana", domain.MemoryFilter{}, []string{}},
		{"cherry", domain.MemoryFilter{}, []string{"x"}},
		{"cherry", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierActiveContext}}, []string{}},
		{"cherry", domain.MemoryFilter{Tiers: []domain.Tier{domain.TierArchive}}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			if got := find(t, idx, "s", tt.query, tt.filter); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got, want := count(t, idx), uint64(2); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
}

func TestRemove(t *testing.T) {
	idx := openIndex(t)
	put(t, idx, doc("a", "s", "tea"), doc("b", "s", "tea"), doc("c", "s", "tea"))
	if err := idx.Remove(context.Background(), []string{"a", "c", "unknown"}); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if got, want := find(t, idx, "s", "tea", domain.MemoryFilter{}), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if err := idx.Remove(context.Background(), nil); err != nil {
		t.Errorf("Remove(nil): %v", err)
	}
}

func TestRemoveScope(t *testing.T) {
	idx := openIndex(t, WithMaxBatch(100))
	var docs []domain.IndexDoc
	for k := range 450 {
		docs = append(docs, doc(fmt.Sprintf("a%d", k), "scope-a", "ocean wave"))
	}
	for k := range 30 {
		docs = append(docs, doc(fmt.Sprintf("b%d", k), "scope-b", "ocean wave"))
	}
	put(t, idx, docs...)
	if err := idx.RemoveScope(context.Background(), "scope-a"); err != nil {
		t.Fatalf("RemoveScope: %v", err)
	}
	if got, want := count(t, idx), uint64(30); got != want {
		t.Errorf("Count: got %d, want %d", got, want)
	}
	if got := find(t, idx, "scope-a", "ocean", domain.MemoryFilter{}); len(got) != 0 {
		t.Errorf("scope-a: got %d hits, want 0", len(got))
	}
	if got, want := len(find(t, idx, "scope-b", "ocean", domain.MemoryFilter{})), 30; got != want {
		t.Errorf("scope-b: got %d hits, want %d", got, want)
	}
	if err := idx.RemoveScope(context.Background(), "unknown"); err != nil {
		t.Errorf("RemoveScope(unknown): %v", err)
	}
	if got, want := domain.ErrorCode(idx.RemoveScope(context.Background(), "")), domain.EINVALID; got != want {
		t.Errorf("RemoveScope(\"\"): got %q, want %q", got, want)
	}
}

func TestLimit(t *testing.T) {
	idx := openIndex(t)
	var docs []domain.IndexDoc
	for k := range 25 {
		docs = append(docs, doc(fmt.Sprintf("%02d", k), "s", "lamp"))
	}
	put(t, idx, docs...)
	tests := []struct {
		limit, want int
	}{{0, DefaultLimit}, {-1, DefaultLimit}, {3, 3}, {25, 25}, {MaxLimit + 1, 25}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "s", Text: "lamp", Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(hits); got != tt.want {
				t.Errorf("got %d hits, want %d", got, tt.want)
			}
			for k := 1; k < len(hits); k++ {
				if hits[k].Score > hits[k-1].Score {
					t.Errorf("hits not best first: %v", hits)
				}
			}
		})
	}
}

func TestWatermarkPersists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "index")
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := idx.Watermark(); err != nil || got != 0 {
		t.Errorf("new index: got %d, %v, want 0", got, err)
	}
	put(t, idx, doc("a", "s", "violin"))
	for _, seq := range []uint64{7, 42, 42} {
		if err := idx.SetWatermark(seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}

	idx, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if got, err := idx.Watermark(); err != nil || got != 42 {
		t.Errorf("reopened: got %d, %v, want 42", got, err)
	}
	if got, want := find(t, idx, "s", "violin", domain.MemoryFilter{}), []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("reopened: got %v, want %v", got, want)
	}
}

func TestReset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(t, idx, doc("a", "s", "harbour"), doc("b", "s", "harbour"))
	if err := idx.SetWatermark(99); err != nil {
		t.Fatal(err)
	}
	if err := idx.Reset(); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	if got := count(t, idx); got != 0 {
		t.Errorf("Count: got %d, want 0", got)
	}
	if got, err := idx.Watermark(); err != nil || got != 0 {
		t.Errorf("Watermark: got %d, %v, want 0", got, err)
	}
	if got := find(t, idx, "s", "harbour", domain.MemoryFilter{}); len(got) != 0 {
		t.Errorf("got %v, want none", got)
	}
	put(t, idx, doc("c", "s", "harbour"))
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if got, want := find(t, idx, "s", "harbour", domain.MemoryFilter{}), []string{"c"}; !slices.Equal(got, want) {
		t.Errorf("after reopen: got %v, want %v", got, want)
	}
	if got, err := idx.Watermark(); err != nil || got != 0 {
		t.Errorf("after reopen: Watermark got %d, %v, want 0", got, err)
	}
}

func TestSchemaChangeRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(t, idx, doc("a", "s", "kettle"))
	if err := idx.SetWatermark(5); err != nil {
		t.Fatal(err)
	}
	if err := idx.idx.SetInternal(keySchema, []byte("0")); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	if got := count(t, idx); got != 0 {
		t.Errorf("Count: got %d, want 0", got)
	}
	if got, _ := idx.Watermark(); got != 0 {
		t.Errorf("Watermark: got %d, want 0", got)
	}
}

func TestOpenRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if idx, err := Open(dir); err == nil {
		_ = idx.Close()
		t.Fatal("Open of a foreign folder: got nil error")
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("foreign file: %v", err)
	}
}

func TestClosed(t *testing.T) {
	idx := openIndex(t)
	put(t, idx, doc("a", "s", "lantern"))
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	calls := []struct {
		name string
		call func() error
	}{
		{"Put", func() error { return idx.Put(ctx, []domain.IndexDoc{doc("b", "s", "x")}) }},
		{"Put none", func() error { return idx.Put(ctx, nil) }},
		{"Remove", func() error { return idx.Remove(ctx, []string{"a"}) }},
		{"RemoveScope", func() error { return idx.RemoveScope(ctx, "s") }},
		{"Search", func() error {
			_, err := idx.Search(ctx, domain.IndexQuery{ScopeID: "s", Text: "lantern"})
			return err
		}},
		{"Count", func() error { _, err := idx.Count(); return err }},
		{"Watermark", func() error { _, err := idx.Watermark(); return err }},
		{"SetWatermark", func() error { return idx.SetWatermark(3) }},
		{"Reset", idx.Reset},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if got, want := domain.ErrorCode(c.call()), domain.EUNAVAILABLE; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	if err := idx.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseWhilePutting(t *testing.T) {
	idx := openIndex(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				err := idx.Put(context.Background(), []domain.IndexDoc{doc(fmt.Sprintf("g%dd%d", g, k), "s", "x")})
				if err != nil {
					if got, want := domain.ErrorCode(err), domain.EUNAVAILABLE; got != want {
						t.Errorf("got %q (%v), want %q", got, err, want)
					}
					return
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := idx.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	wg.Wait()
}

func TestContextCanceled(t *testing.T) {
	idx := openIndex(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := idx.Put(ctx, []domain.IndexDoc{doc("a", "s", "x")}); !errors.Is(err, context.Canceled) {
		t.Errorf("Put: got %v, want context.Canceled", err)
	}
	if err := idx.Remove(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Remove: got %v, want context.Canceled", err)
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"tab\tnew\nline\r", "tab\tnew\nline\r"},
		{"a\x00b\x1fc\x7fd", "a b c d"},
		{"\u0085next", " next"},
		{"zero\u200bwidth", "zero width"},
		{"soft\u00adhyphen\u200e\u202e\ufeff", "softhyphen"},
		{"\xff\xfebad\xc3", "  bad "},
		{"émoji 🦄 東京", "émoji 🦄 東京"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := clean(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// copyDir copies the files of src into dst as they are on disk at this moment: what a process
// killed now would leave behind.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNewIndexSurvivesAKill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	idx := func() *Index {
		idx, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return idx
	}()
	defer idx.Close()
	put(t, idx, doc("a", "s", "lantern"))
	// The folder as a SIGKILL right after the first write would leave it.
	crashed := filepath.Join(t.TempDir(), "crashed")
	copyDir(t, dir, crashed)
	again, err := Open(crashed)
	if err != nil {
		t.Fatalf("Open after a kill: %v", err)
	}
	defer again.Close()
	if v, err := again.idx.GetInternal(keySchema); err != nil || string(v) != schemaVersion {
		t.Errorf("schema marker after a kill: %q, %v; want %q", v, err, schemaVersion)
	}
	put(t, again, doc("b", "s", "lantern"))
	if got := find(t, again, "s", "lantern", domain.MemoryFilter{}); !slices.Contains(got, "b") {
		t.Errorf("after a kill: got %v, want b among the hits", got)
	}
}

func TestUnreadableIndexRebuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	idx, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(t, idx, doc("a", "s", "compass"))
	if err := idx.SetWatermark(12); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	// Torn files, as a crash in the middle of a write leaves them.
	if err := os.WriteFile(filepath.Join(dir, "store", "root.bolt"), []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	idx, err = Open(dir)
	if err != nil {
		t.Fatalf("Open of an unreadable index: %v", err)
	}
	defer idx.Close()
	if got := count(t, idx); got != 0 {
		t.Errorf("Count: got %d, want 0 (rebuilt empty)", got)
	}
	if got, _ := idx.Watermark(); got != 0 {
		t.Errorf("Watermark: got %d, want 0 so the log is replayed", got)
	}
	put(t, idx, doc("b", "s", "compass"))
	if got, want := find(t, idx, "s", "compass", domain.MemoryFilter{}), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Hits of equal score come in id order, whatever order the index holds them in.
func TestTiesInIDOrder(t *testing.T) {
	idx := openIndex(t)
	for _, k := range rand.New(rand.NewSource(3)).Perm(40) {
		put(t, idx, doc(fmt.Sprintf("%02d", k), "s", "lamp"))
	}
	for _, limit := range []int{1, 5, 12, 40} {
		hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "s", Text: "lamp", Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for k := range limit {
			want = append(want, fmt.Sprintf("%02d", k))
		}
		if got := ids(hits); !slices.Equal(got, want) {
			t.Fatalf("limit %d: %v, want %v", limit, got, want)
		}
	}
}

// A scope that holds most of the index is filtered; a small one is intersected. Either way the
// hits are the scope's alone and the scope adds nothing to a score: the same text scores the
// same in a big scope and in a small one.
func TestScopeFilteredOrIntersected(t *testing.T) {
	idx := openIndex(t)
	texts := []string{"the red lamp by the window", "a lamp", "red shoes", "window cleaning on monday",
		"lamp oil and a red lamp"}
	var docs []domain.IndexDoc
	for k, s := range texts {
		docs = append(docs, doc(fmt.Sprintf("small-%d", k), "small", s), doc(fmt.Sprintf("big-%d", k), "big", s))
	}
	for k := 0; k < 40; k++ {
		docs = append(docs, doc(fmt.Sprintf("big-x%02d", k), "big", fmt.Sprintf("filler %d about nothing red", k)))
	}
	put(t, idx, docs...)
	idx.mu.RLock()
	r, err := openReader(idx.idx)
	if err != nil {
		t.Fatal(err)
	}
	bigMost, smallMost := scopeHoldsMost(r, "big"), scopeHoldsMost(r, "small")
	r.Close()
	idx.mu.RUnlock()
	if !bigMost || smallMost {
		t.Fatalf("scopeHoldsMost: big %v, small %v; want true, false", bigMost, smallMost)
	}
	for _, text := range []string{"red lamp", "window", "lamp", "red"} {
		score := map[string]map[string]float64{}
		for _, scope := range []string{"small", "big"} {
			hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: scope, Text: text, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Fatalf("%q in %s: no hits", text, scope)
			}
			score[scope] = map[string]float64{}
			for _, h := range hits {
				rest, ok := strings.CutPrefix(h.ID, scope+"-")
				if !ok {
					t.Fatalf("%q in %s: hit %s of another scope", text, scope, h.ID)
				}
				score[scope][rest] = h.Score
			}
		}
		for k, s := range score["small"] {
			if b, ok := score["big"][k]; !ok || math.Abs(b-s) > 1e-9 {
				t.Errorf("%q: text %s scores %v in the small scope and %v (found %v) in the big one", text, k, s, b, ok)
			}
		}
	}
}

// WordsOnly ranks by the stemmed words alone: the exact word form no longer lifts a hit.
func TestWordsOnly(t *testing.T) {
	idx := openIndex(t)
	put(t, idx, doc("a", "s", "new shoes"), doc("b", "s", "news shoes"))
	search := func(wordsOnly bool) []domain.IndexHit {
		hits, err := idx.Search(context.Background(), domain.IndexQuery{ScopeID: "s", Text: "news", WordsOnly: wordsOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 {
			t.Fatalf("wordsOnly %v: %v, want both documents", wordsOnly, hits)
		}
		return hits
	}
	if full := search(false); full[0].ID != "b" || full[0].Score <= full[1].Score {
		t.Fatalf("full query: %v, want b (the exact form) strictly first", full)
	}
	if words := search(true); words[0].Score != words[1].Score {
		t.Fatalf("words only: %v, want equal scores", words)
	}
}

// A words-only query of more than rarestWords distinct words searches the rarestWords of them
// found in the fewest documents (ties by word); a shorter one, or a full query, searches every
// word.
func TestWordsOnlySearchesTheRarestWords(t *testing.T) {
	idx := openIndex(t)
	docs := []domain.IndexDoc{doc("zebra", "s", "zebra"), doc("quokka", "s", "quokka"), doc("narwhal", "s", "narwhal"),
		doc("axolotl", "s", "axolotl"), doc("okapi", "s", "okapi")}
	for k := range 20 {
		docs = append(docs, doc(fmt.Sprintf("filler-%02d", k), "s", "sunny morning walk with coffee"))
	}
	put(t, idx, docs...)
	ids := func(q domain.IndexQuery) []string {
		q.ScopeID, q.Limit = "s", 50
		hits, err := idx.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	long := "Sunny morning walk, coffee, and a zebra, a quokka, a narwhal, an axolotl and an okapi"
	if got, want := ids(domain.IndexQuery{Text: long, WordsOnly: true}), []string{"axolotl", "narwhal", "okapi", "quokka"}; !slices.Equal(got, want) {
		t.Fatalf("words only, many words: %v, want the documents of the four rarest words %v", got, want)
	}
	if got := ids(domain.IndexQuery{Text: long}); len(got) != 25 {
		t.Fatalf("full query: %d hits %v, want all 25 documents", len(got), got)
	}
	if got := ids(domain.IndexQuery{Text: "sunny walk zebra", WordsOnly: true}); len(got) != 21 {
		t.Fatalf("words only, three words: %d hits %v, want the 20 fillers and the zebra", len(got), got)
	}
}
