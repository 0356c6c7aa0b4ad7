package timex

import (
	"regexp"
	"strings"
	"time"
)

// Question is what a text asks about time, beside the windows it names.
type Question struct {
	// When: the text asks for a time, a date, a duration or a count of times ("when did",
	// "what year", "how long has", "how many times", "since when"): the memories that say when
	// are the ones that answer it.
	When bool
	// Order is "before" or "after" when the text asks what happened before or after something
	// ("after the road trip", "before she moved"); Anchor is that something, as written.
	Order, Anchor string
}

var (
	reAskWhen = regexp.MustCompile(`(?i)\b(when|what (?:date|day|time|year|month|age)|which (?:date|day|year|month)|in what (?:year|month)|` +
		`how long|how many (?:times|days|weeks|months|years)|how often|since when|at what age)\b`)
	reOrder = regexp.MustCompile(`(?i)\b(before|after|prior to|following|since)\s+(.+?)\s*(?:[?.!;]|$)`)
)

// Asks returns what text asks about time.
func Asks(text string) Question {
	var q Question
	q.When = reAskWhen.MatchString(text)
	if m := reOrder.FindStringSubmatch(text); m != nil {
		anchor := strings.TrimSpace(m[2])
		// "since 2019" and "before June" are windows, not events.
		if anchor != "" && len(Absolute(m[0])) == 0 {
			switch strings.ToLower(m[1]) {
			case "before", "prior to":
				q.Order = "before"
			default:
				q.Order = "after"
			}
			q.Anchor = anchor
		}
	}
	return q
}

// reSaysWhen matches the expressions by which a text says when something happened or how long
// it lasted: dates, months, years, weekdays, relative days and periods, durations.
var reSaysWhen = regexp.MustCompile(`(?i)\b(?:` +
	`yesterday|today|tonight|tomorrow|last night|recently|lately|ago|` +
	`(?:last|this|next|past|coming|previous)\s+(?:week|weekend|month|year|summer|winter|spring|autumn|fall|night|` +
	`monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)|` +
	`(?:january|february|march|april|june|july|august|september|october|november|december)|` +
	`(?:19|20)\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|` +
	`monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|` +
	`for\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|many|\d+)\s+(?:days?|weeks?|months?|years?|decades?)|` +
	`since|years?\s+old|(?:once|twice|three times|every)\s+(?:a\s+)?(?:day|week|month|year)` +
	`)\b`)

// SaysWhen reports whether text says when something happened, how long or how often.
func SaysWhen(text string) bool { return saysWhenOf(text, scan(text)) }

// saysWhenOf is SaysWhen of a text that holds n (scan): one of the expression's single words
// is enough; without any, what is left of the expression opens with a digit or a word of
// maySayWhen, and it is run on each such word and the few that follow it.
func saysWhenOf(text string, n need) bool {
	if n == hasAll {
		return reSaysWhen.MatchString(text)
	}
	if n&saysWhen != 0 {
		return true
	}
	if n&(hasDigit|maySayWhen) == 0 {
		return false
	}
	found := false
	eachWord(text, func(start, end int, w need, digit bool) bool {
		if w&maySayWhen == 0 && !digit {
			return true
		}
		// The longest of those expressions spans five words ("for a couple of days"). Words
		// start and end where \b does, so the expression reads the span as it reads the text.
		found = reSaysWhen.MatchString(text[start:wordsEnd(text, end, saysWhenWords-1)])
		return !found
	})
	return found
}

// saysWhenWords is how many words the longest expression of reSaysWhen after its single words
// spans.
const saysWhenWords = 5

// Events returns the windows text names, its relative expressions resolved against said, the time
// it was said: when what it tells happened, rather than when it was told.
func Events(text string, said time.Time) []Window {
	n := scan(text)
	return append(absolute(text, n), relative(text, said, n)...)
}

// Overlap is 1 when windows a and b share a moment, falling linearly to 0 as the gap between
// them grows to slack. A window of any year (a month or day named without one) is matched by
// the month or day of the other's start.
func Overlap(a, b Window, slack time.Duration) float64 {
	if a.Grain == AnyYearMonth || a.Grain == AnyYearDay {
		return a.Near(b.From, slack)
	}
	if b.Grain == AnyYearMonth || b.Grain == AnyYearDay {
		return b.Near(a.From, slack)
	}
	if a.From.Before(b.To) && b.From.Before(a.To) {
		return 1
	}
	gap := b.From.Sub(a.To)
	if a.From.After(b.From) {
		gap = a.From.Sub(b.To)
	}
	if slack <= 0 || gap >= slack {
		return 0
	}
	return 1 - float64(gap)/float64(slack)
}
