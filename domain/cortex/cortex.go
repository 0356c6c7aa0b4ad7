// Package cortex is the Cortex: the boundary every caller goes through. It validates input,
// opens the TransactionContext of each request, hands commands and queries to the bounded
// contexts (Hippocampus, Synapse, Recall, Salience) and keeps the search index and the in-process
// consumers fed from the event log.
package cortex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/eventlog"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/domain/shard"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

// Config wires a Cortex.
type Config struct {
	Store domain.Store
	Index domain.Index
	Now   domain.Clock
	// Poll is how often the event log is read for other servers' events (default 200ms).
	Poll time.Duration
	// EventWindow is the bytes of recent events the log keeps in memory for its consumers and
	// subscribers (eventlog.DefaultWindow when 0).
	EventWindow int
	Logger      *slog.Logger
	// Living configures salience, tiers, sessions and the Subconscious (living.go).
	Living LivingConfig
	// Mnemonic configures ingest, episodes, analysis and embeddings (mnemonic.go).
	Mnemonic MnemonicConfig
	// Lexicon, when set, expands search queries with what it knows of their words (synonyms,
	// the members of a category a query names); nil searches the words as written.
	Lexicon domain.Lexicon
	// MaxSubscriptionsPerKey caps the subscriptions one API key holds open (0: no cap).
	MaxSubscriptionsPerKey int
	// Shard is the scopes this server serves (nil: every scope). The index holds only their
	// documents and the living consumers act only on their events (shard.go).
	Shard *shard.Spec
	// Retention is how long the log keeps its read events (retention.go).
	Retention Retention
}

// Cortex is the memory server's boundary. Safe for concurrent use.
type Cortex struct {
	store domain.Store
	index domain.Index
	now   domain.Clock
	log   *eventlog.Log
	// pruning counts the read events pruned (retention.go).
	pruning pruning
	hippo   *hippocampus.Hippocampus
	recall  *recall.Recall
	logger  *slog.Logger

	touches  *touchRecorder
	accesses *accessRecorder
	versions indexVersions
	living   *living
	mnemonic *mnemonic
	beats    *beater
	keys     *Keyring // nil when the store keeps no keys
	keysFrom uint64
	// indexFrom is the index's watermark as the start found it.
	indexFrom uint64
	// shard is the scopes this server serves (nil: every scope).
	shard *shard.Spec
	subs  subscriptionCounter
	// ending is closed when the server begins to shut down: subscriptions complete.
	ending        chan struct{}
	endingOnce    sync.Once
	shutdownStart time.Time
	shutdownTC    domain.TransactionContext
	// lastStore is when a mind last stored memories (Unix ns): the Synapse waits while they come.
	lastStore atomic.Int64
	// importHook hears how many memories each finished import wrote (SetImportHook).
	importHook atomic.Pointer[func(imported int)]
	story      *storyPart

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New starts a Cortex: the index catches up from the event log before New returns, then
// follows it.
func New(ctx context.Context, cfg Config) (*Cortex, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	lg, err := eventlog.Open(ctx, cfg.Store, cfg.Poll, cfg.EventWindow)
	if err != nil {
		return nil, err
	}
	ix := guardIndex(cfg.Index, cfg.Shard)
	c := &Cortex{store: cfg.Store, index: ix, now: cfg.Now, log: lg, shard: cfg.Shard,
		hippo: hippocampus.New(cfg.Now), recall: &recall.Recall{Store: cfg.Store, Index: ix, Lexicon: cfg.Lexicon}, logger: cfg.Logger}
	c.subs = subscriptionCounter{max: cfg.MaxSubscriptionsPerKey, open: map[string]int{}}
	c.ending = make(chan struct{})
	if _, ok := cfg.Store.(domain.KeyStore); ok {
		// The table follows the log from before it was read: no revocation falls between.
		c.keysFrom = lg.Head()
		if c.keys, err = NewKeyring(ctx, cfg.Store, cfg.Now, cfg.Logger); err != nil {
			lg.Close()
			return nil, err
		}
		c.keys.kick = lg.Kick
	}
	c.touches = newTouchRecorder(cfg.Store, cfg.Logger)
	c.beats = &beater{c: c, pending: map[string]beat{}, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	c.accesses = newAccessRecorder(cfg.Store, c.log, cfg.Logger)
	c.mnemonic = c.newMnemonic(cfg.Mnemonic)
	if err := c.catchUp(ctx); err != nil {
		if c.keys != nil {
			c.keys.Close()
		}
		lg.Close()
		return nil, err
	}
	indexBehind := c.log.Head() - c.indexFrom
	bg, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.startConsumers(bg)
	if err := c.startLiving(ctx, bg, cfg.Living); err != nil {
		c.Close()
		return nil, err
	}
	c.startRetention(bg, cfg.Retention)
	// Where the start found the derived state: after a clean shutdown, nothing behind.
	args := []any{"head", c.log.Head(), "indexBehind", indexBehind}
	if c.living != nil {
		for _, name := range []string{consumerSalience, consumerSubconscious} {
			if pos := c.living.pos[name]; pos != nil {
				args = append(args, name+"Behind", c.log.Head()-min(c.log.Head(), pos.committed.Load()))
			}
		}
	}
	c.logger.Info("event log", args...)
	return c, nil
}

// Close stops the consumers and flushes pending touches and accesses. The store and index stay
// open (their owner closes them).
func (c *Cortex) Close() {
	c.beats.close()
	c.stopLiving()
	c.accesses.close()
	c.cancel()
	c.wg.Wait()
	c.touches.close()
	if c.keys != nil {
		c.keys.Close()
	}
	c.log.Close()
}

// Log exposes the event log (subscriptions follow it).
func (c *Cortex) Log() *eventlog.Log { return c.log }

// Input types of the boundary.

// StoreMemoryInput is store_memory_command.
type StoreMemoryInput struct {
	hippocampus.StoreInput
	RequestID string
	SessionID string
}

// AssociateInput is associate_memories_command.
type AssociateInput struct {
	SourceID  string
	TargetID  string
	Type      domain.AssociationType
	Strength  float64
	Direction domain.Direction
	RequestID string
	SessionID string
}

// ReclassifyInput is reclassify_memory_command.
type ReclassifyInput struct {
	ID        string
	Tier      domain.Tier
	Metadata  map[string]any
	Reason    string
	RequestID string
	SessionID string
}

// Meta carries the caller's request and session ids of a command (both optional).
type Meta struct {
	RequestID string
	SessionID string
}

// open starts the TransactionContext of a request: the command message Cortex hands on, caused
// by the request itself.
func (c *Cortex) open(m Meta) (domain.TransactionContext, error) {
	if m.RequestID == "" {
		m.RequestID = domain.NewID()
	} else if err := checkToken("requestId", m.RequestID); err != nil {
		return domain.TransactionContext{}, err
	}
	if m.SessionID == "" {
		m.SessionID = domain.NewID()
	} else if err := checkToken("sessionId", m.SessionID); err != nil {
		return domain.TransactionContext{}, err
	}
	return domain.TransactionContext{SessionID: m.SessionID, RequestID: m.RequestID, MessageID: domain.NewID(),
		CausationID: m.RequestID, Timestamp: c.now().UTC(), SourceContext: domain.CtxCortex}, nil
}

func checkToken(field, s string) error {
	if len(s) > domain.MaxIDBytes {
		return domain.FieldErrorf(field, "is longer than %d bytes", domain.MaxIDBytes)
	}
	if strings.TrimSpace(s) == "" {
		return domain.FieldErrorf(field, "must not be blank")
	}
	return hippocampus.CheckText(field, s)
}

// command builds the persisted command message; consumer is the context that consumes it (its
// touch is recorded with the message).
func command(t domain.EventType, scopeID, memoryID string, tc domain.TransactionContext, consumer string, payload map[string]any) *domain.Event {
	return &domain.Event{Type: t, ScopeID: scopeID, MemoryID: memoryID, Context: tc, Payload: payload,
		Touches: []domain.Touch{{Context: consumer, At: tc.Timestamp}}}
}

func fingerprint(v any) string {
	raw, _ := json.Marshal(v)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

// ---- Scopes and kernels ----

// CreateScope creates a scope with its agent kernel and world kernel. Errors: INVALID_ARGUMENT,
// FORBIDDEN (not ADMIN).
func (c *Cortex) CreateScope(ctx context.Context, name string, m Meta) (*domain.Scope, error) {
	if err := needAdmin(ctx, "create scopes"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, domain.FieldErrorf("name", "must not be empty")
	}
	if len(name) > domain.MaxNameBytes {
		return nil, domain.FieldErrorf("name", "is longer than %d bytes", domain.MaxNameBytes)
	}
	if err := hippocampus.CheckText("name", name); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	id := domain.NewID()
	sc := &domain.Scope{ID: id, Name: name, CreatedAt: now,
		AgentKernel: &domain.Kernel{ID: domain.NewID(), ScopeID: id, Family: domain.FamilyAgentKernel, UpdatedAt: now},
		WorldKernel: &domain.Kernel{ID: domain.NewID(), ScopeID: id, Family: domain.FamilyWorldKernel, UpdatedAt: now}}
	cmd := command(domain.MsgCreateScopeCommand, id, "", tc, domain.CtxHippocampus, map[string]any{"name": name})
	ev := &domain.Event{Type: domain.EvScopeCreated, ScopeID: id, Context: tc.Derive(domain.CtxHippocampus, now),
		Payload: map[string]any{"scopeId": id, "name": name, "agentKernelId": sc.AgentKernel.ID, "worldKernelId": sc.WorldKernel.ID}}
	out, err := c.store.CreateScope(ctx, domain.Request{Op: "createScope", RequestID: m.RequestID, Fingerprint: fingerprint(name)},
		sc, []*domain.Event{cmd, ev})
	c.log.Kick()
	return out, err
}

// Scope loads a scope. Errors: NOT_FOUND, FORBIDDEN.
func (c *Cortex) Scope(ctx context.Context, id string) (*domain.Scope, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, id); err != nil {
		return nil, err
	}
	return c.store.Scope(ctx, id)
}

// Scopes lists the scopes the caller may read.
func (c *Cortex) Scopes(ctx context.Context) ([]*domain.Scope, error) {
	if p := domain.PrincipalFrom(ctx); !p.Admin() {
		sc, err := c.store.Scope(ctx, p.ScopeID)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return []*domain.Scope{}, nil
		}
		if err != nil {
			return nil, err
		}
		return []*domain.Scope{sc}, nil
	}
	return c.store.Scopes(ctx)
}

// UpdateKernel replaces a kernel's content. Errors: NOT_FOUND, INVALID_ARGUMENT.
func (c *Cortex) UpdateKernel(ctx context.Context, kernelID, content string, m Meta) (*domain.Kernel, error) {
	if err := domain.CheckID("kernelId", kernelID); err != nil {
		return nil, err
	}
	if err := domain.CheckContentSize("content", content); err != nil {
		return nil, err
	}
	if err := hippocampus.CheckText("content", content); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	k, err := c.store.UpdateKernel(ctx, domain.Request{Op: "updateKernel", RequestID: m.RequestID, Fingerprint: fingerprint([]string{kernelID, content})},
		kernelID, func(k *domain.Kernel) ([]*domain.Event, error) {
			if err := reach(ctx, k.ScopeID, true, notFoundf("kernel %s not found", kernelID)); err != nil {
				return nil, err
			}
			k.Content, k.UpdatedAt = content, tc.Timestamp
			return []*domain.Event{
				command(domain.MsgUpdateKernelCommand, k.ScopeID, "", tc, domain.CtxHippocampus, map[string]any{"kernelId": kernelID}),
				{Type: domain.EvKernelUpdated, ScopeID: k.ScopeID, Context: tc.Derive(domain.CtxHippocampus, tc.Timestamp),
					Payload: map[string]any{"kernelId": k.ID, "family": string(k.Family)}},
			}, nil
		})
	c.log.Kick()
	return k, err
}

// ---- Memories ----

// StoreMemory stores one memory; it is searchable when StoreMemory returns.
// Errors: INVALID_ARGUMENT, NOT_FOUND (scope), CONFLICT (requestId reused for other input).
func (c *Cortex) StoreMemory(ctx context.Context, in StoreMemoryInput) (*domain.Memory, error) {
	if err := hippocampus.Validate("", in.StoreInput); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	ms, err := c.storeMemories(ctx, []hippocampus.StoreInput{in.StoreInput}, Meta{in.RequestID, in.SessionID}, "storeMemory")
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// StoreMemories stores a batch, all or none. Errors: as StoreMemory.
func (c *Cortex) StoreMemories(ctx context.Context, ins []hippocampus.StoreInput, m Meta) ([]*domain.Memory, error) {
	if len(ins) == 0 {
		return []*domain.Memory{}, nil
	}
	if len(ins) > domain.MaxBatch {
		return nil, domain.FieldErrorf("inputs", "at most %d memories per batch", domain.MaxBatch)
	}
	for i, in := range ins {
		if err := hippocampus.Validate("inputs["+strconv.Itoa(i)+"].", in); err != nil {
			return nil, err
		}
		if err := mayWrite(ctx, in.ScopeID); err != nil {
			return nil, err
		}
	}
	return c.storeMemories(ctx, ins, m, "storeMemories")
}

func (c *Cortex) storeMemories(ctx context.Context, ins []hippocampus.StoreInput, meta Meta, op string) ([]*domain.Memory, error) {
	c.lastStore.Store(time.Now().UnixNano())
	tc, err := c.open(meta)
	if err != nil {
		return nil, err
	}
	// One StoreCommand per call: a batch is one command, each memory one MemoryStored event.
	payload := map[string]any{"count": len(ins)}
	if len(ins) == 1 {
		payload = map[string]any{"contentBytes": len(ins[0].Content), "metadata": ins[0].Metadata,
			"suggestedTier": string(ins[0].SuggestedTier)}
	}
	cmd := command(domain.MsgStoreCommand, ins[0].ScopeID, "", tc, domain.CtxHippocampus, payload)
	ms := make([]*domain.Memory, 0, len(ins))
	events := make([]*domain.Event, 0, 1+len(ins))
	events = append(events, cmd)
	for _, in := range ins {
		m, ev := c.hippo.Form(in, cmd.Context)
		if meta.SessionID != "" {
			// The session the mind named: the Synapse chains and groups the memories of a session.
			ev.Payload["sessionId"] = meta.SessionID
		}
		events = append(events, ev)
		ms = append(ms, m)
	}
	if len(ins) == 1 {
		cmd.MemoryID = ms[0].ID
	}
	// The documents are queued for the index before the graph write: a memory is searchable
	// when this returns (every search waits for what was queued before it), and a hit whose
	// memory the graph refused is dropped by Recall (and removed here).
	ierr := c.putDocs(ctx, docsOf(ms))
	// The ids were drawn by Form just now: the store need not look them up. A request without
	// an id is never replayed: it needs no fingerprint.
	req := domain.Request{Op: op, RequestID: meta.RequestID, FreshIDs: true}
	if meta.RequestID != "" {
		req.Fingerprint = fingerprint(ins)
	}
	var out []*domain.Memory
	if si, ok := c.store.(domain.ScoredInserter); ok && c.living != nil {
		// The Salience context scores the new memories in the write that stores them.
		out, err = si.InsertScoredMemories(ctx, req, ms, events, c.living.scorer.PlanStored(ms, events))
	} else {
		out, err = c.store.InsertMemories(ctx, req, ms, events)
	}
	if err != nil || (len(out) > 0 && out[0].ID != ms[0].ID) {
		// Refused, or a retried request answered with its first result: these ids do not exist.
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
		}
		_ = c.index.Remove(context.WithoutCancel(ctx), ids)
		if err != nil {
			return nil, err
		}
		ierr = c.putDocs(ctx, docsOf(out))
	}
	c.log.Kick()
	if ierr != nil {
		// Stored, and the log will index it; but it is not searchable yet, as promised.
		return nil, &domain.Error{Code: domain.EUNAVAILABLE, Message: "stored, but the search index is unavailable: " + ierr.Error()}
	}
	return out, nil
}

func docOf(m *domain.Memory) domain.IndexDoc {
	return domain.IndexDoc{ID: m.ID, ScopeID: m.ScopeID, Content: m.Content, Tags: m.Tags, Kind: m.Kind,
		Tier: m.Tier, State: m.State, OccurredAt: m.OccurredAt, CreatedAt: m.CreatedAt, Version: m.Version}
}

func docsOf(ms []*domain.Memory) []domain.IndexDoc {
	docs := make([]domain.IndexDoc, len(ms))
	for i, m := range ms {
		docs[i] = docOf(m)
	}
	return docs
}

// Memory loads a memory and records the retrieval (MemoryAccessed). Errors: NOT_FOUND.
func (c *Cortex) Memory(ctx context.Context, id string, m Meta) (*domain.Memory, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	out, err := c.store.UpdateMemory(ctx, domain.Request{}, id, func(mem *domain.Memory) ([]*domain.Event, error) {
		if err := reach(ctx, mem.ScopeID, false, notFoundf("memory %s not found", id)); err != nil {
			return nil, err
		}
		q := command(domain.MsgLoadQuery, mem.ScopeID, mem.ID, tc, domain.CtxHippocampus, map[string]any{"memoryId": id})
		return []*domain.Event{q, c.hippo.Access(mem, tc)}, nil
	})
	c.log.Kick()
	return out, err
}

// Memories lists a scope's memories. Errors: NOT_FOUND, INVALID_ARGUMENT.
func (c *Cortex) Memories(ctx context.Context, scopeID string, f domain.MemoryFilter, p domain.Page) (*domain.MemoryPage, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	// Archived memories leave the list unless the filter asks for a state (seed 004).
	if len(f.States) == 0 {
		f.States = []domain.LifecycleState{domain.StateActive}
	}
	return c.store.ListMemories(ctx, scopeID, f, p)
}

// ClaimMemory claims a memory: its salience is boosted and it resists decay.
// Errors: NOT_FOUND, CONFLICT.
func (c *Cortex) ClaimMemory(ctx context.Context, id string, m Meta) (*domain.Memory, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	out, err := c.store.UpdateMemory(ctx, domain.Request{Op: "claimMemory", RequestID: m.RequestID, Fingerprint: fingerprint(id)}, id,
		func(mem *domain.Memory) ([]*domain.Event, error) {
			if err := reach(ctx, mem.ScopeID, true, notFoundf("memory %s not found", id)); err != nil {
				return nil, err
			}
			cmd := command(domain.MsgClaimCommand, mem.ScopeID, mem.ID, tc, domain.CtxHippocampus, map[string]any{"memoryId": id})
			return append([]*domain.Event{cmd}, c.hippo.Claim(mem, tc)...), nil
		})
	c.log.Kick()
	return out, err
}

// ReclassifyMemory moves a memory to another tier and/or merges its metadata.
// Errors: NOT_FOUND, INVALID_ARGUMENT.
func (c *Cortex) ReclassifyMemory(ctx context.Context, in ReclassifyInput) (*domain.Memory, error) {
	if err := domain.CheckID("id", in.ID); err != nil {
		return nil, err
	}
	if in.Tier != "" && !in.Tier.Valid() {
		return nil, domain.FieldErrorf("tier", "unknown tier %q", in.Tier)
	}
	if in.Tier == "" && in.Metadata == nil {
		return nil, domain.FieldErrorf("tier", "give a new tier, new metadata, or both")
	}
	if err := hippocampus.CheckText("reason", in.Reason); err != nil {
		return nil, err
	}
	if raw, err := json.Marshal(in.Metadata); err != nil || len(raw) > domain.MaxMetadataBytes {
		return nil, domain.FieldErrorf("metadata", "must be a JSON object of at most %d bytes", domain.MaxMetadataBytes)
	}
	if err := domain.CheckNoDerivedFields("metadata", in.Metadata); err != nil {
		return nil, err
	}
	tc, err := c.open(Meta{in.RequestID, in.SessionID})
	if err != nil {
		return nil, err
	}
	out, err := c.store.UpdateMemory(ctx, domain.Request{Op: "reclassifyMemory", RequestID: in.RequestID, Fingerprint: fingerprint(in)}, in.ID,
		func(mem *domain.Memory) ([]*domain.Event, error) {
			if err := reach(ctx, mem.ScopeID, true, notFoundf("memory %s not found", in.ID)); err != nil {
				return nil, err
			}
			cmd := command(domain.MsgReclassifyCommand, mem.ScopeID, mem.ID, tc, domain.CtxHippocampus,
				map[string]any{"memoryId": in.ID, "newTier": string(in.Tier), "reason": in.Reason})
			return append([]*domain.Event{cmd}, c.hippo.Reclassify(mem, in.Tier, in.Metadata, in.Reason, tc)...), nil
		})
	if err != nil {
		return nil, err
	}
	if err := c.putDocs(ctx, []domain.IndexDoc{docOf(out)}); err != nil {
		return nil, err
	}
	c.log.Kick()
	return out, nil
}

// DeleteMemory deletes a memory and its associations destructively; the deletion is audited
// in its history. A memory other artifacts reference is refused (HAS_DEPENDENTS): see
// DeleteMemoryCascade. Errors: NOT_FOUND, HAS_DEPENDENTS.
func (c *Cortex) DeleteMemory(ctx context.Context, id, reason string, m Meta) (*domain.Memory, error) {
	return c.DeleteMemoryCascade(ctx, id, reason, false, m)
}

// ---- Associations ----

// AssociateMemories creates, strengthens or weakens the association of two memories of one
// scope. Errors: NOT_FOUND, INVALID_ARGUMENT, CROSS_SCOPE_REFERENCE, CONFLICT.
func (c *Cortex) AssociateMemories(ctx context.Context, in AssociateInput) (*domain.Association, error) {
	if err := checkAssociate(&in); err != nil {
		return nil, err
	}
	tc, err := c.open(Meta{in.RequestID, in.SessionID})
	if err != nil {
		return nil, err
	}
	update := synapse.Associate(in.Direction, in.Type, in.Strength, tc, tc.Timestamp)
	var scope string
	a, err := c.store.Associate(ctx, domain.Request{Op: "associateMemories", RequestID: in.RequestID, Fingerprint: fingerprint(in)},
		in.SourceID, in.TargetID, in.Type, func(cur *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
			if err := reach(ctx, src.ScopeID, true, notFoundf("memory %s not found", in.SourceID)); err != nil {
				return nil, nil, err
			}
			if err := reach(ctx, dst.ScopeID, true, notFoundf("memory %s not found", in.TargetID)); err != nil {
				return nil, nil, err
			}
			scope = src.ScopeID
			next, evs, err := update(cur, src, dst)
			if err != nil {
				return nil, nil, err
			}
			cmd := command(domain.MsgAssociateCommand, src.ScopeID, src.ID, tc, domain.CtxSynapse, map[string]any{
				"sourceId": in.SourceID, "targetId": in.TargetID, "type": string(in.Type), "strength": in.Strength, "direction": string(in.Direction)})
			return next, append([]*domain.Event{cmd}, evs...), nil
		})
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	if a == nil { // weakened to nothing: removed
		a = &domain.Association{SourceID: in.SourceID, TargetID: in.TargetID, ScopeID: scope, Type: in.Type, UpdatedAt: tc.Timestamp}
	}
	return a, nil
}

// checkAssociate checks an association command's input (an empty direction is CREATE).
func checkAssociate(in *AssociateInput) error {
	if err := domain.CheckID("sourceId", in.SourceID); err != nil {
		return err
	}
	if err := domain.CheckID("targetId", in.TargetID); err != nil {
		return err
	}
	if !in.Type.Valid() {
		return domain.FieldErrorf("type", "unknown association type %q", in.Type)
	}
	if in.Direction == "" {
		in.Direction = domain.DirCreate
	}
	if !in.Direction.Valid() {
		return domain.FieldErrorf("direction", "unknown direction %q", in.Direction)
	}
	if !(in.Strength >= 0 && in.Strength <= 1) { // also refuses NaN
		return domain.FieldErrorf("strength", "must be within 0..1")
	}
	for field, v := range map[string]string{"requestId": in.RequestID, "sessionId": in.SessionID} {
		if v != "" {
			if err := checkToken(field, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Associations lists a memory's associations. Errors: NOT_FOUND, INVALID_ARGUMENT.
func (c *Cortex) Associations(ctx context.Context, memoryID string, types []domain.AssociationType, minStrength float64) ([]*domain.Association, error) {
	if err := domain.CheckID("memoryId", memoryID); err != nil {
		return nil, err
	}
	if !(minStrength >= 0 && minStrength <= 1) {
		return nil, domain.FieldErrorf("minStrength", "must be within 0..1")
	}
	if restricted(ctx) {
		m, err := c.store.Memory(ctx, memoryID)
		if err != nil {
			return nil, err
		}
		if err := reach(ctx, m.ScopeID, false, notFoundf("memory %s not found", memoryID)); err != nil {
			return nil, err
		}
	}
	as, err := c.store.Associations(ctx, memoryID, types, minStrength)
	if err != nil {
		return nil, err
	}
	return visible(ctx, as, func(a *domain.Association) string { return a.ScopeID }), nil
}

// ---- Search ----

// SearchInput is search_memory_request.
type SearchInput struct {
	ScopeID             string
	Query               string
	MaxResults          int
	Filter              domain.MemoryFilter
	IncludeAssociations bool
	// Literal searches the words as written, without the Lexicon's expansions.
	Literal   bool
	RequestID string
	SessionID string
}

// MaxSearchResults caps maxResults.
const MaxSearchResults = 1000

// SearchMemory ranks a scope's memories for a query; returned memories are recorded as
// accessed. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) SearchMemory(ctx context.Context, in SearchInput) ([]*recall.RankedMemory, error) {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, domain.FieldErrorf("query", "must not be empty")
	}
	if len(in.Query) > 4096 {
		return nil, domain.FieldErrorf("query", "is longer than 4096 bytes")
	}
	if err := hippocampus.CheckText("query", in.Query); err != nil {
		return nil, err
	}
	if in.MaxResults == 0 {
		in.MaxResults = 10
	}
	if in.MaxResults < 0 || in.MaxResults > MaxSearchResults {
		return nil, domain.FieldErrorf("maxResults", "must be within 1..%d", MaxSearchResults)
	}
	tc, err := c.open(Meta{in.RequestID, in.SessionID})
	if err != nil {
		return nil, err
	}
	res, err := c.recall.Search(ctx, recall.Query{ScopeID: in.ScopeID, Text: in.Query, MaxResults: in.MaxResults,
		Filter: in.Filter, IncludeAssociations: in.IncludeAssociations, Literal: in.Literal})
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		// Only an empty answer needs to know whether the scope exists at all.
		if _, err := c.store.Scope(ctx, in.ScopeID); err != nil {
			return nil, err
		}
	}
	c.accesses.searched(tc, in, res, c.hippo)
	return res, nil
}

// ---- History and trace ----

// History returns every event about a memory, in order (also after its deletion).
// Errors: INVALID_ARGUMENT.
func (c *Cortex) History(ctx context.Context, memoryID string) ([]*domain.Event, error) {
	if err := domain.CheckID("memoryId", memoryID); err != nil {
		return nil, err
	}
	evs, err := c.store.MemoryEvents(ctx, memoryID)
	if err != nil {
		return nil, err
	}
	// A memory ingested in bulk has its ingest write's events instead of a MemoryStored.
	if evs, err = c.withIngestEvents(ctx, memoryID, evs); err != nil {
		return nil, err
	}
	if restricted(ctx) {
		// A history is one artifact's, so of one scope: another scope's is not there at all.
		if evs = visible(ctx, evs, func(e *domain.Event) string { return e.ScopeID }); len(evs) == 0 {
			return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", memoryID)
		}
	}
	if len(evs) == 0 {
		if _, err := c.store.Memory(ctx, memoryID); err != nil {
			return nil, err
		}
	}
	return evs, nil
}

// TraceNode is one message of a causal tree with the messages it caused.
type TraceNode struct {
	Event    *domain.Event
	Children []*TraceNode
}

// Trace returns the causal tree of a request: roots are the messages caused by the request
// itself (or whose cause is not in the request). Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Trace(ctx context.Context, requestID string) ([]*TraceNode, []*domain.Event, error) {
	if err := checkToken("requestId", requestID); err != nil {
		return nil, nil, err
	}
	evs, err := c.store.RequestEvents(ctx, requestID)
	if err != nil {
		return nil, nil, err
	}
	// Only the messages of scopes the caller may read; those of no scope (keys, shutdowns) are
	// the server's.
	evs = visible(ctx, evs, func(e *domain.Event) string { return e.ScopeID })
	if len(evs) == 0 {
		return nil, nil, domain.Errorf(domain.ENOTFOUND, "no messages for request %q", requestID)
	}
	nodes := make(map[string]*TraceNode, len(evs))
	for _, e := range evs {
		nodes[e.ID()] = &TraceNode{Event: e}
	}
	var roots []*TraceNode
	for _, e := range evs {
		n := nodes[e.ID()]
		if p, ok := nodes[e.Context.CausationID]; ok && p != n {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots, evs, nil
}

// SetImportHook sets fn to be called with the number of memories each finished import wrote
// (an importData call, `totalrecall import`), after its last write; nil removes it. fn runs on
// the import's goroutine: it must return at once.
func (c *Cortex) SetImportHook(fn func(imported int)) {
	if fn == nil {
		c.importHook.Store(nil)
		return
	}
	c.importHook.Store(&fn)
}
