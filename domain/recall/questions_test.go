package recall

import (
	"context"
	"testing"
)

func TestAsksForMany(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		// A plural category before the auxiliary.
		{"What activities has Melanie done with her family?", true},
		{"Which cities has Jon visited?", true},
		{"What European countries has Maria been to?", true},
		{"What pets does Melanie have?", true},
		{"What LGBTQ+ events has Caroline participated in?", true},
		{"Which children did the teacher meet?", true},
		// Kinds, counts, both.
		{"What kinds of music does Ana like?", true},
		{"How many children does Melanie have?", true},
		{"Did Jon and Gina both participate in dance competitions?", true},
		// "What are some …", "What are X's …".
		{"What are some changes Caroline has faced?", true},
		{"What are Melanie's pets' names?", true},
		{"What is the name of Melanie's pet?", false},
		// A present perfect asks over the whole past.
		{"What has Melanie painted?", true},
		{"Where has Maria made friends?", true},
		{"What events for veterans has John participated in?", true},
		{"What does Jon have to do before the opening?", false},
		// One thing.
		{"What did Melanie paint recently?", false},
		{"What kind of art does Caroline make?", false},
		{"Which song motivates Caroline to be courageous?", false},
		{"Where did Caroline move from 4 years ago?", false},
		{"When did Ana go to the museum?", false},
		{"What news did Maria share?", false},
		{"What bus did she take?", false},
		{"martial arts", false},
		{"", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := asksForMany(tc.text); got != tc.want {
				t.Fatalf("asksForMany(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

// TestDiversity pins the rule: a question asking for several things takes its results greedily
// by score / (1 + Wv·m), m the results already chosen from the same episode, and that is their
// score; a question asking for one thing ranks by score alone.
func TestDiversity(t *testing.T) {
	w := newWorld()
	// Episode e1 matches best throughout; e2 holds one good match.
	w.add("a1", "", 10, 0, day0)
	w.add("a2", "", 9, 0, day0)
	w.add("a3", "", 8, 0, day0)
	w.add("b1", "", 7, 0, day0)
	w.add("z", "", 1, 0, day0) // the weakest hit: t = 0
	w.episode("e1", "a1", "a2", "a3")
	w.episode("e2", "b1", "z")
	order := func(text string, wv float64) ([]string, []float64) {
		t.Helper()
		wt := DefaultWeights
		wt.Episode, wt.Diversity = 0, wv // the text alone, to keep the arithmetic plain
		res, err := (&Recall{Store: w, Index: worldIndex{w: w}, Weights: &wt}).Search(context.Background(),
			Query{ScopeID: scope, Text: text, MaxResults: 4})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		var scores []float64
		for _, r := range res {
			ids, scores = append(ids, r.Memory.ID), append(scores, r.Score)
		}
		return ids, scores
	}
	// t = (bm25 − 1)/9; score = 0.7·t (no salience): a1 .7, a2 .622, a3 .544, b1 .467.
	ids, _ := order("What did Ana paint?", WDiversity)
	if want := []string{"a1", "a2", "a3", "b1"}; !equal(ids, want) {
		t.Fatalf("one thing: %v, want %v", ids, want)
	}
	// Many: a1 .7; then a2 .622/1.5 = .415 < b1 .467; then a2 .415 > a3 .544/1.5; then a3 .544/2.
	ids, scores := order("What has Ana painted?", WDiversity)
	if want := []string{"a1", "b1", "a2", "a3"}; !equal(ids, want) {
		t.Fatalf("several things: %v, want %v", ids, want)
	}
	for i, want := range []float64{0.7, 0.7 * 6 / 9, 0.7 * 8 / 9 / 1.5, 0.7 * 7 / 9 / 2} {
		if !near(scores[i], want) {
			t.Fatalf("score %d = %v, want %v", i, scores[i], want)
		}
	}
	// Off at Wv = 0.
	if ids, _ := order("What has Ana painted?", 0); !equal(ids, []string{"a1", "a2", "a3", "b1"}) {
		t.Fatalf("Wv = 0: %v", ids)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
