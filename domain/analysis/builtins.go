package analysis

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/timex"
)

func builtinType(name, version string) domain.AnalysisType {
	return domain.AnalysisType{Name: name, Version: version, OutputType: "structured"}
}

// Persons finds the persons of an episode: its speakers, and mentions of them by name.
type Persons struct{}

func (Persons) Type() domain.AnalysisType { return builtinType("persons", "1") }

func (Persons) Analyse(_ context.Context, in *Input) (*Output, error) {
	var fs []Finding
	speakers := map[string]bool{}
	for _, e := range in.Entries {
		if e.Speaker != "" && !speakers[e.Speaker] {
			speakers[e.Speaker] = true
		}
	}
	names := make([]string, 0, len(speakers))
	for s := range speakers {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, e := range in.Entries {
		fs = append(fs, PersonsOf(e, names)...)
	}
	return &Output{Findings: merge(fs)}, nil
}

// PersonsOf returns the persons one entry names: its speaker (confidence 1, role speaker) and
// every name of known it mentions as a whole word (0.8, role mention), in the order of known.
// The persons analyser and the Synapse's PERSON rule both name persons this way.
func PersonsOf(e Entry, known []string) []Finding {
	var fs []Finding
	if e.Speaker != "" {
		fs = append(fs, Finding{Type: domain.FacetPerson, Value: e.Speaker, Confidence: 1, MemoryID: e.MemoryID,
			Metadata: map[string]any{"role": "speaker"}})
	}
	for _, n := range known {
		if n != "" && n != e.Speaker && mentions(e.Text, n) {
			fs = append(fs, Finding{Type: domain.FacetPerson, Value: n, Confidence: 0.8, MemoryID: e.MemoryID,
				Metadata: map[string]any{"role": "mention"}})
		}
	}
	return fs
}

// mentions reports whether text names name as a whole word.
func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(name)
		before := at == 0 || !isWordByte(text[at-1])
		after := end == len(text) || !isWordByte(text[end])
		if before && after {
			return true
		}
		i = at + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’\-]*`)

// notNames are capitalised words that are not proper nouns of their own.
var notNames = setOf(`I I'm I've I'd I'll Im Ive Hey Hi Hello Thanks Thank Wow Yes Yeah Yep No Nope Oh Ok Okay Sure Cool Great
	Awesome Amazing Nice Good Glad Sorry Congrats Congratulations Haha Lol Omg Hmm Well So And But Or The A An This That These
	Those It It's Its My Your Our Their We You He She They What When Where Why How Who Which Let's Lets Also Just Really
	Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September
	October November December Mon Tue Wed Thu Fri Sat Sun Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mr Mrs Ms Dr
	Today Tomorrow Yesterday Love Bye Take Keep Can Could Would Should Will Did Do Does Have Has Had Is Are Was Were Be
	Here There Not If Then Now Maybe Definitely Absolutely Totally Sounds Looks Seems Wishing Good Best Happy Anyway Btw`)

func setOf(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// Entities finds proper nouns that are not the episode's persons.
type Entities struct{}

func (Entities) Type() domain.AnalysisType { return builtinType("entities", "1") }

func (Entities) Analyse(_ context.Context, in *Input) (*Output, error) {
	persons := map[string]bool{}
	for _, e := range in.Entries {
		if e.Speaker != "" {
			persons[e.Speaker] = true
		}
	}
	counts := map[string]int{}
	first := map[string]string{}
	var order []string
	for _, e := range in.Entries {
		for _, ent := range properNouns(e.Text) {
			if persons[ent] {
				continue
			}
			if _, ok := counts[ent]; !ok {
				order = append(order, ent)
				first[ent] = e.MemoryID
			}
			counts[ent]++
		}
	}
	var fs []Finding
	for _, ent := range order {
		fs = append(fs, Finding{Type: domain.FacetEntity, Value: ent, Confidence: min(1, 0.5+0.1*float64(counts[ent])),
			MemoryID: first[ent], Metadata: map[string]any{"mentions": counts[ent]}})
	}
	return &Output{Findings: fs}, nil
}

// properNouns returns runs of capitalised words (up to three) that do not merely open a sentence.
func properNouns(text string) []string {
	var out []string
	for _, sentence := range splitSentences(text) {
		locs := wordRE.FindAllStringIndex(sentence, -1)
		words := make([]string, len(locs))
		capital := make([]bool, len(locs))
		for i, loc := range locs {
			w := strings.TrimRight(sentence[loc[0]:loc[1]], "'’-")
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			r := []rune(w)
			words[i] = w
			capital[i] = len(r) > 1 && unicode.IsUpper(r[0]) && !notNames[w]
		}
		for i := 0; i < len(words); {
			if !capital[i] {
				i++
				continue
			}
			j := i
			for j+1 < len(words) && j-i < 2 && capital[j+1] && onlySpaces(sentence[locs[j][1]:locs[j+1][0]]) {
				j++
			}
			// A single capitalised word opening a sentence is usually just the sentence's start.
			if !(i == 0 && j == i) {
				out = append(out, strings.Join(words[i:j+1], " "))
			}
			i = j + 1
		}
	}
	return out
}

func onlySpaces(s string) bool { return strings.TrimSpace(s) == "" && len(s) <= 2 }

var sentenceRE = regexp.MustCompile(`[^.!?\n]+[.!?]*`)

func splitSentences(text string) []string {
	var out []string
	for _, s := range sentenceRE.FindAllString(text, -1) {
		s = strings.TrimLeft(s, " \t\"'“‘(-–—")
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// stopWords are left out of topics.
var stopWords = setOf(`a about above after again against all also am an and any are aren't as at be because been before being
	below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for
	from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how
	how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on
	once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should shouldn't so some such
	than that that's the their theirs them themselves then there there's these they they'd they'll they're they've this those
	through to too under until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's
	which while who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself
	yourselves yeah yes yep wow hey hi hello thanks thank really just like love lot lots great awesome amazing cool nice good
	glad happy sure definitely totally super pretty much many get got getting go going gone went make made know think feel
	felt see saw look looking way thing things stuff something anything everything always never ever still even again one
	also well oh okay ok sounds seems looks way time day will can could would should might must may shall let lets let's
	it's that's what's im ive youre dont cant wont didnt doesnt isnt arent wasnt werent gonna wanna gotta kinda`)

// Topics finds an episode's most frequent content words.
type Topics struct{}

func (Topics) Type() domain.AnalysisType { return builtinType("topics", "1") }

// MaxTopics is the number of topics kept per episode.
const MaxTopics = 8

func (Topics) Analyse(_ context.Context, in *Input) (*Output, error) {
	counts := map[string]int{}
	first := map[string]string{}
	for _, e := range in.Entries {
		for _, w := range wordRE.FindAllString(e.Text, -1) {
			t := topicTerm(w)
			if t == "" {
				continue
			}
			if _, ok := counts[t]; !ok {
				first[t] = e.MemoryID
			}
			counts[t]++
		}
	}
	terms := make([]string, 0, len(counts))
	for t, n := range counts {
		if n >= 2 || len(in.Entries) <= 2 {
			terms = append(terms, t)
		}
	}
	sort.Slice(terms, func(i, j int) bool {
		if counts[terms[i]] != counts[terms[j]] {
			return counts[terms[i]] > counts[terms[j]]
		}
		return terms[i] < terms[j]
	})
	if len(terms) > MaxTopics {
		terms = terms[:MaxTopics]
	}
	var fs []Finding
	for _, t := range terms {
		fs = append(fs, Finding{Type: domain.FacetTopic, Value: t, Confidence: float64(counts[t]) / float64(counts[terms[0]]),
			MemoryID: first[t], Metadata: map[string]any{"count": counts[t]}})
	}
	return &Output{Findings: fs}, nil
}

// topicTerm normalises a word for topics: lower case, a plain plural "s" dropped; "" for stop
// words, numbers and short words.
func topicTerm(w string) string {
	t := strings.ToLower(strings.Trim(w, "'’-"))
	t = strings.ReplaceAll(t, "’", "'")
	if len(t) < 4 || stopWords[t] {
		return ""
	}
	if strings.IndexFunc(t, unicode.IsLetter) < 0 {
		return ""
	}
	if strings.HasSuffix(t, "'s") {
		t = t[:len(t)-2]
	}
	if strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") && !strings.HasSuffix(t, "us") && !strings.HasSuffix(t, "is") && len(t) >= 4 {
		t = t[:len(t)-1]
	}
	if stopWords[t] {
		return ""
	}
	return t
}

var (
	fileRE = regexp.MustCompile(`(?:^|[\s"'(\[<` + "`" + `])((?:~|\.{1,2})?/?(?:[\w.\-]+/)*[\w\-]+\.(?:go|py|js|ts|tsx|jsx|mjs|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|m|md|txt|json|yaml|yml|toml|ini|cfg|conf|sql|sh|bash|zsh|html|css|scss|xml|csv|proto|graphqls|graphql|lock|mod|sum|env|dockerfile|log|pdf|png|jpg|jpeg|gif|svg))\b`)
	pathRE = regexp.MustCompile(`(?:^|[\s"'(\[<` + "`" + `])((?:~|\.{1,2})?/(?:[\w.\-]+/)+[\w.\-]*)`)
)

// FileReferences finds file paths and names.
type FileReferences struct{}

func (FileReferences) Type() domain.AnalysisType { return builtinType("file_references", "1") }

func (FileReferences) Analyse(_ context.Context, in *Input) (*Output, error) {
	var fs []Finding
	for _, e := range in.Entries {
		seen := map[string]bool{}
		for _, m := range fileRE.FindAllStringSubmatch(e.Text, -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			seen[m[1]] = true
			fs = append(fs, Finding{Type: domain.FacetFileReference, Value: m[1], Confidence: 1, MemoryID: e.MemoryID,
				Metadata: map[string]any{}})
		}
		for _, m := range pathRE.FindAllStringSubmatch(e.Text, -1) {
			p := m[1]
			if seen[p] || strings.HasPrefix(p, "//") {
				continue
			}
			covered := false
			for s := range seen {
				if strings.HasPrefix(s, p) {
					covered = true
				}
			}
			if !covered {
				fs = append(fs, Finding{Type: domain.FacetFileReference, Value: p, Confidence: 0.7, MemoryID: e.MemoryID,
					Metadata: map[string]any{}})
			}
		}
	}
	return &Output{Findings: merge(fs)}, nil
}

// Dates finds time expressions.
type Dates struct{}

func (Dates) Type() domain.AnalysisType { return builtinType("dates", "1") }

func (Dates) Analyse(_ context.Context, in *Input) (*Output, error) {
	var fs []Finding
	for _, e := range in.Entries {
		for _, w := range timex.Absolute(e.Text) {
			fs = append(fs, Finding{Type: domain.FacetDate, Value: w.Value(), Confidence: 0.9, MemoryID: e.MemoryID,
				Metadata: map[string]any{"text": w.Text, "grain": string(w.Grain)}})
		}
		if e.Time.IsZero() {
			continue
		}
		for _, w := range timex.Relative(e.Text, e.Time) {
			fs = append(fs, Finding{Type: domain.FacetDate, Value: w.Value(), Confidence: 0.7, MemoryID: e.MemoryID,
				Metadata: map[string]any{"text": w.Text, "grain": string(w.Grain), "relative": true}})
		}
	}
	return &Output{Findings: merge(fs)}, nil
}
