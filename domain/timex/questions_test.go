package timex

import (
	"math"
	"testing"
	"time"
)

func TestAbsoluteMoreStyles(t *testing.T) {
	tests := []struct {
		text  string
		want  []string
		grain []Grain
	}{
		// Day first and month first: a date that reads both ways names both days.
		{"What happened on 03/06/2023?", []string{"2023-06-03", "2023-03-06"}, []Grain{Day, Day}},
		{"What happened on 14.03.2022?", []string{"2022-03-14"}, []Grain{Day}},
		{"What happened on 3/14/2022?", []string{"2022-03-14"}, []Grain{Day}},
		{"What happened on 2022/03/14?", []string{"2022-03-14"}, []Grain{Day}},
		{"Where was Ana in the spring of 2022?", []string{"2022-03/2022-05"}, []Grain{Season}},
		{"winter 2021 was cold", []string{"2021-12/2022-02"}, []Grain{Season}},
		{"What did Ben cook on the 2nd of April?", []string{"--04-02"}, []Grain{AnyYearDay}},
		{"What did Ben cook on April 2nd?", []string{"--04-02"}, []Grain{AnyYearDay}},
		{"on February 29th", []string{"--02-29"}, []Grain{AnyYearDay}},
		{"on 31 April", nil, nil},
		{"Which year did Ana visit Kyoto?", nil, nil},
		{"Tuesday, June 6, 2023", []string{"2023-06-06"}, []Grain{Day}},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			got := Absolute(tc.text)
			if len(got) != len(tc.want) {
				t.Fatalf("Absolute(%q) = %+v, want %v", tc.text, got, tc.want)
			}
			for i, w := range got {
				if w.Value() != tc.want[i] || w.Grain != tc.grain[i] {
					t.Fatalf("window %d = %s %s, want %s %s", i, w.Value(), w.Grain, tc.want[i], tc.grain[i])
				}
			}
		})
	}
	// A day of any year contains that day of every year, and is near the days around it.
	w := Absolute("on April 2nd")[0]
	if !w.Contains(day(2019, 4, 2).Add(5*time.Hour)) || w.Contains(day(2019, 4, 3)) {
		t.Fatal("April 2nd of any year")
	}
	if got := w.Near(day(2024, 4, 3).Add(12*time.Hour), 48*time.Hour); got != 0.75 {
		t.Fatalf("near the day after = %v, want 0.75", got)
	}
}

func TestAsks(t *testing.T) {
	tests := []struct {
		text          string
		when          bool
		order, anchor string
	}{
		{"When did Ana start learning the cello?", true, "", ""},
		{"How long has Ben lived in Lisbon?", true, "", ""},
		{"Which year did Ana visit Kyoto?", true, "", ""},
		{"In what year did they marry?", true, "", ""},
		{"How many times has Ben run a marathon?", true, "", ""},
		{"How often does Ana swim?", true, "", ""},
		{"What did Ben do after the marathon?", false, "after", "the marathon"},
		{"What did Ana do before moving to Porto?", false, "before", "moving to Porto"},
		{"When did Melanie go on a hike after the roadtrip?", true, "after", "the roadtrip"},
		{"What has Ana done since she moved?", false, "after", "she moved"},
		{"What has Ana done since 2019?", false, "", ""}, // a window, not an event
		{"What did Ana cook?", false, "", ""},
	}
	for _, tc := range tests {
		got := Asks(tc.text)
		if got.When != tc.when || got.Order != tc.order || got.Anchor != tc.anchor {
			t.Errorf("Asks(%q) = %+v, want when %v order %q anchor %q", tc.text, got, tc.when, tc.order, tc.anchor)
		}
	}
}

func TestSaysWhen(t *testing.T) {
	for text, want := range map[string]bool{
		"I've known these friends for 4 years":       true,
		"we went camping two weekends ago":           true,
		"I painted that lake sunrise last year!":     true,
		"my birthday is in March":                    true,
		"we met on 03/06/2021":                       true,
		"since moving here it has been great":        true,
		"I swim twice a week":                        true,
		"I love painting landscapes":                 false,
		"Thanks, that means a lot to me":             false,
		"The recent weather has been strange indeed": false,
	} {
		if got := SaysWhen(text); got != want {
			t.Errorf("SaysWhen(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestEventsAndOverlap(t *testing.T) {
	said := time.Date(2023, 6, 4, 13, 0, 0, 0, time.UTC)
	ev := Events("We went to the lake yesterday, on 1 June, 2023 we packed", said)
	if len(ev) != 2 || ev[0].Value() != "2023-06-01" || ev[1].Value() != "2023-06-03" || !ev[1].Relative {
		t.Fatalf("Events = %+v", ev)
	}
	june3 := Absolute("on 3 June, 2023")[0]
	week := 7 * 24 * time.Hour
	if got := Overlap(june3, ev[1], week); got != 1 {
		t.Fatalf("the same day: %v", got)
	}
	if got := Overlap(june3, ev[0], week); math.Abs(got-(1-1.0/7)) > 1e-12 {
		t.Fatalf("a day apart: %v, want %v", got, 1-1.0/7)
	}
	if got := Overlap(Absolute("in June")[0], ev[0], week); got != 1 {
		t.Fatalf("June of any year: %v", got)
	}
	if got := Overlap(june3, Absolute("in 2021")[0], week); got != 0 {
		t.Fatalf("two years apart: %v", got)
	}
}
