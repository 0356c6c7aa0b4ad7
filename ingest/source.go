package ingest

import (
	"context"
	"io"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// Kinds of sources.
const (
	KindLoCoMo = "locomo"
	KindEvents = "events"
	KindAgents = "agents"
)

// Source is a source opened for import: how to read its records, and the episode definitions
// and analyses an import of it finishes with.
type Source struct {
	Adapter string
	// Batches calls fn with the records read, batch by batch, and the problems of each batch.
	Batches     func(fn func(*domain.SourceBatch, []domain.SourceProblem) error) error
	Definitions []cortex.DefinitionInput
	Analyses    []string
}

// Open opens a source of kind (locomo, events, agents) read from r; name keys a LoCoMo
// conversation's records (its file's base name); adapter overrides the events adapter's name or
// names the agents' harness. Errors: INVALID_ARGUMENT (an unknown kind, a LoCoMo file that is
// none).
func Open(kind, name string, r io.Reader, adapter string) (*Source, error) {
	switch kind {
	case KindLoCoMo:
		c, err := ParseLoCoMo(r, name)
		if err != nil {
			return nil, err
		}
		return LoCoMoSource(c), nil
	case KindEvents:
		if adapter == "" {
			adapter = AdapterEvents
		}
		return &Source{Adapter: adapter,
			Batches: func(fn func(*domain.SourceBatch, []domain.SourceProblem) error) error {
				return ReadEvents(r, adapter, domain.MaxImportRecords, fn)
			},
			Definitions: []cortex.DefinitionInput{{Name: "time_gap_90min", Strategy: domain.StrategyTimeGap,
				Config: map[string]any{"gap_seconds": 5400.0, "scope": "thread"}, Description: "conversations split at 90-minute gaps"}},
			Analyses: []string{"persons"}}, nil
	case KindAgents:
		b, problems, err := ParseAgents(r, adapter)
		if err != nil {
			return nil, err
		}
		return &Source{Adapter: AdapterAgentEvents,
			Batches: func(fn func(*domain.SourceBatch, []domain.SourceProblem) error) error { return fn(b, problems) },
			Definitions: []cortex.DefinitionInput{
				{Name: "aix_turn", Strategy: domain.StrategyTurn, Description: "a user turn with the agent's reply (trimmed events)"},
				{Name: "agent_turn", Strategy: domain.StrategyAgentTurn, Description: "one episode per agent turn"},
				{Name: "agent_session", Strategy: domain.StrategyAgentSession, Description: "one episode per agent session"},
			},
			Analyses: []string{"file_references"}}, nil
	}
	return nil, domain.FieldErrorf("format", "unknown source kind %q (locomo, events, agents)", kind)
}

// LoCoMoSource is the source of a parsed LoCoMo conversation: one episode per session, and the
// persons analysis (the speakers become person facets).
func LoCoMoSource(c *LoCoMo) *Source {
	return &Source{Adapter: AdapterLoCoMo,
		Batches: func(fn func(*domain.SourceBatch, []domain.SourceProblem) error) error { return fn(c.Batch, c.Problems) },
		Definitions: []cortex.DefinitionInput{{Name: LoCoMoDefinition.Name, Channel: LoCoMoChannel,
			Strategy: LoCoMoDefinition.Strategy, Description: "one episode per LoCoMo session"}},
		Analyses: []string{"persons"}}
}

// Import imports src into a scope through the Cortex: its records in idempotent writes, then its
// episodes and analyses. progress, when set, hears about every write.
func Import(ctx context.Context, cx *cortex.Cortex, scopeID string, src *Source, m cortex.Meta, progress func(cortex.ImportProgress)) (*cortex.ImportResult, error) {
	im, err := cx.NewImport(ctx, scopeID, src.Adapter, m)
	if err != nil {
		return nil, err
	}
	im.Progress = progress
	if err := src.Batches(func(b *domain.SourceBatch, problems []domain.SourceProblem) error {
		im.Problems(problems)
		return im.Add(ctx, b)
	}); err != nil {
		return nil, err
	}
	return im.Finish(ctx, cortex.FinishOptions{Definitions: src.Definitions, Analyses: src.Analyses})
}
