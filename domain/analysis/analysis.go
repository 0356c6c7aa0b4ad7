// Package analysis analyses episodes into facets (seed 001). Built-in analysers need no model:
//
//	persons          the speakers of an episode (confidence 1) and mentions of them by name (0.8)
//	entities         proper nouns that are not persons: capitalised words and runs of them not
//	                 opening a sentence; confidence grows with mentions, 0.5 + 0.1·n up to 1
//	topics           the episode's most frequent content words (stop words left out), up to 8;
//	                 confidence = count / count of the most frequent
//	file_references  file paths and file names with a known extension (1.0; bare paths 0.7)
//	dates            time expressions, absolute (0.9) and relative ones resolved against when
//	                 they were said (0.7); the value is the date, week, month or year named
//
// The llm analyser sends the episode's transcript to an OpenAI-compatible chat model and reads
// back a summary and facets as JSON.
package analysis

import (
	"context"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/totalrecall/totalrecall/domain"
)

// Entry is one item of an episode's transcript.
type Entry struct {
	MemoryID string
	Speaker  string
	// Text is what was said (without the speaker).
	Text string
	Time time.Time
}

// Input is what an analyser sees: the episode and its transcript in order.
type Input struct {
	Episode *domain.Episode
	Entries []Entry
}

// Finding is one facet an analyser found.
type Finding struct {
	Type       string
	Value      string
	Confidence float64
	// MemoryID is the entry the finding was first seen in, when there is one.
	MemoryID string
	Metadata map[string]any
}

// Output is an analyser's result.
type Output struct {
	Findings []Finding
	// Text is free-form output (a summary), kept on the run.
	Text string
}

// Analyser analyses one episode. Safe for concurrent use.
type Analyser interface {
	// Type describes the analysis (name, version, output type, model, prompt).
	Type() domain.AnalysisType
	Analyse(ctx context.Context, in *Input) (*Output, error)
}

// Builtins returns the analysers that need no model, by name.
func Builtins() map[string]Analyser {
	out := map[string]Analyser{}
	for _, a := range []Analyser{Persons{}, Entities{}, Topics{}, FileReferences{}, Dates{}} {
		out[a.Type().Name] = a
	}
	return out
}

// TranscriptEntry splits a memory of an utterance back into speaker and text: the speaker its
// metadata names (an imported event), else the one its content opens with (SpeakerOf).
func TranscriptEntry(m *domain.Memory) Entry {
	e := Entry{MemoryID: m.ID, Text: m.Content, Time: m.OccurredAt}
	e.Speaker, e.Text = SpeakerOf(m)
	return e
}

// SpeakerOf returns who said a memory and what was said: the speaker its metadata names, with
// the "Speaker: " its content opens with taken off; else the speaker of a content of the form
// "Name: text" (SpeakerPrefix); else no speaker and the whole content.
func SpeakerOf(m *domain.Memory) (speaker, text string) {
	if sp, ok := m.Metadata[domain.MetaSpeaker].(string); ok && sp != "" {
		return sp, strings.TrimPrefix(m.Content, sp+": ")
	}
	if sp, rest, ok := SpeakerPrefix(m.Content); ok {
		return sp, rest
	}
	return "", m.Content
}

// MaxSpeakerBytes bounds the name of a speaker prefix.
const MaxSpeakerBytes = 40

// SpeakerPrefix reads a content of the form "Name: text" — how a conversation is written down —
// as an utterance of Name. Name is one to three words, each opening with an upper-case letter and
// made of letters, digits, apostrophes, hyphens and dots, at most MaxSpeakerBytes bytes in all,
// none of them a word that labels a note rather than names a person ("Note", "Summary", "TODO",
// "Q", …; see labelWords); text is what follows ": " and is not blank.
func SpeakerPrefix(content string) (speaker, text string, ok bool) {
	i := strings.Index(content, ": ")
	if i <= 0 || i > MaxSpeakerBytes {
		return "", content, false
	}
	name, rest := content[:i], strings.TrimSpace(content[i+2:])
	if rest == "" {
		return "", content, false
	}
	words := strings.Split(name, " ")
	if len(words) > 3 {
		return "", content, false
	}
	for _, w := range words {
		if !nameWord(w) || labelWords[strings.ToLower(strings.TrimRight(w, "."))] {
			return "", content, false
		}
	}
	return name, content[i+2:], true
}

func nameWord(w string) bool {
	r := []rune(w)
	if len(r) == 0 || !unicode.IsUpper(r[0]) || notNames[w] {
		return false
	}
	for _, c := range r[1:] {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '\'' && c != '’' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// labelWords open notes, not utterances: "Note: …", "Summary: …", "Q: …".
var labelWords = setOf(`note notes nb ps todo to-do fixme summary update updates warning warn error errors question questions
	answer answers q a re fw fwd subject title step steps example examples tip tips important reminder idea ideas goal goals
	task tasks status result results output input fact facts decision decisions context lesson lessons source sources date
	time topic topics info edit quote hint caution fix bug feature issue problem solution plan action actions next done
	observation observations memory preference preferences rule rules log error warning debug trace user assistant system
	tool agent human ai bot prompt response reply request query http https ftp file path url link`)

// merge folds findings of equal type and value into one: the highest confidence, the first
// memory, and a count.
func merge(fs []Finding) []Finding {
	type key struct{ t, v string }
	idx := map[key]int{}
	var out []Finding
	for _, f := range fs {
		k := key{f.Type, f.Value}
		if i, ok := idx[k]; ok {
			if f.Confidence > out[i].Confidence {
				out[i].Confidence = f.Confidence
			}
			out[i].Metadata["count"] = out[i].Metadata["count"].(int) + 1
			continue
		}
		md := map[string]any{}
		for k, v := range f.Metadata {
			md[k] = v
		}
		md["count"] = 1
		f.Metadata = md
		idx[k] = len(out)
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		if out[i].Confidence != out[j].Confidence {
			return out[i].Confidence > out[j].Confidence
		}
		return out[i].Value < out[j].Value
	})
	return out
}
