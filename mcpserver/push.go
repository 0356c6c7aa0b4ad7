package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
)

// The NotificationPort's adapter for LLMs: the notifications of a connection's instance are
// written to its standalone SSE stream (the GET the client holds open) as Claude Code channel
// notifications, when the client accepts them. A notification pushed leaves the instance's queue;
// one that finds no stream waits there for the next hook.

// sseStream is the standalone stream's response writer, shared by the SDK's messages and the
// pushed notifications: the SDK writes each event whole in one Write, so a lock between writes
// keeps the two from interleaving.
type sseStream struct {
	http.ResponseWriter
	mu      sync.Mutex
	started bool
	closed  bool
}

func (st *sseStream) Write(p []byte) (int, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.started = true
	return st.ResponseWriter.Write(p)
}

func (st *sseStream) WriteHeader(code int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ResponseWriter.WriteHeader(code)
}

func (st *sseStream) Flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	_ = http.NewResponseController(st.ResponseWriter).Flush()
}

func (st *sseStream) Unwrap() http.ResponseWriter { return st.ResponseWriter }

var errStreamGone = errors.New("the stream is gone")

// send writes one JSON-RPC notification as an SSE event.
func (st *sseStream) send(method string, params any) error {
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || !st.started {
		return errStreamGone
	}
	if _, err := fmt.Fprintf(st.ResponseWriter, "event: message\ndata: %s\n\n", data); err != nil {
		st.closed = true
		return err
	}
	return http.NewResponseController(st.ResponseWriter).Flush()
}

// attach makes st, served for the request whose context is ctx, the binding's stream; pushing
// starts if the binding is ready for it.
func (b *binding) attach(s *Server, st *sseStream, ctx context.Context) {
	b.mu.Lock()
	b.stream, b.streamCtx = st, ctx
	b.mu.Unlock()
	b.maybePush(s)
}

func (b *binding) detach(st *sseStream) {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	b.mu.Lock()
	if b.stream == st {
		b.stream, b.streamCtx = nil, nil
	}
	b.mu.Unlock()
}

// wantsPush reports whether notifications go to this connection: channels asked for, or the
// client declares the channel capability.
func (b *binding) wantsPush() bool {
	if b.channels != nil {
		return *b.channels
	}
	return b.accepts
}

// maybePush starts the pusher once the binding has an instance, a stream and wants pushes.
func (b *binding) maybePush(s *Server) {
	b.mu.Lock()
	st, ctx := b.stream, b.streamCtx
	if b.pushing || st == nil || b.instance == "" || !b.wantsPush() {
		b.mu.Unlock()
		return
	}
	b.pushing = true
	inst := b.instance
	b.mu.Unlock()
	go s.push(ctx, b, st, inst)
}

// push delivers the instance's notifications over st until the stream's request ends: those
// queued already, then each one as it is published. It calls the Cortex with the context of
// the request that holds the stream.
func (s *Server) push(ctx context.Context, b *binding, st *sseStream, inst string) {
	defer func() {
		b.mu.Lock()
		b.pushing = false
		again := b.stream != nil && b.stream != st
		b.mu.Unlock()
		if again {
			b.maybePush(s) // a newer stream took over
		}
	}()
	// Subscribed first, then the queue drained: nothing published in between slips past.
	live, err := s.cx.Notifications(ctx, inst, b.scope.ID)
	if err != nil {
		s.logger.Warn("mcp push: subscribe", "instance", inst, "err", err)
		return
	}
	queued, err := s.cx.QueuedNotifications(ctx, inst, b.scope.ID)
	if err != nil {
		s.logger.Warn("mcp push: queue", "instance", inst, "err", err)
		return
	}
	seen := map[string]bool{}
	deliver := func(e *domain.Event) bool {
		if seen[e.ID()] || b.awaits(pstr(e.Payload, "originRequestId")) {
			return true
		}
		seen[e.ID()] = true
		n, err := s.notification(ctx, e)
		if err != nil {
			s.logger.Warn("mcp push: render", "notification", e.ID(), "err", err)
			return true
		}
		if err := st.send(ChannelMethod, channelParams(n, b.scope)); err != nil {
			return false // stays queued for the next hook
		}
		if _, err := s.cx.DeliveredNotification(ctx, inst, e); err != nil {
			s.logger.Warn("mcp push: dequeue", "notification", e.ID(), "err", err)
		}
		return true
	}
	for _, e := range queued {
		if !deliver(e) {
			return
		}
	}
	for e := range live {
		if !deliver(e) {
			return
		}
	}
}

// channelParams are a channel notification's params: the text the model reads, and string
// attributes (Claude Code shows them on the <channel> tag; keys are identifiers).
func channelParams(n *client.Notification, sc *domain.Scope) map[string]any {
	return map[string]any{"content": n.Text(), "meta": map[string]string{
		"kind": n.Kind, "notification_id": n.ID, "scope": sc.Name, "scope_id": sc.ID, "instance_id": n.InstanceID}}
}

// notification turns a notification event into the shape the hooks read too.
func (s *Server) notification(ctx context.Context, e *domain.Event) (*client.Notification, error) {
	p := e.Payload
	n := &client.Notification{Kind: string(e.Type), ID: e.ID(), ScopeID: e.ScopeID, InstanceID: pstr(p, "instanceId"),
		Timestamp: e.Context.Timestamp}
	switch e.Type {
	case domain.NtSessionAuditPrompt:
		n.Prompt, n.EndedSessionID, n.Reason = pstr(p, "prompt"), pstr(p, "endedSessionId"), pstr(p, "reason")
		n.DurationSeconds, n.MemoriesStored, n.MemoryIDs = pint(p, "durationSeconds"), pint(p, "memoriesStored"), pstrs(p, "memoryIds")
	case domain.NtBreakNotification:
		n.SessionID, n.MinutesInTaskMode, n.Suggestion = pstr(p, "sessionId"), pint(p, "minutesInTaskMode"), pstr(p, "suggestion")
	case domain.NtTotalRecallNotification:
		n.DepthReached, n.OriginRequestID, n.SourceMemoryIDs = pint(p, "depthReached"), pstr(p, "originRequestId"), pstrs(p, "sourceMemoryIds")
		recalled, err := s.cx.RecalledMemories(ctx, e)
		if err != nil {
			return nil, err
		}
		for _, r := range recalled {
			rm := client.RankedMemory{Memory: *r.Memory, Score: r.Score, Reason: string(r.Reason), Salience: r.Salience,
				Activation: r.Activation, Depth: r.Depth}
			if r.Via != nil {
				rm.Via = &client.Via{SourceID: r.Via.SourceID, TargetID: r.Via.TargetID, Type: string(r.Via.Type), Strength: r.Via.Strength}
			}
			n.Recalled = append(n.Recalled, rm)
		}
	default:
		return nil, fmt.Errorf("event %s is no notification", e.Type)
	}
	return n, nil
}

func pstr(p map[string]any, k string) string { s, _ := p[k].(string); return s }

func pint(p map[string]any, k string) int {
	switch v := p[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

func pstrs(p map[string]any, k string) []string {
	out := []string{}
	switch v := p[k].(type) {
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	}
	return out
}

// await marks a total recall a tool waits for, until done is called: with returned, the tool
// returned its recollection, which then stays marked for ReturnedFor.
func (b *binding) await(origin string) (done func(returned bool)) {
	b.mu.Lock()
	if b.awaited == nil {
		b.awaited = map[string]bool{}
	}
	b.awaited[origin] = true
	b.mu.Unlock()
	return func(returned bool) {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.awaited, origin)
		if !returned {
			return
		}
		now := time.Now()
		if b.returned == nil {
			b.returned = map[string]time.Time{}
		}
		for o, at := range b.returned {
			if now.Sub(at) > ReturnedFor {
				delete(b.returned, o)
			}
		}
		b.returned[origin] = now
	}
}

// ReturnedFor is how long a recollection a tool returned is kept from the channel: far longer
// than a published notification takes to reach the pusher.
const ReturnedFor = 10 * time.Minute

func (b *binding) awaits(origin string) bool {
	if origin == "" {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, done := b.returned[origin]
	return b.awaited[origin] || done
}
