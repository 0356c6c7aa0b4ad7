package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/graph/storetest"
)

// End-to-end tests of seed 001's pipeline over GraphQL: ingest, episodes, facets, analysis,
// search in context, smart-fork context.

// A small conversation in LoCoMo's format (made up here; the benchmark's files are not copied).
const locomoConversation = `{
  "speaker_a": "Ada", "speaker_b": "Bruno",
  "session_1_date_time": "9:00 am on 3 March, 2024",
  "session_1": [
    {"speaker": "Ada", "dia_id": "D1:1", "text": "Morning Bruno! I adopted a dog called Comet yesterday."},
    {"speaker": "Bruno", "dia_id": "D1:2", "text": "Congrats! What colour is he?", "img_url": ["http://example.invalid/c.jpg"], "blip_caption": "a photo of a grey dog on a sofa"},
    {"speaker": "Ada", "dia_id": "D1:3", "text": "Brindle, and he sleeps all day."},
    {"speaker": "Bruno", "dia_id": "D1:4"}
  ],
  "session_2_date_time": "6:30 pm on 20 April, 2024",
  "session_2": [
    {"speaker": "Bruno", "dia_id": "D2:1", "text": "I started learning the cello last week."},
    {"speaker": "Ada", "dia_id": "D2:2", "text": "Lovely! Is it hard?"},
    {"speaker": "Bruno", "dia_id": "D2:3", "text": "The bowing is tricky, but my teacher Lena is patient."}
  ],
  "qa": [{"question": "What is the name of Ada's dog?", "answer": "Comet", "evidence": ["D1:1"], "category": 4}]
}`

const importMutation = `mutation($s: ID!, $f: ImportFormat!, $d: String!, $src: String, $r: ID) {
  importData(scopeId: $s, format: $f, data: $d, source: $src, requestId: $r) {
    scopeId adapter events imported skipped threads associations sessions messages turns toolCalls episodes facets
    problems { line record message } tookMs } }`

type importProblem struct {
	Line    int
	Record  string
	Message string
}

type importResult struct {
	Events, Imported, Skipped, Threads, Associations, Sessions, Messages, Turns, ToolCalls, Episodes, Facets int

	Problems []importProblem
}

func (s *server) importData(t *testing.T, scope, format, data, source string) importResult {
	t.Helper()
	var r struct{ ImportData importResult }
	s.ok(t, importMutation, map[string]any{"s": scope, "f": format, "d": data, "src": source}, &r)
	return r.ImportData
}

func testImportLoCoMo(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "locomo import")
	res := s.importData(t, scope, "LOCOMO", locomoConversation, "conv-a")
	if res.Imported != 6 || res.Skipped != 0 || res.Episodes != 2 || res.Associations != 4 || res.Threads != 3 {
		t.Fatalf("import = %+v, want 6 turns, 2 sessions (episodes), 4 temporal associations, 3 threads", res)
	}
	if len(res.Problems) != 1 || res.Problems[0].Record != "session_1[3]" {
		t.Fatalf("problems = %+v, want the turn without text", res.Problems)
	}
	// Idempotent on (source adapter, source id): the same import again creates nothing.
	again := s.importData(t, scope, "LOCOMO", locomoConversation, "conv-a")
	if again.Imported != 0 || again.Skipped != 6 || again.Episodes != 2 {
		t.Fatalf("second import = %+v, want everything skipped", again)
	}
	var total struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &total)
	if total.Memories.TotalCount != 6 {
		t.Fatalf("%d memories after two imports, want 6", total.Memories.TotalCount)
	}
	// One episode per session, its turns in order, with speaker, dia_id and the session date.
	var eps struct {
		Episodes []struct {
			ID, ThreadID string
			EventCount   int
			StartTime    string
			Memories     []struct {
				ID, Content, OccurredAt string
				Metadata                map[string]any
			}
			Facets []struct {
				Type, Value string
				Confidence  float64
			}
		}
	}
	s.ok(t, `query($s: ID!) { episodes(scopeId: $s) { id threadId eventCount startTime memories { id content occurredAt metadata }
		facets(type: "person") { type value confidence } } }`, map[string]any{"s": scope}, &eps)
	if len(eps.Episodes) != 2 {
		t.Fatalf("episodes = %+v", eps.Episodes)
	}
	first := eps.Episodes[0]
	if first.EventCount != 3 || len(first.Memories) != 3 || !strings.HasPrefix(first.StartTime, "2024-03-03T09:00:00") {
		t.Fatalf("first episode = %+v", first)
	}
	// The second turn: said a second after its session's start (a turn's position, in seconds).
	m := first.Memories[1]
	if m.Content != "Bruno: Congrats! What colour is he? [image: a photo of a grey dog on a sofa]" || m.Metadata["diaId"] != "D1:2" ||
		m.Metadata["speaker"] != "Bruno" || m.Metadata["caption"] != "a photo of a grey dog on a sofa" || !strings.HasPrefix(m.OccurredAt, "2024-03-03T09:00:01") {
		t.Fatalf("second turn = %+v", m)
	}
	if len(first.Facets) != 2 || first.Facets[0].Confidence != 1 {
		t.Fatalf("person facets = %+v, want both speakers", first.Facets)
	}
	// TEMPORAL associations join neighbouring turns.
	var as struct {
		Associations []struct{ TargetID, Type string }
	}
	s.ok(t, `query($m: ID!) { associations(memoryId: $m, types: [TEMPORAL]) { targetId type } }`, map[string]any{"m": m.ID}, &as)
	if len(as.Associations) != 2 {
		t.Fatalf("the middle turn has %d temporal associations, want 2", len(as.Associations))
	}
	// Search ranks with what the memory knows: the question names Ada, and the answer is hers.
	hits := s.search(t, scope, "What is the name of Ada's dog?", false)
	if len(hits) == 0 || !strings.Contains(hits[0].Memory.Content, "Comet") {
		t.Fatalf("search = %+v", hits)
	}
	// A turn matching no word of the question still comes through its conversation: the cello
	// session is about Bruno's teacher.
	hits = s.search(t, scope, "Who teaches Bruno the cello?", false)
	found := false
	for _, h := range hits[:min(3, len(hits))] {
		found = found || strings.Contains(h.Memory.Content, "Lena")
	}
	if !found {
		t.Fatalf("search for the teacher = %+v", hits)
	}
	// The history of an imported memory shows the write that made it.
	var h struct{ History []struct{ Type string } }
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": m.ID}, &h)
	if len(h.History) < 2 || h.History[0].Type != "ImportCommand" || h.History[1].Type != "MemoriesIngested" {
		t.Fatalf("history = %+v", h.History)
	}
}

const eventsJSONL = `{"timestamp": "2024-05-01T10:00:00Z", "channel": "imessage", "content": "Are we still on for climbing?", "direction": "sent", "thread_id": "t-1", "thread_name": "Ada", "source_id": "m1", "sender": "me"}
{"timestamp": "2024-05-01T10:02:00Z", "channel": "imessage", "content": "Yes! The gym on Baker Street at 6.", "direction": "received", "thread_id": "t-1", "source_id": "m2", "reply_to": "m1", "sender": "Ada"}
this line is broken
{"timestamp": "2024-05-01T18:30:00Z", "channel": "imessage", "content": "Running late, ten minutes", "direction": "sent", "thread_id": "t-1", "source_id": "m3", "sender": "me"}
{"timestamp": "2024-05-02T09:00:00Z", "channel": "gmail", "content": "Invoice 42 attached", "direction": "received", "thread_id": "t-2", "source_id": "g1"}
{"timestamp": "2024-05-02T09:05:00Z", "channel": "gmail", "content": "", "direction": "received", "thread_id": "t-2", "source_id": "g2"}
{"timestamp": "2024-05-02T09:06:00Z", "channel": "gmail", "content": "wrong way", "direction": "sideways", "thread_id": "t-2", "source_id": "g3"}
`

func testImportEventsAndEpisodes(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "events import")
	res := s.importData(t, scope, "EVENTS", eventsJSONL, "")
	if res.Imported != 4 {
		t.Fatalf("import = %+v, want 4 events", res)
	}
	var lines []string
	for _, p := range res.Problems {
		lines = append(lines, fmt.Sprint(p.Line))
	}
	if strings.Join(lines, ",") != "3,6,7" {
		t.Fatalf("problems = %+v, want lines 3 (not JSON), 6 (empty content), 7 (bad direction)", res.Problems)
	}
	// time_gap at 90 minutes per thread: the climbing chat splits in two, the mail is one.
	var eps struct {
		Episodes []struct {
			EventCount int
			Channel    string
		}
	}
	s.ok(t, `query($s: ID!) { episodes(scopeId: $s) { eventCount channel } }`, map[string]any{"s": scope}, &eps)
	var counts []string
	for _, e := range eps.Episodes {
		counts = append(counts, fmt.Sprintf("%s:%d", e.Channel, e.EventCount))
	}
	if strings.Join(counts, " ") != "imessage:2 imessage:1 gmail:1" {
		t.Fatalf("episodes = %v", counts)
	}
	// A definition of one's own, chunked twice: idempotent.
	var def struct {
		DefineEpisodes struct{ ID, Name, Strategy string }
	}
	s.ok(t, `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "per thread", strategy: THREAD}) { id name strategy } }`,
		map[string]any{"s": scope}, &def)
	if def.DefineEpisodes.Strategy != "THREAD" {
		t.Fatalf("definition = %+v", def.DefineEpisodes)
	}
	for i := 0; i < 2; i++ {
		var ch struct {
			ChunkEpisodes struct{ Episodes, Removed, Items int }
		}
		s.ok(t, `mutation($s: ID!) { chunkEpisodes(scopeId: $s, definition: "per thread") { episodes removed items } }`, map[string]any{"s": scope}, &ch)
		if ch.ChunkEpisodes.Episodes != 2 || ch.ChunkEpisodes.Items != 4 || ch.ChunkEpisodes.Removed != 0 {
			t.Fatalf("chunk %d = %+v", i, ch.ChunkEpisodes)
		}
	}
	var defs struct{ EpisodeDefinitions []struct{ Name string } }
	s.ok(t, `query($s: ID!) { episodeDefinitions(scopeId: $s) { name } }`, map[string]any{"s": scope}, &defs)
	if len(defs.EpisodeDefinitions) != 2 {
		t.Fatalf("definitions = %+v", defs.EpisodeDefinitions)
	}
	// Analyses: runs unique per (type, episode); a completed run is not repeated.
	analyze := `mutation($s: ID!, $d: ID) { analyzeEpisodes(scopeId: $s, type: "entities", definitionId: $d) { id status episodeId facets { type value } } }`
	var runs struct {
		AnalyzeEpisodes []struct {
			ID, Status, EpisodeID string
			Facets                []struct{ Type, Value string }
		}
	}
	s.ok(t, analyze, map[string]any{"s": scope, "d": def.DefineEpisodes.ID}, &runs)
	if len(runs.AnalyzeEpisodes) != 2 {
		t.Fatalf("runs = %+v", runs.AnalyzeEpisodes)
	}
	entities := map[string]bool{}
	for _, r := range runs.AnalyzeEpisodes {
		if r.Status != "COMPLETED" {
			t.Fatalf("run = %+v", r)
		}
		for _, f := range r.Facets {
			entities[f.Value] = true
		}
	}
	if !entities["Baker Street"] {
		t.Fatalf("entities = %v", entities)
	}
	first := runs.AnalyzeEpisodes[0].ID
	s.ok(t, analyze, map[string]any{"s": scope, "d": def.DefineEpisodes.ID}, &runs)
	if runs.AnalyzeEpisodes[0].ID != first || len(runs.AnalyzeEpisodes) != 2 {
		t.Fatalf("runs again = %+v", runs.AnalyzeEpisodes)
	}
	var listed struct{ AnalysisRuns []struct{ Status string } }
	s.ok(t, `query($s: ID!) { analysisRuns(scopeId: $s, status: COMPLETED) { status } }`, map[string]any{"s": scope}, &listed)
	if len(listed.AnalysisRuns) < 2 {
		t.Fatalf("completed runs listed = %d", len(listed.AnalysisRuns))
	}
	var fs struct {
		Facets []struct{ Value, MemoryID string }
	}
	s.ok(t, `query($s: ID!) { facets(scopeId: $s, type: "entity", value: "Baker Street") { value memoryId } }`, map[string]any{"s": scope}, &fs)
	if len(fs.Facets) != 1 || fs.Facets[0].MemoryID == "" {
		t.Fatalf("facets = %+v", fs.Facets)
	}
}

func testImportBadInputWritesNothing(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "bad imports")
	cases := []struct {
		name, code string
		vars       map[string]any
	}{
		{"bad scope id", "INVALID_ARGUMENT", map[string]any{"s": `"); drop`, "f": "EVENTS", "d": eventsJSONL}},
		{"unknown scope", "NOT_FOUND", map[string]any{"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", "f": "EVENTS", "d": eventsJSONL}},
		{"unknown format", "INVALID_ARGUMENT", map[string]any{"s": scope, "f": "TARBALL", "d": eventsJSONL}},
		{"empty data", "INVALID_ARGUMENT", map[string]any{"s": scope, "f": "EVENTS", "d": "  "}},
		{"not a conversation", "INVALID_ARGUMENT", map[string]any{"s": scope, "f": "LOCOMO", "d": `{"qa": []}`}},
		{"nul in the request id", "INVALID_ARGUMENT", map[string]any{"s": scope, "f": "EVENTS", "d": eventsJSONL, "r": "a\x00b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { s.fails(t, c.code, importMutation, c.vars) })
	}
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "gaps", strategy: TIME_GAP, config: {gap_seconds: -5}}) { id } }`,
		map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "x", strategy: THREAD, config: {gap_seconds: 5}}) { id } }`,
		map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { defineEpisodes(scopeId: $s, input: {name: "x", strategy: SOMETIMES}) { id } }`,
		map[string]any{"s": scope})
	s.fails(t, "NOT_FOUND", `mutation($s: ID!) { chunkEpisodes(scopeId: $s, definition: "never defined") { episodes } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { analyzeEpisodes(scopeId: $s, type: "astrology") { id } }`, map[string]any{"s": scope})
	s.fails(t, "UNAVAILABLE", `mutation($s: ID!) { embedMemories(scopeId: $s) }`, map[string]any{"s": scope})
	for _, nasty := range storetest.Nasty {
		var r struct{ Facets []any }
		s.ok(t, `query($s: ID!, $v: String) { facets(scopeId: $s, value: $v) { id } }`, map[string]any{"s": scope, "v": nasty}, &r)
	}
	var total struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &total)
	var eps struct{ Episodes []any }
	s.ok(t, `query($s: ID!) { episodes(scopeId: $s) { id } }`, map[string]any{"s": scope}, &eps)
	var defs struct{ EpisodeDefinitions []any }
	s.ok(t, `query($s: ID!) { episodeDefinitions(scopeId: $s) { id } }`, map[string]any{"s": scope}, &defs)
	if total.Memories.TotalCount != 0 || len(eps.Episodes) != 0 || len(defs.EpisodeDefinitions) != 0 {
		t.Fatalf("bad input wrote %d memories, %d episodes, %d definitions", total.Memories.TotalCount, len(eps.Episodes), len(defs.EpisodeDefinitions))
	}
}

const agentTranscript = `{"type": "session", "id": "sess-1", "source": "codex", "model": "gpt-x", "project": "billing", "created_at": "2026-02-01T09:00:00Z"}
{"type": "message", "id": "q1", "session_id": "sess-1", "role": "user", "content": "The invoice PDF export crashes on empty line items", "timestamp": "2026-02-01T09:00:01Z"}
{"type": "message", "id": "r1", "session_id": "sess-1", "role": "assistant", "content": "", "timestamp": "2026-02-01T09:00:05Z"}
{"type": "tool_call", "id": "tc1", "session_id": "sess-1", "message_id": "r1", "tool_name": "bash", "params": {"cmd": "go test ./invoice/..."}, "result": "FAIL export_test.go", "status": "ok"}
{"type": "message", "id": "r2", "session_id": "sess-1", "role": "assistant", "content": "Fixed the nil slice in invoice/export.go; the PDF export handles empty line items now.", "timestamp": "2026-02-01T09:03:00Z"}
{"type": "message", "id": "q2", "session_id": "sess-1", "role": "user", "content": "Now add a CSV export too", "timestamp": "2026-02-01T09:10:00Z"}
{"type": "message", "id": "r3", "session_id": "sess-1", "role": "assistant", "content": "Added invoice/csv.go with a CSV writer.", "timestamp": "2026-02-01T09:20:00Z"}
{"type": "tool_call", "id": "tc2", "session_id": "sess-1", "message_id": "r3", "tool_name": "task", "child_session_id": "sess-2", "params": {"description": "write csv tests"}}
{"type": "message", "id": "c1", "session_id": "sess-2", "role": "user", "content": "write csv tests", "timestamp": "2026-02-01T09:15:00Z"}
{"type": "message", "id": "c2", "session_id": "sess-2", "role": "assistant", "content": "Wrote invoice/csv_test.go.", "timestamp": "2026-02-01T09:18:00Z"}
{"type": "oops"}
`

func testAgentsAndForkContext(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "agents import")
	res := s.importData(t, scope, "AGENT_SESSIONS", agentTranscript, "")
	if res.Sessions != 2 || res.Messages != 7 || res.Turns != 3 || res.ToolCalls != 2 || res.Imported != 6 {
		t.Fatalf("import = %+v, want 2 sessions, 7 messages, 3 turns, 2 tool calls and 6 trimmed events", res)
	}
	if len(res.Problems) != 1 || res.Problems[0].Line != 11 {
		t.Fatalf("problems = %+v", res.Problems)
	}
	again := s.importData(t, scope, "AGENT_SESSIONS", agentTranscript, "")
	if again.Imported != 0 || again.Skipped != 6 {
		t.Fatalf("second import = %+v", again)
	}
	var sessions struct {
		AgentSessions []struct {
			SourceID, ParentSessionID string
			IsSubagent                bool
			MessageCount              int
		}
	}
	s.ok(t, `query($s: ID!) { agentSessions(scopeId: $s) { sourceId parentSessionId isSubagent messageCount } }`, map[string]any{"s": scope}, &sessions)
	if len(sessions.AgentSessions) != 2 || !sessions.AgentSessions[1].IsSubagent || sessions.AgentSessions[1].ParentSessionID == "" {
		t.Fatalf("sessions = %+v", sessions.AgentSessions)
	}
	var fc struct {
		ForkContext struct {
			TotalTokens   int
			RelevantTurns []struct {
				Score float64
				Turn  struct {
					SourceID      string
					ToolCallCount int
					HasChildren   bool
				}
				Session   struct{ SourceID, Project string }
				Messages  []struct{ Role, Content string }
				ToolCalls []struct{ ToolName, ParamsJSON, ResultJSON string }
			}
		}
	}
	s.ok(t, `query($s: ID!) { forkContext(scopeId: $s, query: "PDF export crash", maxTurns: 2) { totalTokens relevantTurns {
		score turn { sourceId toolCallCount hasChildren } session { sourceId project } messages { role content }
		toolCalls { toolName paramsJson resultJson } } } }`, map[string]any{"s": scope}, &fc)
	turns := fc.ForkContext.RelevantTurns
	if len(turns) == 0 || len(turns) > 2 {
		t.Fatalf("fork context = %+v", fc.ForkContext)
	}
	top := turns[0]
	if top.Turn.SourceID != "r2" || top.Session.Project != "billing" || len(top.Messages) != 3 || top.Turn.ToolCallCount != 1 ||
		len(top.ToolCalls) != 1 || top.ToolCalls[0].ParamsJSON != `{"cmd":"go test ./invoice/..."}` || top.ToolCalls[0].ResultJSON != "FAIL export_test.go" {
		t.Fatalf("top turn = %+v", top)
	}
	if fc.ForkContext.TotalTokens <= 0 {
		t.Fatal("fork context counts its tokens")
	}
	// Episodes of the agents ledger: one per turn, one per session.
	var eps struct {
		Episodes []struct {
			EventCount    int
			AgentMessages []struct{ Role string }
		}
	}
	var defs struct{ EpisodeDefinitions []struct{ ID, Name string } }
	s.ok(t, `query($s: ID!) { episodeDefinitions(scopeId: $s) { id name } }`, map[string]any{"s": scope}, &defs)
	perTurn := ""
	for _, d := range defs.EpisodeDefinitions {
		if d.Name == "agent_turn" {
			perTurn = d.ID
		}
	}
	s.ok(t, `query($s: ID!, $d: ID) { episodes(scopeId: $s, definitionId: $d) { eventCount agentMessages { role } } }`,
		map[string]any{"s": scope, "d": perTurn}, &eps)
	if len(eps.Episodes) != 3 || len(eps.Episodes[0].AgentMessages) != 3 {
		t.Fatalf("agent turn episodes = %+v", eps.Episodes)
	}
	var files struct{ Facets []struct{ Value string } }
	s.ok(t, `query($s: ID!) { facets(scopeId: $s, type: "file_reference") { value } }`, map[string]any{"s": scope}, &files)
	seen := map[string]bool{}
	for _, f := range files.Facets {
		seen[f.Value] = true
	}
	if !seen["invoice/export.go"] || !seen["invoice/csv.go"] {
		t.Fatalf("file references = %+v", files.Facets)
	}
	s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { forkContext(scopeId: $s, query: "x", maxTurns: 1000) { totalTokens } }`, map[string]any{"s": scope})
	s.fails(t, "INVALID_ARGUMENT", `query($s: ID!) { forkContext(scopeId: $s, query: "  ") { totalTokens } }`, map[string]any{"s": scope})

	// Without a scope: the best turns of every scope with agent sessions, each with its scope.
	var across struct {
		ForkContext struct {
			RelevantTurns []struct {
				ScopeID string
				Turn    struct{ ScopeID, SourceID string }
			}
		}
	}
	s.ok(t, `{ forkContext(query: "PDF export crash", maxTurns: 20) { relevantTurns { scopeId turn { scopeId sourceId } } } }`, nil, &across)
	found := false
	for _, tc := range across.ForkContext.RelevantTurns {
		if tc.ScopeID == "" || tc.Turn.ScopeID != tc.ScopeID {
			t.Fatalf("turn labelled %q is of scope %q", tc.ScopeID, tc.Turn.ScopeID)
		}
		found = found || (tc.ScopeID == scope && tc.Turn.SourceID == "r2")
	}
	if !found {
		t.Fatalf("fork context across scopes = %+v, want this scope's r2", across.ForkContext.RelevantTurns)
	}
	s.fails(t, "INVALID_ARGUMENT", `{ forkContext(scopeId: "", query: "PDF export crash") { totalTokens } }`, nil)
	s.fails(t, "NOT_FOUND", `query($s: ID) { forkContext(scopeId: $s, query: "PDF export crash") { totalTokens } }`,
		map[string]any{"s": "00000000-0000-4000-8000-000000000000"})
}

// testAnalyzeAsync: analyzeEpisodes(async: true) answers with PENDING runs at once; the
// server's worker completes them, each announcing it in memoryEvents; asking again while or
// after they run makes no second run.
func testAnalyzeAsync(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "async analysis")
	s.importData(t, scope, "AGENT_SESSIONS", agentTranscript, "")
	conn, events := subscribeWS(t, s.addr, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type memoryId payload } }`,
		map[string]any{"s": scope})
	defer conn.Close()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case p, ok := <-events:
			if !ok {
				t.Fatalf("the subscription ended waiting for %s", what)
			}
			return p["data"].(map[string]any)["memoryEvents"].(map[string]any)
		case <-time.After(2 * time.Minute): // a liveness bound, not a speed check
			t.Fatalf("no event within 2 minutes waiting for %s", what)
		}
		return nil
	}
	// The subscription is live once a memory stored after it is delivered; the server registers
	// it a little after the request, so probes are stored until one is.
	probes := map[any]bool{}
	for live := false; !live; {
		if len(probes) == 120 {
			t.Fatal("the subscription never delivered a probe")
		}
		probes[s.store(t, map[string]any{"scopeId": scope, "content": fmt.Sprintf("subscription probe %d", len(probes))}).ID] = true
		retry := time.After(time.Second) // when to store another probe, not a deadline
		for waiting := true; waiting && !live; {
			select {
			case p, ok := <-events:
				if !ok {
					t.Fatal("the subscription ended")
				}
				live = probes[p["data"].(map[string]any)["memoryEvents"].(map[string]any)["memoryId"]]
			case <-retry:
				waiting = false
			}
		}
	}
	// The Synapse groups the probes into an episode in the background; the runs are asked for
	// once every probe is in one, so no episode appears between the two asks below.
	for id := range probes {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) { // liveness, not speed
			var eps struct{ Episodes []struct{ ID string } }
			s.ok(t, `query($s: ID!, $m: ID) { episodes(scopeId: $s, memoryId: $m) { id } }`, map[string]any{"s": scope, "m": id}, &eps)
			if len(eps.Episodes) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("probe %v is in no episode after 2 minutes", id)
			}
		}
	}
	analyze := `mutation($s: ID!, $r: ID) { analyzeEpisodes(scopeId: $s, type: "topics", async: true, requestId: $r) { id episodeId status startedAt } }`
	var r struct {
		AnalyzeEpisodes []struct {
			ID, EpisodeID, Status string
			StartedAt             *string
		}
	}
	s.ok(t, analyze, map[string]any{"s": scope, "r": "async-" + runID}, &r)
	want := map[string]bool{}
	for _, run := range r.AnalyzeEpisodes {
		if run.Status != "PENDING" || run.StartedAt != nil {
			t.Fatalf("async answer = %+v, want PENDING runs", r.AnalyzeEpisodes)
		}
		want[run.ID] = true
	}
	if len(want) == 0 || len(want) != len(r.AnalyzeEpisodes) {
		t.Fatalf("async answer = %+v", r.AnalyzeEpisodes)
	}
	for done := map[string]bool{}; len(done) < len(want); {
		ev := next("the runs' AnalysisRunCompleted")
		payload, _ := ev["payload"].(map[string]any)
		id, _ := payload["runId"].(string)
		if ev["type"] == "AnalysisRunFailed" && want[id] {
			t.Fatalf("run failed: %v", payload)
		}
		if ev["type"] == "AnalysisRunCompleted" && want[id] {
			done[id] = true
		}
	}
	var runs struct {
		AnalysisRuns []struct{ ID, TypeName, Status string }
	}
	s.ok(t, `query($s: ID!) { analysisRuns(scopeId: $s) { id typeName status } }`, map[string]any{"s": scope}, &runs)
	topics := 0
	for _, run := range runs.AnalysisRuns {
		if run.TypeName == "topics" {
			topics++
			if !want[run.ID] || run.Status != "COMPLETED" {
				t.Fatalf("topics run %+v", run)
			}
		}
	}
	if topics != len(want) {
		t.Fatalf("%d topics runs, want %d: one per episode", topics, len(want))
	}
	// Asked again: the completed runs stand.
	s.ok(t, analyze, map[string]any{"s": scope, "r": "async-again-" + runID}, &r)
	for _, run := range r.AnalyzeEpisodes {
		if run.Status != "COMPLETED" || !want[run.ID] {
			t.Fatalf("asked again: %+v", run)
		}
	}
	s.fails(t, "INVALID_ARGUMENT", `mutation($s: ID!) { analyzeEpisodes(scopeId: $s, type: "astrology", async: true) { id } }`, map[string]any{"s": scope})
	s.fails(t, "NOT_FOUND", `mutation($s: ID!, $e: [ID!]) { analyzeEpisodes(scopeId: $s, type: "topics", episodeIds: $e, async: true) { id } }`,
		map[string]any{"s": scope, "e": []string{"00000000-0000-4000-8000-000000000000"}})
}
