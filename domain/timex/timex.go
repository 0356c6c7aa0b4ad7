// Package timex finds time expressions in text: absolute ones ("on 3 June, 2023", "October 13,
// 2023", "in July 2023", "in 2022", "in June") and relative ones ("yesterday", "last week",
// "last Friday", "two weeks ago"), which resolve against the time the text was written.
// Search uses the absolute ones a query names as time cues; the dates analyser records both
// kinds as facets.
package timex

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Grain is how precise a window is.
type Grain string

const (
	Day   Grain = "day"
	Week  Grain = "week"
	Month Grain = "month"
	Year  Grain = "year"
	// AnyYearMonth is a month named without a year ("in June"): the window is that month of any
	// year.
	AnyYearMonth Grain = "month-of-any-year"
	// AnyYearDay is a day named without a year ("on June 3rd"): that day of any year.
	AnyYearDay Grain = "day-of-any-year"
	// Season is three months: spring March–May, summer June–August, autumn (fall)
	// September–November, winter December–February (the northern hemisphere's).
	Season Grain = "season"
)

// Window is a span of time an expression names: [From, To).
type Window struct {
	From, To time.Time
	Grain    Grain
	// Text is the expression as written.
	Text string
	// Relative reports whether the window was resolved against a reference time.
	Relative bool
}

// Contains reports whether t falls in the window.
func (w Window) Contains(t time.Time) bool {
	switch w.Grain {
	case AnyYearMonth:
		return t.UTC().Month() == w.From.Month()
	case AnyYearDay:
		return t.UTC().Month() == w.From.Month() && t.UTC().Day() == w.From.Day()
	}
	return !t.Before(w.From) && t.Before(w.To)
}

// Near is 1 inside the window and falls linearly to 0 at slack outside it.
func (w Window) Near(t time.Time, slack time.Duration) float64 {
	if w.Contains(t) {
		return 1
	}
	if w.Grain == AnyYearDay && slack > 0 {
		// The same day of t's year, or of the years either side.
		best := 0.0
		for _, y := range []int{t.Year() - 1, t.Year(), t.Year() + 1} {
			d := time.Date(y, w.From.Month(), w.From.Day(), 0, 0, 0, 0, time.UTC)
			best = max(best, Window{From: d, To: d.AddDate(0, 0, 1), Grain: Day}.Near(t, slack))
		}
		return best
	}
	if w.Grain == AnyYearMonth || slack <= 0 {
		return 0
	}
	var d time.Duration
	if t.Before(w.From) {
		d = w.From.Sub(t)
	} else {
		d = t.Sub(w.To)
	}
	if d >= slack {
		return 0
	}
	return 1 - float64(d)/float64(slack)
}

// Value renders the window as a facet value: 2023-06-03, 2023-W22, 2023-06, 2023, or --06.
func (w Window) Value() string {
	switch w.Grain {
	case Day:
		return w.From.Format("2006-01-02")
	case Week:
		y, wk := w.From.ISOWeek()
		return strconv.Itoa(y) + "-W" + pad2(wk)
	case Month:
		return w.From.Format("2006-01")
	case Year:
		return w.From.Format("2006")
	case AnyYearMonth:
		return "--" + pad2(int(w.From.Month()))
	case AnyYearDay:
		return "--" + pad2(int(w.From.Month())) + "-" + pad2(w.From.Day())
	case Season:
		return w.From.Format("2006-01") + "/" + w.To.AddDate(0, -1, 0).Format("2006-01")
	}
	return w.From.Format(time.RFC3339)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		n := strings.ToLower(m.String())
		months[n] = m
		months[n[:3]] = m
	}
	months["sept"] = time.September
}

const monthRe = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	reDMY      = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `,?\s+(\d{4})\b`)
	reMDY      = regexp.MustCompile(`(?i)\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	reISO      = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	reMY       = regexp.MustCompile(`(?i)\b` + monthRe + `,?\s+(\d{4})\b`)
	reNumeric  = regexp.MustCompile(`\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b`)
	reYMD      = regexp.MustCompile(`\b(\d{4})/(\d{1,2})/(\d{1,2})\b`)
	reDayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `\b`)
	reMonthDay = regexp.MustCompile(`(?i)\b` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	reSeason   = regexp.MustCompile(`(?i)\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d{2})\b`)
	reMonth    = regexp.MustCompile(`(?i)\b(in|during|since|of|last|this|early|late|mid|next)\s+` + monthRe + `\b`)
	reYear     = regexp.MustCompile(`(?i)\b(?:in|during|since|of|from|by)\s+((?:19|20)\d{2})\b`)
	reRelDay   = regexp.MustCompile(`(?i)\b(yesterday|today|tonight|tomorrow|last night)\b`)
	reRelUnit  = regexp.MustCompile(`(?i)\b(last|this|next|past)\s+(week|weekend|month|year)\b`)
	reAgo      = regexp.MustCompile(`(?i)\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|couple of|a couple of|\d+)\s+(day|week|month|year)s?\s+ago\b`)
	reWeekday  = regexp.MustCompile(`(?i)\b(last|this|next|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b`)
	numberWord = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "couple of": 2, "a couple of": 2}
	weekdays = map[string]time.Weekday{"monday": time.Monday, "mon": time.Monday, "tuesday": time.Tuesday, "tue": time.Tuesday,
		"tues": time.Tuesday, "wednesday": time.Wednesday, "wed": time.Wednesday, "thursday": time.Thursday, "thu": time.Thursday,
		"thur": time.Thursday, "thurs": time.Thursday, "friday": time.Friday, "fri": time.Friday, "saturday": time.Saturday,
		"sat": time.Saturday, "sunday": time.Sunday, "sun": time.Sunday}
)

func dayWindow(t time.Time, text string, rel bool) Window {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return Window{From: d, To: d.AddDate(0, 0, 1), Grain: Day, Text: text, Relative: rel}
}

// Absolute finds the absolute time expressions of text, most precise first within each span.
func Absolute(text string) []Window { return absolute(text, scan(text)) }

// absolute is Absolute of a text that holds n (scan): only the expressions it may hold are run.
func absolute(text string, n need) []Window {
	if n&(hasDigit|hasMonth) == 0 {
		return nil
	}
	var out []Window
	rest := text
	// Each expression's matches are blanked out of what the next ones read, so that a span is
	// read once, at its most precise.
	find := func(re *regexp.Regexp, needs need) [][]string {
		if n&needs == 0 {
			return nil
		}
		ms := re.FindAllStringSubmatch(rest, -1)
		if len(ms) > 0 {
			rest = re.ReplaceAllStringFunc(rest, func(s string) string { return strings.Repeat(" ", len(s)) })
		}
		return ms
	}
	// The last two read what is left, and blank nothing.
	match := func(re *regexp.Regexp, needs need) [][]string {
		if n&needs == 0 {
			return nil
		}
		return re.FindAllStringSubmatch(rest, -1)
	}
	day := func(y int, m time.Month, d int, txt string) {
		if d < 1 || d > 31 || m == 0 {
			return
		}
		t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d {
			return // 31 June and the like
		}
		out = append(out, dayWindow(t, txt, false))
	}
	for _, m := range find(reDMY, hasDigit) {
		d, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[3])
		day(y, months[strings.ToLower(m[2])], d, m[0])
	}
	for _, m := range find(reMDY, hasDigit) {
		d, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		day(y, months[strings.ToLower(m[1])], d, m[0])
	}
	for _, m := range find(reISO, hasDigit) {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if mo >= 1 && mo <= 12 {
			day(y, time.Month(mo), d, m[0])
		}
	}
	for _, m := range find(reYMD, hasDigit) {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if mo >= 1 && mo <= 12 {
			day(y, time.Month(mo), d, m[0])
		}
	}
	// 03/06/2023 is 3 June in most of the world and March 6 in the United States: a date that
	// reads both ways names both days.
	for _, m := range find(reNumeric, hasDigit) {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		y, _ := strconv.Atoi(m[3])
		if b >= 1 && b <= 12 {
			day(y, time.Month(b), a, m[0])
		}
		if a >= 1 && a <= 12 && a != b {
			day(y, time.Month(a), b, m[0])
		}
	}
	for _, m := range find(reSeason, hasDigit) {
		y, _ := strconv.Atoi(m[2])
		start := map[string]time.Month{"spring": time.March, "summer": time.June, "autumn": time.September,
			"fall": time.September, "winter": time.December}[strings.ToLower(m[1])]
		t := time.Date(y, start, 1, 0, 0, 0, 0, time.UTC)
		out = append(out, Window{From: t, To: t.AddDate(0, 3, 0), Grain: Season, Text: m[0]})
	}
	for _, m := range find(reMY, hasDigit) {
		y, _ := strconv.Atoi(m[2])
		t := time.Date(y, months[strings.ToLower(m[1])], 1, 0, 0, 0, 0, time.UTC)
		out = append(out, Window{From: t, To: t.AddDate(0, 1, 0), Grain: Month, Text: m[0]})
	}
	// A day and month without a year: "on June 3rd", "the 3rd of June".
	dayOfAnyYear := func(mo time.Month, d int, txt string) {
		if mo == 0 || d < 1 || d > 31 {
			return
		}
		t := time.Date(2000, mo, d, 0, 0, 0, 0, time.UTC) // 2000 is a leap year: 29 February is a day
		if t.Day() != d {
			return
		}
		out = append(out, Window{From: t, To: t.AddDate(0, 0, 1), Grain: AnyYearDay, Text: txt})
	}
	for _, m := range find(reDayMonth, hasDigit) {
		d, _ := strconv.Atoi(m[1])
		dayOfAnyYear(months[strings.ToLower(m[2])], d, m[0])
	}
	for _, m := range find(reMonthDay, hasDigit) {
		if strings.EqualFold(m[1], "may") {
			continue // "may 3 people come": mostly the verb
		}
		d, _ := strconv.Atoi(m[2])
		dayOfAnyYear(months[strings.ToLower(m[1])], d, m[0])
	}
	for _, m := range match(reMonth, hasMonth) {
		prep := strings.ToLower(m[1])
		if strings.EqualFold(m[2], "may") && prep != "in" && prep != "during" && prep != "since" {
			continue // "this may", "of may": mostly the verb
		}
		if prep == "last" || prep == "this" || prep == "next" {
			continue // relative to when it was said; see Relative
		}
		mo := months[strings.ToLower(m[2])]
		out = append(out, Window{From: time.Date(2000, mo, 1, 0, 0, 0, 0, time.UTC), Grain: AnyYearMonth, Text: m[0]})
	}
	for _, m := range match(reYear, hasDigit) {
		y, _ := strconv.Atoi(m[1])
		t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		out = append(out, Window{From: t, To: t.AddDate(1, 0, 0), Grain: Year, Text: m[0]})
	}
	return out
}

// Relative finds the relative time expressions of text and resolves them against ref, the time
// the text was written.
func Relative(text string, ref time.Time) []Window { return relative(text, ref, scan(text)) }

// relative is Relative of a text that holds n (scan).
func relative(text string, ref time.Time, n need) []Window {
	ref = ref.UTC()
	var out []Window
	find := func(re *regexp.Regexp, needs need) [][]string {
		if n&needs == 0 {
			return nil
		}
		return re.FindAllStringSubmatch(text, -1)
	}
	for _, m := range find(reRelDay, hasRelDay) {
		switch strings.ToLower(m[1]) {
		case "yesterday", "last night":
			out = append(out, dayWindow(ref.AddDate(0, 0, -1), m[0], true))
		case "today", "tonight":
			out = append(out, dayWindow(ref, m[0], true))
		case "tomorrow":
			out = append(out, dayWindow(ref.AddDate(0, 0, 1), m[0], true))
		}
	}
	for _, m := range find(reRelUnit, hasRelUnit) {
		shift := map[string]int{"last": -1, "past": -1, "this": 0, "next": 1}[strings.ToLower(m[1])]
		switch strings.ToLower(m[2]) {
		case "week":
			start := weekStart(ref).AddDate(0, 0, 7*shift)
			out = append(out, Window{From: start, To: start.AddDate(0, 0, 7), Grain: Week, Text: m[0], Relative: true})
		case "weekend":
			sat := weekStart(ref).AddDate(0, 0, 5+7*shift)
			out = append(out, Window{From: sat, To: sat.AddDate(0, 0, 2), Grain: Day, Text: m[0], Relative: true})
		case "month":
			start := time.Date(ref.Year(), ref.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, shift, 0)
			out = append(out, Window{From: start, To: start.AddDate(0, 1, 0), Grain: Month, Text: m[0], Relative: true})
		case "year":
			start := time.Date(ref.Year()+shift, 1, 1, 0, 0, 0, 0, time.UTC)
			out = append(out, Window{From: start, To: start.AddDate(1, 0, 0), Grain: Year, Text: m[0], Relative: true})
		}
	}
	for _, m := range find(reAgo, hasAgo) {
		n, ok := numberWord[strings.ToLower(m[1])]
		if !ok {
			n, _ = strconv.Atoi(m[1])
		}
		if n <= 0 || n > 1000 {
			continue
		}
		switch strings.ToLower(m[2]) {
		case "day":
			out = append(out, dayWindow(ref.AddDate(0, 0, -n), m[0], true))
		case "week":
			start := weekStart(ref).AddDate(0, 0, -7*n)
			out = append(out, Window{From: start, To: start.AddDate(0, 0, 7), Grain: Week, Text: m[0], Relative: true})
		case "month":
			start := time.Date(ref.Year(), ref.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -n, 0)
			out = append(out, Window{From: start, To: start.AddDate(0, 1, 0), Grain: Month, Text: m[0], Relative: true})
		case "year":
			start := time.Date(ref.Year()-n, 1, 1, 0, 0, 0, 0, time.UTC)
			out = append(out, Window{From: start, To: start.AddDate(1, 0, 0), Grain: Year, Text: m[0], Relative: true})
		}
	}
	for _, m := range find(reWeekday, hasWeekday) {
		wd := weekdays[strings.ToLower(m[2])]
		d := ref
		switch strings.ToLower(m[1]) {
		case "last", "on":
			// The most recent such day before ref.
			back := (int(ref.Weekday()) - int(wd) + 7) % 7
			if back == 0 {
				back = 7
			}
			d = ref.AddDate(0, 0, -back)
		case "next":
			fwd := (int(wd) - int(ref.Weekday()) + 7) % 7
			if fwd == 0 {
				fwd = 7
			}
			d = ref.AddDate(0, 0, fwd)
		case "this":
			d = weekStart(ref).AddDate(0, 0, (int(wd)+6)%7)
		}
		out = append(out, dayWindow(d, m[0], true))
	}
	return out
}

// weekStart is the Monday of t's week.
func weekStart(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}
