package lexicon

import (
	"os"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

func lex(t testing.TB) *Lexicon {
	t.Helper()
	l, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func find(es []domain.Expansion, text string) (domain.Expansion, bool) {
	for _, e := range es {
		if e.Text == text {
			return e, true
		}
	}
	return domain.Expansion{}, false
}

func TestExpand(t *testing.T) {
	l := lex(t)
	tests := []struct {
		query   string
		want    []domain.Expansion // each must be there, exactly
		wantNot []string           // none of these may be
	}{
		{"What martial arts has John done?", []domain.Expansion{
			{Text: "taekwondo", Weight: 1, Of: "martial art", Relation: RelHyponym},
			{Text: "karate", Weight: 1, Of: "martial art", Relation: RelHyponym},
			{Text: "judo", Weight: 1, Of: "martial art", Relation: RelHyponym},
		}, []string{"martial art", "art", "john", "toilet"}},
		{"What European countries has Maria been to?", []domain.Expansion{
			{Text: "spain", Weight: 1, Of: "european country", Relation: RelInstance},
			{Text: "france", Weight: 1, Of: "european country", Relation: RelInstance},
		}, []string{"maria", "mare"}},
		// The reverse: a member named reaches its category.
		{"I love taekwondo", []domain.Expansion{
			{Text: "martial art", Weight: HypernymWeight(), Of: "taekwondo", Relation: RelHypernym},
			{Text: "tae kwon do", Weight: 1, Of: "taekwondo", Relation: RelSynonym},
		}, nil},
		// Irregular plurals are looked up by their base form.
		{"children", []domain.Expansion{{Text: "kid", Weight: 1, Of: "child", Relation: RelSynonym}}, nil},
		// Only the category a question asks about lends its members; the other nouns lend
		// synonyms.
		{"Which cities has Jon visited with his kids?", []domain.Expansion{
			{Text: "rome", Weight: Decay, Of: "city", Relation: RelInstance}, // a national capital, a capital, a city
			{Text: "child", Weight: 1, Of: "kid", Relation: RelSynonym},
		}, []string{"bairn", "foster child"}},
		// A name in the middle of a sentence is nobody's category.
		{"What does Rose like to eat?", nil, []string{"damask rose", "rosebush"}},
		{"what is it?", nil, []string{"information technology"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			es := l.Expand(tc.query)
			for _, w := range tc.want {
				got, ok := find(es, w.Text)
				if !ok || got != w {
					t.Errorf("%q: %q = %+v (found %v), want %+v", tc.query, w.Text, got, ok, w)
				}
			}
			for _, n := range tc.wantNot {
				if e, ok := find(es, n); ok {
					t.Errorf("%q: expanded with %+v", tc.query, e)
				}
			}
			if again := l.Expand(tc.query); !reflect.DeepEqual(again, es) {
				t.Fatalf("%q: a second expansion differs", tc.query)
			}
		})
	}
	if n := len(l.Expand("Which cities has Jon visited?")); n != MaxExpansions {
		t.Fatalf("cities: %d expansions, want the cap %d", n, MaxExpansions)
	}
	p := DefaultParams
	p.MaxExpansions = 1 << 20
	all, err := NewWith(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all.Expand("Which cities has Jon visited?")); n != 1443 {
		t.Fatalf("cities, uncapped: %d expansions, want 1443", n)
	}
	// Of equal weight, the words people use most come first: the cap keeps them.
	p.MaxExpansions = 10
	l10, err := NewWith(p)
	if err != nil {
		t.Fatal(err)
	}
	var first []string
	for _, e := range l10.Expand("Which cities has Jon visited?") {
		first = append(first, e.Text)
	}
	if want := []string{"new york", "chicago", "dallas", "los angeles", "san francisco", "detroit", "philadelphia", "st. louis",
		"baltimore", "metropolis"}; !reflect.DeepEqual(first, want) {
		t.Fatalf("cities, at most 10: %q, want %q", first, want)
	}
}

// HypernymWeight is the weight a first sense's hypernym gets.
func HypernymWeight() float64 { return WHypernym }

func TestExpandWeighsSensesByUse(t *testing.T) {
	p := DefaultParams
	p.MaxExpansions = 1 << 20
	l, err := NewWith(p)
	if err != nil {
		t.Fatal(err)
	}
	// "state": its first sense is the political unit (hyponyms lead to the American states);
	// the rarely tagged senses weigh less.
	es := l.Expand("What states has Maria vacationed at?")
	or, ok := find(es, "oregon")
	if !ok || or.Relation != RelInstance || or.Of != "state" || or.Weight != Decay {
		t.Fatalf("oregon = %+v (%v), want an instance two levels under the first sense of state, weight %v", or, ok, Decay)
	}
	p.MinSense = 1 // first senses only
	l1, err := NewWith(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(l1.Expand("What states has Maria vacationed at?")) >= len(es) {
		t.Fatal("leaving out the less used senses left as many expansions")
	}
}

func TestDecodeRefusesCorruptTables(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":       nil,
		"other magic": []byte("something else\n"),
		"truncated":   table[:len(table)/2],
		"trailing":    append(append([]byte(nil), table...), 0),
		"no checksum": []byte(magic),
	} {
		if _, err := decode(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := decode(table); err != nil {
		t.Fatal(err)
	}
}

// TestTableSize holds the embedded table to its budget: at most 15 MB in the binary and 50 MB
// decoded.
func TestTableSize(t *testing.T) {
	if len(table) > 15<<20 {
		t.Fatalf("wordnet.tbl is %d bytes, over 15 MB", len(table))
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, err := decode(table)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(w)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("table %d bytes, decoded %d bytes of heap", len(table), grew)
	if grew > 50<<20 {
		t.Fatalf("decoded table holds %d bytes, over 50 MB", grew)
	}
	if n := len(w.lemOff) - 1; n != 117798 {
		t.Fatalf("%d noun lemmas, want WordNet 3.0's 117798", n)
	}
	if n := len(w.lexfile); n != 82115 {
		t.Fatalf("%d noun synsets, want WordNet 3.0's 82115", n)
	}
	if got := w.verbBase["went"]; !slices.Contains(got, "go") || !slices.Contains(w.verbForms["go"], "went") {
		t.Fatalf("went: bases %q, want go among them", got)
	}
}

// TestTableIsWhatTheDatabaseDerives runs the generator in check mode when the database is
// installed (CI installs it; go generate ./... rewrites the table from it).
func TestTableIsWhatTheDatabaseDerives(t *testing.T) {
	dir := os.Getenv("WNSEARCHDIR")
	if dir == "" {
		dir = "/usr/share/wordnet"
	}
	if _, err := os.Stat(dir + "/data.noun"); err != nil {
		t.Skipf("no WordNet database at %s", dir)
	}
	if testing.Short() {
		t.Skip("derives the table from the database")
	}
	out, err := runGenerator(dir)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

func BenchmarkExpand(b *testing.B) {
	l := lex(b)
	qs := []string{"What martial arts has John done?", "Which cities has Jon visited?", "What did Melanie paint recently?",
		"How long has Caroline had her current group of friends for?"}
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		l.Expand(qs[i%len(qs)])
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// TestInflections: the irregular forms of a query's words, which stemming cannot reach, come
// first, at WInflection; stop words and names have none.
func TestInflections(t *testing.T) {
	l := lex(t)
	for _, tc := range []struct {
		text string
		want []string // the inflections, in any order
	}{
		{"How did Melanie feel while watching the meteor shower?", []string{"felt"}},
		{"I felt tiny", []string{"feel"}},
		{"What did Melanie buy?", []string{"bought"}},
		{"Where did Caroline go?", []string{"goes", "gone", "went"}},
		{"How many children does Melanie have?", []string{"child"}},
		{"a child", []string{"children"}},
		{"What has Melanie made?", []string{"make"}},
		// "did" and "has" are stop words; "Rose" is a name, not the past of "rise".
		{"What did Rose do?", nil},
		{"Which cities has Jon visited?", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			var got []string
			for _, e := range l.Expand(tc.text) {
				if e.Relation != RelInflection {
					continue
				}
				if e.Weight != WInflection {
					t.Fatalf("%q weighs %v, want %v", e.Text, e.Weight, WInflection)
				}
				got = append(got, e.Text)
			}
			slices.Sort(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("inflections %q, want %q", got, tc.want)
			}
			es := l.Expand(tc.text)
			for i, e := range es[:len(got)] {
				if e.Relation != RelInflection {
					t.Fatalf("expansion %d is %+v: the inflections come first", i, e)
				}
			}
		})
	}
	p := DefaultParams
	p.WInflection = 0
	off, err := NewWith(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := find(off.Expand("What did Melanie buy?"), "bought"); ok {
		t.Fatal("an inflection at WInflection = 0")
	}
}

// BenchmarkInflections is the irregular forms' share of Expand.
func BenchmarkInflections(b *testing.B) {
	l := lex(b)
	qs := []string{"What martial arts has John done?", "Which cities has Jon visited?", "What did Melanie paint recently?",
		"How did Melanie feel while watching the meteor shower?"}
	toks := make([][]token, len(qs))
	for i, q := range qs {
		toks[i] = tokenize(q)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		l.inflections(toks[i%len(toks)])
	}
}
