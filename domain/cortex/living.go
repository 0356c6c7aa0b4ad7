package cortex

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

// LivingConfig configures the living memory: the salience rules, the Subconscious's timers and
// limits, and the size of a decay sweep's pages and write batches.
type LivingConfig struct {
	Salience     salience.Params
	Subconscious subconscious.Config
	// Synapse are the rules by which stored memories are connected (docs/synapse.md).
	Synapse    synapse.Params
	SweepPage  int
	SweepBatch int
}

// living is the Cortex's part of the living memory.
type living struct {
	store   domain.LivingStore
	params  salience.Params
	scorer  *salience.Scorer
	sweeper *salience.Sweeper
	sub     *subconscious.Subconscious
	pos     map[string]*consumerState
	// synapse are the Synapse's rules; syn is the store's Synapse capability (nil: the Synapse
	// consumer does not run).
	synapse    synapse.Params
	syn        domain.SynapseStore
	synapseOff atomic.Bool
}

// startLiving starts the Salience and Subconscious consumers and the Subconscious's timers. A
// store without the LivingStore capability runs without them (its living operations answer
// UNAVAILABLE).
func (c *Cortex) startLiving(ctx, bg context.Context, cfg LivingConfig) error {
	ls, ok := c.store.(domain.LivingStore)
	if !ok {
		return nil
	}
	params := cfg.Salience.WithDefaults()
	if err := params.Validate(); err != nil {
		return err
	}
	sp := cfg.Synapse.WithDefaults()
	if err := sp.Validate(); err != nil {
		return err
	}
	l := &living{store: ls, params: params, scorer: &salience.Scorer{Params: params, Now: c.now},
		sweeper: &salience.Sweeper{Store: ls, Params: params, Now: c.now, PageSize: cfg.SweepPage, BatchSize: cfg.SweepBatch},
		synapse: sp}
	l.syn, _ = c.store.(domain.SynapseStore)
	l.sub = subconscious.New(c.store, ls, l.sweeper, c.now, cfg.Subconscious, c.logger)
	c.living = l
	c.accesses.scoring.Store(&accessScoring{store: ls, scorer: l.scorer})
	c.startStory(bg, cfg.Subconscious.Story)
	if err := c.startLivingConsumers(ctx, bg); err != nil {
		return err
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		l.sub.Run(bg)
	}()
	return nil
}

// stopLiving begins the shutdown: from now on the Subconscious refuses total recalls.
func (c *Cortex) stopLiving() {
	if c.living != nil {
		c.living.sub.BeginShutdown()
	}
}

// Subconscious exposes the Subconscious (for operations and tests).
func (c *Cortex) Subconscious() (*subconscious.Subconscious, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	return l.sub, nil
}

// SalienceParams returns the salience rules in force.
func (c *Cortex) SalienceParams() salience.Params {
	if c.living == nil {
		return salience.DefaultParams()
	}
	return c.living.params
}

func (c *Cortex) livingOrErr() (*living, error) {
	if c.living == nil {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store does not support the living memory")
	}
	return c.living, nil
}

func (c *Cortex) checkScope(ctx context.Context, field, id string) (*domain.Scope, error) {
	if err := domain.CheckID(field, id); err != nil {
		return nil, err
	}
	return c.store.Scope(ctx, id)
}

// ---- Sessions (MSG-0005) ----

// SessionStartInput is session_start.
type SessionStartInput struct {
	InstanceID string
	MindType   string
	ScopeID    string
	RequestID  string
}

// SessionContext is session_start's response: the new session, the scope's identity (its
// IDENTITY_CORE memories and kernels), how the last session ended, and the story so far.
type SessionContext struct {
	Session     *domain.Session
	Scope       *domain.Scope
	Identity    []*domain.Memory
	LastSession *domain.Session
	Welcome     string
	// Story is the scope's story where the mind starts: its newest chapters within the
	// server's story budget (Cortex.StoryContext); "" before the first chapter.
	Story string
}

// MaxIdentityMemories caps the identity a session start returns.
const MaxIdentityMemories = 200

func checkMindType(s string) error {
	if strings.TrimSpace(s) == "" {
		return domain.FieldErrorf("mindType", "must not be blank")
	}
	if len(s) > domain.MaxNameBytes {
		return domain.FieldErrorf("mindType", "is longer than %d bytes", domain.MaxNameBytes)
	}
	return hippocampus.CheckText("mindType", s)
}

// SessionStart connects a mind instance to a scope. An instance that starts while a session of
// it is still active crashed: that session ends as CRASH (and gets its audit prompt).
// Errors: INVALID_ARGUMENT, NOT_FOUND (scope), CONFLICT (requestId reused).
func (c *Cortex) SessionStart(ctx context.Context, in SessionStartInput) (*SessionContext, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := checkToken("instanceId", in.InstanceID); err != nil {
		return nil, err
	}
	if err := checkMindType(in.MindType); err != nil {
		return nil, err
	}
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	sc, err := c.checkScope(ctx, "scopeId", in.ScopeID)
	if err != nil {
		return nil, err
	}
	newID := domain.NewID()
	tc, err := c.open(Meta{RequestID: in.RequestID, SessionID: newID})
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	req := domain.Request{Op: "sessionStart", RequestID: in.RequestID, Fingerprint: fingerprint([]string{in.InstanceID, in.MindType, in.ScopeID}), ScopeID: in.ScopeID}
	var sessID string
	err = l.store.UpdateSessions(ctx, &req, in.InstanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
		// An instance id is the mind's own name: the same name used under another key's scope
		// is another mind, whose sessions this start must not end.
		active = writableSessions(ctx, active)
		sess := &domain.Session{ID: newID, ScopeID: in.ScopeID, InstanceID: in.InstanceID, MindType: in.MindType,
			StartedAt: now, LastHeartbeatAt: now, Mode: domain.ModeConversation, ModeSince: now}
		start := &domain.Event{Type: domain.MsgSessionStart, ScopeID: in.ScopeID, Context: tc,
			Payload: map[string]any{"sessionId": newID, "instanceId": in.InstanceID, "mindType": in.MindType, "scopeId": in.ScopeID}}
		ch := subconscious.Start(active, sess, start, now)
		// Cortex asks the Hippocampus for the identity it hands back.
		ch.Events = append(ch.Events, command(domain.MsgLoadIdentityQuery, in.ScopeID, "", tc.Derive(domain.CtxCortex, now), domain.CtxHippocampus,
			map[string]any{"scopeId": in.ScopeID, "tier": string(domain.TierIdentityCore)}))
		return ch, newID, nil
	}, &sessID)
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	sess, err := l.store.Session(ctx, sessID)
	if err != nil {
		return nil, err
	}
	page, err := c.store.ListMemories(ctx, in.ScopeID, domain.MemoryFilter{Tiers: []domain.Tier{domain.TierIdentityCore},
		States: []domain.LifecycleState{domain.StateActive}}, domain.Page{First: MaxIdentityMemories})
	if err != nil {
		return nil, err
	}
	last, err := l.store.LastEndedSession(ctx, in.ScopeID)
	if err != nil {
		return nil, err
	}
	story := ""
	if c.story != nil {
		// The session is started: a story that cannot be read now leaves it out rather than
		// failing a start that a retry would turn into a crashed session.
		if story, err = c.StoryContext(ctx, in.ScopeID, 0); err != nil {
			c.logger.Warn("session start: the story could not be read", "scope", in.ScopeID, "err", err)
			story = ""
		}
	}
	return &SessionContext{Session: sess, Scope: sc, Identity: page.Memories, LastSession: last,
		Welcome: welcome(sess, sc, last, len(page.Memories)), Story: story}, nil
}

func welcome(sess *domain.Session, sc *domain.Scope, last *domain.Session, identity int) string {
	if last == nil {
		return fmt.Sprintf("Welcome, %s. This is the first session in %q. Your identity holds %d memories.", sess.MindType, sc.Name, identity)
	}
	return fmt.Sprintf("Welcome back, %s. Your last session (instance %s) ended %s at %s after %d minutes and stored %d memories. "+
		"Your identity holds %d memories.", sess.MindType, last.InstanceID, strings.ToLower(string(last.EndReason)),
		last.EndedAt.UTC().Format(time.RFC3339), int(last.Duration(*last.EndedAt)/time.Minute), len(last.MemoryIDs), identity)
}

// Heartbeat records that an instance is alive and, with mode set, what it is doing
// (ModeChanged). It returns false when the instance has no active session (start one).
// Errors: INVALID_ARGUMENT.
func (c *Cortex) Heartbeat(ctx context.Context, instanceID string, mode domain.SessionMode) (bool, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return false, err
	}
	if err := checkToken("instanceId", instanceID); err != nil {
		return false, err
	}
	if mode != "" && !mode.Valid() {
		return false, domain.FieldErrorf("mode", "unknown mode %q", mode)
	}
	var ok bool
	err = l.store.UpdateSessions(ctx, nil, instanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
		sess := newest(writableSessions(ctx, active))
		if sess == nil {
			return nil, false, nil
		}
		tc, err := c.open(Meta{SessionID: sess.ID})
		if err != nil {
			return nil, false, err
		}
		next, evs := subconscious.Beat(sess, mode, tc, tc.Timestamp)
		return &domain.Changes{Sessions: []*domain.Session{next}, Events: evs}, true, nil
	}, &ok)
	c.log.Kick()
	return ok, err
}

func newest(ss []*domain.Session) *domain.Session {
	var out *domain.Session
	for _, s := range ss {
		if out == nil || s.StartedAt.After(out.StartedAt) {
			out = s
		}
	}
	return out
}

// SessionEnd ends an instance's active session; the Subconscious answers with a
// SessionAuditPrompt. It returns false when the instance had no active session.
// Errors: INVALID_ARGUMENT, CONFLICT (requestId reused).
func (c *Cortex) SessionEnd(ctx context.Context, instanceID string, reason domain.SessionEndReason, m Meta) (bool, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return false, err
	}
	if err := checkToken("instanceId", instanceID); err != nil {
		return false, err
	}
	if !reason.Valid() {
		return false, domain.FieldErrorf("reason", "unknown reason %q", reason)
	}
	if m.RequestID != "" {
		if err := checkToken("requestId", m.RequestID); err != nil {
			return false, err
		}
	}
	req := domain.Request{Op: "sessionEnd", RequestID: m.RequestID, Fingerprint: fingerprint([]string{instanceID, string(reason)})}
	var ok bool
	err = l.store.UpdateSessions(ctx, &req, instanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
		active = writableSessions(ctx, active)
		if len(active) == 0 {
			return nil, false, nil
		}
		ch := &domain.Changes{}
		for _, sess := range active {
			tc, err := c.open(Meta{RequestID: m.RequestID, SessionID: sess.ID})
			if err != nil {
				return nil, false, err
			}
			ended, ev := subconscious.End(sess, reason, tc, tc.Timestamp)
			ch.Sessions = append(ch.Sessions, ended)
			ch.Events = append(ch.Events, ev)
		}
		return ch, true, nil
	}, &ok)
	c.log.Kick()
	return ok, err
}

// ActiveSession returns an instance's active session. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) ActiveSession(ctx context.Context, instanceID string) (*domain.Session, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := checkToken("instanceId", instanceID); err != nil {
		return nil, err
	}
	var id string
	if err := l.store.UpdateSessions(ctx, nil, instanceID, func(active []*domain.Session) (*domain.Changes, any, error) {
		if s := newest(visible(ctx, active, func(s *domain.Session) string { return s.ScopeID })); s != nil {
			return nil, s.ID, nil
		}
		return nil, "", nil
	}, &id); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, domain.Errorf(domain.ENOTFOUND, "instance %q has no active session", instanceID)
	}
	return l.store.Session(ctx, id)
}

// ---- Total recall (MSG-0002, MSG-0007) ----

// TotalRecallInput is total_recall_advisory.
type TotalRecallInput struct {
	SourceMemoryIDs []string
	MaxDepth        int
	InstanceID      string
	RequestID       string
	SessionID       string
}

// TotalRecallAdvisory publishes the mind's advice that a deeper recollection is needed from
// the given memories. The Subconscious evaluates it and, unless it declines (throttle,
// shutdown), pushes a TotalRecallNotification over the notifications subscription. It returns
// the origin request id, under which trace shows the whole chain.
// Errors: INVALID_ARGUMENT, NOT_FOUND, CROSS_SCOPE_REFERENCE, CONFLICT (requestId reused).
func (c *Cortex) TotalRecallAdvisory(ctx context.Context, in TotalRecallInput) (string, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return "", err
	}
	if len(in.SourceMemoryIDs) == 0 {
		return "", domain.FieldErrorf("sourceMemoryIds", "give at least one memory")
	}
	if len(in.SourceMemoryIDs) > recall.MaxRecallSources {
		return "", domain.FieldErrorf("sourceMemoryIds", "at most %d memories", recall.MaxRecallSources)
	}
	seen := map[string]bool{}
	var ids []string
	for i, id := range in.SourceMemoryIDs {
		if err := domain.CheckID(fmt.Sprintf("sourceMemoryIds[%d]", i), id); err != nil {
			return "", err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if in.MaxDepth == 0 {
		in.MaxDepth = recall.DefaultRecallDepth
	}
	if in.MaxDepth < 1 || in.MaxDepth > recall.MaxRecallDepth {
		return "", domain.FieldErrorf("maxDepth", "must be within 1..%d", recall.MaxRecallDepth)
	}
	if in.InstanceID != "" {
		if err := checkToken("instanceId", in.InstanceID); err != nil {
			return "", err
		}
	}
	tc, err := c.open(Meta{RequestID: in.RequestID, SessionID: in.SessionID})
	if err != nil {
		return "", err
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return "", err
	}
	if len(ms) != len(ids) {
		found := map[string]bool{}
		for _, m := range ms {
			found[m.ID] = true
		}
		for _, id := range ids {
			if !found[id] {
				return "", domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
			}
		}
	}
	for _, m := range ms {
		if err := reach(ctx, m.ScopeID, true, notFoundf("memory %s not found", m.ID)); err != nil {
			return "", err
		}
	}
	for _, m := range ms[1:] {
		if m.ScopeID != ms[0].ScopeID {
			return "", domain.Errorf(domain.ECROSSSCOPE, "memory %s and memory %s belong to different scopes", ms[0].ID, m.ID)
		}
	}
	adv := &domain.Event{Type: domain.EvTotalRecallAdvisory, ScopeID: ms[0].ScopeID, Context: tc,
		Payload: map[string]any{"sourceMemoryIds": ids, "maxDepth": in.MaxDepth, "instanceId": in.InstanceID,
			"timestamp": tc.Timestamp.Format(time.RFC3339Nano)}}
	req := domain.Request{Op: "totalRecallAdvisory", RequestID: in.RequestID, Fingerprint: fingerprint([]any{ids, in.MaxDepth, in.InstanceID}),
		ScopeID: ms[0].ScopeID}
	if _, err := l.store.Apply(ctx, &req, &domain.Changes{Events: []*domain.Event{adv}}, tc.RequestID); err != nil {
		return "", err
	}
	c.log.Kick()
	return tc.RequestID, nil
}

// RecalledMemories turns a TotalRecallNotification's payload into ranked memories (memories
// deleted since are left out).
func (c *Cortex) RecalledMemories(ctx context.Context, ev *domain.Event) ([]*recall.RankedMemory, error) {
	raw, _ := ev.Payload["recalled"].([]any)
	type item struct {
		id, via, typ  string
		act, strength float64
		depth         int
	}
	items := make([]item, 0, len(raw))
	ids := make([]string, 0, len(raw))
	for _, r := range raw {
		m, _ := r.(map[string]any)
		it := item{id: str(m["memoryId"]), via: str(m["viaSourceId"]), typ: str(m["viaType"]),
			act: num(m["activation"]), strength: num(m["viaStrength"]), depth: int(num(m["depth"]))}
		items = append(items, it)
		ids = append(ids, it.id)
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*domain.Memory{}
	for _, m := range visible(ctx, ms, memoryScope) {
		byID[m.ID] = m
	}
	out := make([]*recall.RankedMemory, 0, len(items))
	for _, it := range items {
		m := byID[it.id]
		if m == nil {
			continue
		}
		out = append(out, &recall.RankedMemory{Memory: m, Score: it.act, Reason: recall.ReasonAssociation, Activation: it.act,
			Salience: m.Salience, Depth: it.depth, Via: &domain.Association{SourceID: it.via, TargetID: it.id, ScopeID: m.ScopeID,
				Type: domain.AssociationType(it.typ), Strength: it.strength, UpdatedAt: ev.Context.Timestamp}})
	}
	return out, nil
}

func str(v any) string { s, _ := v.(string); return s }

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}

// ---- Decay sweep (MSG-0004) ----

// DecaySweep sweeps one tier of a scope (all tiers when tier is ""): scores are recalculated at
// the clock's now and memories below their tier's threshold sink. Nothing is removed.
// Errors: INVALID_ARGUMENT, NOT_FOUND, CONFLICT (requestId reused).
func (c *Cortex) DecaySweep(ctx context.Context, scopeID string, tier domain.Tier, m Meta) (salience.SweepResult, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return salience.SweepResult{}, err
	}
	if tier != "" && !tier.Valid() {
		return salience.SweepResult{}, domain.FieldErrorf("tier", "unknown tier %q", tier)
	}
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return salience.SweepResult{}, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return salience.SweepResult{}, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return salience.SweepResult{}, err
	}
	tc, err := c.open(m)
	if err != nil {
		return salience.SweepResult{}, err
	}
	cmd := command(domain.MsgDecaySweep, scopeID, "", tc, domain.CtxSalience,
		map[string]any{"scopeId": scopeID, "tier": string(tier), "timestamp": tc.Timestamp.Format(time.RFC3339Nano)})
	res, err := l.sweeper.Sweep(ctx, domain.Request{Op: "decaySweep", RequestID: m.RequestID, Fingerprint: fingerprint([]string{scopeID, string(tier)}), ScopeID: scopeID},
		scopeID, tier, cmd)
	c.log.Kick()
	return res, err
}

// ---- Reflect (MSG-0006) ----

// Reflect returns the memories of a scope needing the mind's judgment — stale, in a time span,
// or weakly associated — with the reasons. With no criteria it uses
// recall.DefaultReflectCriteria. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Reflect(ctx context.Context, scopeID string, crit *recall.ReflectCriteria, m Meta) ([]*recall.ReflectionCandidate, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := c.readScope(ctx, scopeID); err != nil {
		return nil, err
	}
	cr := recall.DefaultReflectCriteria()
	if crit != nil {
		cr = *crit
		if cr.StaleAfter < 0 {
			return nil, domain.FieldErrorf("criteria.staleDays", "must not be negative")
		}
		if cr.From != nil && cr.To != nil && !cr.From.Before(*cr.To) {
			return nil, domain.FieldErrorf("criteria.from", "must lie before criteria.to")
		}
		if cr.WeakBelow != nil && !(*cr.WeakBelow > 0 && *cr.WeakBelow <= 1) {
			return nil, domain.FieldErrorf("criteria.weakAssociationsBelow", "must be within (0, 1]")
		}
		for _, t := range cr.Tiers {
			if !t.Valid() {
				return nil, domain.FieldErrorf("criteria.tiers", "unknown tier %q", t)
			}
		}
		if cr.StaleAfter == 0 && cr.From == nil && cr.To == nil && cr.WeakBelow == nil {
			return nil, domain.FieldErrorf("criteria", "ask for staleness, a time span or weak associations")
		}
	}
	if cr.Limit == 0 {
		cr.Limit = recall.DefaultReflectMax
	}
	if cr.Limit < 1 || cr.Limit > recall.MaxReflectLimit {
		return nil, domain.FieldErrorf("criteria.limit", "must be within 1..%d", recall.MaxReflectLimit)
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	q := command(domain.MsgReflectQuery, scopeID, "", tc, domain.CtxRecall, reflectPayload(cr))
	find := command("FindCandidatesQuery", scopeID, "", tc.Derive(domain.CtxRecall, tc.Timestamp), domain.CtxHippocampus, nil)
	weak := command("FindWeakAssociationsQuery", scopeID, "", tc.Derive(domain.CtxRecall, tc.Timestamp), domain.CtxSynapse, nil)
	out, err := recall.Reflect(ctx, l.store, scopeID, cr, tc.Timestamp)
	if err != nil {
		return nil, err
	}
	q.Payload["candidates"] = len(out)
	c.accesses.record([]*domain.Event{q, find, weak}, nil)
	return out, nil
}

func reflectPayload(c recall.ReflectCriteria) map[string]any {
	p := map[string]any{"staleDays": c.StaleAfter.Hours() / 24, "limit": c.Limit}
	if c.From != nil {
		p["from"] = c.From.UTC().Format(time.RFC3339Nano)
	}
	if c.To != nil {
		p["to"] = c.To.UTC().Format(time.RFC3339Nano)
	}
	if c.WeakBelow != nil {
		p["weakAssociationsBelow"] = *c.WeakBelow
	}
	return p
}

// ---- Consolidate ----

// Consolidate merges memories of one scope into one new memory (hippocampus.Merge documents the
// strategies). The sources point to it, leave service (ARCHIVED) and keep their history; the new
// memory takes over their associations. Errors: INVALID_ARGUMENT, NOT_FOUND,
// CROSS_SCOPE_REFERENCE, CONFLICT (a source already consolidated, or requestId reused).
func (c *Cortex) Consolidate(ctx context.Context, ids []string, strategy domain.ConsolidationStrategy, m Meta) (*domain.Memory, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if len(ids) < hippocampus.MinConsolidate || len(ids) > hippocampus.MaxConsolidate {
		return nil, domain.FieldErrorf("memoryIds", "consolidate %d..%d memories", hippocampus.MinConsolidate, hippocampus.MaxConsolidate)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if err := domain.CheckID(fmt.Sprintf("memoryIds[%d]", i), id); err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, domain.FieldErrorf("memoryIds", "memory %s is given twice", id)
		}
		seen[id] = true
	}
	if strategy == "" {
		strategy = domain.MergeConcatenate
	}
	if !strategy.Valid() {
		return nil, domain.FieldErrorf("strategy", "unknown strategy %q", strategy)
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	out, err := l.store.Consolidate(ctx, domain.Request{Op: "consolidate", RequestID: m.RequestID, Fingerprint: fingerprint([]any{ids, strategy})}, ids,
		func(sources []*domain.Memory) (*domain.Memory, []*domain.Event, error) {
			for _, src := range sources {
				if err := reach(ctx, src.ScopeID, true, notFoundf("memory %s not found", src.ID)); err != nil {
					return nil, nil, err
				}
			}
			merged, evs, err := c.hippo.Merge(sources, strategy, tc)
			if err != nil {
				return nil, nil, err
			}
			cmd := command(domain.MsgConsolidateCommand, merged.ScopeID, merged.ID, tc, domain.CtxHippocampus,
				map[string]any{"memoryIds": ids, "strategy": string(strategy)})
			return merged, append([]*domain.Event{cmd}, evs...), nil
		})
	if err != nil {
		return nil, err
	}
	// Searchable at once, and the sources leave search at once.
	ms, err := c.store.Memories(ctx, append([]string{out.ID}, ids...))
	if err != nil {
		return nil, err
	}
	if err := c.putDocs(ctx, docsOf(ms)); err != nil {
		return nil, err
	}
	c.log.Kick()
	return out, nil
}

// Lineage returns what a memory was consolidated into and from. Errors: INVALID_ARGUMENT,
// NOT_FOUND.
func (c *Cortex) Lineage(ctx context.Context, id string) (*domain.Lineage, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	if restricted(ctx) {
		m, err := c.store.Memory(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := reach(ctx, m.ScopeID, false, notFoundf("memory %s not found", id)); err != nil {
			return nil, err
		}
	}
	return l.store.Lineage(ctx, id)
}

// ---- Working memory and prompt context (seed 002) ----

// MaxContextBytes caps updateContext's text; the first MaxQueryBytes of it are the query.
const (
	MaxContextBytes = 64 << 10
	MaxQueryBytes   = 4096
)

// WorkingView is a working memory with its items' memories (deleted ones left out).
type WorkingView struct {
	Memory *domain.WorkingMemory
	Items  []recall.PromptItem
}

// UpdateContext fills the scope's working memory with the memories most relevant to text
// (recall.FillWorkingMemory documents the rule). A heartbeat-only text changes nothing.
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) UpdateContext(ctx context.Context, scopeID, text string, capacity int, m Meta) (*WorkingView, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, domain.FieldErrorf("text", "must not be empty")
	}
	if len(text) > MaxContextBytes {
		return nil, domain.FieldErrorf("text", "is longer than %d bytes", MaxContextBytes)
	}
	if err := hippocampus.CheckText("text", text); err != nil {
		return nil, err
	}
	if capacity < 0 || capacity > recall.MaxWorkingCapacity {
		return nil, domain.FieldErrorf("capacity", "must be within 1..%d", recall.MaxWorkingCapacity)
	}
	prev, err := l.store.WorkingMemory(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	if domain.IsHeartbeat(text) {
		return c.workingView(ctx, prev, scopeID)
	}
	if capacity == 0 {
		capacity = recall.DefaultWorkingCapacity
		if prev != nil && prev.Capacity > 0 {
			capacity = prev.Capacity
		}
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	hits, err := c.recall.Search(ctx, recall.Query{ScopeID: scopeID, Text: queryText(text), MaxResults: capacity, IncludeAssociations: true})
	if err != nil {
		return nil, err
	}
	wm := recall.FillWorkingMemory(prev, scopeID, text, capacity, hits, tc.Timestamp)
	cmd := command(domain.MsgUpdateContextCommand, scopeID, "", tc, domain.CtxRecall,
		map[string]any{"scopeId": scopeID, "textBytes": len(text), "capacity": capacity})
	ids := make([]string, len(wm.Items))
	for i, it := range wm.Items {
		ids[i] = it.MemoryID
	}
	upd := &domain.Event{Type: domain.EvWorkingMemoryUpdated, ScopeID: scopeID, Context: tc.Derive(domain.CtxRecall, tc.Timestamp),
		Payload: map[string]any{"scopeId": scopeID, "memoryIds": ids, "capacity": capacity}}
	req := domain.Request{Op: "updateContext", RequestID: m.RequestID, Fingerprint: fingerprint([]any{scopeID, text, capacity}), ScopeID: scopeID}
	if _, err := l.store.Apply(ctx, &req, &domain.Changes{WorkingMemory: []*domain.WorkingMemory{wm}, Events: []*domain.Event{cmd, upd}}, nil); err != nil {
		return nil, err
	}
	c.log.Kick()
	cur, err := l.store.WorkingMemory(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	return c.workingView(ctx, cur, scopeID)
}

// queryText is the part of a long text used as a search query: its first MaxQueryBytes, cut at
// a rune boundary.
func queryText(s string) string {
	if len(s) <= MaxQueryBytes {
		return s
	}
	n := MaxQueryBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// WorkingMemory returns a scope's working memory (empty if it has none). Errors:
// INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) WorkingMemory(ctx context.Context, scopeID string) (*WorkingView, error) {
	l, err := c.livingOrErr()
	if err != nil {
		return nil, err
	}
	if err := c.readScope(ctx, scopeID); err != nil {
		return nil, err
	}
	wm, err := l.store.WorkingMemory(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	return c.workingView(ctx, wm, scopeID)
}

func (c *Cortex) workingView(ctx context.Context, wm *domain.WorkingMemory, scopeID string) (*WorkingView, error) {
	if wm == nil {
		wm = &domain.WorkingMemory{ScopeID: scopeID, Capacity: recall.DefaultWorkingCapacity, Items: []domain.WorkingItem{}, UpdatedAt: c.now().UTC()}
	}
	ids := make([]string, len(wm.Items))
	for i, it := range wm.Items {
		ids[i] = it.MemoryID
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*domain.Memory{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	v := &WorkingView{Memory: wm, Items: []recall.PromptItem{}}
	for _, it := range wm.Items {
		if m := byID[it.MemoryID]; m != nil {
			v.Items = append(v.Items, recall.PromptItem{Memory: m, Relevance: it.Relevance, AddedAt: it.AddedAt})
		}
	}
	return v, nil
}

// PromptContext returns the working memory's most relevant memories formatted for a prompt
// within a token budget (recall.BuildPromptContext documents the format and the estimate).
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) PromptContext(ctx context.Context, scopeID string, maxMemories, maxTokens int, m Meta) (recall.PromptContext, error) {
	return c.PromptContextFor(ctx, PromptContextInput{ScopeID: scopeID, MaxMemories: maxMemories, MaxTokens: maxTokens, Meta: m})
}

// PromptContextInput asks for a prompt context.
type PromptContextInput struct {
	ScopeID     string
	MaxMemories int
	MaxTokens   int
	// IncludeStory puts the mind's story first: its newest chapters within half the budget
	// (Cortex.StoryContext); the memories fill the rest.
	IncludeStory bool
	Meta
}

// PromptContextFor is PromptContext, optionally with the story. Errors: INVALID_ARGUMENT,
// NOT_FOUND, UNAVAILABLE (the story asked of a store that keeps none).
func (c *Cortex) PromptContextFor(ctx context.Context, in PromptContextInput) (recall.PromptContext, error) {
	scopeID, maxMemories, maxTokens, m := in.ScopeID, in.MaxMemories, in.MaxTokens, in.Meta
	l, err := c.livingOrErr()
	if err != nil {
		return recall.PromptContext{}, err
	}
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return recall.PromptContext{}, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return recall.PromptContext{}, err
	}
	if maxMemories < 0 || maxMemories > recall.MaxPromptMemories {
		return recall.PromptContext{}, domain.FieldErrorf("maxMemories", "must be within 1..%d", recall.MaxPromptMemories)
	}
	if maxTokens < 0 || maxTokens > recall.MaxPromptTokens {
		return recall.PromptContext{}, domain.FieldErrorf("maxTokens", "must be within 1..%d", recall.MaxPromptTokens)
	}
	tc, err := c.open(m)
	if err != nil {
		return recall.PromptContext{}, err
	}
	wm, err := l.store.WorkingMemory(ctx, scopeID)
	if err != nil {
		return recall.PromptContext{}, err
	}
	if wm == nil {
		if _, err := c.store.Scope(ctx, scopeID); err != nil {
			return recall.PromptContext{}, err
		}
		wm = &domain.WorkingMemory{ScopeID: scopeID}
	}
	ids := make([]string, len(wm.Items))
	for i, it := range wm.Items {
		ids[i] = it.MemoryID
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return recall.PromptContext{}, err
	}
	byID := map[string]*domain.Memory{}
	for _, mem := range ms {
		if mem.ScopeID == scopeID {
			byID[mem.ID] = mem
		}
	}
	story, storyTokens := "", 0
	if in.IncludeStory {
		budget := maxTokens
		if budget == 0 {
			budget = recall.DefaultPromptTokens
		}
		if story, storyTokens, err = c.storyContext(ctx, scopeID, max(1, budget/2)); err != nil {
			return recall.PromptContext{}, err
		}
		if story != "" {
			storyTokens++ // the blank line after it
			maxTokens = max(1, budget-storyTokens)
		}
	}
	pc := recall.BuildPromptContext(wm.Items, byID, maxMemories, maxTokens)
	switch {
	case story != "" && pc.Text != "":
		pc.Story, pc.Text, pc.Tokens = story, story+"\n\n"+pc.Text, pc.Tokens+storyTokens
	case story != "":
		pc.Story, pc.Text, pc.Tokens = story, story, storyTokens-1
	}
	c.accesses.record([]*domain.Event{command(domain.MsgPromptContextQuery, scopeID, "", tc, domain.CtxRecall,
		map[string]any{"maxMemories": maxMemories, "maxTokens": in.MaxTokens, "tokens": pc.Tokens, "memories": len(pc.Items),
			"story": in.IncludeStory, "storyTokens": storyTokens})}, nil)
	return pc, nil
}

// ---- Flashbacks (seed 003) ----

// Resonate limits.
const (
	DefaultResonate = 3
	MaxResonate     = 10
)

// Resonate returns the few past memories that resonate with a new message (flashbacks), cheap
// enough to call before every turn (recall.Flashbacks). Heartbeat-only messages are not used as
// queries: they resonate with nothing.
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Resonate(ctx context.Context, scopeID, message string, maxResults int, m Meta) ([]*recall.RankedMemory, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if len(message) > MaxContextBytes {
		return nil, domain.FieldErrorf("message", "is longer than %d bytes", MaxContextBytes)
	}
	if err := hippocampus.CheckText("message", message); err != nil {
		return nil, err
	}
	if maxResults == 0 {
		maxResults = DefaultResonate
	}
	if maxResults < 1 || maxResults > MaxResonate {
		return nil, domain.FieldErrorf("maxResults", "must be within 1..%d", MaxResonate)
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(message) == "" || domain.IsHeartbeat(message) {
		if _, err := c.store.Scope(ctx, scopeID); err != nil {
			return nil, err
		}
		return []*recall.RankedMemory{}, nil
	}
	res, err := c.recall.Flashbacks(ctx, scopeID, queryText(message), maxResults)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		if _, err := c.store.Scope(ctx, scopeID); err != nil {
			return nil, err
		}
	}
	// The query and the retrievals it caused are recorded off the turn's path.
	q := command(domain.MsgResonateQuery, scopeID, "", tc, domain.CtxRecall, map[string]any{"messageBytes": len(message),
		"maxResults": maxResults, "results": len(res)})
	match := tc.Derive(domain.CtxRecall, tc.Timestamp)
	evs := []*domain.Event{q, {Type: domain.EvMemoryMatchRequest, ScopeID: scopeID, Context: match,
		Touches: []domain.Touch{{Context: domain.CtxHippocampus, At: tc.Timestamp}}}}
	acc := make([]domain.Access, 0, len(res))
	for _, rm := range res {
		evs = append(evs, hippocampus.AccessEvent(scopeID, rm.Memory.ID, match, tc.Timestamp))
		acc = append(acc, domain.Access{MemoryID: rm.Memory.ID, At: tc.Timestamp})
	}
	c.accesses.record(evs, acc)
	return res, nil
}

// ---- Notifications ----

// Notifications streams the notifications (SessionAuditPrompt, BreakNotification,
// TotalRecallNotification) for a mind instance, a scope, or both, from now on; delivery is
// recorded as the NotificationPort's touch. The channel closes when ctx ends.
// Errors: INVALID_ARGUMENT, NOT_FOUND (scope).
func (c *Cortex) Notifications(ctx context.Context, instanceID, scopeID string) (<-chan *domain.Event, error) {
	if instanceID == "" && scopeID == "" {
		return nil, domain.FieldErrorf("instanceId", "give an instanceId, a scopeId, or both")
	}
	if instanceID != "" {
		if err := checkToken("instanceId", instanceID); err != nil {
			return nil, err
		}
	}
	if scopeID != "" {
		if err := c.readScope(ctx, scopeID); err != nil {
			return nil, err
		}
	}
	sctx, err := c.subscribe(ctx)
	if err != nil {
		return nil, err
	}
	ctx = sctx
	p := domain.PrincipalFrom(ctx)
	in := c.log.Subscribe(ctx, c.log.Head(), func(e *domain.Event) bool {
		if !e.Type.IsNotification() || (scopeID != "" && e.ScopeID != scopeID) || !p.CanRead(e.ScopeID) {
			return false
		}
		return instanceID == "" || str(e.Payload["instanceId"]) == instanceID
	})
	out := make(chan *domain.Event, 16)
	go func() {
		defer close(out)
		for e := range in {
			select {
			case out <- e:
				c.touches.add(e.ID(), domain.CtxNotification)
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// MemoriesByID loads the memories among ids that exist, in the order of ids. Errors:
// INVALID_ARGUMENT.
func (c *Cortex) MemoriesByID(ctx context.Context, ids []string) ([]*domain.Memory, error) {
	for i, id := range ids {
		if err := domain.CheckID(fmt.Sprintf("ids[%d]", i), id); err != nil {
			return nil, err
		}
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	return visible(ctx, ms, memoryScope), nil
}

func memoryScope(m *domain.Memory) string { return m.ScopeID }

// readScope checks a scope argument the caller reads: a valid id, a grant, an existing scope.
func (c *Cortex) readScope(ctx context.Context, scopeID string) error {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return err
	}
	_, err := c.store.Scope(ctx, scopeID)
	return err
}

// writableSessions keeps the sessions the caller of ctx may change.
func writableSessions(ctx context.Context, ss []*domain.Session) []*domain.Session {
	p := domain.PrincipalFrom(ctx)
	if p.Admin() {
		return ss
	}
	var out []*domain.Session
	for _, s := range ss {
		if p.CanWrite(s.ScopeID) {
			out = append(out, s)
		}
	}
	return out
}
