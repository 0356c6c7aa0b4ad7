package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
)

// A LoCoMo-like corpus: conversations between two speakers, in sessions a few days apart, each
// turn a sentence drawn from a vocabulary with its words' frequencies. The vocabulary is read
// from the LoCoMo files when they are at hand (their words and how often each is used, nothing
// else), or else it is the bench's own syllable words.

// vocab draws words in proportion to their frequency.
type vocab struct {
	words []string
	cum   []float64 // cumulative weights
}

func (v *vocab) word(r *rand.Rand) string {
	x := r.Float64() * v.cum[len(v.cum)-1]
	return v.words[sort.SearchFloat64s(v.cum, x)]
}

// sentence is 6 to 24 words, the first capitalised, ending in a stop or a question mark.
func (v *vocab) sentence(r *rand.Rand) string {
	n := 6 + r.IntN(19)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.word(r)
	}
	s := strings.Join(parts, " ")
	s = strings.ToUpper(s[:1]) + s[1:]
	if r.IntN(4) == 0 {
		return s + "?"
	}
	return s + "."
}

// query is a search of two words of the middle of the vocabulary: frequent enough to match many
// memories, rare enough to say something.
func (v *vocab) query(r *rand.Rand) string {
	mid := v.words[len(v.words)/50 : len(v.words)/5]
	return mid[r.IntN(len(mid))] + " " + mid[r.IntN(len(mid))]
}

// message is a mind's turn for resonate: 4 to 8 words drawn as the corpus's are.
func (v *vocab) message(r *rand.Rand) string {
	n := 4 + r.IntN(5)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = v.word(r)
	}
	return strings.Join(parts, " ")
}

// loadVocab reads the words of the LoCoMo conversations in dir with their counts; without them,
// the bench's syllable words with a skew towards the first.
func loadVocab(dir string) (*vocab, string) {
	counts := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var doc map[string]json.RawMessage
		if json.Unmarshal(raw, &doc) != nil {
			continue
		}
		for k, v := range doc {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "_date_time") || strings.HasSuffix(k, "_summary") {
				continue
			}
			var turns []struct{ Text string }
			if json.Unmarshal(v, &turns) != nil {
				continue
			}
			for _, t := range turns {
				for _, w := range strings.FieldsFunc(strings.ToLower(t.Text), func(c rune) bool { return !unicode.IsLetter(c) && c != '\'' }) {
					if w = strings.Trim(w, "'"); len(w) > 1 {
						counts[w]++
					}
				}
			}
		}
	}
	v := &vocab{}
	if len(counts) >= 1000 {
		for w := range counts {
			v.words = append(v.words, w)
		}
		sort.Slice(v.words, func(i, j int) bool {
			if counts[v.words[i]] != counts[v.words[j]] {
				return counts[v.words[i]] > counts[v.words[j]]
			}
			return v.words[i] < v.words[j]
		})
		total := 0.0
		for _, w := range v.words {
			total += float64(counts[w])
			v.cum = append(v.cum, total)
		}
		return v, fmt.Sprintf("%d words of the LoCoMo conversations in %s", len(v.words), dir)
	}
	v.words = vocabulary()
	total := 0.0
	for i := range v.words {
		total += 1 / float64(i+1) // Zipf
		v.cum = append(v.cum, total)
	}
	return v, fmt.Sprintf("%d syllable words (no LoCoMo conversations in %q)", len(v.words), dir)
}

var benchSpeakers = []string{"Alma", "Bruno", "Celia", "Dario", "Edith", "Farid", "Greta", "Hugo", "Ines", "Jonas",
	"Kira", "Lucas", "Mira", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wim", "Yara"}

// conversation is the JSON of conversation k of the corpus (LoCoMo's format), with turns turns.
func conversation(v *vocab, k, turns int) []byte {
	r := rand.New(rand.NewPCG(uint64(k), 99))
	a := benchSpeakers[r.IntN(len(benchSpeakers))]
	b := benchSpeakers[r.IntN(len(benchSpeakers))]
	for b == a {
		b = benchSpeakers[r.IntN(len(benchSpeakers))]
	}
	doc := map[string]any{"speaker_a": a, "speaker_b": b}
	at := time.Date(2022, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(k%700) * 24 * time.Hour)
	for s, done := 1, 0; done < turns; s++ {
		n := min(turns-done, 12+r.IntN(19))
		at = at.Add(time.Duration(2+r.IntN(8))*24*time.Hour + time.Duration(r.IntN(600))*time.Minute)
		doc[fmt.Sprintf("session_%d_date_time", s)] = strings.ToLower(at.Format("3:04 pm")) + at.Format(" on 2 January, 2006")
		ts := make([]map[string]any, n)
		for t := range ts {
			speaker := a
			if t%2 == 1 {
				speaker = b
			}
			turn := map[string]any{"speaker": speaker, "dia_id": fmt.Sprintf("D%d:%d", s, t+1), "text": v.sentence(r)}
			if r.IntN(20) == 0 {
				turn["blip_caption"] = "a photo of " + v.message(r)
			}
			ts[t] = turn
		}
		doc[fmt.Sprintf("session_%d", s)] = ts
		done += n
	}
	raw, _ := json.Marshal(doc)
	return raw
}
