package recall

import (
	"context"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// fixedLexicon expands every query the same way.
type fixedLexicon []domain.Expansion

func (l fixedLexicon) Expand(string) []domain.Expansion { return l }

func (w *world) searchMeaning(t *testing.T, r *Recall, q Query) map[string]*RankedMemory {
	t.Helper()
	r.Store, r.Index = w, worldIndex{w: w}
	q.ScopeID, q.MaxResults = scope, 50
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

func TestLexicalExpansion(t *testing.T) {
	w := newWorld()
	w.add("lit", "", 4, 0, day0)  // the words
	w.add("both", "", 2, 0, day0) // the words, and a member of the category
	w.add("tkd", "", 0, 0, day0)  // a member only
	w.add("z", "", 1, 0, day0)    // the weakest hit: t = 0
	w.lex = map[string]float64{"both": 3, "tkd": 6}
	lex := fixedLexicon{{Text: "taekwondo", Weight: 1}}
	got := w.searchMeaning(t, &Recall{Lexicon: lex}, Query{Text: "martial arts"})
	// t = (bm25 − lowest)/(best − lowest) + Wx · lexical / best lexical.
	r := map[string]float64{"lit": 1, "both": 1.0/3 + WLexical*0.5, "tkd": WLexical * 1, "z": 0}
	for id, want := range r {
		if !near(got[id].TextScore, want/1) {
			t.Fatalf("%s: text %v, want %v", id, got[id].TextScore, want)
		}
	}
	if got["tkd"].Reason != ReasonLexical || got["both"].Reason != ReasonText || got["lit"].Reason != ReasonText {
		t.Fatalf("reasons: tkd %s, both %s, lit %s", got["tkd"].Reason, got["both"].Reason, got["lit"].Reason)
	}
	// A match of the expansions alone ranks below the best match of the words.
	if got["tkd"].Score >= got["lit"].Score {
		t.Fatal("an expansion outranked the words")
	}
	// Literal queries, and a Recall without a lexicon, search the words alone.
	for name, r := range map[string]*Recall{"literal": {Lexicon: lex}, "no lexicon": {}} {
		got := w.searchMeaning(t, r, Query{Text: "martial arts", Literal: name == "literal"})
		if got["tkd"] != nil || !near(got["both"].TextScore, 1.0/3) {
			t.Fatalf("%s: %+v", name, got)
		}
	}
	// A store that knows no contexts ranks with neutral factors: the expansions add the same way.
	plain := &Recall{Store: plainStore{w: w}, Index: worldIndex{w: w}, Lexicon: lex}
	res, err := plain.Search(context.Background(), Query{ScopeID: scope, Text: "martial arts", MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("plain: %d results, want 4", len(res))
	}
	for _, rm := range res {
		if !near(rm.TextScore, r[rm.Memory.ID]) {
			t.Fatalf("plain %s: text %v, want %v", rm.Memory.ID, rm.TextScore, r[rm.Memory.ID])
		}
		if (rm.Memory.ID == "tkd") != (rm.Reason == ReasonLexical) {
			t.Fatalf("plain %s: reason %s", rm.Memory.ID, rm.Reason)
		}
	}
}

// plainStore hides the world's contexts: recall ranks by text and salience alone (the methods
// the ranking does not use are not called).
type plainStore struct {
	domain.Store
	w *world
}

func (p plainStore) Memories(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	return p.w.Memories(ctx, ids)
}

func TestAnswerTakesItsQuestionsRelevance(t *testing.T) {
	w := newWorld()
	w.add("q", "A", 5, 0, day0)
	w.mems["q"].Content = "What concert was it?"
	w.add("ans", "B", 1, 0, day0.Add(time.Second)) // after the question: its answer
	w.add("before", "B", 1, 0, day0.Add(-time.Second))
	w.add("z", "", 1, 0, day0) // the weakest hit: t = 0... as are ans and before
	w.chain(0.8, "before", "q", "ans")
	got := w.search(t, "concert", nil)
	// ans: t 0 + max(Wn, Wa)·0.8·t(q); before: 0 + Wn·0.8·t(q) (it precedes the question).
	top := 1 + WNeighbour*0.8*0 // q's neighbours have t = 0
	if want := max(WNeighbour, WAnswer) * 0.8 / top; !near(got["ans"].TextScore, want) {
		t.Fatalf("answer: %v, want %v", got["ans"].TextScore, want)
	}
	if want := WNeighbour * 0.8 / top; !near(got["before"].TextScore, want) {
		t.Fatalf("before: %v, want %v", got["before"].TextScore, want)
	}
}

func TestToldTimeWhenAndOrder(t *testing.T) {
	w := newWorld()
	june4 := time.Date(2023, 6, 4, 13, 0, 0, 0, time.UTC)
	w.add("told", "", 2, 0, june4) // said on 4 June about the day before
	w.mems["told"].Content = "we went to the lake yesterday"
	w.add("plain", "", 2, 0, june4)
	w.mems["plain"].Content = "we went to the lake"
	w.add("z", "", 1, 0, day0) // the weakest hit: t = 0
	got := w.search(t, "Where did they go on 3 June, 2023?", nil)
	// plain: said 13 h after the window: near = 1 − 13/168; told: it happened in it, near = 1.
	if want := 1 / (1 + WTimeCue); !near(got["plain"].TextScore, want*(1+WTimeCue*(1-13.0/168))) || !near(got["told"].TextScore, 1) {
		t.Fatalf("told %v, plain %v", got["told"].TextScore, got["plain"].TextScore)
	}
	// A question asking when favours the memories that say when.
	got = w.search(t, "When did they go to the lake?", nil)
	if !near(got["plain"].TextScore, 1/(1+WWhen)) || !near(got["told"].TextScore, 1) {
		t.Fatalf("when: told %v, plain %v", got["told"].TextScore, got["plain"].TextScore)
	}

	// "after the marathon": the memories just after it gain, falling to nothing at OrderSpan.
	w = newWorld()
	w.add("marathon", "", 1, 0, day0)
	w.add("soon", "", 2, 0, day0.Add(OrderSpan/4))
	w.add("late", "", 2, 0, day0.Add(2*OrderSpan))
	w.add("earlier", "", 2, 0, day0.Add(-OrderSpan/4))
	w.add("z", "", 1.5, 0, day0.AddDate(-1, 0, 0))
	w.anchorText, w.anchors = "the marathon", map[string]float64{"marathon": 9, "z": 1}
	got = w.search(t, "What did Ana do after the marathon?", nil)
	soon := 1 * (1 + WOrder*0.75)
	if !near(got["soon"].TextScore, 1) || !near(got["late"].TextScore, 1/soon) || !near(got["earlier"].TextScore, 1/soon) {
		t.Fatalf("after: soon %v, late %v, earlier %v", got["soon"].TextScore, got["late"].TextScore, got["earlier"].TextScore)
	}
	got = w.search(t, "What did Ana do before the marathon?", nil)
	if !near(got["earlier"].TextScore, 1) || !near(got["soon"].TextScore, 1/soon) {
		t.Fatalf("before: soon %v, earlier %v", got["soon"].TextScore, got["earlier"].TextScore)
	}
}
