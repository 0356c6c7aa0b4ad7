// Package subconscious is the Subconscious context: the part of the memory that works without
// being asked. Its timers run decay sweeps, end sessions whose heartbeats stopped and tell minds
// in task mode for too long to take a break; it consumes TotalRecallAdvisory (evaluating
// throttle and shutdown before commanding Recall to traverse the association graph) and
// SessionEnd (answering with a SessionAuditPrompt). Everything it publishes is a persisted event
// of the log, so notifications reach minds on every server and show in traces.
package subconscious

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/domain/salience"
)

// Config sets the Subconscious's timers and limits. Zero intervals leave a timer off (as in
// tests, unless asked); zero values of the rest take the defaults.
type Config struct {
	// DecayInterval is how often every scope is swept.
	DecayInterval time.Duration
	// SessionCheckInterval is how often sessions are checked for timeouts and breaks.
	SessionCheckInterval time.Duration
	// SessionTimeout ends a session whose last heartbeat is older (as TIMEOUT).
	SessionTimeout time.Duration
	// BreakAfter is the time in task mode after which a BreakNotification is pushed (and again
	// after each further BreakAfter).
	BreakAfter time.Duration
	// RecallBurst total recalls per mind may run at once; one more is allowed per RecallRefill.
	RecallBurst  int
	RecallRefill time.Duration
	// Recall bounds every total recall (its maxDepth is the advisory's when given).
	Recall recall.TotalRecallParams
	// AuditPrompt is the question of the SessionAuditPrompt.
	AuditPrompt string
	// Story configures narrative consolidation (story.go).
	Story StoryConfig
}

// Defaults of Config.
const (
	DefaultSessionTimeout = 5 * time.Minute
	DefaultBreakAfter     = 90 * time.Minute
	DefaultRecallBurst    = 5
	DefaultRecallRefill   = 12 * time.Second
	DefaultAuditPrompt    = "What do you refuse to lose?"
)

// WithDefaults fills unset values.
func (c Config) WithDefaults() Config {
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.BreakAfter <= 0 {
		c.BreakAfter = DefaultBreakAfter
	}
	if c.RecallBurst <= 0 {
		c.RecallBurst = DefaultRecallBurst
	}
	if c.RecallRefill <= 0 {
		c.RecallRefill = DefaultRecallRefill
	}
	if c.AuditPrompt == "" {
		c.AuditPrompt = DefaultAuditPrompt
	}
	c.Recall = c.Recall.WithDefaults()
	c.Story = c.Story.WithDefaults()
	return c
}

// Declined reasons of a total recall.
const (
	DeclinedThrottled    = "THROTTLED"
	DeclinedShuttingDown = "SHUTTING_DOWN"
)

// Subconscious runs in the background of one server. Safe for concurrent use.
type Subconscious struct {
	store   domain.Store
	living  domain.LivingStore
	sweeper *salience.Sweeper
	now     domain.Clock
	cfg     Config
	logger  *slog.Logger

	mu       sync.Mutex
	buckets  map[string]*bucket
	shutting atomic.Bool
}

type bucket struct {
	tokens float64
	at     time.Time
}

// New returns a Subconscious over the store; sweeper runs its decay sweeps.
func New(st domain.Store, living domain.LivingStore, sweeper *salience.Sweeper, now domain.Clock, cfg Config, logger *slog.Logger) *Subconscious {
	if logger == nil {
		logger = slog.Default()
	}
	return &Subconscious{store: st, living: living, sweeper: sweeper, now: now, cfg: cfg.WithDefaults(), logger: logger,
		buckets: map[string]*bucket{}}
}

// Config returns the effective configuration.
func (s *Subconscious) Config() Config { return s.cfg }

// BeginShutdown makes the Subconscious refuse total recalls from now on.
func (s *Subconscious) BeginShutdown() { s.shutting.Store(true) }

// ShuttingDown reports whether shutdown began.
func (s *Subconscious) ShuttingDown() bool { return s.shutting.Load() }

// Run drives the timers until ctx ends.
func (s *Subconscious) Run(ctx context.Context) {
	var wg sync.WaitGroup
	every := func(d time.Duration, fn func(context.Context)) {
		if d <= 0 {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(d)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					fn(ctx)
				}
			}
		}()
	}
	every(s.cfg.DecayInterval, func(ctx context.Context) {
		if err := s.SweepAll(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("decay sweep failed", "err", err)
		}
	})
	every(s.cfg.SessionCheckInterval, func(ctx context.Context) {
		if _, _, err := s.CheckSessions(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("session check failed", "err", err)
		}
	})
	wg.Wait()
}

// open starts the context of a message the Subconscious sends of its own accord.
func (s *Subconscious) open(sessionID string) domain.TransactionContext {
	rid := domain.NewID()
	if sessionID == "" {
		sessionID = "subconscious"
	}
	return domain.TransactionContext{SessionID: sessionID, RequestID: rid, MessageID: domain.NewID(), CausationID: rid,
		Timestamp: s.now().UTC(), SourceContext: domain.CtxSubconscious}
}

// SweepAll runs a decay sweep (MSG-0004) over every scope.
func (s *Subconscious) SweepAll(ctx context.Context) error {
	scopes, err := s.store.Scopes(ctx)
	if err != nil {
		return err
	}
	for _, sc := range scopes {
		tc := s.open("")
		cmd := &domain.Event{Type: domain.MsgDecaySweep, ScopeID: sc.ID, Context: tc,
			Payload: map[string]any{"scopeId": sc.ID, "timestamp": tc.Timestamp.Format(time.RFC3339Nano)},
			Touches: []domain.Touch{{Context: domain.CtxSalience, At: tc.Timestamp}}}
		res, err := s.sweeper.Sweep(ctx, domain.Request{}, sc.ID, "", cmd)
		if err != nil {
			return err
		}
		if res.Demotions > 0 {
			s.logger.Info("decay sweep", "scope", sc.ID, "evaluated", res.Evaluated, "demotions", res.Demotions)
		}
	}
	return nil
}

// CheckSessions ends the sessions whose heartbeats stopped (TIMEOUT) and pushes a
// BreakNotification to minds in task mode for too long. It returns how many of each.
func (s *Subconscious) CheckSessions(ctx context.Context) (ended, breaks int, err error) {
	sessions, err := s.living.ActiveSessions(ctx, 10000)
	if err != nil {
		return 0, 0, err
	}
	for _, sess := range sessions {
		now := s.now().UTC()
		switch {
		case TimedOut(sess, s.cfg.SessionTimeout, now):
			var ok bool
			if err := s.living.UpdateSessions(ctx, nil, sess.InstanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
				cur := find(active, sess.ID)
				if cur == nil || !TimedOut(cur, s.cfg.SessionTimeout, now) {
					return nil, false, nil // a heartbeat or an end came first
				}
				endedSess, ev := End(cur, domain.EndTimeout, s.open(cur.ID), now)
				return &domain.Changes{Sessions: []*domain.Session{endedSess}, Events: []*domain.Event{ev}}, true, nil
			}, &ok); err != nil {
				return ended, breaks, err
			}
			if ok {
				ended++
			}
		default:
			if _, due := BreakDue(sess, s.cfg.BreakAfter, now); !due {
				continue
			}
			var ok bool
			if err := s.living.UpdateSessions(ctx, nil, sess.InstanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
				cur := find(active, sess.ID)
				if cur == nil {
					return nil, false, nil
				}
				minutes, due := BreakDue(cur, s.cfg.BreakAfter, now)
				if !due {
					return nil, false, nil
				}
				next := cur.Clone()
				next.LastBreakAt = &now
				return &domain.Changes{Sessions: []*domain.Session{next},
					Events: []*domain.Event{BreakNotification(cur, minutes, s.open(cur.ID))}}, true, nil
			}, &ok); err != nil {
				return ended, breaks, err
			}
			if ok {
				breaks++
			}
		}
	}
	return ended, breaks, nil
}

func find(ss []*domain.Session, id string) *domain.Session {
	for _, s := range ss {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Consumes reports whether the Subconscious consumes events of type t (MemoryStored to keep the
// list of memories stored in a session, and the story's pending log).
func Consumes(t domain.EventType) bool {
	switch t {
	case domain.EvTotalRecallAdvisory, domain.MsgSessionStart, domain.MsgSessionEnd, domain.MsgHeartbeatReceived,
		domain.MsgModeChanged, domain.EvMemoryStored:
		return true
	}
	return false
}

// Plan decides what the Subconscious does with a batch of consumed events, in log order. It
// returns the changes per consumed message id and the ids of the messages it touched. Reads
// happen here (outside the write), so the store can commit the batch exactly once.
func (s *Subconscious) Plan(ctx context.Context, evs []*domain.Event) (map[string]*domain.Changes, []string, error) {
	out := map[string]*domain.Changes{}
	var touched []string
	// The sessions the batch may concern, read at once: every stored memory names a session id
	// (most of them no session of this store).
	var ids []string
	for _, e := range evs {
		switch e.Type {
		case domain.EvMemoryStored:
			ids = append(ids, e.Context.SessionID)
		case domain.MsgSessionEnd:
			ids = append(ids, str(e.Payload["sessionId"]))
		}
	}
	sessions := map[string]*domain.Session{}
	if len(ids) > 0 {
		found, err := s.living.Sessions(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, sess := range found {
			sessions[sess.ID] = sess
		}
	}
	loadSession := func(id string) (*domain.Session, error) { return sessions[id], nil }
	stored := map[string][]string{} // memories stored in a session within this batch
	for _, e := range evs {
		switch e.Type {
		case domain.EvMemoryStored:
			sess, err := loadSession(e.Context.SessionID)
			if err != nil {
				return nil, nil, err
			}
			if sess == nil || sess.ScopeID != e.ScopeID || (sess.EndedAt != nil && e.Context.Timestamp.After(*sess.EndedAt)) {
				continue
			}
			stored[sess.ID] = append(stored[sess.ID], e.MemoryID)
			ch := &domain.Changes{SessionMemories: []domain.SessionMemories{{SessionID: sess.ID, MemoryIDs: []string{e.MemoryID}}}}
			if p, ok := Pending(e); ok {
				ch.Pending = []domain.PendingEntry{p}
			}
			out[e.ID()] = ch
			touched = append(touched, e.ID())
		case domain.MsgSessionEnd:
			touched = append(touched, e.ID())
			id, _ := e.Payload["sessionId"].(string)
			sess, err := loadSession(id)
			if err != nil {
				return nil, nil, err
			}
			if sess == nil || sess.EndedAt == nil {
				continue
			}
			ids := union(sess.MemoryIDs, stored[sess.ID])
			out[e.ID()] = &domain.Changes{Events: []*domain.Event{AuditPrompt(sess, ids, s.cfg.AuditPrompt, e.Context, s.now().UTC())}}
		case domain.EvTotalRecallAdvisory:
			touched = append(touched, e.ID())
			ch, err := s.EvaluateAdvisory(ctx, e)
			if err != nil {
				return nil, nil, err
			}
			out[e.ID()] = ch
		case domain.MsgSessionStart, domain.MsgHeartbeatReceived, domain.MsgModeChanged:
			// Session tracking lives in the session nodes the Cortex writes; the timers read them.
			touched = append(touched, e.ID())
		}
	}
	return out, touched, nil
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, xs := range [][]string{a, b} {
		for _, x := range xs {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// take spends one total-recall token of a mind, refilled one per RecallRefill up to RecallBurst.
func (s *Subconscious) take(key string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	burst := float64(s.cfg.RecallBurst)
	b := s.buckets[key]
	if b == nil {
		b = &bucket{tokens: burst, at: now}
		s.buckets[key] = b
	}
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(burst, b.tokens+float64(el)/float64(s.cfg.RecallRefill))
		b.at = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// Advisory is the payload of a TotalRecallAdvisory.
type Advisory struct {
	SourceMemoryIDs []string
	MaxDepth        int
	InstanceID      string
}

// AdvisoryOf reads an advisory's payload.
func AdvisoryOf(e *domain.Event) Advisory {
	a := Advisory{InstanceID: str(e.Payload["instanceId"])}
	if raw, ok := e.Payload["sourceMemoryIds"].([]any); ok {
		for _, v := range raw {
			a.SourceMemoryIDs = append(a.SourceMemoryIDs, str(v))
		}
	} else if ids, ok := e.Payload["sourceMemoryIds"].([]string); ok {
		a.SourceMemoryIDs = append(a.SourceMemoryIDs, ids...)
	}
	switch d := e.Payload["maxDepth"].(type) {
	case float64:
		a.MaxDepth = int(d)
	case int:
		a.MaxDepth = d
	}
	return a
}

func str(v any) string { s, _ := v.(string); return s }

// EvaluateAdvisory evaluates one TotalRecallAdvisory (MSG-0007) and returns what it publishes:
// a mind over its throttle, or a server shutting down, is declined; otherwise Recall traverses
// the association graph depth by depth (each level an AssociationsFound from the Synapse, each
// retrieval a MemoryAccessed from the Hippocampus) and the result is a TotalRecallNotification.
func (s *Subconscious) EvaluateAdvisory(ctx context.Context, adv *domain.Event) (*domain.Changes, error) {
	now := s.now().UTC()
	a := AdvisoryOf(adv)
	key := a.InstanceID
	if key == "" {
		key = "scope:" + adv.ScopeID
	}
	decline := func(reason string) *domain.Changes {
		return &domain.Changes{Events: []*domain.Event{{Type: domain.EvTotalRecallDeclined, ScopeID: adv.ScopeID,
			Context: adv.Context.Derive(domain.CtxSubconscious, now),
			Payload: map[string]any{"reason": reason, "instanceId": a.InstanceID, "originRequestId": adv.Context.RequestID}}}}
	}
	if s.ShuttingDown() {
		return decline(DeclinedShuttingDown), nil
	}
	if !s.take(key, now) {
		return decline(DeclinedThrottled), nil
	}
	p := s.cfg.Recall
	if a.MaxDepth > 0 {
		p.MaxDepth = min(a.MaxDepth, recall.MaxRecallDepth)
	}
	cmd := &domain.Event{Type: domain.MsgTotalRecallCommand, ScopeID: adv.ScopeID, Context: adv.Context.Derive(domain.CtxSubconscious, now),
		Payload: map[string]any{"sourceMemoryIds": a.SourceMemoryIDs, "maxDepth": p.MaxDepth, "originRequestId": adv.Context.RequestID,
			"floor": p.Floor, "beam": p.Beam},
		Touches: []domain.Touch{{Context: domain.CtxRecall, At: now}}}
	res, err := recall.TotalRecall(ctx, s.living, a.SourceMemoryIDs, p)
	if err != nil {
		return nil, err
	}
	return TotalRecallChanges(adv, cmd, a, res, p, now), nil
}

// TotalRecallChanges are the messages and accesses of one total recall: the command, one
// AssociationsFound per level, a MemoryAccessed per retrieved memory and the notification.
func TotalRecallChanges(adv, cmd *domain.Event, a Advisory, res *recall.TotalRecallResult, p recall.TotalRecallParams, now time.Time) *domain.Changes {
	ch := &domain.Changes{Events: []*domain.Event{cmd}}
	cause := cmd.Context
	for i, level := range res.Levels {
		found := make([]map[string]any, len(level))
		for j, r := range level {
			found[j] = map[string]any{"sourceId": r.Via.From, "memoryId": r.MemoryID, "type": string(r.Via.Type), "strength": r.Via.Strength}
		}
		af := &domain.Event{Type: domain.EvAssociationsFound, ScopeID: adv.ScopeID, Context: cause.Derive(domain.CtxSynapse, now),
			Payload: map[string]any{"depth": i + 1, "associations": found},
			Touches: []domain.Touch{{Context: domain.CtxRecall, At: now}}}
		ch.Events = append(ch.Events, af)
		for _, r := range level {
			ch.Events = append(ch.Events, hippocampus.AccessEvent(adv.ScopeID, r.MemoryID, af.Context, now))
			ch.Accesses = append(ch.Accesses, domain.Access{MemoryID: r.MemoryID, At: now})
		}
		cause = af.Context
	}
	ranked := res.Ranked(p.MaxResults)
	recalled := make([]map[string]any, len(ranked))
	for i, r := range ranked {
		recalled[i] = map[string]any{"memoryId": r.MemoryID, "activation": r.Activation, "depth": r.Depth,
			"viaSourceId": r.Via.From, "viaType": string(r.Via.Type), "viaStrength": r.Via.Strength}
	}
	ch.Events = append(ch.Events, &domain.Event{Type: domain.NtTotalRecallNotification, ScopeID: adv.ScopeID,
		Context: cmd.Context.Derive(domain.CtxRecall, now),
		Payload: map[string]any{"instanceId": a.InstanceID, "originRequestId": adv.Context.RequestID,
			"sourceMemoryIds": a.SourceMemoryIDs, "depthReached": res.DepthReached, "maxDepth": p.MaxDepth, "recalled": recalled}})
	return ch
}
