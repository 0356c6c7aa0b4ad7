package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
)

// The living memory end to end: sessions, decay over a simulated year, total recall,
// reflection, consolidation, working memory, flashbacks, and notifications over a real
// websocket client.

// e2eClock is the server's clock in the end-to-end suite: real time plus an offset the living
// tests move forward to simulate days (and move back when done).
var e2eClock offsetClock

type offsetClock struct{ off atomic.Int64 }

func (c *offsetClock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *offsetClock) advance(d time.Duration) { c.off.Add(int64(d)) }
func (c *offsetClock) restoreAfter(t *testing.T) {
	at := c.off.Load()
	t.Cleanup(func() { c.off.Store(at) })
}

// Session timing of the suite's server, in simulated time.
const (
	e2eSessionTimeout = 10 * time.Minute
	e2eBreakAfter     = 30 * time.Minute
	e2eRecallBurst    = 3
)

// withLiving gives the suite's server the offset clock and a Subconscious that checks sessions
// every 50 ms of real time (decay sweeps stay off: the tests ask for them).
func withLiving(f storeFlags) storeFlags {
	f.now = e2eClock.now
	f.living = cortex.LivingConfig{Subconscious: subconscious.Config{SessionCheckInterval: 50 * time.Millisecond,
		SessionTimeout: e2eSessionTimeout, BreakAfter: e2eBreakAfter, RecallBurst: e2eRecallBurst, RecallRefill: time.Hour}}
	return f
}

type txContext struct {
	SessionID, RequestID, MessageID, CausationID, Timestamp, SourceContext string
}

func (c txContext) complete() bool {
	return c.SessionID != "" && c.RequestID != "" && c.MessageID != "" && c.CausationID != "" && c.Timestamp != "" && c.SourceContext != ""
}

type note struct {
	Typename          string `json:"__typename"`
	ID                string
	ScopeID           string
	InstanceID        *string
	Context           txContext
	Prompt            string
	EndedSessionID    string
	Reason            string
	DurationSeconds   int
	MemoriesStored    int
	MemoryIds         []string
	Memories          []struct{ ID, Content string }
	SessionID         string
	MinutesInTaskMode int
	Suggestion        string
	DepthReached      int
	OriginRequestID   string
	SourceMemoryIds   []string
	Recalled          []struct {
		Score  float64
		Depth  int
		Reason string
		Memory struct {
			ID, Content string
		}
		Via struct {
			SourceID, TargetID, Type string
			Strength                 float64
		}
	}
}

const notificationsSub = `subscription($i: ID, $s: ID) { notifications(instanceId: $i, scopeId: $s) {
	__typename id scopeId instanceId
	context { sessionId requestId messageId causationId timestamp sourceContext }
	... on SessionAuditPrompt { prompt endedSessionId reason durationSeconds memoriesStored memoryIds memories { id content } }
	... on BreakNotification { sessionId minutesInTaskMode suggestion }
	... on TotalRecallNotification { depthReached originRequestId sourceMemoryIds
		recalled { score depth reason memory { id content } via { sourceId targetId type strength } } }
} }`

// notifications subscribes over a real graphql-transport-ws client.
func notifications(t *testing.T, s *server, instance, scope string) <-chan note {
	t.Helper()
	vars := map[string]any{}
	if instance != "" {
		vars["i"] = instance
	}
	if scope != "" {
		vars["s"] = scope
	}
	conn, raw := subscribeWS(t, s.addr, notificationsSub, vars)
	t.Cleanup(func() { conn.Close() })
	out := make(chan note, 16)
	go func() {
		defer close(out)
		for p := range raw {
			data, _ := p["data"].(map[string]any)
			b, _ := json.Marshal(data["notifications"])
			var n note
			if err := json.Unmarshal(b, &n); err == nil {
				out <- n
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // let the subscription register before anything is pushed
	return out
}

// await returns the first notification of typename satisfying ok, failing after 15s.
func await(t *testing.T, ch <-chan note, typename string, ok func(note) bool) note {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case n, open := <-ch:
			if !open {
				t.Fatalf("subscription closed while waiting for %s", typename)
			}
			if n.Typename == typename && (ok == nil || ok(n)) {
				if !n.Context.complete() || n.ID == "" || n.ID != n.Context.MessageID {
					t.Fatalf("%s without a complete TransactionContext: %+v", typename, n)
				}
				return n
			}
		case <-deadline:
			t.Fatalf("no %s within 15s", typename)
		}
	}
}

// eventually retries check until it passes, failing after 15s with its last complaint.
func eventually(t *testing.T, check func() string) {
	t.Helper()
	eventuallyWithin(t, 15*time.Second, check)
}

// eventuallyWithin is eventually with its own bound, for waits on the consumers (the Synapse
// defers while memories arrive, up to --synapse-max-defer, on a cluster under load).
func eventuallyWithin(t *testing.T, bound time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type sessionCtx struct {
	SessionID   string
	Welcome     string
	Identity    []struct{ ID, Tier string }
	AgentKernel struct{ ID string }
	LastSession *struct {
		ID, InstanceID, Reason, EndedAt string
		MemoriesStored                  int
	}
}

func (s *server) sessionStart(t *testing.T, instance, mind, scope string) sessionCtx {
	t.Helper()
	var r struct{ SessionStart sessionCtx }
	s.ok(t, `mutation($i: ID!, $m: String!, $s: ID!) { sessionStart(instanceId: $i, mindType: $m, scopeId: $s) {
		sessionId welcome identity { id tier } agentKernel { id } lastSession { id instanceId reason endedAt memoriesStored } } }`,
		map[string]any{"i": instance, "m": mind, "s": scope}, &r)
	return r.SessionStart
}

func (s *server) boolMutation(t *testing.T, q string, vars map[string]any) bool {
	t.Helper()
	var r map[string]bool
	s.ok(t, q, vars, &r)
	for _, v := range r {
		return v
	}
	t.Fatal("no result")
	return false
}

func testSessionLifecycle(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, agent, _ := s.createScope(t, "sessions")
	core := s.store(t, map[string]any{"scopeId": scope, "content": "I am a careful archivist", "suggestedTier": "IDENTITY_CORE"})
	s.store(t, map[string]any{"scopeId": scope, "content": "an ordinary day"})
	inst := "instance-" + runID + "-lifecycle"
	notes := notifications(t, s, inst, "")

	first := s.sessionStart(t, inst, "claude", scope)
	if first.SessionID == "" || first.LastSession != nil || first.AgentKernel.ID != agent || !strings.HasPrefix(first.Welcome, "Welcome") {
		t.Fatalf("first session = %+v", first)
	}
	if len(first.Identity) != 1 || first.Identity[0].ID != core.ID {
		t.Fatalf("identity = %+v, want the IDENTITY_CORE memory only", first.Identity)
	}
	for _, c := range []string{"the user prefers tea", "the user is left-handed"} {
		s.store(t, map[string]any{"scopeId": scope, "content": c, "sessionId": first.SessionID})
	}
	beat := `mutation($i: ID!) { heartbeat(instanceId: $i) }`
	if !s.boolMutation(t, beat, map[string]any{"i": inst}) {
		t.Fatal("heartbeat of an active session answered false")
	}
	if s.boolMutation(t, beat, map[string]any{"i": "nobody-" + runID}) {
		t.Fatal("heartbeat of an unknown instance answered true")
	}
	var active struct {
		Session *struct {
			ID, Mode       string
			MemoriesStored int
		}
	}
	eventually(t, func() string {
		s.ok(t, `query($i: ID!) { session(instanceId: $i) { id mode memoriesStored } }`, map[string]any{"i": inst}, &active)
		if active.Session == nil || active.Session.ID != first.SessionID || active.Session.MemoriesStored != 2 {
			return fmt.Sprintf("active session = %+v, want %s with 2 memories", active.Session, first.SessionID)
		}
		return ""
	})

	e2eClock.advance(5 * time.Minute)
	end := `mutation($i: ID!, $r: SessionEndReason!) { sessionEnd(instanceId: $i, reason: $r) }`
	if !s.boolMutation(t, end, map[string]any{"i": inst, "r": "EXPLICIT"}) {
		t.Fatal("sessionEnd answered false")
	}
	audit := await(t, notes, "SessionAuditPrompt", func(n note) bool { return n.EndedSessionID == first.SessionID })
	if audit.Prompt != "What do you refuse to lose?" || audit.Reason != "EXPLICIT" || audit.MemoriesStored != 2 ||
		len(audit.Memories) != 2 || audit.DurationSeconds < 300 || audit.ScopeID != scope || audit.InstanceID == nil || *audit.InstanceID != inst {
		t.Fatalf("audit prompt = %+v", audit)
	}
	if s.boolMutation(t, end, map[string]any{"i": inst, "r": "EXPLICIT"}) {
		t.Fatal("ending an ended session answered true")
	}

	// Welcome back: the last session's state.
	second := s.sessionStart(t, inst, "claude", scope)
	if second.LastSession == nil || second.LastSession.ID != first.SessionID || second.LastSession.Reason != "EXPLICIT" ||
		second.LastSession.EndedAt == "" || second.LastSession.MemoriesStored != 2 || !strings.HasPrefix(second.Welcome, "Welcome back") {
		t.Fatalf("second session = %+v", second)
	}
	// Starting again without ending: the running session crashed.
	third := s.sessionStart(t, inst, "claude", scope)
	crash := await(t, notes, "SessionAuditPrompt", func(n note) bool { return n.EndedSessionID == second.SessionID })
	if crash.Reason != "CRASH" || third.LastSession == nil || third.LastSession.ID != second.SessionID || third.LastSession.Reason != "CRASH" {
		t.Fatalf("crash audit %+v, third %+v", crash, third)
	}
	// Heartbeats stop: the Subconscious ends the session as TIMEOUT.
	e2eClock.advance(e2eSessionTimeout + time.Minute)
	timeout := await(t, notes, "SessionAuditPrompt", func(n note) bool { return n.EndedSessionID == third.SessionID })
	if timeout.Reason != "TIMEOUT" {
		t.Fatalf("timeout audit = %+v", timeout)
	}
	var none struct{ Session *struct{ ID string } }
	s.ok(t, `query($i: ID!) { session(instanceId: $i) { id } }`, map[string]any{"i": inst}, &none)
	if none.Session != nil {
		t.Fatalf("a timed-out session is still active: %+v", none.Session)
	}
	// The trace of the timeout: SessionEnd (Subconscious) caused the audit prompt.
	var tr struct {
		Trace struct {
			Roots []struct {
				Event struct {
					Type    string
					Context struct{ SourceContext string }
				}
				Children []struct{ Event struct{ Type string } }
			}
		}
	}
	s.ok(t, `query($r: ID!) { trace(requestId: $r) { roots { event { type context { sourceContext } } children { event { type } } } } }`,
		map[string]any{"r": timeout.Context.RequestID}, &tr)
	if len(tr.Trace.Roots) != 1 || tr.Trace.Roots[0].Event.Type != "SessionEnd" || tr.Trace.Roots[0].Event.Context.SourceContext != "Subconscious" ||
		len(tr.Trace.Roots[0].Children) != 1 || tr.Trace.Roots[0].Children[0].Event.Type != "SessionAuditPrompt" {
		t.Fatalf("timeout trace = %+v", tr.Trace.Roots)
	}

	start := `mutation($i: ID!, $m: String!, $s: ID!) { sessionStart(instanceId: $i, mindType: $m, scopeId: $s) { sessionId } }`
	s.fails(t, "NOT_FOUND", start, map[string]any{"i": inst, "m": "claude", "s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"})
	s.fails(t, "INVALID_ARGUMENT", start, map[string]any{"i": inst, "m": " ", "s": scope})
	s.fails(t, "INVALID_ARGUMENT", start, map[string]any{"i": strings.Repeat("i", 200), "m": "claude", "s": scope})
	s.fails(t, "INVALID_ARGUMENT", start, map[string]any{"i": "nul\x00", "m": "claude", "s": scope})
	s.fails(t, "INVALID_ARGUMENT", end, map[string]any{"i": inst, "r": "BORED"})
	s.fails(t, "INVALID_ARGUMENT", `mutation { heartbeat(instanceId: "x", mode: NAPPING) }`, nil)
}

func testBreakNotification(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "breaks")
	inst := "instance-" + runID + "-break"
	notes := notifications(t, s, "", scope)
	sess := s.sessionStart(t, inst, "claude", scope)
	conn, events := subscribeWS(t, s.addr, `subscription($s: ID!) { memoryEvents(scopeId: $s) { type context { sessionId } } }`,
		map[string]any{"s": scope})
	defer conn.Close()
	time.Sleep(200 * time.Millisecond) // let the subscription register
	beat := `mutation($i: ID!, $m: SessionMode) { heartbeat(instanceId: $i, mode: $m) }`
	s.boolMutation(t, beat, map[string]any{"i": inst, "m": "TASK"})
	// The mode change is an event of the scope, delivered to its subscribers.
	modeChanged := false
	for deadline := time.After(15 * time.Second); !modeChanged; {
		select {
		case p, ok := <-events:
			if !ok {
				t.Fatal("memoryEvents closed before ModeChanged")
			}
			b, _ := json.Marshal(p["data"])
			var ev struct {
				MemoryEvents struct {
					Type    string
					Context struct{ SessionID string }
				}
			}
			_ = json.Unmarshal(b, &ev)
			modeChanged = ev.MemoryEvents.Type == "ModeChanged" && ev.MemoryEvents.Context.SessionID == sess.SessionID
		case <-deadline:
			t.Fatal("no ModeChanged for the session within 15s of a TASK heartbeat")
		}
	}
	// Working in task mode, heartbeating well within the timeout, past the break threshold.
	for elapsed := time.Duration(0); elapsed <= e2eBreakAfter; elapsed += e2eSessionTimeout / 2 {
		e2eClock.advance(e2eSessionTimeout / 2)
		s.boolMutation(t, beat, map[string]any{"i": inst, "m": "TASK"})
	}
	br := await(t, notes, "BreakNotification", func(n note) bool { return n.SessionID == sess.SessionID })
	if br.MinutesInTaskMode < int(e2eBreakAfter/time.Minute) || br.Suggestion == "" || br.InstanceID == nil || *br.InstanceID != inst {
		t.Fatalf("break notification = %+v", br)
	}
	// The break is a message of its own request.
	var h struct {
		Trace struct{ Messages []struct{ Type string } }
	}
	s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": br.Context.RequestID}, &h)
	if len(h.Trace.Messages) != 1 || h.Trace.Messages[0].Type != "BreakNotification" {
		t.Fatalf("break trace = %+v", h.Trace.Messages)
	}
	s.boolMutation(t, `mutation($i: ID!) { sessionEnd(instanceId: $i, reason: EXPLICIT) }`, map[string]any{"i": inst})
}

// chain stores memories and associates each with the next at the given strengths.
func (s *server) chain(t *testing.T, scope string, contents []string, strengths []float64) []memory {
	t.Helper()
	var ms []memory
	for _, c := range contents {
		ms = append(ms, s.store(t, map[string]any{"scopeId": scope, "content": c}))
	}
	for i, st := range strengths {
		s.associate(t, ms[i].ID, ms[i+1].ID, "CAUSAL", st)
	}
	return ms
}

func (s *server) associate(t *testing.T, a, b, typ string, strength float64) {
	t.Helper()
	s.ok(t, `mutation($in: AssociateInput!) { associateMemories(input: $in) { strength } }`,
		map[string]any{"in": map[string]any{"sourceId": a, "targetId": b, "type": typ, "strength": strength}}, nil)
}

const advise = `mutation($ids: [ID!]!, $d: Int, $i: ID, $r: ID) { totalRecallAdvisory(sourceMemoryIds: $ids, maxDepth: $d, instanceId: $i, requestId: $r) }`

func testTotalRecall(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "total recall")
	ms := s.chain(t, scope, []string{"the storm", "the shipwreck", "the rescue", "the medal", "the parade"}, []float64{0.9, 0.8, 0.7, 0.6})
	weak := s.store(t, map[string]any{"scopeId": scope, "content": "a faint echo"})
	s.associate(t, ms[0].ID, weak.ID, "THEMATIC", 0.1) // below the strength floor
	inst := "instance-" + runID + "-recall"
	notes := notifications(t, s, inst, "")

	rid := "recall-" + runID
	var r struct{ TotalRecallAdvisory string }
	s.ok(t, advise, map[string]any{"ids": []string{ms[0].ID}, "d": 3, "i": inst, "r": rid}, &r)
	if r.TotalRecallAdvisory != rid {
		t.Fatalf("origin request id = %q, want %q", r.TotalRecallAdvisory, rid)
	}
	n := await(t, notes, "TotalRecallNotification", func(n note) bool { return n.OriginRequestID == rid })
	if n.DepthReached != 3 || len(n.Recalled) != 3 || n.ScopeID != scope || len(n.SourceMemoryIds) != 1 {
		t.Fatalf("notification = %+v", n)
	}
	wantScores := []float64{0.9, 0.72, 0.504}
	for i, rec := range n.Recalled {
		if rec.Memory.ID != ms[i+1].ID || rec.Depth != i+1 || fmt.Sprintf("%.3f", rec.Score) != fmt.Sprintf("%.3f", wantScores[i]) ||
			rec.Via.SourceID != ms[i].ID || rec.Via.Type != "CAUSAL" || rec.Reason != "ASSOCIATION" {
			t.Fatalf("recalled[%d] = %+v, want %s at depth %d with %.3f", i, rec, ms[i+1].Content, i+1, wantScores[i])
		}
	}
	// The whole chain is in the trace of the origin request.
	type node struct {
		Event struct {
			Type    string
			Touches []struct{ Context string }
		}
		Children []node
	}
	var tr struct {
		Trace struct {
			Messages []struct{ Type string }
			Roots    []node
		}
	}
	eventually(t, func() string {
		s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type } roots { event { type touches { context } }
			children { event { type touches { context } } children { event { type } children { event { type } } } } } } }`, map[string]any{"r": rid}, &tr)
		count := map[string]int{}
		for _, m := range tr.Trace.Messages {
			count[m.Type]++
		}
		if count["TotalRecallAdvisory"] != 1 || count["TotalRecallCommand"] != 1 || count["AssociationsFound"] != 3 ||
			count["MemoryAccessed"] != 3 || count["TotalRecallNotification"] != 1 || count["SalienceScored"] != 3 {
			return fmt.Sprintf("trace messages = %v", count)
		}
		roots := tr.Trace.Roots
		if len(roots) != 1 || roots[0].Event.Type != "TotalRecallAdvisory" || len(roots[0].Children) != 1 || roots[0].Children[0].Event.Type != "TotalRecallCommand" {
			return fmt.Sprintf("trace roots = %+v", roots)
		}
		var kids []string
		for _, c := range roots[0].Children[0].Children {
			kids = append(kids, c.Event.Type)
		}
		sort.Strings(kids)
		if strings.Join(kids, " ") != "AssociationsFound TotalRecallNotification" {
			return fmt.Sprintf("the command caused %v", kids)
		}
		touched := ""
		for _, tc := range roots[0].Event.Touches {
			touched += tc.Context + " "
		}
		if !strings.Contains(touched, "Subconscious") {
			return "the advisory has no Subconscious touch: " + touched
		}
		return ""
	})
	// Each retrieval was recorded.
	var list struct {
		Memories struct{ Nodes []memory }
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 10) { nodes { id accessCount } } }`, map[string]any{"s": scope}, &list)
	if len(list.Memories.Nodes) != len(ms)+1 {
		t.Fatalf("listed %d memories, want %d", len(list.Memories.Nodes), len(ms)+1)
	}
	for _, m := range list.Memories.Nodes {
		want := 0
		for _, x := range ms[1:4] {
			if x.ID == m.ID {
				want = 1
			}
		}
		if m.AccessCount != want {
			t.Fatalf("memory %s accessed %d times, want %d", m.ID, m.AccessCount, want)
		}
	}
	// Deeper: the traversal stops when a level adds nothing.
	s.ok(t, advise, map[string]any{"ids": []string{ms[0].ID}, "d": 10, "i": inst, "r": rid + "-deep"}, nil)
	deep := await(t, notes, "TotalRecallNotification", func(n note) bool { return n.OriginRequestID == rid+"-deep" })
	if deep.DepthReached != 4 || len(deep.Recalled) != 4 {
		t.Fatalf("maxDepth 10: depth %d with %d memories, want 4 and 4", deep.DepthReached, len(deep.Recalled))
	}
	// Without maxDepth the walk goes 3 deep.
	s.ok(t, advise, map[string]any{"ids": []string{ms[0].ID}, "i": inst, "r": rid + "-default"}, nil)
	def := await(t, notes, "TotalRecallNotification", func(n note) bool { return n.OriginRequestID == rid+"-default" })
	if def.DepthReached != 3 || len(def.Recalled) != 3 || def.Recalled[2].Memory.ID != ms[3].ID {
		t.Fatalf("default maxDepth: depth %d with %d memories, want 3 and 3", def.DepthReached, len(def.Recalled))
	}
	// A retried advisory is applied once.
	var again struct{ TotalRecallAdvisory string }
	s.ok(t, advise, map[string]any{"ids": []string{ms[0].ID}, "d": 3, "i": inst, "r": rid}, &again)
	if again.TotalRecallAdvisory != rid {
		t.Fatal("retry answered another origin")
	}
	s.fails(t, "CONFLICT", advise, map[string]any{"ids": []string{ms[1].ID}, "d": 3, "i": inst, "r": rid})

	other, _, _ := s.createScope(t, "total recall other")
	x := s.store(t, map[string]any{"scopeId": other, "content": "elsewhere"})
	s.fails(t, "INVALID_ARGUMENT", advise, map[string]any{"ids": []string{}})
	s.fails(t, "INVALID_ARGUMENT", advise, map[string]any{"ids": []string{"junk"}})
	s.fails(t, "INVALID_ARGUMENT", advise, map[string]any{"ids": []string{ms[0].ID}, "d": 0})
	s.fails(t, "INVALID_ARGUMENT", advise, map[string]any{"ids": []string{ms[0].ID}, "d": 11})
	s.fails(t, "NOT_FOUND", advise, map[string]any{"ids": []string{"6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"}})
	s.fails(t, "CROSS_SCOPE_REFERENCE", advise, map[string]any{"ids": []string{ms[0].ID, x.ID}})
}

func testTotalRecallThrottled(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "throttle")
	ms := s.chain(t, scope, []string{"one", "two"}, []float64{0.9})
	inst := "instance-" + runID + "-throttle"
	var rids []string
	for i := 0; i <= e2eRecallBurst; i++ {
		rid := fmt.Sprintf("throttle-%s-%d", runID, i)
		rids = append(rids, rid)
		s.ok(t, advise, map[string]any{"ids": []string{ms[0].ID}, "i": inst, "r": rid}, nil)
	}
	outcome := func(rid string) string {
		var tr struct {
			Trace struct {
				Messages []struct {
					Type    string
					Payload map[string]any
				}
			}
		}
		s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type payload } } }`, map[string]any{"r": rid}, &tr)
		for _, m := range tr.Trace.Messages {
			switch m.Type {
			case "TotalRecallNotification":
				return "recalled"
			case "TotalRecallDeclined":
				return fmt.Sprint(m.Payload["reason"])
			}
		}
		return ""
	}
	got := make([]string, len(rids))
	eventually(t, func() string {
		for i, rid := range rids {
			got[i] = outcome(rid)
			if got[i] == "" {
				return fmt.Sprintf("advisory %d not evaluated yet: %v", i, got)
			}
		}
		return ""
	})
	want := strings.Repeat("recalled ", e2eRecallBurst) + "THROTTLED"
	if strings.Join(got, " ") != want {
		t.Fatalf("outcomes = %v, want %s", got, want)
	}
}

func (s *server) sweep(t *testing.T, scope string) (evaluated, demotions int) {
	t.Helper()
	var r struct {
		DecaySweep struct{ MemoriesEvaluated, Demotions int }
	}
	s.ok(t, `mutation($s: ID!) { decaySweep(scopeId: $s) { memoriesEvaluated demotions } }`, map[string]any{"s": scope}, &r)
	return r.DecaySweep.MemoriesEvaluated, r.DecaySweep.Demotions
}

// testDecayOverASimulatedYear sweeps a corpus once a simulated day for a year: claimed memories
// stay where they are, unclaimed ones sink to ARCHIVE, and nothing is deleted.
func testDecayOverASimulatedYear(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "a year of decay")
	type item struct {
		m       memory
		claimed bool
	}
	var corpus []item
	var requests []string
	tiers := []string{"IDENTITY_CORE", "ACTIVE_CONTEXT", "LONG_TERM"}
	for i := 0; i < 12; i++ {
		rid := fmt.Sprintf("year-%s-%d", runID, i)
		m := s.store(t, map[string]any{"scopeId": scope, "content": fmt.Sprintf("memory %d of the year", i),
			"suggestedTier": tiers[i%3], "importance": float64(i%4) / 3, "requestId": rid})
		claimed := i%2 == 0
		if claimed {
			rid = fmt.Sprintf("year-claim-%s-%d", runID, i)
			s.ok(t, `mutation($id: ID!, $r: ID) { claimMemory(id: $id, requestId: $r) { id } }`, map[string]any{"id": m.ID, "r": rid}, nil)
		}
		// A memory is scored once per batch, caused by its last event: its last request.
		requests = append(requests, rid)
		corpus = append(corpus, item{m, claimed})
	}
	// Once the Salience context has scored every memory after its store and claim (a claim may
	// lift a memory), and after the Synapse strengthened what a claim strengthens, the year
	// starts from the tiers they are in.
	eventuallyWithin(t, time.Minute, func() string {
		for _, rid := range requests {
			var tr struct {
				Trace struct {
					Messages []struct {
						Type    string
						Seq     int
						Touches []struct{ Context string }
					}
				}
			}
			s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type seq touches { context } } } }`, map[string]any{"r": rid}, &tr)
			strengthened, scored := 0, 0
			for _, m := range tr.Trace.Messages {
				switch m.Type {
				case "MemoryStored", "MemoryClaimed":
					if !strings.Contains(fmt.Sprint(m.Touches), "Synapse") {
						return "request " + rid + " not connected by the Synapse yet"
					}
				case "AssociationStrengthened":
					strengthened = max(strengthened, m.Seq)
				case "SalienceScored":
					scored = max(scored, m.Seq)
				}
			}
			if strengthened > scored {
				return "request " + rid + " not scored after the Synapse strengthened"
			}
			if !strings.Contains(fmt.Sprint(tr.Trace.Messages), "SalienceScored") {
				return "request " + rid + " not scored yet"
			}
		}
		return ""
	})
	var start struct{ Memories struct{ Nodes []memory } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 100) { nodes { id tier } } }`, map[string]any{"s": scope}, &start)
	for _, n := range start.Memories.Nodes {
		for i := range corpus {
			if corpus[i].m.ID == n.ID {
				corpus[i].m.Tier = n.Tier
			}
		}
	}
	totalDemotions := 0
	for day := 1; day <= 365; day++ {
		e2eClock.advance(24 * time.Hour)
		n, d := s.sweep(t, scope)
		if n != len(corpus) {
			t.Fatalf("day %d: %d memories evaluated, want %d", day, n, len(corpus))
		}
		totalDemotions += d
	}
	var list struct {
		Memories struct {
			TotalCount int
			Nodes      []memory
		}
	}
	s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 100) { totalCount nodes { id tier claimed content } } }`, map[string]any{"s": scope}, &list)
	if list.Memories.TotalCount != len(corpus) {
		t.Fatalf("%d memories after a year, want %d: decay is not removal", list.Memories.TotalCount, len(corpus))
	}
	tierOf := map[string]string{}
	for _, m := range list.Memories.Nodes {
		tierOf[m.ID] = m.Tier
	}
	moves := 0
	for _, it := range corpus {
		got := tierOf[it.m.ID]
		switch {
		case it.claimed && got != it.m.Tier:
			t.Errorf("claimed %q sank from %s to %s", it.m.Content, it.m.Tier, got)
		case !it.claimed && got != "ARCHIVE":
			t.Errorf("unclaimed %q is still in %s after a year", it.m.Content, got)
		}
		if got != it.m.Tier {
			var h struct{ History []struct{ Type string } }
			s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": it.m.ID}, &h)
			for _, e := range h.History {
				if e.Type == "TierDemoted" {
					moves++
				}
			}
		}
	}
	if moves != totalDemotions || moves == 0 {
		t.Fatalf("histories show %d TierDemoted, sweeps reported %d demotions", moves, totalDemotions)
	}
	// A retrieval lifts an important memory from LONG_TERM back into ACTIVE_CONTEXT.
	vip := s.store(t, map[string]any{"scopeId": scope, "content": "the key to everything", "suggestedTier": "LONG_TERM", "importance": 1})
	s.ok(t, `query($id: ID!) { memory(id: $id) { id } }`, map[string]any{"id": vip.ID}, nil)
	eventually(t, func() string {
		var r struct{ Memories struct{ Nodes []memory } }
		s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {tiers: [ACTIVE_CONTEXT]}, first: 100) { nodes { id } } }`, map[string]any{"s": scope}, &r)
		for _, m := range r.Memories.Nodes {
			if m.ID == vip.ID {
				return ""
			}
		}
		return "the retrieved important memory was not promoted"
	})
	var h struct{ History []struct{ Type string } }
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": vip.ID}, &h)
	if !strings.Contains(fmt.Sprint(h.History), "TierPromoted") {
		t.Fatalf("history = %v, want a TierPromoted", h.History)
	}
	// At most once; bad input.
	q := `mutation($s: ID!, $t: Tier, $r: ID) { decaySweep(scopeId: $s, tier: $t, requestId: $r) { memoriesEvaluated demotions } }`
	var a, b map[string]any
	s.ok(t, q, map[string]any{"s": scope, "t": "ARCHIVE", "r": "sweep-" + runID}, &a)
	s.ok(t, q, map[string]any{"s": scope, "t": "ARCHIVE", "r": "sweep-" + runID}, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("retried sweep answered %v, first %v", b, a)
	}
	s.fails(t, "CONFLICT", q, map[string]any{"s": scope, "t": "LONG_TERM", "r": "sweep-" + runID})
	s.fails(t, "NOT_FOUND", q, map[string]any{"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"s": "nope"})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"s": scope, "t": "LIMBO"})
}

type candidate struct {
	Memory  struct{ ID, Content string }
	Reasons []string
}

func (s *server) reflect(t *testing.T, scope string, crit map[string]any) []candidate {
	t.Helper()
	var r struct{ Reflect []candidate }
	s.ok(t, `query($s: ID!, $c: ReflectCriteria) { reflect(scopeId: $s, criteria: $c) { memory { id content } reasons } }`,
		map[string]any{"s": scope, "c": crit}, &r)
	return r.Reflect
}

func testReflectAndReclassify(t *testing.T, s *server) {
	e2eClock.restoreAfter(t)
	scope, _, _ := s.createScope(t, "reflection")
	old := s.store(t, map[string]any{"scopeId": scope, "content": "an old friend's advice", "occurredAt": "2020-05-01T00:00:00Z"})
	e2eClock.advance(45 * 24 * time.Hour)
	recent := s.store(t, map[string]any{"scopeId": scope, "content": "what the friend said again"})
	lonely := s.store(t, map[string]any{"scopeId": scope, "content": "an unconnected thought"})
	s.associate(t, old.ID, recent.ID, "THEMATIC", 0.9)
	var got []candidate
	eventually(t, func() string {
		got = s.reflect(t, scope, nil)
		if len(got) != 2 || got[0].Memory.ID != old.ID || fmt.Sprint(got[0].Reasons) != "[STALE]" ||
			got[1].Memory.ID != lonely.ID || fmt.Sprint(got[1].Reasons) != "[WEAKLY_ASSOCIATED]" {
			return fmt.Sprintf("default reflection = %+v", got)
		}
		return ""
	})
	span := s.reflect(t, scope, map[string]any{"from": "2020-01-01T00:00:00Z", "to": "2021-01-01T00:00:00Z"})
	if len(span) != 1 || span[0].Memory.ID != old.ID || fmt.Sprint(span[0].Reasons) != "[IN_TIME_SPAN]" {
		t.Fatalf("time span reflection = %+v", span)
	}
	// The mind answers: a new association, and the old memory to the archive.
	s.associate(t, lonely.ID, recent.ID, "THEMATIC", 0.6)
	s.ok(t, `mutation($id: ID!) { reclassifyMemory(input: {id: $id, tier: ARCHIVE, reason: "reviewed"}) { tier } }`, map[string]any{"id": old.ID}, nil)
	// The Synapse loosens the archived memory's associations.
	eventually(t, func() string {
		var r struct{ Associations []struct{ Strength float64 } }
		s.ok(t, `query($m: ID!) { associations(memoryId: $m) { strength } }`, map[string]any{"m": old.ID}, &r)
		if len(r.Associations) != 1 || fmt.Sprintf("%.2f", r.Associations[0].Strength) != "0.45" {
			return fmt.Sprintf("associations of the archived memory = %+v, want one of 0.45", r.Associations)
		}
		return ""
	})
	eventually(t, func() string {
		if got := s.reflect(t, scope, nil); len(got) != 0 {
			return fmt.Sprintf("after the mind's answers reflection still returns %+v", got)
		}
		return ""
	})
	bad := `query($s: ID!, $c: ReflectCriteria) { reflect(scopeId: $s, criteria: $c) { reasons } }`
	s.fails(t, "INVALID_ARGUMENT", bad, map[string]any{"s": scope, "c": map[string]any{}})
	s.fails(t, "INVALID_ARGUMENT", bad, map[string]any{"s": scope, "c": map[string]any{"staleDays": -1}})
	s.fails(t, "INVALID_ARGUMENT", bad, map[string]any{"s": scope, "c": map[string]any{"weakAssociationsBelow": 1.5}})
	s.fails(t, "INVALID_ARGUMENT", bad, map[string]any{"s": scope, "c": map[string]any{"from": "2021-01-01T00:00:00Z", "to": "2020-01-01T00:00:00Z"}})
	s.fails(t, "INVALID_ARGUMENT", bad, map[string]any{"s": scope, "c": map[string]any{"staleDays": 3, "limit": 0}})
	s.fails(t, "NOT_FOUND", bad, map[string]any{"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"})
}

func testConsolidate(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "consolidation")
	var ids []string
	var ms []memory
	for i, c := range []string{"met Ada at the station", "Ada lent me her umbrella", "returned the umbrella to Ada"} {
		m := s.store(t, map[string]any{"scopeId": scope, "content": c, "tags": []string{"ada", fmt.Sprint("t", i)},
			"occurredAt": fmt.Sprintf("2026-01-0%dT10:00:00Z", i+1)})
		ids = append(ids, m.ID)
		ms = append(ms, m)
	}
	friend := s.store(t, map[string]any{"scopeId": scope, "content": "Ada is a friend"})
	s.associate(t, ms[1].ID, friend.ID, "PERSON", 0.8)
	var r struct {
		Consolidate struct {
			ID, Content, Tier string
			Tags              []string
			ConsolidatedFrom  []string
		}
	}
	q := `mutation($ids: [ID!]!, $st: ConsolidationStrategy, $r: ID) { consolidate(memoryIds: $ids, strategy: $st, requestId: $r) {
		id content tier tags consolidatedFrom } }`
	s.ok(t, q, map[string]any{"ids": ids, "r": "consolidate-" + runID}, &r)
	c := r.Consolidate
	want := "met Ada at the station\n\nAda lent me her umbrella\n\nreturned the umbrella to Ada"
	sort.Strings(c.ConsolidatedFrom)
	sorted := append([]string(nil), ids...)
	sort.Strings(sorted)
	sort.Strings(c.Tags)
	if c.Content != want || strings.Join(c.Tags, ",") != "ada,t0,t1,t2" || fmt.Sprint(c.ConsolidatedFrom) != fmt.Sprint(sorted) {
		t.Fatalf("consolidated = %+v", c)
	}
	var again struct{ Consolidate struct{ ID string } }
	s.ok(t, q, map[string]any{"ids": ids, "r": "consolidate-" + runID}, &again)
	if again.Consolidate.ID != c.ID {
		t.Fatal("a retried consolidation made another memory")
	}
	for _, id := range ids {
		var l struct {
			Memories struct {
				Nodes []struct{ ID, State, ConsolidatedInto string }
			}
		}
		s.ok(t, `query($s: ID!) { memories(scopeId: $s, filter: {states: [ARCHIVED]}, first: 10) { nodes { id state consolidatedInto } } }`, map[string]any{"s": scope}, &l)
		found := false
		for _, n := range l.Memories.Nodes {
			if n.ID == id {
				found = n.ConsolidatedInto == c.ID
			}
		}
		if !found {
			t.Fatalf("source %s is not ARCHIVED pointing to %s: %+v", id, c.ID, l.Memories.Nodes)
		}
		var h struct{ History []struct{ Type string } }
		s.ok(t, `query($id: ID!) { history(memoryId: $id) { type } }`, map[string]any{"id": id}, &h)
		if last := h.History[len(h.History)-1].Type; last != "MemoryConsolidated" {
			t.Fatalf("history of a source ends with %s", last)
		}
	}
	// Search finds the consolidated memory, not its sources; it kept their associations.
	hits := s.search(t, scope, "umbrella", false)
	if len(hits) != 1 || hits[0].Memory.ID != c.ID {
		t.Fatalf("search after consolidation = %+v", hits)
	}
	var as struct{ Associations []struct{ TargetID string } }
	s.ok(t, `query($m: ID!) { associations(memoryId: $m) { targetId } }`, map[string]any{"m": c.ID}, &as)
	if len(as.Associations) != 1 || as.Associations[0].TargetID != friend.ID {
		t.Fatalf("consolidated associations = %+v", as.Associations)
	}
	a := s.store(t, map[string]any{"scopeId": scope, "content": "first draft", "occurredAt": "2026-02-01T00:00:00Z"})
	b := s.store(t, map[string]any{"scopeId": scope, "content": "final draft", "occurredAt": "2026-02-02T00:00:00Z"})
	var kn struct{ Consolidate struct{ Content string } }
	s.ok(t, q, map[string]any{"ids": []string{a.ID, b.ID}, "st": "KEEP_NEWEST"}, &kn)
	if kn.Consolidate.Content != "final draft" {
		t.Fatalf("KEEP_NEWEST kept %q", kn.Consolidate.Content)
	}
	other, _, _ := s.createScope(t, "consolidation other")
	x := s.store(t, map[string]any{"scopeId": other, "content": "x"})
	y := s.store(t, map[string]any{"scopeId": scope, "content": "y"})
	s.fails(t, "CONFLICT", q, map[string]any{"ids": []string{ids[0], y.ID}})
	s.fails(t, "CROSS_SCOPE_REFERENCE", q, map[string]any{"ids": []string{y.ID, x.ID}})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"ids": []string{y.ID}})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"ids": []string{y.ID, y.ID}})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"ids": []string{y.ID, x.ID}, "st": "AVERAGE"})
	s.fails(t, "NOT_FOUND", q, map[string]any{"ids": []string{y.ID, "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"}})
}

func testWorkingMemoryAndPromptContext(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "working memory")
	for _, c := range []string{"the lighthouse keeper lit the lamp", "a lighthouse on the northern cape",
		"the keeper's logbook of the lighthouse", "a recipe for plum cake", "plum trees in the orchard"} {
		s.store(t, map[string]any{"scopeId": scope, "content": c})
	}
	type wm struct {
		Capacity int
		Context  string
		Items    []struct {
			Relevance float64
			Memory    struct{ ID, Content string }
		}
	}
	update := `mutation($s: ID!, $t: String!, $c: Int) { updateContext(scopeId: $s, text: $t, capacity: $c) {
		capacity context items { relevance memory { id content } } } }`
	var r struct{ UpdateContext wm }
	s.ok(t, update, map[string]any{"s": scope, "t": "tell me about the lighthouse", "c": 3}, &r)
	if r.UpdateContext.Capacity != 3 || len(r.UpdateContext.Items) != 3 {
		t.Fatalf("working memory = %+v", r.UpdateContext)
	}
	for i, it := range r.UpdateContext.Items {
		if !strings.Contains(it.Memory.Content, "lighthouse") || (i > 0 && it.Relevance > r.UpdateContext.Items[i-1].Relevance) {
			t.Fatalf("working memory items = %+v", r.UpdateContext.Items)
		}
	}
	pc := `query($s: ID!, $m: Int, $k: Int) { promptContext(scopeId: $s, maxMemories: $m, maxTokens: $k) { text tokens truncated memories { tokens truncated memory { id } } } }`
	var p struct {
		PromptContext struct {
			Text      string
			Tokens    int
			Truncated bool
			Memories  []struct {
				Tokens    int
				Truncated bool
			}
		}
	}
	s.ok(t, pc, map[string]any{"s": scope, "m": 2, "k": 1000}, &p)
	lines := strings.Split(p.PromptContext.Text, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "- [ACTIVE_CONTEXT ") || !strings.Contains(p.PromptContext.Text, "lighthouse") ||
		p.PromptContext.Truncated || p.PromptContext.Tokens < len(p.PromptContext.Text)/4 || p.PromptContext.Tokens > len(p.PromptContext.Text)/4+2 {
		t.Fatalf("prompt context = %+v", p.PromptContext)
	}
	s.ok(t, pc, map[string]any{"s": scope, "m": 3, "k": 12}, &p)
	if !p.PromptContext.Truncated || p.PromptContext.Tokens > 12 || !strings.HasSuffix(p.PromptContext.Text, "…") {
		t.Fatalf("prompt context within 12 tokens = %+v", p.PromptContext)
	}
	// A new context dominates; the old one fades.
	s.ok(t, update, map[string]any{"s": scope, "t": "plum cake and plum trees", "c": 3}, &r)
	if len(r.UpdateContext.Items) != 3 || !strings.Contains(r.UpdateContext.Items[0].Memory.Content, "plum") || !strings.Contains(r.UpdateContext.Items[1].Memory.Content, "plum") {
		t.Fatalf("after a new context = %+v", r.UpdateContext.Items)
	}
	// Heartbeats change nothing.
	before := r.UpdateContext
	s.ok(t, update, map[string]any{"s": scope, "t": "HEARTBEAT_OK"}, &r)
	if r.UpdateContext.Context != before.Context || len(r.UpdateContext.Items) != len(before.Items) {
		t.Fatalf("a heartbeat changed the working memory: %+v", r.UpdateContext)
	}
	s.fails(t, "INVALID_ARGUMENT", update, map[string]any{"s": scope, "t": "x", "c": 0})
	s.fails(t, "INVALID_ARGUMENT", update, map[string]any{"s": scope, "t": "x", "c": 101})
	s.fails(t, "INVALID_ARGUMENT", update, map[string]any{"s": scope, "t": " "})
	s.fails(t, "NOT_FOUND", update, map[string]any{"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", "t": "x"})
	s.fails(t, "INVALID_ARGUMENT", pc, map[string]any{"s": scope, "k": 0})
	s.fails(t, "INVALID_ARGUMENT", pc, map[string]any{"s": scope, "m": 1000})
}

func testResonateAndHeartbeatIsolation(t *testing.T, s *server) {
	scope, _, _ := s.createScope(t, "flashbacks")
	for _, c := range []string{"we sailed to the island in June", "the island had a lighthouse", "the ferry to the island was late",
		"a meeting about budgets", "the island's only bakery"} {
		s.store(t, map[string]any{"scopeId": scope, "content": c})
	}
	store := `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`
	for _, hb := range []string{"HEARTBEAT_OK", "  HEARTBEAT  ", "HEARTBEAT_OK HEARTBEAT_ACK"} {
		s.fails(t, "INVALID_ARGUMENT", store, map[string]any{"in": map[string]any{"scopeId": scope, "content": hb}})
	}
	// A message that merely mentions a heartbeat is a memory like any other.
	s.store(t, map[string]any{"scopeId": scope, "content": "my heartbeat raced on the island"})
	var n struct{ Memories struct{ TotalCount int } }
	s.ok(t, `query($s: ID!) { memories(scopeId: $s) { totalCount } }`, map[string]any{"s": scope}, &n)
	if n.Memories.TotalCount != 6 {
		t.Fatalf("%d memories, want 6 (heartbeats are never stored)", n.Memories.TotalCount)
	}
	q := `query($s: ID!, $m: String!, $n: Int, $r: ID) { resonate(scopeId: $s, message: $m, maxResults: $n, requestId: $r) { score memory { id content } } }`
	var r struct {
		Resonate []struct {
			Score  float64
			Memory struct{ Content string }
		}
	}
	rid := "resonate-" + runID
	s.ok(t, q, map[string]any{"s": scope, "m": "shall we take the ferry to the island again?", "r": rid}, &r)
	if len(r.Resonate) != 3 || !strings.Contains(r.Resonate[0].Memory.Content, "ferry") {
		t.Fatalf("flashbacks = %+v", r.Resonate)
	}
	for _, x := range r.Resonate {
		if !strings.Contains(x.Memory.Content, "island") {
			t.Fatalf("flashback %q does not resonate", x.Memory.Content)
		}
	}
	eventually(t, func() string {
		var tr struct {
			Trace struct{ Messages []struct{ Type string } }
		}
		// The query is recorded off the turn's path: its trace may not exist yet.
		resp := s.do(t, `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": rid})
		if len(resp.Errors) > 0 {
			return fmt.Sprint("resonate trace: ", resp.Errors)
		}
		_ = json.Unmarshal(resp.Data, &tr)
		if got := fmt.Sprint(tr.Trace.Messages); !strings.Contains(got, "ResonateQuery") || strings.Count(got, "MemoryAccessed") != 3 {
			return "resonate trace = " + got
		}
		return ""
	})
	s.ok(t, q, map[string]any{"s": scope, "m": "HEARTBEAT_OK", "r": rid + "-hb"}, &r)
	if len(r.Resonate) != 0 {
		t.Fatalf("a heartbeat resonated with %+v", r.Resonate)
	}
	// Queries are recorded in order: once a later one shows, the heartbeat would have too.
	s.ok(t, q, map[string]any{"s": scope, "m": "the island bakery", "r": rid + "-after"}, nil)
	eventually(t, func() string {
		if resp := s.do(t, `query($r: ID!) { trace(requestId: $r) { requestId } }`, map[string]any{"r": rid + "-after"}); len(resp.Errors) > 0 {
			return fmt.Sprint("later query not recorded yet: ", resp.Errors)
		}
		return ""
	})
	if resp := s.do(t, `query($r: ID!) { trace(requestId: $r) { requestId } }`, map[string]any{"r": rid + "-hb"}); len(resp.Errors) == 0 ||
		resp.Errors[0].Extensions["code"] != "NOT_FOUND" {
		t.Fatalf("a heartbeat was used as a query: %+v", resp)
	}
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"s": scope, "m": "x", "n": 11})
	s.fails(t, "INVALID_ARGUMENT", q, map[string]any{"s": scope, "m": "a\x00b"})
	s.fails(t, "NOT_FOUND", q, map[string]any{"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10", "m": "island"})
}

func testNotificationsNeedAnAddressee(t *testing.T, s *server) {
	for _, vars := range []map[string]any{{}, {"s": "6f1c7f0e-1d2b-4c1a-9e55-5f2b8c6a7d10"}, {"i": strings.Repeat("x", 300)}} {
		conn, raw := subscribeWSRaw(t, s.addr, notificationsSub, vars)
		select {
		case msg := <-raw:
			// A resolver's error arrives as a result with errors (then complete).
			payload, _ := msg["payload"].(map[string]any)
			errs, _ := payload["errors"].([]any)
			if msg["type"] != "next" || len(errs) == 0 {
				t.Fatalf("vars %v: %+v", vars, msg)
			}
			first, _ := errs[0].(map[string]any)
			ext, _ := first["extensions"].(map[string]any)
			if code := ext["code"]; code != "INVALID_ARGUMENT" && code != "NOT_FOUND" {
				t.Fatalf("vars %v: %+v", vars, msg)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("vars %v: no error within 10s", vars)
		}
		conn.Close()
	}
}

// subscribeWSRaw subscribes over graphql-transport-ws and hands back every message, errors too.
func subscribeWSRaw(t *testing.T, addr, query string, vars map[string]any) (*websocket.Conn, <-chan map[string]any) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := d.Dial("ws://"+addr+"/query", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if err := conn.WriteJSON(map[string]any{"type": "connection_init"}); err != nil {
		t.Fatal(err)
	}
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("ack = %v, %v", ack, err)
	}
	if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query, "variables": vars}}); err != nil {
		t.Fatal(err)
	}
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		for {
			var msg map[string]any
			if err := conn.ReadJSON(&msg); err != nil {
				return
			}
			if msg["type"] != "ping" {
				out <- msg
			}
		}
	}()
	return conn, out
}
