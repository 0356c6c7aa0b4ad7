package analysis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var t0 = time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)

func input(lines ...string) *Input {
	in := &Input{Episode: &domain.Episode{ID: "e"}}
	for i, l := range lines {
		sp, text, _ := strings.Cut(l, ": ")
		in.Entries = append(in.Entries, Entry{MemoryID: fmt.Sprintf("m%d", i), Speaker: sp, Text: text, Time: t0})
	}
	return in
}

func findings(t *testing.T, a Analyser, in *Input) map[string]Finding {
	t.Helper()
	out, err := a.Analyse(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Finding{}
	for _, f := range out.Findings {
		m[f.Type+"|"+f.Value] = f
	}
	return m
}

func TestPersons(t *testing.T) {
	got := findings(t, Persons{}, input(
		"Caroline: Hey Mel! I went to a support group yesterday.",
		"Melanie: That's great, Caroline! Tell me more.",
		"Caroline: It was powerful."))
	c, m := got["person|Caroline"], got["person|Melanie"]
	if c.Confidence != 1 || c.Metadata["role"] != "speaker" || c.MemoryID != "m0" || c.Metadata["count"] != 3 {
		t.Fatalf("Caroline = %+v (spoke twice, mentioned once)", c)
	}
	if m.Confidence != 1 || len(got) != 2 {
		t.Fatalf("persons = %+v", got)
	}
}

func TestEntities(t *testing.T) {
	got := findings(t, Entities{}, input(
		"Caroline: My grandma gave me this necklace in Sweden. I read Becoming Nicole by Amy Ellis Nutt.",
		"Melanie: I would love to see Sweden, Caroline. Thanks for telling me on Monday."))
	for _, want := range []string{"entity|Sweden", "entity|Becoming Nicole", "entity|Amy Ellis Nutt"} {
		if _, ok := got[want]; !ok {
			t.Fatalf("entities = %v, want %s", keys(got), want)
		}
	}
	for _, not := range []string{"entity|Caroline", "entity|Monday", "entity|My", "entity|Thanks", "entity|I"} {
		if _, ok := got[not]; ok {
			t.Fatalf("entities = %v, should not hold %s", keys(got), not)
		}
	}
	if s := got["entity|Sweden"]; s.Confidence != 0.7 {
		t.Fatalf("Sweden mentioned twice: confidence %v, want 0.7", s.Confidence)
	}
}

func keys(m map[string]Finding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestTopics(t *testing.T) {
	got := findings(t, Topics{}, input(
		"Melanie: We went camping with the kids. Camping is our favourite.",
		"Caroline: Camping sounds fun! Did the kids like the campfire?",
		"Melanie: The kids loved roasting marshmallows."))
	camp, kid := got["topic|camping"], got["topic|kid"]
	if camp.Confidence != 1 || kid.Confidence != 1 {
		t.Fatalf("topics = %+v", got)
	}
	if _, ok := got["topic|the"]; ok {
		t.Fatal("a stop word became a topic")
	}
}

func TestFileReferences(t *testing.T) {
	got := findings(t, FileReferences{}, input(
		"user: the build fails in graph/ingest.go and cmd/totalrecall/main.go, see /var/log/app/ for logs",
		"assistant: fixed graph/ingest.go; https://example.com/x.go is not a file here"))
	for _, want := range []string{"file_reference|graph/ingest.go", "file_reference|cmd/totalrecall/main.go", "file_reference|/var/log/app/"} {
		if _, ok := got[want]; !ok {
			t.Fatalf("file references = %v, want %s", keys(got), want)
		}
	}
	if f := got["file_reference|graph/ingest.go"]; f.Metadata["count"] != 2 || f.Confidence != 1 {
		t.Fatalf("graph/ingest.go = %+v", f)
	}
	if got["file_reference|/var/log/app/"].Confidence != 0.7 {
		t.Fatal("a bare path has confidence 0.7")
	}
	for k := range got {
		if strings.Contains(k, "example.com") {
			t.Fatalf("a URL became a file reference: %s", k)
		}
	}
}

func TestDates(t *testing.T) {
	got := findings(t, Dates{}, input("Caroline: I went to a support group yesterday; the conference is on 15 July, 2023."))
	if f, ok := got["date|2023-05-07"]; !ok || f.Confidence != 0.7 || f.Metadata["relative"] != true {
		t.Fatalf("dates = %v", got)
	}
	if f, ok := got["date|2023-07-15"]; !ok || f.Confidence != 0.9 {
		t.Fatalf("dates = %v", got)
	}
}

type fakeChat struct {
	reply string
	err   error
	seen  []domain.ChatMessage
}

func (f *fakeChat) Complete(_ context.Context, m []domain.ChatMessage) (string, error) {
	f.seen = m
	return f.reply, f.err
}
func (f *fakeChat) Model() string { return "fake-1" }

func TestLLM(t *testing.T) {
	chat := &fakeChat{reply: "Sure!\n```json\n{\"summary\": \"They talk about camping.\", \"facets\": [{\"type\": \"Topic\", \"value\": \"camping\", \"confidence\": 0.9}, {\"type\": \"decision\", \"value\": \"go in June\"}, {\"type\": \"\", \"value\": \"x\"}]}\n```"}
	a := LLM{Model: chat}
	out, err := a.Analyse(context.Background(), input("Melanie: let's go camping in June"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "They talk about camping." || len(out.Findings) != 2 {
		t.Fatalf("output = %+v", out)
	}
	if f := out.Findings[1]; f.Type != "topic" || f.Value != "camping" || f.Confidence != 0.9 {
		t.Fatalf("finding = %+v", f)
	}
	if out.Findings[0].Confidence != 0.5 {
		t.Fatal("a facet without confidence gets 0.5")
	}
	if !strings.Contains(chat.seen[0].Content, "Melanie: let's go camping in June") {
		t.Fatalf("prompt = %q", chat.seen[0].Content)
	}
	if a.Type().Model != "fake-1" || a.Type().Name != "llm" {
		t.Fatalf("type = %+v", a.Type())
	}
	chat.reply = "I cannot do that."
	if _, err := a.Analyse(context.Background(), input("x: y")); err == nil {
		t.Fatal("a reply without JSON must fail the run")
	}
	chat.err = domain.Errorf(domain.EUNAVAILABLE, "down")
	if _, err := a.Analyse(context.Background(), input("x: y")); !errors.Is(err, chat.err) {
		t.Fatalf("err = %v", err)
	}
}

func TestTranscriptCut(t *testing.T) {
	var es []Entry
	for i := 0; i < 5000; i++ {
		es = append(es, Entry{Speaker: "s", Text: strings.Repeat("word ", 10)})
	}
	if tr := Transcript(es); len(tr) > MaxTranscriptBytes+8 || !strings.HasSuffix(tr, "…\n") {
		t.Fatalf("transcript of %d bytes", len(tr))
	}
}

func TestTranscriptEntry(t *testing.T) {
	m := &domain.Memory{ID: "m", Content: "Caroline: hello there", Metadata: map[string]any{domain.MetaSpeaker: "Caroline"}, OccurredAt: t0}
	if e := TranscriptEntry(m); e.Speaker != "Caroline" || e.Text != "hello there" {
		t.Fatalf("entry = %+v", e)
	}
}

// A memory stored as "Name: text" is an utterance of Name, as an imported event whose metadata
// names its speaker is; notes and labels are not persons.
func TestSpeakerPrefix(t *testing.T) {
	for _, c := range []struct{ content, speaker, text string }{
		{"Caroline: I went to a support group.", "Caroline", "I went to a support group."},
		{"Mary Jo O'Neil: hi: there", "Mary Jo O'Neil", "hi: there"},
		{"Dr. Watson: time flies", "Dr. Watson", "time flies"},
		{"Who Else: time flies", "", "Who Else: time flies"}, // "Who" names nobody
		{"Zoë: ça va", "Zoë", "ça va"},
		{"Note: buy milk", "", "Note: buy milk"},
		{"TODO: call Ann", "", "TODO: call Ann"},
		{"Next Steps: ship it", "", "Next Steps: ship it"},
		{"Q: why?", "", "Q: why?"},
		{"User: hello", "", "User: hello"},
		{"caroline: lower case", "", "caroline: lower case"},
		{"Caroline:  ", "", "Caroline:  "},
		{"Caroline:no space", "", "Caroline:no space"},
		{"One Two Three Four: too many words", "", "One Two Three Four: too many words"},
		{"A Name That Is Far Too Long To Be: x", "", "A Name That Is Far Too Long To Be: x"},
		{"Bob <script>: x", "", "Bob <script>: x"},
		{": nobody", "", ": nobody"},
		{"plain text without a speaker", "", "plain text without a speaker"},
	} {
		sp, text, ok := SpeakerPrefix(c.content)
		if sp != c.speaker || text != c.text || ok != (c.speaker != "") {
			t.Errorf("SpeakerPrefix(%q) = %q, %q, %v; want %q, %q", c.content, sp, text, ok, c.speaker, c.text)
		}
		m := &domain.Memory{ID: "m", Content: c.content, Metadata: map[string]any{}, OccurredAt: t0}
		if e := TranscriptEntry(m); e.Speaker != c.speaker || e.Text != c.text {
			t.Errorf("TranscriptEntry(%q) = %+v", c.content, e)
		}
	}
	// The metadata's speaker wins over the content's.
	m := &domain.Memory{ID: "m", Content: "Ann: said by Bo", Metadata: map[string]any{domain.MetaSpeaker: "Bo"}}
	if sp, text := SpeakerOf(m); sp != "Bo" || text != "Ann: said by Bo" {
		t.Fatalf("SpeakerOf = %q, %q", sp, text)
	}
}

func TestPersonsOf(t *testing.T) {
	e := Entry{MemoryID: "m1", Speaker: "Melanie", Text: "Caroline and Carolina went out; Mel stayed."}
	var got []string
	for _, f := range PersonsOf(e, []string{"Caroline", "Mel", "Melanie", "Jon"}) {
		got = append(got, fmt.Sprintf("%s %.1f %v %s", f.Value, f.Confidence, f.Metadata["role"], f.MemoryID))
	}
	if want := "Melanie 1.0 speaker m1|Caroline 0.8 mention m1|Mel 0.8 mention m1"; strings.Join(got, "|") != want {
		t.Fatalf("PersonsOf = %v, want %s", got, want)
	}
}

// TestTopicsAreTheEightMostFrequent pins the documented rule: the 8 most frequent content words,
// each with confidence count / the top count.
func TestTopicsAreTheEightMostFrequent(t *testing.T) {
	got := findings(t, Topics{}, input(
		"Ada: lemon lemon lemon cake cake garden",
		"Bob: violin piano guitar trumpet drums flute"))
	if len(got) != 8 {
		t.Fatalf("%d topics, want 8: %v", len(got), keys(got))
	}
	for value, want := range map[string]float64{"lemon": 1, "cake": 2.0 / 3, "garden": 1.0 / 3} {
		if f, ok := got["topic|"+value]; !ok || math.Abs(f.Confidence-want) > 1e-12 {
			t.Errorf("topic %s = %+v, want confidence %v", value, f, want)
		}
	}
}
