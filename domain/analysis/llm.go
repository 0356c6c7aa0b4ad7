package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// DefaultPrompt asks a chat model for a summary and facets of an episode.
const DefaultPrompt = `You analyse one episode of a conversation for a memory system.
Reply with JSON only, no prose, in exactly this shape:
{"summary": "<two sentences>", "facets": [{"type": "<person|entity|topic|file_reference|date|decision>", "value": "<short value>", "confidence": <0..1>}]}

Episode transcript:
{{transcript}}`

// MaxTranscriptBytes bounds the transcript sent to a model.
const MaxTranscriptBytes = 48 << 10

// LLM analyses episodes with a chat model behind an OpenAI-compatible endpoint.
type LLM struct {
	Model domain.ChatModel
	// Name of the analysis type (default "llm"); Prompt its template, with {{transcript}}.
	Name   string
	Prompt string
}

func (a LLM) name() string {
	if a.Name != "" {
		return a.Name
	}
	return "llm"
}

func (a LLM) prompt() string {
	if a.Prompt != "" {
		return a.Prompt
	}
	return DefaultPrompt
}

func (a LLM) Type() domain.AnalysisType {
	return domain.AnalysisType{Name: a.name(), Version: "1", OutputType: "structured", PromptTemplate: a.prompt(),
		Model: a.Model.Model()}
}

// Transcript renders entries one per line, "speaker: text", cut at MaxTranscriptBytes.
func Transcript(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		line := e.Text
		if e.Speaker != "" {
			line = e.Speaker + ": " + e.Text
		}
		if b.Len()+len(line)+1 > MaxTranscriptBytes {
			b.WriteString("…\n")
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

type llmReply struct {
	Summary string `json:"summary"`
	Facets  []struct {
		Type       string   `json:"type"`
		Value      any      `json:"value"`
		Confidence *float64 `json:"confidence"`
	} `json:"facets"`
}

func (a LLM) Analyse(ctx context.Context, in *Input) (*Output, error) {
	prompt := strings.ReplaceAll(a.prompt(), "{{transcript}}", Transcript(in.Entries))
	reply, err := a.Model.Complete(ctx, []domain.ChatMessage{{Role: "user", Content: prompt}})
	if err != nil {
		return nil, err
	}
	var r llmReply
	if err := json.Unmarshal([]byte(jsonPart(reply)), &r); err != nil {
		return nil, fmt.Errorf("the model's reply is not the JSON asked for: %w", err)
	}
	out := &Output{Text: r.Summary}
	for _, f := range r.Facets {
		t := strings.ToLower(strings.TrimSpace(f.Type))
		v := strings.TrimSpace(fmt.Sprint(f.Value))
		if t == "" || v == "" || f.Value == nil {
			continue
		}
		c := 0.5
		if f.Confidence != nil && *f.Confidence >= 0 && *f.Confidence <= 1 {
			c = *f.Confidence
		}
		out.Findings = append(out.Findings, Finding{Type: t, Value: v, Confidence: c, Metadata: map[string]any{"model": a.Model.Model()}})
	}
	out.Findings = merge(out.Findings)
	return out, nil
}

// jsonPart returns the JSON object of a reply, without code fences or text around it.
func jsonPart(s string) string {
	i := strings.Index(s, "{")
	j := strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return s
	}
	return s[i : j+1]
}
