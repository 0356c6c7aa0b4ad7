package episodes

import (
	"fmt"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func item(id, thread string, minutes int, dir string) Item {
	return Item{ID: id, Thread: thread, Channel: "chat", Time: t0.Add(time.Duration(minutes) * time.Minute), Direction: dir}
}

func def(s domain.EpisodeStrategy, cfg map[string]any) *domain.EpisodeDefinition {
	if cfg == nil {
		cfg = map[string]any{}
	}
	return &domain.EpisodeDefinition{ID: "d", ScopeID: "s", Name: string(s), Strategy: s, Config: cfg}
}

func groups(eps []*domain.Episode) string {
	out := ""
	for _, e := range eps {
		out += fmt.Sprint(e.Items)
	}
	return out
}

func TestStrategies(t *testing.T) {
	items := []Item{
		item("a1", "A", 0, domain.DirectionSent),
		item("a2", "A", 1, domain.DirectionReceived),
		item("a3", "A", 200, domain.DirectionSent), // after a 199-minute gap
		item("a4", "A", 201, domain.DirectionSent),
		item("a5", "A", 202, domain.DirectionReceived),
		item("b1", "B", 5, domain.DirectionReceived),
		item("b2", "B", 6, domain.DirectionSent),
	}
	tests := []struct {
		name string
		def  *domain.EpisodeDefinition
		want string
	}{
		{"time gap per thread", def(domain.StrategyTimeGap, map[string]any{"gap_seconds": 5400.0}), "[a1 a2][a3 a4 a5][b1 b2]"},
		{"time gap over all", def(domain.StrategyTimeGap, map[string]any{"gap_seconds": 5400.0, "scope": "all"}), "[a1 a2 b1 b2][a3 a4 a5]"},
		{"thread", def(domain.StrategyThread, nil), "[a1 a2 a3 a4 a5][b1 b2]"},
		{"single event", def(domain.StrategySingleEvent, nil), "[a1][a2][a3][a4][a5][b1][b2]"},
		{"turn", def(domain.StrategyTurn, nil), "[a1 a2][a3 a4 a5][b1][b2]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eps, err := Chunk(tc.def, items, t0)
			if err != nil {
				t.Fatal(err)
			}
			if got := groups(eps); got != tc.want {
				t.Fatalf("episodes = %s, want %s", got, tc.want)
			}
			// Chunking again gives the same episodes (ids and all).
			again, _ := Chunk(tc.def, items, t0.Add(time.Hour))
			for i := range eps {
				if eps[i].ID != again[i].ID {
					t.Fatalf("episode %d has id %s, then %s", i, eps[i].ID, again[i].ID)
				}
			}
		})
	}
}

func TestEpisodeFields(t *testing.T) {
	items := []Item{item("x2", "T", 3, ""), item("x1", "T", 1, "")}
	eps, err := Chunk(def(domain.StrategyThread, nil), items, t0)
	if err != nil || len(eps) != 1 {
		t.Fatalf("%v %v", eps, err)
	}
	e := eps[0]
	if e.FirstEventID != "x1" || e.LastEventID != "x2" || e.EventCount != 2 || e.ThreadID != "T" || e.Channel != "chat" ||
		!e.StartTime.Equal(t0.Add(time.Minute)) || !e.EndTime.Equal(t0.Add(3*time.Minute)) {
		t.Fatalf("episode = %+v", e)
	}
}

func TestAgentStrategies(t *testing.T) {
	at := t0
	msgs := []*domain.AgentMessage{
		{ID: "m1", SessionID: "S", Sequence: 1, Timestamp: &at},
		{ID: "m2", SessionID: "S", Sequence: 2},
		{ID: "m3", SessionID: "S", Sequence: 3},
		{ID: "n1", SessionID: "R", Sequence: 1},
	}
	turns := []*domain.AgentTurn{{ID: "t1", MessageIDs: []string{"m1", "m2"}}, {ID: "t2", MessageIDs: []string{"m3"}}}
	items := MessageItems(msgs, turns, map[string]*domain.AgentSession{"S": {ID: "S", Source: "codex"}})
	eps, _ := Chunk(def(domain.StrategyAgentTurn, nil), items, t0)
	if got := groups(eps); got != "[m1 m2][m3]" {
		t.Fatalf("agent turns = %s", got)
	}
	eps, _ = Chunk(def(domain.StrategyAgentSession, nil), items, t0)
	if got := groups(eps); got != "[n1][m1 m2 m3]" && got != "[m1 m2 m3][n1]" {
		t.Fatalf("agent sessions = %s", got)
	}
}

func TestChannelFilterAndBadDefinitions(t *testing.T) {
	items := []Item{item("a", "T", 0, ""), {ID: "b", Thread: "T", Channel: "mail", Time: t0}}
	d := def(domain.StrategyThread, nil)
	d.Channel = "mail"
	eps, _ := Chunk(d, items, t0)
	if got := groups(eps); got != "[b]" {
		t.Fatalf("channel filter = %s", got)
	}
	for _, bad := range []*domain.EpisodeDefinition{
		def("nope", nil),
		def(domain.StrategyTimeGap, nil),
		def(domain.StrategyTimeGap, map[string]any{"gap_seconds": -1.0}),
		def(domain.StrategyTimeGap, map[string]any{"gap_seconds": 60.0, "scope": "galaxy"}),
		def(domain.StrategyThread, map[string]any{"gap_seconds": 60.0}),
		{Strategy: domain.StrategyThread},
	} {
		if _, err := Chunk(bad, items, t0); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("Chunk(%+v) err = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
}
