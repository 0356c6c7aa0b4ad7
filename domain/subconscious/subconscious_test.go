package subconscious

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeLiving answers the two reads Plan makes; every other method of the port panics.
type fakeLiving struct {
	domain.LivingStore
	sessions map[string]*domain.Session
	edges    map[string][]domain.Edge
}

func (f *fakeLiving) Session(_ context.Context, id string) (*domain.Session, error) {
	if s, ok := f.sessions[id]; ok {
		return s.Clone(), nil
	}
	return nil, domain.Errorf(domain.ENOTFOUND, "no session %s", id)
}

func (f *fakeLiving) Sessions(_ context.Context, ids []string) ([]*domain.Session, error) {
	var out []*domain.Session
	for _, id := range ids {
		if s, ok := f.sessions[id]; ok {
			out = append(out, s.Clone())
		}
	}
	return out, nil
}

func (f *fakeLiving) Neighbours(_ context.Context, ids []string, floor float64) ([]domain.Edge, error) {
	var out []domain.Edge
	for _, id := range ids {
		for _, e := range f.edges[id] {
			if e.Strength >= floor {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func msg(typ domain.EventType, payload map[string]any) *domain.Event {
	id := domain.NewID()
	return &domain.Event{Type: typ, ScopeID: "scope", Payload: payload, Context: domain.TransactionContext{SessionID: "s",
		RequestID: "r-" + id, MessageID: id, CausationID: "r-" + id, Timestamp: t0, SourceContext: domain.CtxCortex}}
}

func newSub(now *time.Time, f *fakeLiving, cfg Config) *Subconscious {
	return New(nil, f, nil, func() time.Time { return *now }, cfg, nil)
}

func TestThrottlePerMindRefills(t *testing.T) {
	now := t0
	s := newSub(&now, &fakeLiving{}, Config{RecallBurst: 2, RecallRefill: time.Minute})
	if !s.take("a", now) || !s.take("a", now) || s.take("a", now) {
		t.Fatal("a burst of 2 must allow exactly 2")
	}
	if !s.take("b", now) {
		t.Fatal("another mind has its own budget")
	}
	now = now.Add(59 * time.Second)
	if s.take("a", now) {
		t.Fatal("refilled too early")
	}
	now = now.Add(time.Second)
	if !s.take("a", now) || s.take("a", now) {
		t.Fatal("one refill per minute")
	}
	// A clock going backwards takes nothing away.
	if s.take("a", now.Add(-time.Hour)) {
		t.Fatal("a clock going backwards refilled")
	}
}

func TestPlanTotalRecallDeclinesAndRecalls(t *testing.T) {
	now := t0
	f := &fakeLiving{edges: map[string][]domain.Edge{
		"src": {{From: "src", To: "a", Type: domain.AssocCausal, Strength: 0.9}},
		"a":   {{From: "a", To: "b", Type: domain.AssocCausal, Strength: 0.5}, {From: "a", To: "src", Type: domain.AssocCausal, Strength: 0.9}},
	}}
	s := newSub(&now, f, Config{RecallBurst: 1, RecallRefill: time.Hour})
	adv := func() *domain.Event {
		return msg(domain.EvTotalRecallAdvisory, map[string]any{"sourceMemoryIds": []any{"src"}, "maxDepth": 3.0, "instanceId": "i"})
	}
	first, second := adv(), adv()
	plans, touched, err := s.Plan(context.Background(), []*domain.Event{first, second})
	if err != nil {
		t.Fatal(err)
	}
	if len(touched) != 2 {
		t.Fatalf("touched %v", touched)
	}
	var types []string
	for _, e := range plans[first.ID()].Events {
		types = append(types, string(e.Type))
		if !e.Context.Complete() || e.Context.RequestID != first.Context.RequestID {
			t.Fatalf("%s context %+v", e.Type, e.Context)
		}
	}
	if got := fmt.Sprint(types); got != "[TotalRecallCommand AssociationsFound MemoryAccessed AssociationsFound MemoryAccessed TotalRecallNotification]" {
		t.Fatalf("first advisory: %s", got)
	}
	if acc := plans[first.ID()].Accesses; len(acc) != 2 {
		t.Fatalf("accesses %+v", acc)
	}
	n := plans[first.ID()].Events[5]
	if n.Payload["depthReached"] != 2 || n.Payload["originRequestId"] != first.Context.RequestID || n.Payload["instanceId"] != "i" {
		t.Fatalf("notification payload %+v", n.Payload)
	}
	dec := plans[second.ID()].Events
	if len(dec) != 1 || dec[0].Type != domain.EvTotalRecallDeclined || dec[0].Payload["reason"] != DeclinedThrottled {
		t.Fatalf("second advisory: %+v", dec)
	}
	s.BeginShutdown()
	now = now.Add(24 * time.Hour)
	third := adv()
	plans, _, _ = s.Plan(context.Background(), []*domain.Event{third})
	if dec := plans[third.ID()].Events; len(dec) != 1 || dec[0].Payload["reason"] != DeclinedShuttingDown {
		t.Fatalf("during shutdown: %+v", dec)
	}
}

func TestPlanAuditCountsMemoriesStoredInTheSession(t *testing.T) {
	now := t0.Add(time.Hour)
	ended := t0.Add(30 * time.Minute)
	sess := &domain.Session{ID: domain.NewID(), ScopeID: "scope", InstanceID: "i", MindType: "m", StartedAt: t0,
		EndedAt: &ended, EndReason: domain.EndTimeout, MemoryIDs: []string{"m0"}}
	s := newSub(&now, &fakeLiving{sessions: map[string]*domain.Session{sess.ID: sess}}, Config{})
	stored := func(memoryID, sessionID string, at time.Time) *domain.Event {
		e := msg(domain.EvMemoryStored, nil)
		e.MemoryID, e.Context.SessionID, e.Context.Timestamp = memoryID, sessionID, at
		return e
	}
	in := stored("m1", sess.ID, t0.Add(time.Minute))
	late := stored("m2", sess.ID, t0.Add(45*time.Minute)) // after the session ended
	foreign := stored("m3", "not-a-session", t0)
	end := msg(domain.MsgSessionEnd, map[string]any{"sessionId": sess.ID})
	plans, _, err := s.Plan(context.Background(), []*domain.Event{in, late, foreign, end})
	if err != nil {
		t.Fatal(err)
	}
	if p := plans[in.ID()]; p == nil || len(p.SessionMemories) != 1 || p.SessionMemories[0].MemoryIDs[0] != "m1" {
		t.Fatalf("memory stored in the session: %+v", p)
	}
	if plans[late.ID()] != nil || plans[foreign.ID()] != nil {
		t.Fatal("memories stored outside the session were counted")
	}
	audit := plans[end.ID()].Events[0]
	if audit.Type != domain.NtSessionAuditPrompt || audit.Payload["prompt"] != DefaultAuditPrompt || audit.Payload["memoriesStored"] != 2 ||
		audit.Payload["durationSeconds"] != 1800 || audit.Payload["reason"] != "TIMEOUT" || audit.Context.CausationID != end.ID() {
		t.Fatalf("audit = %+v", audit)
	}
}

func TestSessionRules(t *testing.T) {
	s := &domain.Session{ID: "s1", ScopeID: "scope", InstanceID: "i", StartedAt: t0, LastHeartbeatAt: t0, Mode: domain.ModeConversation, ModeSince: t0}
	if TimedOut(s, 5*time.Minute, t0.Add(4*time.Minute)) || !TimedOut(s, 5*time.Minute, t0.Add(5*time.Minute)) {
		t.Fatal("timeout boundary")
	}
	tc := domain.TransactionContext{SessionID: "s1", RequestID: "r", MessageID: "m", CausationID: "r", Timestamp: t0, SourceContext: domain.CtxCortex}
	beat, evs := Beat(s, domain.ModeTask, tc, t0.Add(time.Minute))
	if beat.Mode != domain.ModeTask || !beat.ModeSince.Equal(t0.Add(time.Minute)) || len(evs) != 2 || evs[1].Type != domain.MsgModeChanged || s.Mode != domain.ModeConversation {
		t.Fatalf("beat = %+v %+v", beat, evs)
	}
	if _, due := BreakDue(beat, 30*time.Minute, t0.Add(30*time.Minute)); due {
		t.Fatal("break due too early")
	}
	mins, due := BreakDue(beat, 30*time.Minute, t0.Add(31*time.Minute))
	if !due || mins != 30 {
		t.Fatalf("break due = %v after %d minutes", due, mins)
	}
	last := t0.Add(31 * time.Minute)
	beat.LastBreakAt = &last
	if _, due := BreakDue(beat, 30*time.Minute, t0.Add(40*time.Minute)); due {
		t.Fatal("a break notification repeated before another BreakAfter")
	}
	if _, due := BreakDue(s, 30*time.Minute, t0.Add(10*time.Hour)); due {
		t.Fatal("no break outside task mode")
	}
	start := &domain.Event{Type: domain.MsgSessionStart, Context: tc}
	next := &domain.Session{ID: "s2", ScopeID: "scope", InstanceID: "i"}
	ch := Start([]*domain.Session{s}, next, start, t0.Add(time.Hour))
	if len(ch.Sessions) != 2 || ch.Sessions[0].EndReason != domain.EndCrash || ch.Sessions[1] != next || len(ch.Events) != 2 ||
		ch.Events[1].Type != domain.MsgSessionEnd || ch.Events[1].Payload["reason"] != "CRASH" || ch.Events[1].Context.CausationID != "m" {
		t.Fatalf("start over a running session = %+v", ch)
	}
}
