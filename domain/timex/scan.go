package timex

import "strings"

// A search reads the time expressions of every memory it ranks, and most memories hold none.
// One pass over a text's words tells which of the regular expressions could match it at all;
// only those run. The pass is exact, not a guess: every regular expression needs one of the
// words or a digit it looks for, so one that is not run would have found nothing.

// need is a set of what a text holds that a regular expression needs.
type need uint16

const (
	hasDigit   need = 1 << iota // any ASCII digit
	hasMonth                    // a month's name or abbreviation ("june", "jun", "sept", "may")
	hasRelDay                   // "yesterday", "today", "tonight", "tomorrow", "last" (night)
	hasRelUnit                  // "last", "this", "next", "past" (week, month, …)
	hasAgo                      // "ago"
	hasWeekday                  // a weekday's name or abbreviation
	saysWhen                    // a word that alone says when ("yesterday", "june", "since", …)
	maySayWhen                  // a word an expression saying when may open with ("for", "last", …)
	hasAll     need = 1<<iota - 1
)

// needOf is what each word (lower case) a regular expression looks for tells.
var needOf = map[string]need{}

func init() {
	add := func(n need, words string) {
		for _, w := range strings.Fields(words) {
			needOf[w] |= n
		}
	}
	add(hasMonth, "january february march april may june july august september october november december "+
		"jan feb mar apr jun jul aug sep sept oct nov dec")
	add(hasRelDay, "yesterday today tonight tomorrow last")
	add(hasRelUnit, "last this next past")
	add(hasAgo, "ago")
	add(hasWeekday, "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun")
	// reSaysWhen's alternatives: the single words are enough; the others need the regular
	// expression to read what follows them.
	add(saysWhen, "yesterday today tonight tomorrow recently lately ago since weekend "+
		"january february march april june july august september october november december "+
		"monday tuesday wednesday thursday friday saturday sunday")
	add(maySayWhen, "last this next past coming previous for year years once twice three every")
}

// scan returns what text holds of what the regular expressions need. Words are runs of ASCII
// letters, digits and underscores, as the expressions' \b reads them; case is folded as their
// (?i) does. Their (?i) also folds the Kelvin sign to "k" and the long s to "s": a text holding
// either may match in ways the words do not show, and every expression runs on it.
func scan(text string) need {
	var n need
	eachWord(text, func(_, _ int, w need, digit bool) bool {
		n |= w
		if digit {
			n |= hasDigit
		}
		return true
	})
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			if strings.Contains(text, "\u212a") || strings.Contains(text, "\u017f") {
				return hasAll
			}
			break
		}
	}
	return n
}

// eachWord calls f with each word of text in order — its span, what needOf says of it, whether
// it holds a digit — until f returns false.
func eachWord(text string, f func(start, end int, w need, digit bool) bool) {
	var buf [10]byte
	for i := 0; i < len(text); {
		if !isWord(text[i]) {
			i++
			continue
		}
		j, k, digit := i, 0, false
		for ; j < len(text) && isWord(text[j]); j++ {
			c := text[j]
			if c >= '0' && c <= '9' {
				digit = true
			}
			if k < len(buf) {
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[k] = c
			}
			k++
		}
		var w need
		if k <= len(buf) {
			w = needOf[string(buf[:k])]
		}
		if !f(i, j, w, digit) {
			return
		}
		i = j
	}
}

// wordsEnd returns where the k-th word of text from offset from ends, or where the last one does
// when there are fewer (from itself when there are none).
func wordsEnd(text string, from, k int) int {
	end := from
	for i := from; i < len(text) && k > 0; {
		if !isWord(text[i]) {
			i++
			continue
		}
		for i < len(text) && isWord(text[i]) {
			i++
		}
		end, k = i, k-1
	}
	return end
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
