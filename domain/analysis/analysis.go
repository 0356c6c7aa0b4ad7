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

// TranscriptEntry splits a memory of an utterance back into speaker and text.
func TranscriptEntry(m *domain.Memory) Entry {
	e := Entry{MemoryID: m.ID, Text: m.Content, Time: m.OccurredAt}
	if sp, ok := m.Metadata[domain.MetaSpeaker].(string); ok && sp != "" {
		e.Speaker = sp
		e.Text = strings.TrimPrefix(m.Content, sp+": ")
	}
	return e
}

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
