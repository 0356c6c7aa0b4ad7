package resolvers

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/ingest"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

// MaxImportDataBytes bounds importData's data.
const MaxImportDataBytes = 32 << 20

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func jsonText(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(raw)
}

var importKinds = map[model.ImportFormat]string{
	model.ImportFormatLocomo:        ingest.KindLoCoMo,
	model.ImportFormatEvents:        ingest.KindEvents,
	model.ImportFormatAgentSessions: ingest.KindAgents,
}

// importData reads data in format and imports it through the Cortex.
func importData(ctx context.Context, cx *cortex.Cortex, scopeID string, format model.ImportFormat, data, source, adapter string, m cortex.Meta) (*cortex.ImportResult, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	kind, ok := importKinds[format]
	if !ok {
		return nil, domain.FieldErrorf("format", "unknown format %q", format)
	}
	if len(data) > MaxImportDataBytes {
		return nil, domain.FieldErrorf("data", "is larger than %d MiB; import larger sources with the CLI", MaxImportDataBytes>>20)
	}
	if strings.TrimSpace(data) == "" {
		return nil, domain.FieldErrorf("data", "must not be empty")
	}
	if source == "" {
		source = "import"
	}
	src, err := ingest.Open(kind, source, strings.NewReader(data), adapter)
	if err != nil {
		return nil, err
	}
	return ingest.Import(ctx, cx, scopeID, src, m, nil)
}
