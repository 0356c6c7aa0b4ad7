package ingest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

const conversation = `{
  "speaker_a": "Caroline", "speaker_b": "Melanie",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [
    {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
    {"speaker": "Melanie", "dia_id": "D1:2", "text": "Look at this.", "img_url": ["http://x/y.jpg"], "blip_caption": "a photo of a sunset", "query": "sunset"},
    {"speaker": "", "dia_id": "D1:3", "text": "no speaker"},
    {"speaker": "Caroline", "dia_id": "D1:1", "text": "duplicate"}
  ],
  "session_2_date_time": "sometime",
  "session_2": [{"speaker": "Caroline", "dia_id": "D2:1", "text": "lost"}],
  "session_10_date_time": "7:00 pm on 9 June, 2023",
  "session_10": [{"speaker": "Melanie", "dia_id": "D10:1", "text": "later"}],
  "qa": [
    {"question": "When?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
    {"question": "What?", "answer": 2022, "evidence": ["D1:2; D10:1"], "category": 1},
    {"question": "Adversarial", "adversarial_answer": "x", "evidence": [], "category": 5}
  ]
}`

func TestParseLoCoMo(t *testing.T) {
	c, err := ParseLoCoMo(strings.NewReader(conversation), "conv")
	if err != nil {
		t.Fatal(err)
	}
	if c.SpeakerA != "Caroline" || c.Sessions != 2 || c.Turns != 3 {
		t.Fatalf("conversation = %+v", c)
	}
	if len(c.Problems) != 3 {
		t.Fatalf("problems = %+v, want the speakerless turn, the duplicate and the undated session", c.Problems)
	}
	evs := c.Batch.Events
	if evs[0].SourceID != "conv/D1:1" || evs[0].ThreadSourceID != "conv/session_1" || evs[0].Speaker != "Caroline" ||
		!evs[0].Timestamp.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) || evs[0].Direction != domain.DirectionSent {
		t.Fatalf("first turn = %+v", evs[0])
	}
	img := evs[1]
	if img.Content != "Look at this. [image: a photo of a sunset]" || img.Metadata["caption"] != "a photo of a sunset" ||
		img.Metadata["imageUrl"] != "http://x/y.jpg" || img.Direction != domain.DirectionReceived || len(img.ContentTypes) != 2 {
		t.Fatalf("image turn = %+v", img)
	}
	if evs[2].Metadata["session"] != 10.0 || evs[2].ThreadSourceID != "conv/session_10" {
		t.Fatalf("sessions are ordered by number: %+v", evs[2])
	}
	if len(c.Batch.Threads) != 3 || c.Batch.Threads[1].ParentSourceID != "conv" {
		t.Fatalf("threads = %+v", c.Batch.Threads)
	}
	if len(c.Questions) != 3 || fmt.Sprint(c.Questions[1].Evidence) != "[D1:2 D10:1]" || c.Questions[1].Answer != "2022" {
		t.Fatalf("questions = %+v", c.Questions)
	}
	for _, bad := range []string{`[1,2]`, `{"speaker_a": "x"}`, `not json`} {
		if _, err := ParseLoCoMo(strings.NewReader(bad), "x"); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("ParseLoCoMo(%q) err = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}

func TestReadEvents(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp": "2024-05-01T10:00:00Z", "channel": "imessage", "content": "hello", "direction": "sent", "thread_id": "t1", "thread_name": "Ada", "source_id": "1", "sender": "me"}`,
		``,
		`{"timestamp": 1714557660, "channel": "imessage", "content": "hi!", "direction": "received", "thread_id": "t1", "source_id": "2", "reply_to": "1", "metadata": {"k": "v"}}`,
		`{not json`,
		`{"timestamp": "yesterday", "content": "x", "source_id": "3"}`,
		`{"timestamp": 1714557720000, "content": "ms", "source_id": "4", "thread_id": "t2"}`,
		`{"timestamp": 1714557720, "content": "no id"}`,
		`{"timestamp": 1714557720, "source_id": "5"}`,
		`{"timestamp": 1714557720, "source_id": "6", "content": "other adapter", "source_adapter": "gmail"}`,
	}, "\n")
	var batches []*domain.SourceBatch
	var problems []domain.SourceProblem
	if err := ReadEvents(strings.NewReader(in), "jsonl", 2, func(b *domain.SourceBatch, ps []domain.SourceProblem) error {
		batches = append(batches, b)
		problems = append(problems, ps...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var evs []*domain.SourceEvent
	for _, b := range batches {
		evs = append(evs, b.Events...)
		if len(b.Events) > 2 {
			t.Fatalf("a batch of %d events, want at most 2", len(b.Events))
		}
	}
	if len(evs) != 4 {
		t.Fatalf("events = %d, want 4", len(evs))
	}
	var lines []int
	for _, p := range problems {
		lines = append(lines, p.Line)
	}
	if fmt.Sprint(lines) != "[4 5 7 8]" {
		t.Fatalf("problem lines = %v (%+v), want [4 5 7 8]", lines, problems)
	}
	if e := evs[1]; e.ReplyTo != "1" || e.Line != 3 || e.Metadata["k"] != "v" || !e.Timestamp.Equal(time.Unix(1714557660, 0)) {
		t.Fatalf("second event = %+v", e)
	}
	if e := evs[2]; !e.Timestamp.Equal(time.UnixMilli(1714557720000)) {
		t.Fatalf("millisecond timestamp read as %v", e.Timestamp)
	}
	if e := evs[3]; e.Adapter != "gmail" {
		t.Fatalf("per-line adapter = %q", e.Adapter)
	}
	if len(batches[0].Threads) != 1 || batches[0].Threads[0].Name != "Ada" {
		t.Fatalf("threads = %+v", batches[0].Threads)
	}
	// A caller's error stops the read.
	stop := errors.New("stop")
	if err := ReadEvents(strings.NewReader(in), "jsonl", 1, func(*domain.SourceBatch, []domain.SourceProblem) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("err = %v", err)
	}
}

func TestLongLine(t *testing.T) {
	in := `{"timestamp": 1, "content": "` + strings.Repeat("x", MaxLineBytes+10) + `", "source_id": "big"}` + "\n" +
		`{"timestamp": 1, "content": "small", "source_id": "s"}`
	var evs []*domain.SourceEvent
	var problems []domain.SourceProblem
	_ = ReadEvents(strings.NewReader(in), "jsonl", 10, func(b *domain.SourceBatch, ps []domain.SourceProblem) error {
		evs = append(evs, b.Events...)
		problems = append(problems, ps...)
		return nil
	})
	if len(evs) != 1 || evs[0].SourceID != "s" || len(problems) != 1 || problems[0].Line != 1 {
		t.Fatalf("events %+v problems %+v", evs, problems)
	}
}

func TestParseAgentsNormalised(t *testing.T) {
	in := strings.Join([]string{
		`{"type": "session", "id": "s1", "source": "codex", "model": "gpt-x", "project": "totalrecall", "created_at": "2026-01-01T10:00:00Z"}`,
		`{"type": "message", "id": "m1", "session_id": "s1", "role": "user", "content": "fix it", "timestamp": "2026-01-01T10:00:01Z"}`,
		`{"type": "message", "id": "m2", "session_id": "s1", "role": "assistant", "content": [{"type": "text", "text": "done"}]}`,
		`{"type": "tool_call", "id": "c1", "session_id": "s1", "message_id": "m2", "tool_name": "bash", "params": {"cmd": "go test"}, "child_session_id": "s2"}`,
		`{"type": "message", "id": "m3", "session_id": "s2", "role": "user", "content": "subtask"}`,
		`{"type": "message", "id": "bad"}`,
		`{"type": "mystery"}`,
	}, "\n")
	b, problems, err := ParseAgents(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Sessions) != 2 || len(b.Messages) != 3 || len(b.ToolCalls) != 1 || len(problems) != 2 {
		t.Fatalf("sessions %d messages %d calls %d problems %+v", len(b.Sessions), len(b.Messages), len(b.ToolCalls), problems)
	}
	if b.Messages[1].Content != "done" || b.Messages[1].Sequence != 2 || b.ToolCalls[0].ChildSessionID != "s2" {
		t.Fatalf("messages %+v calls %+v", b.Messages, b.ToolCalls)
	}
	if s := b.Sessions[0]; s.Model != "gpt-x" || s.CreatedAt == nil || s.Raw["project"] != "totalrecall" {
		t.Fatalf("session = %+v", s)
	}
}

func TestParseAgentsClaudeCode(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"summary","summary":"x"}`,
		`{"type":"user","uuid":"u1","sessionId":"S","timestamp":"2026-01-01T10:00:00Z","cwd":"/repo","message":{"role":"user","content":"run the tests"}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"S","timestamp":"2026-01-01T10:00:05Z","message":{"role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"tu1","name":"Task","input":{"description":"look around"}}]}}`,
		`{"type":"user","uuid":"sc1","sessionId":"S","isSidechain":true,"agentId":"ag1","timestamp":"2026-01-01T10:00:06Z","message":{"role":"user","content":"look around"}}`,
		`{"type":"user","uuid":"u2","sessionId":"S","timestamp":"2026-01-01T10:00:09Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"found it"}]}]}}`,
		`{"type":"assistant","uuid":"a2","sessionId":"S","timestamp":"2026-01-01T10:00:10Z","message":{"role":"assistant","content":[{"type":"text","text":"All tests pass."}]}}`,
	}, "\n")
	b, problems, err := ParseAgents(strings.NewReader(in), "")
	if err != nil || len(problems) != 0 {
		t.Fatalf("err %v problems %+v", err, problems)
	}
	if len(b.Sessions) != 2 {
		t.Fatalf("sessions = %+v", b.Sessions)
	}
	main, child := b.Sessions[0], b.Sessions[1]
	if main.Source != "claude-code" || main.WorkspacePath != "/repo" || main.Model != "claude-x" {
		t.Fatalf("session = %+v", main)
	}
	if child.ParentSessionID != "S" || !child.IsSubagent || child.ToolCallID != "tu1" || child.TaskDescription != "look around" {
		t.Fatalf("sidechain session = %+v", child)
	}
	call := b.ToolCalls[0]
	if call.Result != "found it" || call.Status != "ok" || call.ChildSessionID != child.ID || call.MessageID != "a1" {
		t.Fatalf("tool call = %+v", call)
	}
	roles := ""
	for _, m := range b.Messages {
		roles += m.Role + " "
	}
	if roles != "user assistant user tool assistant " {
		t.Fatalf("roles = %q (a tool result is no user query)", roles)
	}
}

func TestOpen(t *testing.T) {
	if _, err := Open("tarball", "x", strings.NewReader(""), ""); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("err = %v", err)
	}
	src, err := Open(KindLoCoMo, "conv", strings.NewReader(conversation), "")
	if err != nil || src.Adapter != AdapterLoCoMo || len(src.Definitions) != 1 || src.Analyses[0] != "persons" {
		t.Fatalf("source = %+v, %v", src, err)
	}
	// Events are chunked into episodes at gaps of 90 minutes in a thread.
	src, err = Open(KindEvents, "events", strings.NewReader(""), "")
	if err != nil || len(src.Definitions) != 1 || src.Definitions[0].Strategy != domain.StrategyTimeGap ||
		src.Definitions[0].Config["gap_seconds"] != 5400.0 || src.Definitions[0].Config["scope"] != "thread" {
		t.Fatalf("events source = %+v, %v", src, err)
	}
}

func TestParseAgentsCodexRollout(t *testing.T) {
	f, err := os.Open("testdata/codex-rollout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, problems, err := ParseAgents(f, "")
	if err != nil || len(problems) != 0 {
		t.Fatalf("err %v problems %+v", err, problems)
	}
	const sid = "0199f1c2-7d3a-7a10-9b2e-4c1f0e6a2b11"
	if len(b.Sessions) != 1 {
		t.Fatalf("sessions = %+v", b.Sessions)
	}
	s := b.Sessions[0]
	if s.ID != sid || s.Source != "codex" || s.Model != "gpt-5-codex" || s.WorkspacePath != "/home/dev/totalrecall" ||
		s.CreatedAt == nil || !s.CreatedAt.Equal(time.Date(2026, 3, 2, 9, 14, 7, 302000000, time.UTC)) {
		t.Fatalf("session = %+v", s)
	}
	var got []string
	for _, m := range b.Messages {
		got = append(got, fmt.Sprintf("%s %s %d %q", m.ID, m.Role, m.Sequence, m.Content))
	}
	want := []string{
		sid + `:3 user 1 "Why does the decay sweep skip claimed memories?"`,
		sid + `:9 assistant 2 "Claimed memories resist decay: the sweep rescores them but never demotes them below their tier."`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("messages:\n%s\nwant (the environment context, the UI's copies and reasoning left out):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(b.ToolCalls) != 1 {
		t.Fatalf("tool calls = %+v", b.ToolCalls)
	}
	c := b.ToolCalls[0]
	params, _ := c.Params.(map[string]any)
	if c.ID != "call_7Hq2" || c.ToolName != "shell" || c.MessageID != sid+":3" || c.Status != "ok" ||
		c.Result != "domain/salience/sweep.go:41: if row.Claimed {" || fmt.Sprint(params["command"]) != "[rg claimed domain/salience]" {
		t.Fatalf("tool call = %+v", c)
	}
}

func TestParseAgentsCodexWithoutSessionMeta(t *testing.T) {
	in := `{"timestamp":"2026-03-02T09:14:12.020Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`
	b, problems, err := ParseAgents(strings.NewReader(in), "")
	if err != nil || len(b.Messages) != 0 || len(problems) != 1 || problems[0].Line != 1 ||
		problems[0].Message != "a Codex response_item line before the session_meta that names its session" {
		t.Fatalf("messages %+v problems %+v err %v", b.Messages, problems, err)
	}
}

func TestTurnSource(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	batch := func(tu Turn) *domain.SourceBatch {
		t.Helper()
		src, err := TurnSource(tu)
		if err != nil {
			t.Fatal(err)
		}
		var b *domain.SourceBatch
		if err := src.Batches(func(x *domain.SourceBatch, _ []domain.SourceProblem) error { b = x; return nil }); err != nil {
			t.Fatal(err)
		}
		if src.Definitions != nil || src.Analyses != nil {
			t.Fatalf("a recorded turn chunks nothing: %+v %+v", src.Definitions, src.Analyses)
		}
		return b
	}
	// Claude Code: the transcript's ids; the answer names the turn (derived by the ledger).
	b := batch(Turn{SessionID: "S", Source: "claude-code", Prompt: "run the tests", PromptID: "u1", PromptAt: &at,
		Answer: "All tests pass.", AnswerID: "a2", WorkspacePath: "/home/dev/repo"})
	if len(b.Messages) != 2 || b.Messages[0].ID != "u1" || b.Messages[0].Role != "user" || b.Messages[1].ID != "a2" ||
		b.Messages[1].Role != "assistant" || len(b.Turns) != 0 || b.Sessions[0].Project != "repo" || b.Sessions[0].Source != "claude-code" {
		t.Fatalf("batch = %+v %+v %+v", b.Sessions[0], b.Messages, b.Turns)
	}
	// Codex: the prompt first, the answer later, one turn of the same two ids.
	p := batch(Turn{SessionID: "S", Source: "codex", TurnID: "T1", Prompt: "why?", PromptAt: &at})
	a := batch(Turn{SessionID: "S", Source: "codex", TurnID: "T1", Answer: "because."})
	if len(p.Messages) != 1 || p.Messages[0].ID != "T1:prompt" || len(a.Messages) != 1 || a.Messages[0].ID != "T1:answer" {
		t.Fatalf("messages = %+v / %+v", p.Messages, a.Messages)
	}
	for _, x := range []*domain.SourceBatch{p, a} {
		if len(x.Turns) != 1 || x.Turns[0].ID != "T1" || fmt.Sprint(x.Turns[0].QueryMessageIDs) != "[T1:prompt]" || x.Turns[0].ResponseMessageID != "T1:answer" {
			t.Fatalf("turn = %+v", x.Turns)
		}
	}
	// Without ids: digests of the session and the text, the same every time.
	d1, d2 := batch(Turn{SessionID: "S", Prompt: "same"}), batch(Turn{SessionID: "S", Prompt: "same"})
	if d1.Messages[0].ID != d2.Messages[0].ID || !strings.HasPrefix(d1.Messages[0].ID, "prompt:") {
		t.Fatalf("ids %q %q", d1.Messages[0].ID, d2.Messages[0].ID)
	}
	for _, bad := range []Turn{{Prompt: "x"}, {SessionID: "S"}, {SessionID: "S", Prompt: " \n", Answer: "\t"}} {
		if _, err := TurnSource(bad); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("TurnSource(%+v) = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}
