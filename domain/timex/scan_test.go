package timex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// texts are what the scan is checked on: the turns of the LoCoMo conversations when they are at
// hand, and texts written to reach every expression and the corners of the words.
func texts(t testing.TB) []string {
	out := []string{
		"", " ", "I went yesterday.", "YESTERDAY", "yesterday's party", "yesterdays", "x_yesterday", "yesterday2",
		"on 3 June, 2023", "03/06/2023", "2023-06-03", "2023/6/3", "the 3rd of June", "June 3rd", "in June", "Sept. 2021",
		"in the spring of 2022", "since 2019", "last Friday", "on Sat", "two weeks ago", "a couple of months ago",
		"3 days ago", "this weekend", "next month", "last night", "for a few years", "twice a week", "years old",
		"ſince", "last \u212aelvin", "It was lovely. Since then, I painted.", "naïve résumé today", "mañana tomorrow",
		"MARCH on", "may I come?", "I may come in May", "every day", "three times a year", "the 1990s", "20/20 vision",
		"previous summer", "coming Monday", "for 10 years", "for decades", "Yesterday… it rained", "today—tonight",
		"supercalifragilistic yesterday", "wednesdays", "sundays and Sunday", "x\u2009yesterday\u00a0y",
		"for    a   couple   of   decades", "for\ta\ncouple of weeks", "three  times a  week", "for a couple ofweeks",
		"this\tmonthly", "this month's", "years  old", "12/05/2023.", "1990s and 2001", "abc2023 def", "for 12345 days",
		"once a\nday", "every year-end", "in_june 2023", "the past  summer", "for many   months and for a few years",
	}
	files, _ := filepath.Glob("../../../shared/data/locomo/*.json")
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var conv map[string]any
		if err := json.Unmarshal(raw, &conv); err != nil {
			t.Fatal(err)
		}
		for k, v := range conv {
			if s, ok := v.(string); ok && strings.HasSuffix(k, "_date_time") {
				out = append(out, s)
			}
			turns, _ := v.([]any)
			for _, tu := range turns {
				if m, ok := tu.(map[string]any); ok {
					if s, ok := m["text"].(string); ok {
						out = append(out, s)
					}
				}
			}
		}
		qa, _ := conv["qa"].([]any)
		for _, q := range qa {
			if m, ok := q.(map[string]any); ok {
				if s, ok := m["question"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// sameAsEveryExpression checks that text reads the same with only the expressions its scan
// allows as with every expression run.
func sameAsEveryExpression(t *testing.T, text string) {
	t.Helper()
	ref := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	n := scan(text)
	if got, want := absolute(text, n), absolute(text, hasAll); !reflect.DeepEqual(got, want) {
		t.Fatalf("Absolute(%q) = %+v with the scan (%b), %+v with every expression", text, got, n, want)
	}
	if got, want := relative(text, ref, n), relative(text, ref, hasAll); !reflect.DeepEqual(got, want) {
		t.Fatalf("Relative(%q) = %+v with the scan (%b), %+v with every expression", text, got, n, want)
	}
	if got, want := saysWhenOf(text, n), reSaysWhen.MatchString(text); got != want {
		t.Fatalf("SaysWhen(%q) = %v with the scan (%b), %v with the expression", text, got, n, want)
	}
}

func TestScanRunsEveryExpressionThatCouldMatch(t *testing.T) {
	ts := texts(t)
	if len(ts) < 1000 {
		t.Logf("the LoCoMo conversations are not at hand: %d texts", len(ts))
	}
	found := 0
	for _, text := range ts {
		sameAsEveryExpression(t, text)
		if len(Events(text, time.Now())) > 0 || SaysWhen(text) {
			found++
		}
	}
	if found < 30 {
		t.Fatalf("only %d of %d texts say when: the check reads too little", found, len(ts))
	}
	// The scan does leave expressions out: what it is for.
	if n := scan("We painted together, and the kids loved it."); n&(hasDigit|hasMonth|hasRelDay|hasAgo|hasWeekday|saysWhen|maySayWhen) != 0 {
		t.Fatalf("scan of a text naming no time = %b", n)
	}
	if n := scan("x \u212a y"); n != hasAll {
		t.Fatalf("scan of a text with the Kelvin sign = %b, want every expression", n)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range texts(f)[:60] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { sameAsEveryExpression(t, text) })
}

// BenchmarkEvents reads the time expressions of every LoCoMo turn, as a search reads its
// candidates': with the scan, and with every expression run (the raw baseline).
func BenchmarkEvents(b *testing.B) {
	ts := texts(b)
	said := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	b.Run("scan", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			text := ts[i%len(ts)]
			Events(text, said)
			SaysWhen(text)
		}
	})
	b.Run("every-expression", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			text := ts[i%len(ts)]
			_ = append(absolute(text, hasAll), relative(text, said, hasAll)...)
			reSaysWhen.MatchString(text)
		}
	})
}
