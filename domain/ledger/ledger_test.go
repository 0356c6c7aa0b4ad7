package ledger

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func clock() time.Time { return t0 }

func cmd() domain.TransactionContext {
	return domain.TransactionContext{SessionID: "s", RequestID: "r", MessageID: "m", CausationID: "c", Timestamp: t0, SourceContext: domain.CtxHippocampus}
}

func ev(id, thread, speaker, text string, minutes int) *domain.SourceEvent {
	return &domain.SourceEvent{SourceID: id, ThreadSourceID: thread, Timestamp: t0.Add(time.Duration(minutes) * time.Minute),
		Channel: "chat", Content: text, Direction: domain.DirectionSent, Speaker: speaker}
}

func TestEventsAndTemporalChain(t *testing.T) {
	scope := domain.NewID()
	f := NewFormer(scope, "chat-export", clock)
	first := f.Events("chat-export", []*domain.SourceThread{{SourceID: "T", Channel: "chat", Name: "a chat"}},
		[]*domain.SourceEvent{ev("1", "T", "Ada", "hello", 0), ev("2", "T", "Bob", "hi Ada", 1), ev("x", "U", "", "note", 0)}, cmd())
	if len(first.Problems) != 0 || len(first.Batch.Events) != 3 {
		t.Fatalf("formed %s", first.Describe())
	}
	e := first.Batch.Events[0]
	if e.Memory.ID != EventID(scope, "chat-export", "1") || e.Memory.Content != "Ada: hello" || e.Speaker != "Ada" ||
		e.ThreadID != domain.DeriveID(scope, "thread", "chat-export", "T") || e.Memory.Metadata[domain.MetaSpeaker] != "Ada" {
		t.Fatalf("event = %+v", e)
	}
	if e.Memory.Metadata[domain.MetaIngestMessage] != "m" {
		t.Fatal("a memory records the ingest write that made it")
	}
	// Thread U was never described: a minimal one is made.
	if len(first.Batch.Threads) != 2 {
		t.Fatalf("threads = %d, want 2", len(first.Batch.Threads))
	}
	if as := first.Batch.Associations; len(as) != 1 || as[0].Type != domain.AssocTemporal || math.Abs(as[0].Strength-(0.5+0.5*math.Exp(-1.0/30))) > 1e-12 {
		t.Fatalf("associations = %+v", as)
	}
	// The chain goes on across batches.
	second := f.Events("chat-export", nil, []*domain.SourceEvent{ev("3", "T", "Ada", "how are you?", 120)}, cmd())
	as := second.Batch.Associations
	if len(as) != 1 || as[0].SourceID != EventID(scope, "chat-export", "2") || as[0].TargetID != EventID(scope, "chat-export", "3") {
		t.Fatalf("association across batches = %+v", as)
	}
	if s := as[0].Strength; !(s > 0.5 && s < 0.55) {
		t.Fatalf("strength two hours apart = %v", s)
	}
	// Formed again (a re-run of the import), the ids are the same.
	again := NewFormer(scope, "chat-export", clock).Events("chat-export", nil, []*domain.SourceEvent{ev("1", "T", "Ada", "hello", 0)}, cmd())
	if again.Batch.Events[0].Memory.ID != e.Memory.ID {
		t.Fatal("forming the same source event twice gives two ids")
	}
	// Informative turns matter more than greetings, and salience sees the associations.
	if !(second.Batch.Events[0].Memory.Importance < Informativeness("I went to a support group in Sweden yesterday")) {
		t.Fatal("a question is less informative than a statement of facts")
	}
	hi := first.Batch.Events[1].Memory
	// "hi Ada": one content word; its TEMPORAL association, a minute after the greeting, counts
	// in its potential from the start.
	importance := 1 - math.Exp(-1.0/6)
	want := 0.25 + 0.30*importance + 0.10*(1-math.Exp(-(0.5+0.5*math.Exp(-1.0/30))/2))
	if math.Abs(hi.Salience-want) > 1e-12 || math.Abs(hi.Importance-importance) > 1e-12 {
		t.Fatalf("salience = %v (importance %v), want %v: the potential with its association", hi.Salience, hi.Importance, want)
	}
}

func TestProblemsAreReportedAndSkipped(t *testing.T) {
	f := NewFormer(domain.NewID(), "a", clock)
	bad := []*domain.SourceEvent{
		{SourceID: "", Timestamp: t0, Content: "x"},
		{SourceID: "no-time", Content: "x"},
		{SourceID: "blank", Timestamp: t0, Content: "  \n"},
		{SourceID: "dir", Timestamp: t0, Content: "x", Direction: "sideways"},
		{SourceID: "nul", Timestamp: t0, Content: "a\x00b"},
		{SourceID: strings.Repeat("x", MaxSourceIDBytes+1), Timestamp: t0, Content: "x"},
		{SourceID: "huge", Timestamp: t0, Content: strings.Repeat("x", domain.MaxContentBytes()+1)},
		{SourceID: "ok", Timestamp: t0, Content: "fine", Line: 8},
		{SourceID: "ok", Timestamp: t0, Content: "twice", Line: 9},
	}
	got := f.Events("a", nil, bad, cmd())
	if len(got.Batch.Events) != 1 || len(got.Problems) != 8 {
		t.Fatalf("formed %s: %+v", got.Describe(), got.Problems)
	}
	if last := got.Problems[7]; last.Line != 9 || last.Record != "ok" {
		t.Fatalf("duplicate reported as %+v", last)
	}
}

func TestAgents(t *testing.T) {
	scope := domain.NewID()
	f := NewFormer(scope, "aix-events", clock)
	at := func(m int) *time.Time { x := t0.Add(time.Duration(m) * time.Minute); return &x }
	sb := &domain.SourceBatch{Adapter: "aix-events", AgentAdapter: "aix-agents",
		Sessions: []*domain.AgentSession{{ID: "S", Source: "codex", Model: "m1"}, {ID: "C", Source: "codex"}},
		Messages: []*domain.AgentMessage{
			{ID: "u1", SessionID: "S", Role: "user", Content: "fix the failing test", Timestamp: at(0)},
			{ID: "a1", SessionID: "S", Role: "assistant", Content: "", Timestamp: at(1)},
			{ID: "t1", SessionID: "S", Role: "tool", Content: "ok", Timestamp: at(2)},
			{ID: "a2", SessionID: "S", Role: "assistant", Content: "Fixed graph/ingest.go.", Timestamp: at(3)},
			{ID: "u2", SessionID: "S", Role: "user", Content: "thanks", Timestamp: at(4)},
			{ID: "u3", SessionID: "S", Role: "user", Content: "and the docs?", Timestamp: at(5)},
			{ID: "a3", SessionID: "S", Role: "assistant", Content: "Done.", Timestamp: at(6)},
			{ID: "c1", SessionID: "C", Role: "user", Content: "look up x", Timestamp: at(1)},
		},
		ToolCalls: []*domain.AgentToolCall{{ID: "k1", SessionID: "S", MessageID: "a1", ToolName: "task", ChildSessionID: "C"}},
	}
	formed, threads, events := f.Agents(sb)
	b := formed.Batch
	if len(formed.Problems) != 0 || len(b.Sessions) != 2 || len(b.Messages) != 8 || len(b.ToolCalls) != 1 {
		t.Fatalf("agents formed %s", formed.Describe())
	}
	id := func(kind, sid string) string { return domain.DeriveID(scope, kind, "aix-agents", sid) }
	var sTurns []*domain.AgentTurn
	for _, tr := range b.Turns {
		if tr.SessionID == id("session", "S") {
			sTurns = append(sTurns, tr)
		}
	}
	if len(sTurns) != 2 {
		t.Fatalf("turns of S = %+v", sTurns)
	}
	t1, t2 := sTurns[0], sTurns[1]
	if t1.ID != id("turn", "a2") || t1.ResponseMessageID != id("message", "a2") || fmt.Sprint(t1.QueryMessageIDs) != fmt.Sprint([]string{id("message", "u1")}) ||
		len(t1.MessageIDs) != 4 || t1.ToolCallCount != 1 || !t1.HasChildren || t1.Sequence != 1 {
		t.Fatalf("first turn = %+v", t1)
	}
	if len(t2.QueryMessageIDs) != 2 || t2.ParentTurnID != t1.ID || t2.Sequence != 2 {
		t.Fatalf("second turn = %+v", t2)
	}
	for _, s := range b.Sessions {
		if s.SourceID == "C" && (!s.IsSubagent || s.ParentSessionID != id("session", "S") || s.ToolCallID != id("toolcall", "k1")) {
			t.Fatalf("child session = %+v", s)
		}
		if s.SourceID == "S" && s.MessageCount != 7 {
			t.Fatalf("message count = %d", s.MessageCount)
		}
	}
	// Trimmed: per turn one user event and one final assistant event, in a thread per session.
	if len(threads) != 2 {
		t.Fatalf("trimmed threads = %d", len(threads))
	}
	var texts []string
	for _, e := range events {
		texts = append(texts, e.Speaker+"|"+e.Content)
		if e.TurnSourceID == "" || len(e.Tags) != 1 || e.Tags[0] != TagAgentTurn {
			t.Fatalf("trimmed event = %+v", e)
		}
	}
	want := "[user|fix the failing test assistant|Fixed graph/ingest.go. user|thanks\n\nand the docs? assistant|Done. user|look up x]"
	if got := fmt.Sprint(texts); got != want {
		t.Fatalf("trimmed events = %q, want %q", got, want)
	}
	formedEvents := f.Events("aix-events", threads, events, cmd())
	if len(formedEvents.Problems) != 0 || formedEvents.Batch.Events[0].TurnID != t1.ID {
		t.Fatalf("trimmed events formed: %s %+v", formedEvents.Describe(), formedEvents.Problems)
	}
}

// TestDocumentedIngestNumbers pins the rules docs/concepts.md states for ingested events: the
// TEMPORAL association of consecutive events is 0.5 + 0.5·e^(−Δt/30 min) strong, and an
// utterance's importance is 1 − e^(−n/6) for n content words, 0.6 of that for a question.
func TestDocumentedIngestNumbers(t *testing.T) {
	for _, c := range []struct {
		gap  time.Duration
		want float64
	}{
		{0, 1}, {30 * time.Minute, 0.5 + 0.5*math.Exp(-1)}, {-30 * time.Minute, 0.5 + 0.5*math.Exp(-1)},
		{2 * time.Hour, 0.5 + 0.5*math.Exp(-4)}, {1000 * time.Hour, 0.5},
	} {
		if got := synapse.DefaultParams().TemporalStrength(c.gap); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("TemporalStrength(%v) = %v, want %v", c.gap, got, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want float64
	}{
		// went, support, group, sweden, yesterday: five content words.
		{"I went to a support group in Sweden yesterday", 1 - math.Exp(-5.0/6)},
		// caroline, sweden: two, asked.
		{"Did Caroline go to Sweden?", 0.6 * (1 - math.Exp(-2.0/6))},
		{"hi, how are you", 0},
	} {
		if got := Informativeness(c.text); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Informativeness(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
