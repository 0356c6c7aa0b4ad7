// Package ledger turns what source adapters read into the records of seed 001's ledgers: the
// events ledger (threads, and events as memories formed by the Hippocampus) and the agents
// ledger (sessions, messages, turns, tool calls at full fidelity, plus the trimmed form of each
// turn — one user event and one final assistant event — in the events ledger).
//
// Record ids are derived from (scope, kind, adapter, source id), so reading a source twice
// yields the same records and an ingest write of them changes nothing the second time.
//
// Consecutive events of a thread are joined by a TEMPORAL association whose strength falls with
// the time between them by the Synapse's rule (synapse.Params.TemporalStrength), the rule that
// chains the memories a session stores: turns of one conversation are strongly associated and
// events hours apart weakly.
package ledger

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

// TagAgentTurn marks the trimmed events of agent turns, so searches can ask for them alone.
const TagAgentTurn = "agent_turn"

// Limits of source records.
const (
	MaxSourceIDBytes = 512
	MaxLabelBytes    = 256
)

// Formed is one source batch turned into ledger records, ready for an ingest write.
type Formed struct {
	Batch    *domain.IngestBatch
	Problems []domain.SourceProblem
}

type lastEvent struct {
	id string
	at time.Time
}

// Former forms the records of one import. It keeps the last event of every thread across
// batches, so the TEMPORAL chain continues from one batch to the next. Not safe for concurrent
// use.
type Former struct {
	scope        string
	adapter      string
	agentAdapter string
	hippo        *hippocampus.Hippocampus
	now          domain.Clock
	last         map[string]lastEvent
	seq          int64
	threads      map[string]bool
	seen         map[string]bool
	// Temporal is the strength of the TEMPORAL association of consecutive events gap apart (the
	// Synapse's rule; its default unless the importer sets the rules in force).
	Temporal func(gap time.Duration) float64
}

// NewFormer starts forming records of scope from one source adapter.
func NewFormer(scope, adapter string, now domain.Clock) *Former {
	return &Former{scope: scope, adapter: adapter, agentAdapter: adapter, hippo: hippocampus.New(now), now: now,
		last: map[string]lastEvent{}, threads: map[string]bool{}, seen: map[string]bool{},
		Temporal: synapse.DefaultParams().TemporalStrength}
}

// CheckAdapter validates an adapter name.
func CheckAdapter(field, name string) error {
	if strings.TrimSpace(name) == "" {
		return domain.FieldErrorf(field, "must not be empty")
	}
	if len(name) > MaxLabelBytes {
		return domain.FieldErrorf(field, "is longer than %d bytes", MaxLabelBytes)
	}
	return hippocampus.CheckText(field, name)
}

func (f *Former) threadID(adapter, sourceID string) string {
	return domain.DeriveID(f.scope, "thread", adapter, sourceID)
}

// EventID is the id of the memory of a source event.
func EventID(scope, adapter, sourceID string) string {
	return domain.DeriveID(scope, "event", adapter, sourceID)
}

// Agents turns the agents-ledger records of sb into ledger records (derived ids, derived turns)
// and returns, besides them, the trimmed form of every turn as source threads and events of
// sb.Adapter, to be formed with Events.
func (f *Former) Agents(sb *domain.SourceBatch) (*Formed, []*domain.SourceThread, []*domain.SourceEvent) {
	out := &Formed{Batch: &domain.IngestBatch{}}
	if sb.AgentAdapter != "" {
		f.agentAdapter = sb.AgentAdapter
	}
	if len(sb.Sessions)+len(sb.Messages)+len(sb.ToolCalls)+len(sb.Turns) == 0 {
		return out, nil, nil
	}
	threads, events := f.formAgents(sb, out)
	return out, threads, events
}

// Events forms threads and events of adapter into ledger records. ingest is the context of the
// MemoriesIngested event the write will emit; each memory records it in its metadata, so its
// history finds it. Records that cannot be taken are reported as problems and left out.
func (f *Former) Events(adapter string, threads []*domain.SourceThread, events []*domain.SourceEvent, ingest domain.TransactionContext) *Formed {
	out := &Formed{Batch: &domain.IngestBatch{}}
	now := f.now().UTC()
	for _, th := range threads {
		if err := checkSourceID("thread.sourceId", th.SourceID); err != nil {
			out.Problems = append(out.Problems, domain.SourceProblem{Record: th.SourceID, Message: domain.ErrorMessage(err)})
			continue
		}
		if err := checkLabels(map[string]string{"channel": th.Channel, "name": th.Name}); err != nil {
			out.Problems = append(out.Problems, domain.SourceProblem{Record: th.SourceID, Message: domain.ErrorMessage(err)})
			continue
		}
		t := &domain.Thread{ID: f.threadID(adapter, th.SourceID), ScopeID: f.scope, Channel: th.Channel, Name: th.Name,
			SourceAdapter: adapter, SourceID: th.SourceID, CreatedAt: th.CreatedAt.UTC(), UpdatedAt: now}
		if th.CreatedAt.IsZero() {
			t.CreatedAt = now
		}
		if th.ParentSourceID != "" {
			t.ParentID = f.threadID(adapter, th.ParentSourceID)
		}
		f.threads[t.ID] = true
		out.Batch.Threads = append(out.Batch.Threads, t)
	}
	var evs []*domain.LedgerEvent
	for _, se := range events {
		ad := adapter
		if se.Adapter != "" {
			ad = se.Adapter
		}
		e, err := f.formEvent(ad, se, ingest)
		if err != nil {
			out.Problems = append(out.Problems, domain.SourceProblem{Line: se.Line, Record: se.SourceID, Message: domain.ErrorMessage(err)})
			continue
		}
		if f.seen[e.Memory.ID] {
			out.Problems = append(out.Problems, domain.SourceProblem{Line: se.Line, Record: se.SourceID, Message: "the same source id appears twice; the first is kept"})
			continue
		}
		f.seen[e.Memory.ID] = true
		if e.ThreadID != "" && !f.threads[e.ThreadID] {
			// A thread the source never described: a minimal one, so the event has it.
			t := &domain.Thread{ID: e.ThreadID, ScopeID: f.scope, Channel: e.Channel, SourceAdapter: ad,
				SourceID: se.ThreadSourceID, CreatedAt: e.Memory.OccurredAt, UpdatedAt: now}
			f.threads[t.ID] = true
			out.Batch.Threads = append(out.Batch.Threads, t)
		}
		evs = append(evs, e)
	}
	out.Batch.Events = evs
	out.Batch.Associations = f.chain(evs)
	// Salience sees the associations a memory is born with (its connectivity), as it would on
	// a MemoryStored.
	conn := map[string]float64{}
	for _, a := range out.Batch.Associations {
		conn[a.SourceID] += a.Strength
		conn[a.TargetID] += a.Strength
	}
	for _, e := range evs {
		e.Memory.Salience = salience.Potential(salience.Features{Importance: e.Memory.Importance, Connectivity: conn[e.Memory.ID]})
	}
	return out
}

func checkSourceID(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return domain.FieldErrorf(field, "is required")
	}
	if len(id) > MaxSourceIDBytes {
		return domain.FieldErrorf(field, "is longer than %d bytes", MaxSourceIDBytes)
	}
	return hippocampus.CheckText(field, id)
}

func checkLabels(labels map[string]string) error {
	for field, v := range labels {
		if len(v) > MaxLabelBytes {
			return domain.FieldErrorf(field, "is longer than %d bytes", MaxLabelBytes)
		}
		if err := hippocampus.CheckText(field, v); err != nil {
			return err
		}
	}
	return nil
}

// Content is the text a memory of an utterance keeps: who said it, then what was said — a
// memory of a conversation is not self-contained without its speaker.
func Content(speaker, text string) string {
	if speaker == "" {
		return text
	}
	return speaker + ": " + text
}

func (f *Former) formEvent(adapter string, se *domain.SourceEvent, ingest domain.TransactionContext) (*domain.LedgerEvent, error) {
	if err := checkSourceID("sourceId", se.SourceID); err != nil {
		return nil, err
	}
	if se.ThreadSourceID != "" {
		if err := checkSourceID("thread", se.ThreadSourceID); err != nil {
			return nil, err
		}
	}
	if err := checkLabels(map[string]string{"channel": se.Channel, "speaker": se.Speaker, "direction": se.Direction,
		"replyTo": se.ReplyTo, "adapter": adapter}); err != nil {
		return nil, err
	}
	dir := se.Direction
	if dir == "" {
		dir = domain.DirectionObserved
	}
	if dir != domain.DirectionSent && dir != domain.DirectionReceived && dir != domain.DirectionObserved {
		return nil, domain.FieldErrorf("direction", "must be sent, received or observed, not %q", se.Direction)
	}
	if se.Timestamp.IsZero() {
		return nil, domain.FieldErrorf("timestamp", "is required")
	}
	if strings.TrimSpace(se.Content) == "" {
		return nil, domain.FieldErrorf("content", "must not be empty")
	}
	channel := se.Channel
	if channel == "" {
		channel = adapter
	}
	md := map[string]any{}
	for k, v := range se.Metadata {
		md[k] = v
	}
	if len(se.ContentTypes) > 0 {
		cts := make([]any, len(se.ContentTypes))
		for i, c := range se.ContentTypes {
			cts[i] = c
		}
		md["contentTypes"] = cts
	}
	at := se.Timestamp.UTC()
	in := hippocampus.StoreInput{ScopeID: f.scope, Content: Content(se.Speaker, se.Content), Kind: domain.KindEpisodic,
		Metadata: md, Tags: se.Tags, OccurredAt: &at}
	if se.Speaker != "" {
		imp := Informativeness(se.Content)
		in.Importance = &imp
	}
	if err := hippocampus.Validate("", in); err != nil {
		return nil, err
	}
	md[domain.MetaIngestRequest], md[domain.MetaIngestMessage] = ingest.RequestID, ingest.MessageID
	m, _ := f.hippo.Form(in, ingest)
	m.ID = EventID(f.scope, adapter, se.SourceID)
	e := &domain.LedgerEvent{Memory: m, Channel: channel, Direction: dir, Speaker: se.Speaker, SourceAdapter: adapter,
		SourceID: se.SourceID, Seq: f.seq}
	f.seq++
	if se.ThreadSourceID != "" {
		e.ThreadID = f.threadID(adapter, se.ThreadSourceID)
	}
	if se.ReplyTo != "" {
		e.ReplyTo = EventID(f.scope, adapter, se.ReplyTo)
	}
	if se.TurnSourceID != "" {
		e.TurnID = domain.DeriveID(f.scope, "turn", f.agentAdapter, se.TurnSourceID)
	}
	e.Stamp()
	return e, nil
}

// chain joins consecutive events of each thread (continuing from earlier batches) with TEMPORAL
// associations.
func (f *Former) chain(evs []*domain.LedgerEvent) []*domain.Association {
	byThread := map[string][]*domain.LedgerEvent{}
	var order []string
	for _, e := range evs {
		if e.ThreadID == "" {
			continue
		}
		if _, ok := byThread[e.ThreadID]; !ok {
			order = append(order, e.ThreadID)
		}
		byThread[e.ThreadID] = append(byThread[e.ThreadID], e)
	}
	var out []*domain.Association
	for _, th := range order {
		list := byThread[th]
		sort.SliceStable(list, func(i, j int) bool {
			a, b := list[i].Memory.OccurredAt, list[j].Memory.OccurredAt
			if !a.Equal(b) {
				return a.Before(b)
			}
			return list[i].Seq < list[j].Seq
		})
		prev, ok := f.last[th]
		for _, e := range list {
			if ok && prev.id != e.Memory.ID {
				out = append(out, &domain.Association{SourceID: prev.id, TargetID: e.Memory.ID, ScopeID: f.scope,
					Type: domain.AssocTemporal, Strength: f.Temporal(e.Memory.OccurredAt.Sub(prev.at)),
					UpdatedAt: e.Memory.CreatedAt})
			}
			prev, ok = lastEvent{id: e.Memory.ID, at: e.Memory.OccurredAt}, true
		}
		f.last[th] = prev
	}
	return out
}

// formAgents rewrites the agents-ledger records of sb into derived ids, derives turns where the
// source has none, and returns the trimmed events (and their session threads) of every turn.
func (f *Former) formAgents(sb *domain.SourceBatch, out *Formed) ([]*domain.SourceThread, []*domain.SourceEvent) {
	ad := f.agentAdapter
	id := func(kind, sid string) string {
		if sid == "" {
			return ""
		}
		return domain.DeriveID(f.scope, kind, ad, sid)
	}
	problem := func(rec, msg string) {
		out.Problems = append(out.Problems, domain.SourceProblem{Record: rec, Message: msg})
	}
	sessions := map[string]*domain.AgentSession{}
	var sessionOrder []string
	for _, s := range sb.Sessions {
		if err := checkSourceID("sessions.id", s.ID); err != nil {
			problem(s.ID, err.Error())
			continue
		}
		x := *s
		x.SourceID, x.ID, x.ScopeID = s.ID, id("session", s.ID), f.scope
		x.ParentSessionID = id("session", s.ParentSessionID)
		x.ParentMessageID = id("message", s.ParentMessageID)
		x.ToolCallID = id("toolcall", s.ToolCallID)
		if x.ParentSessionID != "" {
			x.IsSubagent = true
		}
		if _, dup := sessions[x.ID]; !dup {
			sessionOrder = append(sessionOrder, x.ID)
		}
		sessions[x.ID] = &x
	}
	var msgs []*domain.AgentMessage
	for i, m := range sb.Messages {
		if err := checkSourceID("messages.id", m.ID); err != nil {
			problem(m.ID, err.Error())
			continue
		}
		if err := hippocampus.CheckText("content", m.Content); err != nil || len(m.Content) > domain.MaxContentBytes() {
			problem(m.ID, "content must be UTF-8 without NUL and at most "+domain.ContentLimitText())
			continue
		}
		x := *m
		x.SourceID, x.ID, x.ScopeID, x.SessionID = m.ID, id("message", m.ID), f.scope, id("session", m.SessionID)
		if x.SessionID == "" {
			problem(m.ID, "message without a session")
			continue
		}
		if x.Sequence == 0 {
			x.Sequence = i + 1
		}
		if _, ok := sessions[x.SessionID]; !ok {
			sessions[x.SessionID] = &domain.AgentSession{ID: x.SessionID, ScopeID: f.scope, SourceID: m.SessionID, Source: ad}
			sessionOrder = append(sessionOrder, x.SessionID)
		}
		msgs = append(msgs, &x)
	}
	var calls []*domain.AgentToolCall
	for i, c := range sb.ToolCalls {
		if err := checkSourceID("toolCalls.id", c.ID); err != nil {
			problem(c.ID, err.Error())
			continue
		}
		x := *c
		x.SourceID, x.ID, x.ScopeID = c.ID, id("toolcall", c.ID), f.scope
		x.SessionID, x.MessageID, x.ChildSessionID = id("session", c.SessionID), id("message", c.MessageID), id("session", c.ChildSessionID)
		if x.SessionID == "" {
			problem(c.ID, "tool call without a session")
			continue
		}
		if x.ToolNumber == 0 {
			x.ToolNumber = i + 1
		}
		calls = append(calls, &x)
	}
	// A child session points at its parent, and the parent's tool call at the child.
	for _, c := range calls {
		if ch, ok := sessions[c.ChildSessionID]; ok && ch.ParentSessionID == "" {
			ch.ParentSessionID, ch.ToolCallID, ch.ParentMessageID, ch.IsSubagent = c.SessionID, c.ID, c.MessageID, true
		}
	}
	turns := f.turns(sb, sessions, msgs, calls)
	bySession := map[string]int{}
	for _, m := range msgs {
		bySession[m.SessionID]++
	}
	for _, sid := range sessionOrder {
		s := sessions[sid]
		if s.MessageCount == 0 {
			s.MessageCount = bySession[sid]
		}
		out.Batch.Sessions = append(out.Batch.Sessions, s)
	}
	out.Batch.Messages, out.Batch.ToolCalls, out.Batch.Turns = msgs, calls, turns
	return f.trimmed(sessions, sessionOrder, msgs, turns)
}

// turns takes the source's turns, or derives them: a turn is the user messages that open it and
// everything up to the next user message; its response is its last assistant message with text.
func (f *Former) turns(sb *domain.SourceBatch, sessions map[string]*domain.AgentSession, msgs []*domain.AgentMessage, calls []*domain.AgentToolCall) []*domain.AgentTurn {
	ad := f.agentAdapter
	id := func(kind, sid string) string {
		if sid == "" {
			return ""
		}
		return domain.DeriveID(f.scope, kind, ad, sid)
	}
	var turns []*domain.AgentTurn
	if len(sb.Turns) > 0 {
		for _, t := range sb.Turns {
			x := *t
			x.SourceID, x.ID, x.ScopeID, x.SessionID = t.ID, id("turn", t.ID), f.scope, id("session", t.SessionID)
			x.ParentTurnID, x.ResponseMessageID = id("turn", t.ParentTurnID), id("message", t.ResponseMessageID)
			x.QueryMessageIDs = mapIDs(t.QueryMessageIDs, func(s string) string { return id("message", s) })
			x.MessageIDs = mapIDs(t.MessageIDs, func(s string) string { return id("message", s) })
			if len(x.MessageIDs) == 0 {
				x.MessageIDs = append(append([]string(nil), x.QueryMessageIDs...), x.ResponseMessageID)
			}
			turns = append(turns, &x)
		}
	} else {
		bySession := map[string][]*domain.AgentMessage{}
		var order []string
		for _, m := range msgs {
			if _, ok := bySession[m.SessionID]; !ok {
				order = append(order, m.SessionID)
			}
			bySession[m.SessionID] = append(bySession[m.SessionID], m)
		}
		for _, sid := range order {
			list := bySession[sid]
			sort.SliceStable(list, func(i, j int) bool { return list[i].Sequence < list[j].Sequence })
			var cur *domain.AgentTurn
			var curMsgs []*domain.AgentMessage
			flush := func() {
				if cur == nil {
					return
				}
				resp := ""
				for _, m := range curMsgs {
					if m.Role == "assistant" && strings.TrimSpace(m.Content) != "" {
						resp = m.ID
						cur.ResponseMessageID = m.ID
						cur.SourceID = m.SourceID
						if m.Timestamp != nil {
							cur.Timestamp = m.Timestamp
						}
					}
				}
				if resp == "" {
					// No final response: the turn is named by its last message.
					last := curMsgs[len(curMsgs)-1]
					cur.SourceID = last.SourceID
				}
				cur.ID = id("turn", cur.SourceID)
				for _, m := range curMsgs {
					cur.MessageIDs = append(cur.MessageIDs, m.ID)
					cur.TokenCount += EstimateTokens(m.Content)
				}
				if cur.Model == "" {
					cur.Model = sessions[sid].Model
				}
				turns = append(turns, cur)
				cur, curMsgs = nil, nil
			}
			for _, m := range list {
				userQuery := m.Role == "user" && strings.TrimSpace(m.Content) != ""
				if userQuery && (cur == nil || len(curMsgs) > len(cur.QueryMessageIDs)) {
					flush()
				}
				if cur == nil {
					cur = &domain.AgentTurn{ScopeID: f.scope, SessionID: sid, Timestamp: m.Timestamp}
				}
				if userQuery && len(curMsgs) == len(cur.QueryMessageIDs) {
					cur.QueryMessageIDs = append(cur.QueryMessageIDs, m.ID)
				}
				curMsgs = append(curMsgs, m)
			}
			flush()
		}
	}
	// Sequence, parent turn, tool calls and children.
	inTurn := map[string]*domain.AgentTurn{}
	seq := map[string]int{}
	prev := map[string]string{}
	for _, t := range turns {
		seq[t.SessionID]++
		if t.Sequence == 0 {
			t.Sequence = seq[t.SessionID]
		}
		if t.ParentTurnID == "" {
			t.ParentTurnID = prev[t.SessionID]
		}
		prev[t.SessionID] = t.ID
		for _, mid := range t.MessageIDs {
			inTurn[mid] = t
		}
	}
	for _, c := range calls {
		if t, ok := inTurn[c.MessageID]; ok {
			t.ToolCallCount++
			if c.ChildSessionID != "" {
				t.HasChildren = true
			}
		}
	}
	return turns
}

func mapIDs(ids []string, fn func(string) string) []string {
	out := make([]string, 0, len(ids))
	for _, s := range ids {
		if s != "" {
			out = append(out, fn(s))
		}
	}
	return out
}

// EstimateTokens is a rough token count of text (four bytes a token).
func EstimateTokens(text string) int { return (len(text) + 3) / 4 }

// trimmed returns each turn in the events ledger's trimmed form: the turn's user messages as one
// sent event and its final response as one received event, in a thread per session.
func (f *Former) trimmed(sessions map[string]*domain.AgentSession, order []string, msgs []*domain.AgentMessage, turns []*domain.AgentTurn) ([]*domain.SourceThread, []*domain.SourceEvent) {
	byID := make(map[string]*domain.AgentMessage, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	var threads []*domain.SourceThread
	for _, sid := range order {
		s := sessions[sid]
		th := &domain.SourceThread{SourceID: "session:" + s.SourceID, Channel: channelOf(s), Name: firstNonEmpty(s.TaskDescription, s.Project)}
		if s.CreatedAt != nil {
			th.CreatedAt = *s.CreatedAt
		}
		if s.ParentSessionID != "" {
			if p, ok := sessions[s.ParentSessionID]; ok {
				th.ParentSourceID = "session:" + p.SourceID
			}
		}
		threads = append(threads, th)
	}
	var evs []*domain.SourceEvent
	for _, t := range turns {
		s := sessions[t.SessionID]
		if s == nil {
			continue
		}
		var parts []string
		var at time.Time
		for _, q := range t.QueryMessageIDs {
			if m := byID[q]; m != nil {
				parts = append(parts, m.Content)
				if at.IsZero() && m.Timestamp != nil {
					at = *m.Timestamp
				}
			}
		}
		if at.IsZero() && t.Timestamp != nil {
			at = *t.Timestamp
		}
		if at.IsZero() && s.CreatedAt != nil {
			at = *s.CreatedAt
		}
		if at.IsZero() {
			at = f.now()
		}
		thread := "session:" + s.SourceID
		md := map[string]any{"agentSessionId": s.ID, "agentTurnId": t.ID}
		if q := strings.TrimSpace(strings.Join(parts, "\n\n")); q != "" {
			evs = append(evs, &domain.SourceEvent{SourceID: t.SourceID + ":user", ThreadSourceID: thread, Timestamp: at,
				Channel: channelOf(s), Content: q, Direction: domain.DirectionSent, Speaker: "user", Metadata: md,
				Tags: []string{TagAgentTurn}, TurnSourceID: t.SourceID, ContentTypes: []string{"text"}})
		}
		if r := byID[t.ResponseMessageID]; r != nil && strings.TrimSpace(r.Content) != "" {
			rat := at
			if r.Timestamp != nil {
				rat = *r.Timestamp
			}
			evs = append(evs, &domain.SourceEvent{SourceID: t.SourceID + ":assistant", ThreadSourceID: thread, Timestamp: rat,
				Channel: channelOf(s), Content: r.Content, Direction: domain.DirectionReceived, Speaker: "assistant", Metadata: md,
				Tags: []string{TagAgentTurn}, TurnSourceID: t.SourceID, ContentTypes: []string{"text"}})
		}
	}
	return threads, evs
}

func channelOf(s *domain.AgentSession) string {
	if s.Source != "" {
		return s.Source
	}
	return "agent"
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// Describe is a one-line summary of a formed batch, for logs.
func (fm *Formed) Describe() string {
	b := fm.Batch
	return fmt.Sprintf("%d events, %d threads, %d associations, %d sessions, %d messages, %d turns, %d tool calls, %d problems",
		len(b.Events), len(b.Threads), len(b.Associations), len(b.Sessions), len(b.Messages), len(b.Turns), len(b.ToolCalls), len(fm.Problems))
}

// phatic words carry no fact of their own: greetings, thanks, backchannel, intensifiers.
var phatic = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if so to of in on at for with by from up about into over after is are
		was were be been being am i me my mine you your yours he she it we they them their our us his her its this that these those
		what which who whom whose when where why how do does did done have has had having not no yes yeah yep yup oh ah wow hey hi
		hello thanks thank really so very too just also can could would should will shall may might must there here than then now
		well like love great awesome amazing cool nice good glad happy totally sure definitely lot lots much many more most some any
		all each every one get got go going know think feel see look way thing things stuff something anything everything always
		never ever still even again it's i'm you're that's what's don't can't i've you've we're they're i'll let's okay ok haha lol`) {
		phatic[w] = true
	}
}

// Informativeness is how much an utterance states, 0..1: it grows with its content words
// (words that are not phatic), 1 − e^(−n/6), and a question counts 0.6 of that — a question asks
// rather than tells. Ingest gives it to conversational events as their importance, so salience
// favours turns that carry facts over greetings and backchannel.
func Informativeness(text string) float64 {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r >= 0x80)
	}) {
		if len(w) > 2 && !phatic[w] {
			n++
		}
	}
	v := 1 - math.Exp(-float64(n)/6)
	if strings.HasSuffix(strings.TrimSpace(text), "?") {
		v *= 0.6
	}
	return v
}
