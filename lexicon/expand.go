package lexicon

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/totalrecall/totalrecall/domain"
)

// Expansion, in WordNet's terms. A query's nouns (and noun collocations of up to three words:
// "martial arts", "European countries") are looked up in their inflected forms; each sense s of
// a noun weighs
//
//	w(s) = (count(s) + 1) / (count(first sense) + 1)
//
// by how often annotators chose it (SemCor's tagged-sense counts, which WordNet ships), and
// senses below MinSense are left out. A sense lends:
//
//	its synonyms (the other lemmas of the synset)             w(s) · WSynonym
//	its hyponyms and instances, d levels down (d ≤ MaxDepth)  w(s) · WHyponym · Decay^(d−1)
//	its hypernyms and what it is an instance of               w(s) · WHypernym
//
// A word or phrase reached several ways keeps its largest weight; the first MaxExpansions by
// weight · (1 + ln(1 + uses in that sense)) are kept. Before them come the irregular forms of the
// query's words, which stemming cannot reach — "felt" for "feel" and "feel" for "felt" (verb.exc),
// "child" for "children" and "children" for "child" (noun.exc) — at WInflection: they are the
// same word. How much an expansion counts beside the query's own words is the caller's weight on
// top.
const (
	WInflection   = 1.0
	WSynonym      = 1.0
	WHyponym      = 1.0
	WHypernym     = 0.5
	Decay         = 0.5
	MaxDepth      = 2
	MinSense      = 0.1
	MaxExpansions = 300
)

// Relations of an expansion to the query's word.
const (
	RelSynonym  = "SYNONYM"
	RelHyponym  = "HYPONYM"
	RelInstance = "INSTANCE"
	RelHypernym = "HYPERNYM"
	// RelInflection is another form of the same word: "went" of "go", "children" of "child".
	RelInflection = "INFLECTION"
)

// Params are the constants above, as one value, so that an evaluation can vary them.
type Params struct {
	WInflection, WSynonym, WHyponym, WHypernym, Decay, MinSense float64
	MaxDepth, MaxExpansions                                     int
}

// DefaultParams are the documented constants.
var DefaultParams = Params{WInflection: WInflection, WSynonym: WSynonym, WHyponym: WHyponym, WHypernym: WHypernym, Decay: Decay,
	MinSense: MinSense, MaxDepth: MaxDepth, MaxExpansions: MaxExpansions}

// Lexicon expands queries with the nouns of WordNet 3.0, embedded in the binary. Safe for
// concurrent use.
type Lexicon struct {
	w *wordNet
	p Params
}

var _ domain.Lexicon = (*Lexicon)(nil)

// New returns the lexicon with the default parameters. The table is decoded on the first call
// in a process (a few tens of milliseconds) and shared.
func New() (*Lexicon, error) { return NewWith(DefaultParams) }

// NewWith returns the lexicon with parameters p.
func NewWith(p Params) (*Lexicon, error) {
	w, err := load()
	if err != nil {
		return nil, err
	}
	return &Lexicon{w: w, p: p}, nil
}

type token struct {
	word    string // lower case
	capital bool   // written with a capital letter
	first   bool   // opens the text or a sentence
}

// stop are the words never looked up alone: function words, the words questions are made of,
// and nouns so general that their hyponyms are half the dictionary.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be because been
		before being below between both but by can could did do does doing done down during each either else ever every few
		for from further get gets got had has have having he her here hers herself him himself his how i if in into is it its
		itself just least less like likely many may me might more most much must my myself neither no nor not now of off often
		on once one only or other others ought our ours ourselves out over own rather same shall she should since so some
		such than that the their theirs them themselves then there these they this those though through to too under until
		up upon us very was we were what whatever when whenever where wherever whether which while who whoever whom whose why
		will with within without would yet you your yours yourself yourselves
		thing things something anything everything nothing stuff kind kinds type types sort sorts way ways lot lots part
		parts piece bit bits time times someone somebody anyone anybody everyone everybody people person persons`) {
		m[w] = true
	}
	return m
}()

func tokenize(text string) []token {
	var out []token
	start := true
	word := strings.Builder{}
	capital := false
	flush := func() {
		if word.Len() > 0 {
			w := strings.Trim(word.String(), "'’-")
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			if w != "" {
				out = append(out, token{word: w, capital: capital, first: start})
			}
			start = false
		}
		word.Reset()
		capital = false
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r):
			if word.Len() == 0 {
				capital = unicode.IsUpper(r)
			}
			word.WriteRune(unicode.ToLower(r))
		case (r == '\'' || r == '’' || r == '-') && word.Len() > 0:
			word.WriteRune(r)
		default:
			flush()
			if r == '.' || r == '?' || r == '!' || r == ';' || r == ':' || r == '\n' {
				start = true
			}
		}
	}
	flush()
	return out
}

// wh are the words that open a question about a category ("which cities", "what kind of art").
var wh = map[string]bool{"what": true, "which": true, "whose": true, "how": true}

// kindOf are the words that, followed by "of", name a category by the next noun.
var kindOf = map[string]bool{"kind": true, "kinds": true, "type": true, "types": true, "sort": true, "sorts": true}

// categories marks the tokens of the noun phrase a question asks about: the words after "what",
// "which", "whose" or "how many" up to the verb ("What European countries has…", "How many
// dogs…", "What kind of art…", "What are some changes…"). A text that asks no such question is
// about all its nouns; ok is false then.
func categories(toks []token, isNoun func(string) bool) (cat []bool, ok bool) {
	cat = make([]bool, len(toks))
	for i := 0; i < len(toks); i++ {
		if !wh[toks[i].word] {
			continue
		}
		j := i + 1
		if toks[i].word == "how" {
			if j >= len(toks) || (toks[j].word != "many" && toks[j].word != "much") {
				continue
			}
			j++
		}
		// "What are some changes", "What were the names": a copula then a determiner.
		if j+1 < len(toks) && (toks[j].word == "are" || toks[j].word == "is" || toks[j].word == "were" || toks[j].word == "was") &&
			(toks[j+1].word == "some" || toks[j+1].word == "the" || toks[j+1].word == "all") {
			j += 2
		}
		for j+1 < len(toks) && kindOf[toks[j].word] && toks[j+1].word == "of" {
			j += 2
		}
		// Up to the verb: a stop word, a name, or a word that is no noun once a noun was seen
		// ("What inspired…", "What LGBTQ+ events has…").
		noun := false
		for ; j < len(toks) && !stop[toks[j].word] && !(toks[j].capital && !toks[j].first); j++ {
			if isNoun(toks[j].word) {
				noun = true
			} else if noun {
				break
			}
			cat[j] = true
			ok = true
		}
	}
	return cat, ok
}

// Expand returns the words and phrases WordNet relates to the nouns of text, the best known of the
// heaviest first.
// The category a question asks about lends its hyponyms and instances; every noun lends its
// synonyms and hypernyms. A text that asks no such question is all categories.
func (l *Lexicon) Expand(text string) []domain.Expansion {
	toks := tokenize(text)
	cat, question := categories(toks, func(w string) bool { return len(l.w.nounForms(w)) > 0 })
	said := map[string]bool{}
	for _, t := range toks {
		said[t.word] = true
	}
	type entry struct {
		e    domain.Expansion
		used int // how often annotators chose the word in that sense
		rank float64
	}
	best := map[string]entry{}
	offer := func(m, syn uint32, w float64, of, rel string) {
		term := l.w.lemma(m)
		if w <= 0 || said[term] {
			return
		}
		if cur, ok := best[term]; !ok || w > cur.e.Weight || (w == cur.e.Weight && (of < cur.e.Of || of == cur.e.Of && rel < cur.e.Relation)) {
			best[term] = entry{e: domain.Expansion{Text: term, Weight: w, Of: of, Relation: rel}, used: l.w.used(m, syn)}
		}
	}
	for i := 0; i < len(toks); {
		if c, n := l.collocation(toks[i:]); n > 0 {
			for _, f := range c {
				said[l.w.lemma(f)] = true
			}
			down := !question || cat[i+n-1]
			for _, f := range c {
				l.expandLemma(f, down, offer)
			}
			i += n
			continue
		}
		t := toks[i]
		down := !question || cat[i]
		i++
		if stop[t.word] || len(t.word) < 3 || (t.capital && !t.first) {
			continue // a name of a person or place is no category
		}
		forms := l.w.nounForms(t.word)
		for _, f := range forms {
			said[l.w.lemma(f)] = true
		}
		for _, f := range forms {
			l.expandLemma(f, down, offer)
		}
	}
	es := make([]entry, 0, len(best))
	for _, e := range best {
		if !said[e.e.Text] {
			e.rank = e.e.Weight * (1 + math.Log1p(float64(e.used)))
			es = append(es, e)
		}
	}
	// The cap keeps the heaviest, counting the words people use: weight · (1 + ln(1 + uses)),
	// so that a category's well-known members (Rome, used 4 times, two levels under "city")
	// come before its obscure ones (Aachen, never used, one level under it).
	slices.SortFunc(es, func(a, b entry) int {
		if ra, rb := a.rank, b.rank; ra != rb {
			if ra > rb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.e.Text, b.e.Text)
	})
	infl := l.inflections(toks)
	out := make([]domain.Expansion, 0, min(len(infl)+len(es), l.p.MaxExpansions))
	out = append(out, infl...)
	for _, e := range es {
		if len(out) >= l.p.MaxExpansions {
			break
		}
		if !slices.ContainsFunc(infl, func(o domain.Expansion) bool { return o.Text == e.e.Text }) {
			out = append(out, e.e)
		}
	}
	return out
}

// inflections returns the irregular forms of the words of toks that stemming cannot reach: the
// base and other forms of an irregular verb form ("felt" → "feel"; "feel" → "felt"), and of an
// irregular plural ("children" → "child"; "child" → "children"), each once, none a word of toks.
func (l *Lexicon) inflections(toks []token) []domain.Expansion {
	if l.p.WInflection <= 0 {
		return nil
	}
	said := map[string]bool{}
	for _, t := range toks {
		said[t.word] = true
	}
	var out []domain.Expansion
	offer := func(form, of string) {
		if !said[form] {
			said[form] = true
			out = append(out, domain.Expansion{Text: form, Weight: l.p.WInflection, Of: of, Relation: RelInflection})
		}
	}
	w := l.w
	for _, t := range toks {
		if stop[t.word] || len(t.word) < 2 || (t.capital && !t.first) {
			continue
		}
		bases := w.verbBase[t.word]
		if len(w.verbForms[t.word]) > 0 {
			bases = append([]string{t.word}, bases...)
		}
		for _, b := range bases {
			offer(b, t.word)
			for _, f := range w.verbForms[b] {
				offer(f, t.word)
			}
		}
		lemmas := w.plurals
		if i, ok := w.exc[t.word]; ok {
			offer(w.lemma(i), t.word)
			for _, f := range lemmas[i] {
				offer(f, t.word)
			}
		} else if i, ok := w.find(t.word); ok {
			for _, f := range lemmas[i] {
				offer(f, t.word)
			}
		}
	}
	return out
}

// collocation finds the longest noun collocation (three or two words, the last one inflected)
// that opens toks, and how many tokens it spans.
func (l *Lexicon) collocation(toks []token) ([]uint32, int) {
	for n := min(3, len(toks)); n >= 2; n-- {
		if stop[toks[0].word] || stop[toks[n-1].word] {
			continue
		}
		words := make([]string, n-1)
		for k := range words {
			words[k] = toks[k].word
		}
		head := strings.Join(words, " ") + " "
		var found []uint32
		for _, f := range l.w.nounForms(toks[n-1].word) {
			if i, ok := l.w.find(head + l.w.lemma(f)); ok {
				found = append(found, i)
			}
		}
		if i, ok := l.w.find(head + toks[n-1].word); ok && !slices.Contains(found, i) {
			found = append(found, i)
		}
		if len(found) > 0 {
			return found, n
		}
	}
	return nil, 0
}

// expandLemma offers what the senses of lemma i lend: with down, its hyponyms too.
func (l *Lexicon) expandLemma(i uint32, down bool, offer func(m, syn uint32, w float64, of, rel string)) {
	w := l.w
	of := w.lemma(i)
	ss := w.senseSyn[w.senseOff[i]:w.senseOff[i+1]]
	cs := w.senseCount[w.senseOff[i]:w.senseOff[i+1]]
	if len(ss) == 0 {
		return
	}
	top := float64(cs[0]) + 1
	for _, c := range cs {
		top = max(top, float64(c)+1)
	}
	for k, s := range ss {
		ws := (float64(cs[k]) + 1) / top
		if ws < l.p.MinSense {
			continue
		}
		for _, m := range w.synLem[w.synLemOff[s]:w.synLemOff[s+1]] {
			offer(m, s, ws*l.p.WSynonym, of, RelSynonym)
		}
		for _, h := range w.hyper[w.hyperOff[s]:w.hyperOff[s+1]] {
			for _, m := range w.synLem[w.synLemOff[h/2]:w.synLemOff[h/2+1]] {
				offer(m, h/2, ws*l.p.WHypernym, of, RelHypernym)
			}
		}
		if !down {
			continue
		}
		// Hyponyms, breadth first, each synset once at its shallowest depth.
		level := []uint32{2 * s}
		seen := map[uint32]bool{s: true}
		f := ws * l.p.WHyponym
		for d := 1; d <= l.p.MaxDepth && len(level) > 0; d++ {
			var next []uint32
			for _, x := range level {
				for _, y := range w.hypo[w.hypoOff[x/2]:w.hypoOff[x/2+1]] {
					if seen[y/2] {
						continue
					}
					seen[y/2] = true
					next = append(next, y)
					rel := RelHyponym
					if y&1 == 1 {
						rel = RelInstance
					}
					for _, m := range w.synLem[w.synLemOff[y/2]:w.synLemOff[y/2+1]] {
						offer(m, y/2, f, of, rel)
					}
				}
			}
			level = next
			f *= l.p.Decay
		}
	}
}
