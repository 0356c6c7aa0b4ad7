package ingest

import (
	"strings"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
)

// FuzzSourceReaders: whatever bytes an import is handed — a LoCoMo file, JSON Lines of events,
// a coding agent's transcript — its reader neither panics nor fails with an uncoded error; a
// line it cannot read is a problem naming that line, and the import goes on.
func FuzzSourceReaders(f *testing.F) {
	for _, s := range []string{
		"", "\n", "{}", "null", "[]", `{"source_id":"1","timestamp":"2024-01-01T00:00:00Z","content":"hi"}`,
		`{"source_id":"1","timestamp":"not-a-time","content":"x"}`, `{"source_id":"1","timestamp":1e300}`,
		`{"type":"session","id":"s"}` + "\n" + `{"type":"user","sessionId":"s","uuid":"u","message":{"content":"hi"}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a","parentUuid":"u","message":{"content":[{"type":"tool_use","id":"t","name":"Task","input":{}}]}}`,
		`{"conversation":{"speaker_a":"A","speaker_b":"B","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}],"session_1_date_time":"1:56 pm on 8 May, 2023"}}`,
		`[{"conversation":{"session_1_date_time":"13:99 on 45 Smarch, 2023"}}]`, "{\"content\":\"\x00\"}", "\xff\xfe{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		lines := strings.Count(data, "\n") + 1
		for _, kind := range []string{KindLoCoMo, KindEvents, KindAgents} {
			src, err := Open(kind, "fuzz", strings.NewReader(data), "")
			if err == nil {
				err = src.Batches(func(b *domain.SourceBatch, problems []domain.SourceProblem) error {
					for _, p := range problems {
						if kind != KindLoCoMo && (p.Line < 1 || p.Line > lines) {
							t.Fatalf("%s: a problem at line %d of %d: %s", kind, p.Line, lines, p.Message)
						}
					}
					return nil
				})
			}
			if code := domain.ErrorCode(err); err != nil && (code == domain.EINTERNAL || code == "") {
				t.Fatalf("%s: %q failed uncoded: %v", kind, data, err)
			}
		}
	})
}
