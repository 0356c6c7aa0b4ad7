package recall

import (
	"strings"
	"unicode"
)

// Questions asking for several things. "What activities has Melanie done?", "Which cities has
// Jon visited?", "How many children…", "Did Jon and Gina both…": the answer is a list, said at
// several times, so its parts lie in several episodes of a conversation; a question asking for
// one thing ("What did Melanie paint at the workshop?") is answered in one place. asksForMany
// tells them apart by the form of the question alone — no word of any conversation:
//
//   - "both", or "how many";
//   - "what kinds (types, sorts) of …";
//   - a plural category: the noun phrase after "what"/"which" (past "kind of") ends in a plural
//     noun and is followed by the question's auxiliary ("What European countries has…",
//     "What pets does…"), or follows "what are (were) [some|the] [X's]" ("What are some
//     changes…", "What are Melanie's pets' names");
//   - a present perfect, which asks over all of the past: the wh-question's auxiliary is "has"
//     or "have" ("What has Melanie painted?", "Where has Maria made friends?"), but not "have to".
//
// Plural is read from the word's form: an irregular plural of a short list, or an ending in "s"
// that is not "ss", "us" or "is".

// auxiliaries are the verbs a wh-question puts before its subject.
var auxiliaries = setOf(`has have had did does do is are was were will would can could should might may`)

// phraseEnds are the words that end a question's category phrase: auxiliaries, articles,
// prepositions, conjunctions and possessive pronouns.
var phraseEnds = setOf(`has have had did does do is are was were will would can could should might may be been being
	the a an to of in on at for with from by about as and or but that this these those his her their its my your our`)

var irregularPlurals = setOf(`children people men women feet teeth mice geese`)

// notPlural are words ending in "s" that are no plural.
var notPlural = setOf(`news series species this his its us yes always perhaps various`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func plural(w string) bool {
	if irregularPlurals[w] {
		return true
	}
	if notPlural[w] || len(w) < 4 {
		return false
	}
	return strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// questionWords splits text into words: lower case, and whether each was written with a capital.
func questionWords(text string) (words []string, capital []bool) {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		f = strings.TrimLeft(f, "'’")
		if f == "" {
			continue
		}
		words = append(words, strings.ToLower(f))
		capital = append(capital, unicode.IsUpper([]rune(f)[0]))
	}
	return words, capital
}

func possessive(w string) bool {
	return strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") || strings.HasSuffix(w, "'") || strings.HasSuffix(w, "’")
}

// asksForMany reports whether text asks for several things (see above).
func asksForMany(text string) bool {
	ws, capital := questionWords(text)
	for _, w := range ws {
		if w == "both" {
			return true
		}
	}
	for i, w := range ws {
		if w == "how" && i+1 < len(ws) && ws[i+1] == "many" {
			return true
		}
		if w != "what" && w != "which" && w != "where" && w != "who" && w != "whom" {
			continue
		}
		j := i + 1
		if w == "what" || w == "which" {
			if j < len(ws) && (ws[j] == "are" || ws[j] == "were") {
				// "What are some changes Caroline has…", "What are Melanie's pets' names?"
				j++
				if j < len(ws) && (ws[j] == "some" || ws[j] == "the" || ws[j] == "all") {
					j++
				}
				for j < len(ws) && possessive(ws[j]) {
					j++
				}
				head := ""
				for ; j < len(ws) && !phraseEnds[ws[j]] && !capital[j]; j++ {
					head = ws[j]
				}
				return plural(head)
			}
			if j+1 < len(ws) && ws[j+1] == "of" {
				switch ws[j] {
				case "kinds", "types", "sorts":
					return true
				case "kind", "type", "sort":
					j += 2
				}
			}
			k := j
			for k < len(ws) && !phraseEnds[ws[k]] {
				k++
			}
			if k > j && k < len(ws) && auxiliaries[ws[k]] && plural(strings.TrimRight(ws[k-1], "'’")) {
				return true
			}
			j = k
		}
		for j < len(ws) && !auxiliaries[ws[j]] {
			j++
		}
		return j < len(ws) && (ws[j] == "has" || ws[j] == "have") && !(j+1 < len(ws) && ws[j+1] == "to")
	}
	return false
}
