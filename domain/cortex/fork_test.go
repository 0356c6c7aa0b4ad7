package cortex_test

import (
	"context"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/ingest"
)

// Two scopes hold agent sessions with the same source ids (sess-1, q1, r1): a fork context
// without a scope takes the best turns of both, each assembled within its own scope.

const billingAgents = `{"type": "session", "id": "sess-1", "source": "codex", "model": "gpt-x", "project": "billing", "created_at": "2026-02-01T09:00:00Z"}
{"type": "message", "id": "q1", "session_id": "sess-1", "role": "user", "content": "The invoice PDF export crashes on empty line items", "timestamp": "2026-02-01T09:00:01Z"}
{"type": "message", "id": "r1", "session_id": "sess-1", "role": "assistant", "content": "", "timestamp": "2026-02-01T09:00:05Z"}
{"type": "tool_call", "id": "tc1", "session_id": "sess-1", "message_id": "r1", "tool_name": "bash", "params": {"cmd": "go test ./invoice/..."}, "result": "FAIL export_test.go", "status": "ok"}
{"type": "message", "id": "r2", "session_id": "sess-1", "role": "assistant", "content": "Fixed the nil slice in invoice/export.go; the PDF export handles empty line items now.", "timestamp": "2026-02-01T09:03:00Z"}
{"type": "message", "id": "q2", "session_id": "sess-1", "role": "user", "content": "Now add a CSV export too", "timestamp": "2026-02-01T09:10:00Z"}
{"type": "message", "id": "r3", "session_id": "sess-1", "role": "assistant", "content": "Added invoice/csv.go with a CSV writer.", "timestamp": "2026-02-01T09:20:00Z"}
`

const mobileAgents = `{"type": "session", "id": "sess-1", "source": "claude", "model": "gpt-y", "project": "mobile", "created_at": "2026-03-01T09:00:00Z"}
{"type": "message", "id": "q1", "session_id": "sess-1", "role": "user", "content": "The PDF export crashes on the iPad when a report is empty", "timestamp": "2026-03-01T09:00:01Z"}
{"type": "message", "id": "r1", "session_id": "sess-1", "role": "assistant", "content": "Guarded the empty report in the iPad PDF export.", "timestamp": "2026-03-01T09:02:00Z"}
{"type": "tool_call", "id": "tc1", "session_id": "sess-1", "message_id": "r1", "tool_name": "edit", "params": {"file": "ios/Export.swift"}, "result": "ok", "status": "ok"}
{"type": "message", "id": "q2", "session_id": "sess-1", "role": "user", "content": "Rename the login button", "timestamp": "2026-03-01T09:10:00Z"}
{"type": "message", "id": "r2", "session_id": "sess-1", "role": "assistant", "content": "Renamed it to Sign in.", "timestamp": "2026-03-01T09:12:00Z"}
`

// checkAssembled fails unless every part of every turn is of the turn's scope.
func checkAssembled(t *testing.T, fc *cortex.ForkContext) {
	t.Helper()
	for i, tc := range fc.RelevantTurns {
		if tc.ScopeID == "" || tc.Turn.ScopeID != tc.ScopeID || tc.Session == nil || tc.Session.ScopeID != tc.ScopeID ||
			tc.Session.ID != tc.Turn.SessionID || len(tc.Messages) == 0 {
			t.Fatalf("turn %d: scope %q, turn %+v, session %+v", i, tc.ScopeID, tc.Turn, tc.Session)
		}
		for _, m := range tc.Messages {
			if m.ScopeID != tc.ScopeID || m.SessionID != tc.Turn.SessionID {
				t.Fatalf("turn %d of scope %s carries message %+v", i, tc.ScopeID, m)
			}
		}
		for _, c := range tc.ToolCalls {
			if c.ScopeID != tc.ScopeID || c.SessionID != tc.Turn.SessionID {
				t.Fatalf("turn %d of scope %s carries tool call %+v", i, tc.ScopeID, c)
			}
		}
		if i > 0 && tc.Score > fc.RelevantTurns[i-1].Score {
			t.Fatalf("turn %d scores %v above turn %d's %v", i, tc.Score, i-1, fc.RelevantTurns[i-1].Score)
		}
	}
}

func TestForkContextWithAndWithoutScope(t *testing.T) {
	ctx := context.Background()
	stk := openTestStack(t)
	cx, _ := stk.cortex(cortex.MnemonicConfig{})
	scopes := map[string]string{}
	for name, data := range map[string]string{"billing": billingAgents, "mobile": mobileAgents} {
		sc, err := cx.CreateScope(ctx, name, cortex.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		if res := importSource(t, cx, sc.ID, ingest.KindAgents, data); res.Sessions != 1 || res.Turns < 2 {
			t.Fatalf("%s import = %+v", name, res)
		}
		scopes[name] = sc.ID
	}
	// A scope without agent sessions: its memories are never fork context.
	notes, err := cx.CreateScope(ctx, "notes", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: notes.ID,
		Content: "PDF export crash notes"}}); err != nil {
		t.Fatal(err)
	}
	const query = "PDF export crash"

	// With a scope: only its turns, as before.
	billing, err := cx.ForkContext(ctx, scopes["billing"], query, 10, cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	checkAssembled(t, billing)
	if len(billing.RelevantTurns) == 0 || billing.RelevantTurns[0].Turn.SourceID != "r2" || billing.RelevantTurns[0].Session.Project != "billing" {
		t.Fatalf("billing fork context = %+v", billing.RelevantTurns)
	}
	for _, tc := range billing.RelevantTurns {
		if tc.ScopeID != scopes["billing"] {
			t.Fatalf("a turn of scope %s in the billing fork context", tc.ScopeID)
		}
	}

	// Without: the best turns of both scopes, each labelled with its own.
	all, err := cx.ForkContext(ctx, "", query, 10, cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	checkAssembled(t, all)
	top := map[string]string{} // scope → source id of its best turn
	total := 0
	for _, tc := range all.RelevantTurns {
		if tc.ScopeID != scopes["billing"] && tc.ScopeID != scopes["mobile"] {
			t.Fatalf("a turn of scope %s, which has no agent sessions", tc.ScopeID)
		}
		if _, ok := top[tc.ScopeID]; !ok {
			top[tc.ScopeID] = tc.Turn.SourceID
		}
		total += tc.Tokens
	}
	if top[scopes["billing"]] != "r2" || top[scopes["mobile"]] != "r1" {
		t.Fatalf("best turn by scope = %v, want billing's r2 and mobile's r1", top)
	}
	if total != all.TotalTokens || total <= 0 {
		t.Fatalf("tokens %d, total %d", total, all.TotalTokens)
	}
	// The same turn of billing scores as it does in billing's own fork context.
	for _, tc := range all.RelevantTurns {
		if tc.Turn.ID == billing.RelevantTurns[0].Turn.ID && tc.Score != billing.RelevantTurns[0].Score {
			t.Fatalf("billing's best turn scores %v across scopes, %v in its scope", tc.Score, billing.RelevantTurns[0].Score)
		}
	}
	// maxTurns caps the merged list: the single best turn of all.
	one, err := cx.ForkContext(ctx, "", query, 1, cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.RelevantTurns) != 1 || one.RelevantTurns[0].Turn.ID != all.RelevantTurns[0].Turn.ID {
		t.Fatalf("maxTurns 1 = %+v, want the best of all", one.RelevantTurns)
	}

	// Bad input: a clear error with a stable code.
	for _, bad := range []struct {
		scope, query string
		maxTurns     int
		code         string
	}{
		{"not-a-scope", query, 5, domain.EINVALID},
		{domain.NewID(), query, 5, domain.ENOTFOUND},
		{"", query, 1000, domain.EINVALID},
		{"", "  ", 5, domain.EINVALID},
		{scopes["billing"], query, -1, domain.EINVALID},
	} {
		if _, err := cx.ForkContext(ctx, bad.scope, bad.query, bad.maxTurns, cortex.Meta{}); domain.ErrorCode(err) != bad.code {
			t.Fatalf("ForkContext(%q, %q, %d) = %v, want %s", bad.scope, bad.query, bad.maxTurns, err, bad.code)
		}
	}
}
