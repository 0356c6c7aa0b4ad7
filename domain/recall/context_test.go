package recall

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The ranking in context, checked against the formula in context.go with a small world held in
// memory: the index answers with fixed bm25 scores, the store knows episodes, neighbours, persons
// and vectors.

type world struct {
	domain.Store // the methods the ranking does not use are not called
	mems         map[string]*domain.Memory
	bm25         map[string]float64 // what the index answers for every query
	lex          map[string]float64 // what it answers for the expansions of a query, if any
	anchors      map[string]float64 // what it answers for one other text (an anchor), if any
	anchorText   string
	ctx          map[string]*domain.MemoryContext
	episodes     map[string][]string
	persons      []string
	vectors      []domain.VectorHit
	assocs       map[string][]*domain.Association // by the memory they are read from
	limits       []int                            // the Limit of every index query
	asked        [][]string                       // the ids of every MemoryContexts read
}

func (w *world) Associations(_ context.Context, id string, _ []domain.AssociationType, minStrength float64) ([]*domain.Association, error) {
	var out []*domain.Association
	for _, a := range w.assocs[id] {
		if a.Strength >= minStrength {
			out = append(out, a)
		}
	}
	return out, nil
}

func (w *world) associate(a, b string, strength float64) {
	if w.assocs == nil {
		w.assocs = map[string][]*domain.Association{}
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		w.assocs[p[0]] = append(w.assocs[p[0]], &domain.Association{SourceID: p[0], TargetID: p[1], ScopeID: scope,
			Type: domain.AssocThematic, Strength: strength})
	}
}

func (w *world) Memories(_ context.Context, ids []string) ([]*domain.Memory, error) {
	var out []*domain.Memory
	for _, id := range ids {
		if m, ok := w.mems[id]; ok {
			out = append(out, m.Clone())
		}
	}
	return out, nil
}

func (w *world) MemoryContexts(_ context.Context, scope string, ids []string) (map[string]*domain.MemoryContext, error) {
	w.asked = append(w.asked, append([]string(nil), ids...))
	out := map[string]*domain.MemoryContext{}
	for _, id := range ids {
		if mc, ok := w.ctx[id]; ok && w.mems[id].ScopeID == scope {
			out[id] = mc
		}
	}
	return out, nil
}

func (w *world) ScopePersons(context.Context, string) ([]string, error) { return w.persons, nil }

func (w *world) EpisodeDefinitions(context.Context, string) ([]*domain.EpisodeDefinition, error) {
	return nil, nil
}
func (w *world) Episode(context.Context, string) (*domain.Episode, error) { return nil, nil }
func (w *world) LedgerEvents(context.Context, string) ([]*domain.LedgerEvent, error) {
	return nil, nil
}
func (w *world) Episodes(_ context.Context, _ string, f domain.EpisodeFilter) ([]*domain.Episode, error) {
	var out []*domain.Episode
	for _, id := range f.IDs {
		if items, ok := w.episodes[id]; ok {
			out = append(out, &domain.Episode{ID: id, Items: items})
		}
	}
	return out, nil
}

func (w *world) SimilarMemories(_ context.Context, _ string, _ []float32, k int) ([]domain.VectorHit, error) {
	return w.vectors[:min(k, len(w.vectors))], nil
}
func (w *world) HasEmbeddings(context.Context, string) (bool, error) { return len(w.vectors) > 0, nil }
func (w *world) MissingEmbeddings(context.Context, string, int) ([]*domain.Memory, error) {
	return nil, nil
}

type worldIndex struct {
	domain.Index
	w *world
}

func (x worldIndex) Search(_ context.Context, q domain.IndexQuery) ([]domain.IndexHit, error) {
	x.w.limits = append(x.w.limits, q.Limit)
	var hits []domain.IndexHit
	scores := x.w.bm25
	if x.w.anchorText != "" && q.Text == x.w.anchorText {
		scores = x.w.anchors
	}
	for id, s := range scores {
		m := x.w.mems[id]
		if m.ScopeID != q.ScopeID || (q.Filter.From != nil && m.OccurredAt.Before(*q.Filter.From)) ||
			(q.Filter.To != nil && !m.OccurredAt.Before(*q.Filter.To)) {
			continue
		}
		hits = append(hits, domain.IndexHit{ID: id, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	hits = hits[:min(q.Limit, len(hits))]
	if len(q.Expansions) > 0 {
		at := map[string]int{}
		for i, h := range hits {
			at[h.ID] = i
		}
		for _, id := range slices.Sorted(maps.Keys(x.w.lex)) {
			if i, ok := at[id]; ok {
				hits[i].Lexical = x.w.lex[id]
			} else if x.w.mems[id].ScopeID == q.ScopeID {
				hits = append(hits, domain.IndexHit{ID: id, Lexical: x.w.lex[id]})
			}
		}
	}
	return hits, nil
}

type fixedEmbedder struct{}

func (fixedEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return [][]float32{{1, 0}}, nil
}
func (fixedEmbedder) Model() string { return "fixed" }

const scope = "9b0c8f0e-3a51-4f5e-9d8a-7f1e2c4b6a90"

var day0 = time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)

func newWorld() *world {
	w := &world{mems: map[string]*domain.Memory{}, bm25: map[string]float64{}, ctx: map[string]*domain.MemoryContext{},
		episodes: map[string][]string{}}
	return w
}

func (w *world) add(id, speaker string, bm25, salience float64, at time.Time) {
	w.mems[id] = &domain.Memory{ID: id, ScopeID: scope, Content: id, State: domain.StateActive, Salience: salience,
		OccurredAt: at, Metadata: map[string]any{domain.MetaSpeaker: speaker}}
	if bm25 > 0 {
		w.bm25[id] = bm25
	}
	w.ctx[id] = &domain.MemoryContext{}
}

func (w *world) chain(strength float64, ids ...string) {
	for i := 1; i < len(ids); i++ {
		a, b := w.ctx[ids[i-1]], w.ctx[ids[i]]
		a.Temporal = append(a.Temporal, domain.Neighbour{ID: ids[i], Type: domain.AssocTemporal, Strength: strength})
		b.Temporal = append(b.Temporal, domain.Neighbour{ID: ids[i-1], Type: domain.AssocTemporal, Strength: strength})
	}
}

func (w *world) episode(id string, items ...string) {
	w.episodes[id] = items
	for _, it := range items {
		w.ctx[it].Episodes = append(w.ctx[it].Episodes, id)
	}
}

func (w *world) search(t *testing.T, text string, emb domain.Embedder) map[string]*RankedMemory {
	t.Helper()
	return w.searchWith(t, &Recall{Store: w, Index: worldIndex{w: w}, Embedder: emb}, Query{ScopeID: scope, Text: text, MaxResults: 50})
}

func (w *world) searchWith(t *testing.T, r *Recall, q Query) map[string]*RankedMemory {
	t.Helper()
	res, err := r.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*RankedMemory{}
	for _, rm := range res {
		out[rm.Memory.ID] = rm
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNeutralContextIsThePlainFormula(t *testing.T) {
	w := newWorld()
	w.add("a", "", 5, 0.5, day0)
	w.add("b", "", 3, 0.25, day0)
	w.add("z", "", 1, 0.25, day0)
	got := w.search(t, "anything", nil)
	// t = (bm25 − lowest)/(best − lowest); r = t; text = r / best r; score = 0.7·text + 0.3·salience.
	if !near(got["a"].Score, 0.7*1+0.3*0.5) || !near(got["b"].Score, 0.7*0.5+0.3*0.25) || !near(got["z"].Score, 0.3*0.25) ||
		got["z"].Reason != ReasonText {
		t.Fatalf("scores = %v, %v, %v", got["a"].Score, got["b"].Score, got["z"].Score)
	}
	// A constant added to every score (Bleve's weight of the scope clause) changes nothing.
	for id := range w.bm25 {
		w.bm25[id] = 3*w.bm25[id] + 7
	}
	again := w.search(t, "anything", nil)
	for id, rm := range got {
		if !near(again[id].Score, rm.Score) {
			t.Fatalf("%s: %v after shifting and scaling bm25, %v before", id, again[id].Score, rm.Score)
		}
	}
}

func TestNeighbourAndEpisode(t *testing.T) {
	w := newWorld()
	w.add("q", "", 5, 0, day0)   // the question a turn answers
	w.add("ans", "", 2, 0, day0) // the answer, weak on words
	w.add("far", "", 3, 0, day0) // a better text hit elsewhere
	w.add("ctx", "", 0, 0, day0) // no word of the query: only its episode speaks for it
	w.add("other", "", 1.5, 0, day0)
	w.add("z", "", 1, 0, day0) // the weakest hit: t = 0
	w.chain(1, "q", "ans")
	w.episode("e1", "q", "ans", "ctx")
	w.episode("e2", "far", "other")
	got := w.search(t, "question", nil)
	// t: q 1, ans .25, far .5, other .125. Episode energy: e1 = 1 + .0625, e2 = .25 + .015625.
	e2 := (0.25 + 0.015625) / (1 + 0.0625)
	r := map[string]float64{
		"q":     1 + 0.5*0.25 + 0.4,
		"ans":   0.25 + 0.5*1 + 0.4,
		"ctx":   0.4,
		"far":   0.5 + 0.4*e2,
		"other": 0.125 + 0.4*e2,
	}
	top := r["q"]
	for id, want := range r {
		if !near(got[id].TextScore, want/top) {
			t.Fatalf("%s: text %v, want %v", id, got[id].TextScore, want/top)
		}
	}
	if got["ans"].Score <= got["far"].Score {
		t.Fatal("the answer next to the question should rank above a better text hit elsewhere")
	}
	if got["ctx"].Reason != ReasonContext {
		t.Fatalf("a memory found through its episode has reason %s", got["ctx"].Reason)
	}
}

func TestPersonNamedInTheQuery(t *testing.T) {
	w := newWorld()
	w.persons = []string{"Caroline", "Melanie"}
	w.add("c", "Caroline", 1, 0, day0)
	w.add("m", "Melanie", 1, 0, day0)
	got := w.search(t, "What did Caroline's friend say?", nil)
	// The person's factor is 1.6.
	if !near(got["c"].TextScore, 1) || !near(got["m"].TextScore, 1/1.6) {
		t.Fatalf("text scores %v %v", got["c"].TextScore, got["m"].TextScore)
	}
	// A query naming every person of the scope favours none.
	got = w.search(t, "What do Caroline and Melanie both like?", nil)
	if !near(got["c"].TextScore, got["m"].TextScore) {
		t.Fatalf("text scores %v %v", got["c"].TextScore, got["m"].TextScore)
	}
}

func TestTimeCue(t *testing.T) {
	w := newWorld()
	w.add("may", "", 2, 0, day0)
	w.add("june", "", 3, 0, day0.AddDate(0, 1, 0))
	w.add("nearby", "", 2, 0, day0.AddDate(0, 0, 4)) // 3.5 days after the window's end
	w.add("later", "", 2, 0, day0.AddDate(0, 0, 9))  // beyond the week of slack
	w.add("z", "", 1, 0, day0.AddDate(-1, 0, 0))     // the weakest hit: t = 0
	got := w.search(t, "What happened on 8 May, 2023?", nil)
	// may: r = .5 · (1+1); june: 1 · 1; nearby: .5 · (1 + near), near = 1 − 85 h / 168 h.
	if !near(got["may"].TextScore, 1) || !near(got["june"].TextScore, 1) {
		t.Fatalf("may %v june %v", got["may"].TextScore, got["june"].TextScore)
	}
	if want := 0.5 * (1 + (1 - 85.0/168)); !near(got["nearby"].TextScore, want) {
		t.Fatalf("nearby %v, want %v", got["nearby"].TextScore, want)
	}
	if !near(got["later"].TextScore, 0.5) {
		t.Fatalf("later %v, want 0.5 (no boost)", got["later"].TextScore)
	}
}

func TestHybridFusion(t *testing.T) {
	w := newWorld()
	w.add("text", "", 3, 0.25, day0)
	w.add("both", "", 2, 0.25, day0)
	w.add("vec", "", 0, 0.25, day0)
	w.vectors = []domain.VectorHit{{MemoryID: "vec", Similarity: 0.9}, {MemoryID: "both", Similarity: 0.8}}
	got := w.search(t, "query", fixedEmbedder{})
	// Text ranks: text 1, both 2. Vector ranks: vec 1, both 2.
	// h = 1/(60 + rank_text) + 1/(60 + rank_vector).
	h := map[string]float64{"text": 1.0 / 61, "both": 1.0/62 + 1.0/62, "vec": 1.0 / 61}
	lo, hi := h["text"], h["both"]
	for id, v := range h {
		if want := (v - lo) / (hi - lo); !near(got[id].TextScore, want) {
			t.Fatalf("%s: %v, want %v", id, got[id].TextScore, want)
		}
	}
	if got["vec"].Reason != ReasonVector || got["both"].Reason != ReasonText {
		t.Fatalf("reasons %s %s", got["vec"].Reason, got["both"].Reason)
	}
	// Without an embedder the search stays pure text.
	if got := w.search(t, "query", nil); got["vec"] != nil {
		t.Fatal("a vector hit without an embedder")
	}
}

func TestFiltersAndScopes(t *testing.T) {
	w := newWorld()
	w.add("live", "", 1, 0, day0)
	w.add("gone", "", 2, 0, day0)
	w.mems["gone"].State = domain.StateArchived
	w.add("elsewhere", "", 0, 0, day0)
	w.mems["elsewhere"].ScopeID = "other"
	w.chain(1, "live", "elsewhere")
	got := w.search(t, "x", nil)
	if len(got) != 1 || got["live"] == nil {
		t.Fatalf("results %v", fmt.Sprint(got))
	}
}

// TestSpreadingActivation pins the documented rule: the neighbours of the text hits over
// associations of strength ≥ 0.5 join with score = parent score × strength × 0.5.
func TestSpreadingActivation(t *testing.T) {
	w := newWorld()
	w.add("hit", "", 2, 0.5, day0)
	for _, id := range []string{"strong", "edge", "weak"} {
		w.add(id, "", 0, 0.9, day0)
	}
	w.associate("hit", "strong", 0.8)
	w.associate("hit", "edge", 0.5)
	w.associate("hit", "weak", 0.49)
	r := &Recall{Store: w, Index: worldIndex{w: w}}
	got := w.searchWith(t, r, Query{ScopeID: scope, Text: "x", MaxResults: 10, IncludeAssociations: true})
	// The only text hit: text 1 (one hit is its own best), score 0.7·1 + 0.3·0.5 = 0.85.
	if h := got["hit"]; h == nil || h.Reason != ReasonText || !near(h.TextScore, 1) || !near(h.Score, 0.85) {
		t.Fatalf("text hit = %+v", h)
	}
	for id, want := range map[string]float64{"strong": 0.85 * 0.8 * 0.5, "edge": 0.85 * 0.5 * 0.5} {
		a := got[id]
		if a == nil || a.Reason != ReasonAssociation || !near(a.Score, want) || !near(a.Activation, want) ||
			a.Via == nil || a.Via.SourceID != "hit" || a.TextScore != 0 {
			t.Fatalf("%s = %+v, want an association hit scoring %v", id, a, want)
		}
	}
	if got["weak"] != nil || len(got) != 3 {
		t.Fatalf("results %v: an association weaker than 0.5 was followed", fmt.Sprint(got))
	}
	// Without includeAssociations only the text hit.
	if got := w.searchWith(t, r, Query{ScopeID: scope, Text: "x", MaxResults: 10}); len(got) != 1 || got["hit"] == nil {
		t.Fatalf("without associations: %v", fmt.Sprint(got))
	}
}

// contextless is a store that records no contexts (no domain.RecallContextReader).
type contextless struct {
	domain.Store
	w *world
}

func (c contextless) Memories(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	return c.w.Memories(ctx, ids)
}

// TestStoreWithoutContextsRanksByThePlainFormula: min–max text relevance and salience, as with
// neutral contexts.
func TestStoreWithoutContextsRanksByThePlainFormula(t *testing.T) {
	w := newWorld()
	w.add("a", "", 5, 0.5, day0)
	w.add("b", "", 3, 0.25, day0)
	w.add("z", "", 1, 0.25, day0)
	w.chain(1, "a", "z") // known to the world, not to a store without contexts
	got := w.searchWith(t, &Recall{Store: contextless{w: w}, Index: worldIndex{w: w}}, Query{ScopeID: scope, Text: "q", MaxResults: 10})
	for id, want := range map[string]float64{"a": 0.7*1 + 0.3*0.5, "b": 0.7*0.5 + 0.3*0.25, "z": 0.3 * 0.25} {
		if got[id] == nil || !near(got[id].Score, want) {
			t.Fatalf("%s = %+v, want score %v", id, got[id], want)
		}
	}
}

// TestCandidateBounds pins the documented bounds of search in context: the text query asks for
// the best 1,000 hits (3 × maxResults when more), the best 100 (at least 2 × maxResults) seed
// the candidates, and the members of the 3 best-matching episodes join them.
func TestCandidateBounds(t *testing.T) {
	w := newWorld()
	for i := 0; i < 300; i++ {
		w.add(fmt.Sprintf("h%03d", i), "", float64(1000-i), 0, day0)
	}
	// Four episodes of two hits each and a member matching no word; the weakest episode's
	// member stays out.
	for e := 0; e < 4; e++ {
		w.add(fmt.Sprintf("quiet%d", e), "", 0, 0, day0)
		w.episode(fmt.Sprintf("e%d", e), fmt.Sprintf("h%03d", 2*e), fmt.Sprintf("h%03d", 2*e+1), fmt.Sprintf("quiet%d", e))
	}
	r := &Recall{Store: w, Index: worldIndex{w: w}}
	w.searchWith(t, r, Query{ScopeID: scope, Text: "x", MaxResults: 1000})
	if w.limits[0] != 3000 || len(w.asked[0]) != 300 {
		t.Fatalf("maxResults 1000: the index was asked for %d, %d seeds; want 3000 and all 300", w.limits[0], len(w.asked[0]))
	}
	w.limits, w.asked = nil, nil
	w.searchWith(t, r, Query{ScopeID: scope, Text: "x", MaxResults: 300})
	if w.limits[0] != 1000 || len(w.asked[0]) != 300 {
		t.Fatalf("maxResults 300: asked for %d, %d seeds; want 1000 and 600 capped by the 300 hits", w.limits[0], len(w.asked[0]))
	}
	w.limits, w.asked = nil, nil
	w.searchWith(t, r, Query{ScopeID: scope, Text: "x", MaxResults: 10})
	if w.limits[0] != 1000 || len(w.asked[0]) != 100 {
		t.Fatalf("maxResults 10: asked for %d, %d seeds; want 1000 and 100", w.limits[0], len(w.asked[0]))
	}
	if len(w.asked) != 2 || fmt.Sprint(w.asked[1]) != "[quiet0 quiet1 quiet2]" {
		t.Fatalf("the candidates beyond the seeds = %v, want the quiet members of the 3 best episodes", w.asked[1:])
	}
}

// TestFlashbacksRankByTheBestHit pins resonate's documented ranking: the index is asked for three
// times the flashbacks wanted (at least 9), and each hit scores 0.7 × bm25/best + 0.3 × salience.
func TestFlashbacksRankByTheBestHit(t *testing.T) {
	w := newWorld()
	w.add("a", "", 4, 0.5, day0)
	w.add("b", "", 1, 0.25, day0)
	for i := 0; i < 40; i++ {
		w.add(fmt.Sprintf("z%02d", i), "", 0.5, 0, day0)
	}
	r := &Recall{Store: w, Index: worldIndex{w: w}}
	got, err := r.Flashbacks(context.Background(), scope, "x", 3)
	if err != nil {
		t.Fatal(err)
	}
	if w.limits[0] != 9 || len(got) != 3 || got[0].Memory.ID != "a" || !near(got[0].Score, 0.7+0.3*0.5) ||
		got[1].Memory.ID != "b" || !near(got[1].Score, 0.7*0.25+0.3*0.25) || !near(got[2].Score, 0.7*0.125) {
		t.Fatalf("asked the index for %d; flashbacks %v %v %v", w.limits[0], got[0], got[1], got[2])
	}
	if _, err := r.Flashbacks(context.Background(), scope, "x", 10); err != nil || w.limits[1] != 30 {
		t.Fatalf("10 flashbacks asked the index for %d, want 30 (%v)", w.limits[1], err)
	}
}

// With Wg > 0 the ranking in context follows the PERSON and THEMATIC associations of its best
// matches: a memory sharing no word with the query comes in through them, says so, and names the
// association; off (the default), it does not.
func TestSpreadingActivationInContext(t *testing.T) {
	w := newWorld()
	w.add("hit", "", 5, 0, day0)
	w.add("z", "", 1, 0, day0)      // the weakest hit: t = 0
	w.add("friend", "", 0, 0, day0) // no word of the query
	w.add("theme", "", 0, 0, day0)
	w.ctx["hit"].Associated = []domain.Neighbour{{ID: "friend", Type: domain.AssocPerson, Strength: 0.8},
		{ID: "theme", Type: domain.AssocThematic, Strength: 0.4}}
	w.ctx["friend"].Associated = []domain.Neighbour{{ID: "hit", Type: domain.AssocPerson, Strength: 0.8}}
	w.ctx["theme"].Associated = []domain.Neighbour{{ID: "hit", Type: domain.AssocThematic, Strength: 0.4}}
	if got := w.search(t, "query", nil); got["friend"] != nil || got["theme"] != nil || len(got) != 2 {
		t.Fatalf("Wg 0 (the default): %v", fmt.Sprint(got))
	}
	wt := DefaultWeights
	wt.Associate = 0.5
	got := w.searchWith(t, &Recall{Store: w, Index: worldIndex{w: w}, Weights: &wt}, Query{ScopeID: scope, Text: "query", MaxResults: 10})
	// r(friend) = Wg · 0.8 · t(hit) = 0.4 of r(hit) = 1; "theme" is weaker than MinStrength.
	f := got["friend"]
	if f == nil || f.Reason != ReasonAssociation || !near(f.TextScore, 0.4) || !near(f.Activation, 0.4) || !near(f.Score, 0.7*0.4) ||
		f.Via == nil || f.Via.SourceID != "hit" || f.Via.TargetID != "friend" || f.Via.Type != domain.AssocPerson || !near(f.Via.Strength, 0.8) {
		t.Fatalf("friend = %+v", f)
	}
	if h := got["hit"]; h == nil || h.Reason != ReasonText || h.Via != nil || !near(h.TextScore, 1) {
		t.Fatalf("hit = %+v", h)
	}
	if got["theme"] != nil || len(got) != 3 {
		t.Fatalf("results %v: an association weaker than MinStrength was followed", fmt.Sprint(got))
	}
}

// TestTwoTurnsAway pins the rule: a candidate two turns from a match takes Wm · s1 · s2 · t from
// it, through the neighbour between them, when that neighbour is a candidate.
func TestTwoTurnsAway(t *testing.T) {
	w := newWorld()
	w.add("match", "", 5, 0, day0)
	w.add("next", "", 0, 0, day0)
	w.add("after", "", 0, 0, day0)
	w.add("z", "", 1, 0, day0) // the weakest hit: t = 0
	w.chain(0.8, "match", "next", "after")
	w.episode("e", "match", "next", "after") // "after" joins the candidates through the episode
	for _, wm := range []float64{WNeighbour2, 0} {
		wt := DefaultWeights
		wt.Episode, wt.Neighbour2 = 0, wm
		got := w.searchWith(t, &Recall{Store: w, Index: worldIndex{w: w}, Weights: &wt}, Query{ScopeID: scope, Text: "x", MaxResults: 10})
		// match: t 1; next: Wn · .8 · 1 (and Wm · .8 · .8 · t(after) = 0); after: Wm · .8 · .8 · 1.
		if !near(got["match"].TextScore, 1) || !near(got["next"].TextScore, WNeighbour*0.8) {
			t.Fatalf("Wm %v: match %v, next %v", wm, got["match"].TextScore, got["next"].TextScore)
		}
		if a := got["after"]; wm > 0 && (a == nil || !near(a.TextScore, wm*0.8*0.8) || a.Reason != ReasonContext) {
			t.Fatalf("Wm %v: after = %+v, want text %v", wm, a, wm*0.8*0.8)
		} else if wm == 0 && a != nil && a.TextScore != 0 {
			t.Fatalf("Wm 0: after = %+v, want no relevance", a)
		}
	}
}
