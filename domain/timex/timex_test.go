package timex

import (
	"testing"
	"time"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestAbsolute(t *testing.T) {
	tests := []struct {
		text  string
		want  []string // values
		grain []Grain
	}{
		{"What did Maria plan on 7 July, 2023?", []string{"2023-07-07"}, []Grain{Day}},
		{"What painting did Melanie show on October 13, 2023?", []string{"2023-10-13"}, []Grain{Day}},
		{"deadline 2024-02-29 and 2023-02-29", []string{"2024-02-29"}, []Grain{Day}},
		{"the 3rd of June 2023", []string{"2023-06-03"}, []Grain{Day}},
		{"What did John attend in March 2023?", []string{"2023-03"}, []Grain{Month}},
		{"How many times at the beach in 2023?", []string{"2023"}, []Grain{Year}},
		{"When did Melanie go camping in June?", []string{"--06"}, []Grain{AnyYearMonth}},
		{"You may go. I may come in may", []string{"--05"}, []Grain{AnyYearMonth}},
		{"31 June, 2023 is no day", nil, nil},
		{"nothing here at all", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			got := Absolute(tc.text)
			if len(got) != len(tc.want) {
				t.Fatalf("Absolute(%q) = %+v, want %v", tc.text, got, tc.want)
			}
			for i, w := range got {
				if w.Value() != tc.want[i] || w.Grain != tc.grain[i] || w.Relative {
					t.Fatalf("window %d = %s %s, want %s %s", i, w.Value(), w.Grain, tc.want[i], tc.grain[i])
				}
			}
		})
	}
}

func TestRelative(t *testing.T) {
	ref := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC) // a Monday
	tests := []struct {
		text string
		want string
	}{
		{"I went to a support group yesterday", "2023-05-07"},
		{"we went last week", "2023-W18"},
		{"last Friday I went to a workshop", "2023-05-05"},
		{"two weeks ago we went camping", "2023-W17"},
		{"last year we saw the meteor shower", "2022"},
		{"next month there is a conference", "2023-06"},
		{"3 days ago", "2023-05-05"},
	}
	for _, tc := range tests {
		got := Relative(tc.text, ref)
		if len(got) != 1 || got[0].Value() != tc.want || !got[0].Relative {
			t.Fatalf("Relative(%q) = %+v, want %s", tc.text, got, tc.want)
		}
	}
}

func TestNear(t *testing.T) {
	w := Absolute("on 8 May, 2023")[0]
	slack := 7 * 24 * time.Hour
	if got := w.Near(day(2023, 5, 8).Add(13*time.Hour), slack); got != 1 {
		t.Fatalf("inside = %v, want 1", got)
	}
	if got := w.Near(day(2023, 5, 12), slack); !(got > 0.4 && got < 0.6) {
		t.Fatalf("half a week after = %v, want about 0.5", got)
	}
	if got := w.Near(day(2023, 6, 1), slack); got != 0 {
		t.Fatalf("weeks after = %v, want 0", got)
	}
	m := Absolute("in June")[0]
	if m.Near(day(2021, 6, 30), slack) != 1 || m.Near(day(2021, 7, 1), slack) != 0 {
		t.Fatal("a month of any year matches that month of every year, nothing else")
	}
}
