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
	r := &Recall{Store: w, Index: worldIndex{w: w}, Embedder: emb}
	res, err := r.Search(context.Background(), Query{ScopeID: scope, Text: text, MaxResults: 50})
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
	if !near(got["c"].TextScore, 1) || !near(got["m"].TextScore, 1/(1+WPerson)) {
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
	h := map[string]float64{"text": 1 / (RRFK + 1), "both": 1/(RRFK+2) + 1/(RRFK+2), "vec": 1 / (RRFK + 1)}
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
