package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/dgo/v250"
	"github.com/dgraph-io/dgo/v250/protos/api"
	gojson "github.com/goccy/go-json"
	"github.com/hypermodeinc/dgraph/v25/edgraph"
	"github.com/hypermodeinc/dgraph/v25/posting"
	"github.com/hypermodeinc/dgraph/v25/x"
	"github.com/hypermodeinc/modusgraph"

	"github.com/totalrecall/totalrecall/domain"
)

// Store is the Dgraph-backed domain.Store. Safe for concurrent use.
type Store struct {
	b        backend
	embedded bool
	now      domain.Clock

	// mu serialises this process's writes (see writeOnce).
	mu sync.Mutex
	// seq is the last event Seq and counterUID the node holding it, cached in embedded mode
	// (guarded by mu).
	seq        uint64
	counterUID string
	// published is seq once committed, read without the lock (LastSeq, embedded only).
	published atomic.Uint64
	// committed is handed the events of every commit, in commit order, under mu (OnCommit;
	// embedded only).
	committed func([]*domain.Event)

	// knownScopes are scopes a write of this process found, embedded only (guarded by mu): an
	// insert of memories does not look them up again. The engine is this process's alone and
	// only DeleteScope and DropAll remove a scope: DropAll forgets them all, and each commit of
	// a scope's deletion chunks unlists it.
	knownScopes map[string]bool

	// cache holds decoded memories and recall contexts (embedded engine only; readcache.go).
	cache      *readCache
	cacheBytes int // the records' part; walkBytes the walk's (the same unless set apart)
	walkBytes  int
	// engineMem sizes the embedded engine's caches and memtables (WithEngineMemory).
	engineMem EngineMemory
	recorder  *Recorder   // WithRecorder
	hooks     CommitHooks // WithCommitHooks

	// commits counts the writes this process committed (metrics).
	commits atomic.Uint64

	closeOnce sync.Once
}

var _ domain.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock that stamps records.
func WithClock(c domain.Clock) Option { return func(s *Store) { s.now = c } }

// WithReadCache sets the budget in bytes of the embedded engine's read cache of memories and
// their recall contexts (DefaultReadCacheBytes unless set; 0 or less turns it off). A cluster
// store never caches: other servers write the graph.
func WithReadCache(bytes int) Option {
	return func(s *Store) { s.cacheBytes, s.walkBytes = bytes, bytes }
}

// WithReadCacheParts sets the read cache's two parts apart: records bytes for memories with
// their recall contexts and episodes' members (what a search reads), walks bytes for total
// recall's associations and states. 0 or less for records turns the cache off.
func WithReadCacheParts(records, walks int) Option {
	return func(s *Store) { s.cacheBytes, s.walkBytes = records, walks }
}

// Open connects to the store named by uri: file://PATH opens the embedded engine on PATH
// (created if missing); dgraph://HOST:PORT[?sslmode=...&bearertoken=...] dials a cluster.
func Open(ctx context.Context, uri string, opts ...Option) (*Store, error) {
	s := &Store{now: time.Now, cacheBytes: DefaultReadCacheBytes, walkBytes: DefaultReadCacheBytes, engineMem: DefaultEngineMemory()}
	for _, o := range opts {
		o(s)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("store uri %q: %w", uri, err)
	}
	switch u.Scheme {
	case "file":
		path := strings.TrimPrefix(uri, "file://")
		if path == "" {
			return nil, fmt.Errorf("store uri %q: empty path", uri)
		}
		b, err := openEmbedded(path, s.engineMem)
		if err != nil {
			return nil, err
		}
		s.b, s.embedded = b, true
		s.cache = newReadCacheParts(s.cacheBytes, s.walkBytes)
	case "dgraph":
		dg, err := openCluster(uri)
		if err != nil {
			return nil, fmt.Errorf("dgraph %s: %w", u.Host, err)
		}
		s.b = &clusterBackend{dg: dg}
	default:
		return nil, fmt.Errorf("store uri %q: scheme must be file:// or dgraph://", uri)
	}
	if err := s.init(ctx); err != nil {
		s.b.close()
		return nil, err
	}
	return s, nil
}

// Embedded reports whether the store runs the in-process engine.
func (s *Store) Embedded() bool { return s.embedded }

func (s *Store) init(ctx context.Context) error {
	// A fresh cluster may answer "Please retry" for a few seconds after it reports healthy.
	var err error
	for i := 0; i < 60; i++ {
		if err = s.b.alter(ctx, fullSchema()); err == nil {
			break
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "retry") {
			return fmt.Errorf("apply schema: %w", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("apply schema: %w", err)
	}
	if s.embedded {
		seq, uid, err := s.counter(ctx)
		if err != nil {
			return err
		}
		s.seq, s.counterUID = seq, uid
		s.published.Store(seq)
	}
	return nil
}

// Close releases the store; the embedded engine is shut down.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { s.b.close() })
	return nil
}

// DropAll deletes every node and the schema, then re-applies the schema. For tests and reindex
// tooling only.
func (s *Store) DropAll(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cache.clear()
	if err := s.b.dropAll(ctx); err != nil {
		return err
	}
	s.seq, s.counterUID = 0, ""
	s.published.Store(0)
	s.knownScopes = nil
	return s.b.alter(ctx, fullSchema())
}

// backend hides the two ways of reaching Dgraph.
type backend interface {
	alter(ctx context.Context, schema string) error
	query(ctx context.Context, q string, vars map[string]string) ([]byte, error)
	// begin starts a read-write unit; its reads see committed data, its commit applies all.
	begin(ctx context.Context) unit
	dropAll(ctx context.Context) error
	close()
}

type unit interface {
	query(ctx context.Context, q string, vars map[string]string) ([]byte, error)
	commit(ctx context.Context, mu *api.Mutation) (map[string]string, error)
	discard(ctx context.Context)
}

// embeddedBackend talks to the modusGraph engine's default namespace directly, skipping the
// in-memory gRPC hop of Engine.GetClient.
//
// Reads do not take the engine's lock. modusGraph serialises every query behind its mutations
// with one lock, so a read waited for whatever write was under way (a batch of events can take
// tens of milliseconds) although Dgraph reads a snapshot: a query at timestamp ts sees exactly
// the transactions committed at or before ts, whatever is being applied meanwhile, as queries
// run beside mutations in a Dgraph alpha. Reads here run Dgraph's query at readTs, the commit
// timestamp of the last write this process finished, which advance sets after every commit,
// schema change and drop. Every one of those runs under the store's write lock, so when advance
// runs no other transaction has taken a timestamp: the engine's newest timestamp is that commit's
// (never the start timestamp of a transaction still open, whose own writes a read at that
// timestamp would see).
type embeddedBackend struct {
	engine *modusgraph.Engine
	ns     *modusgraph.Namespace
	readTs atomic.Uint64
	// life keeps reads off a closed engine: reads hold it shared, close exclusively.
	life   sync.RWMutex
	closed bool
	// oracleAhead is set while Dgraph's oracle holds a timestamp of an engine opened before this
	// one in the process (see advance; under the store's write lock).
	oracleAhead bool
	engineUpkeep
}

// advance moves reads to the engine's newest timestamp. Under the store's write lock (or before
// the store is shared), after a commit, schema change or drop.
//
// The timestamp is the engine's own. Dgraph's oracle, which modusGraph's zero tells of every
// timestamp it hands out, holds it too (MaxAssigned), but the oracle is one per process and never
// goes back: after an engine was closed and another opened in the same process (a restart in
// process, the tests), MaxAssigned is the old engine's last timestamp, ahead of every timestamp
// the new engine hands out for a while. Reads at it saw the writes of commits still being applied
// — part of a commit — wherever the engine read a posting list from Badger rather than from its
// cache, which holds only what commits finished. While the oracle is ahead, the engine's
// timestamp is read back as the start timestamp modusGraph gives a query; once the engine's
// timestamps pass the old ones, the oracle follows them and is read instead.
func (e *embeddedBackend) advance() error {
	if !e.oracleAhead {
		e.readTs.Store(posting.Oracle().MaxAssigned())
		return nil
	}
	resp, err := e.ns.Query(context.Background(), `{ q(func: uid(0x1)) { uid } }`)
	if err != nil {
		return err
	}
	ts := resp.GetTxn().GetStartTs()
	e.readTs.Store(ts)
	e.oracleAhead = ts != posting.Oracle().MaxAssigned()
	return nil
}

func (e *embeddedBackend) alter(ctx context.Context, schema string) error {
	if err := e.ns.AlterSchema(ctx, schema); err != nil {
		return err
	}
	return e.advance()
}

func (e *embeddedBackend) query(ctx context.Context, q string, vars map[string]string) ([]byte, error) {
	e.life.RLock()
	defer e.life.RUnlock()
	if e.closed {
		return nil, modusgraph.ErrClosedEngine
	}
	ts := e.beginRead()
	defer e.endRead(ts)
	return e.queryAt(ctx, q, vars, ts)
}

// queryAt runs Dgraph's query at ts without the engine's lock (the caller holds life shared).
func (e *embeddedBackend) queryAt(ctx context.Context, q string, vars map[string]string, ts uint64) ([]byte, error) {
	if ts == 0 {
		// Nothing committed through this store yet: the engine's own (locked) read.
		resp, err := e.ns.QueryWithVars(ctx, q, vars)
		if err != nil {
			return nil, err
		}
		return resp.Json, nil
	}
	resp, err := (&edgraph.Server{}).QueryNoAuth(x.AttachNamespace(ctx, e.ns.ID()),
		&api.Request{ReadOnly: true, Query: q, StartTs: ts, Vars: vars})
	if err != nil {
		return nil, err
	}
	return resp.Json, nil
}

func (e *embeddedBackend) begin(ctx context.Context) unit { return embeddedUnit{e} }

func (e *embeddedBackend) dropAll(ctx context.Context) error {
	// A rollup under way would write back a list read before the drop; they start again with
	// the next commit.
	e.stopRollups()
	if err := e.ns.DropData(ctx); err != nil {
		return err
	}
	return e.advance()
}

func (e *embeddedBackend) close() {
	e.life.Lock()
	e.closed = true
	e.life.Unlock()
	close(e.discardStop)
	<-e.discardDone
	e.stopRollups()
	modusgraph.Shutdown()
}

type embeddedUnit struct{ e *embeddedBackend }

func (u embeddedUnit) query(ctx context.Context, q string, vars map[string]string) ([]byte, error) {
	return u.e.query(ctx, q, vars)
}

func (u embeddedUnit) commit(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	uids, err := u.e.ns.Mutate(ctx, []*api.Mutation{mu})
	// Also after an error: a transaction that failed after taking its timestamps is never
	// committed, and a read at a later timestamp does not see what it did not commit.
	if aerr := u.e.advance(); err == nil && aerr != nil {
		err = aerr
	}
	if err != nil {
		return nil, err
	}
	u.e.startRollups()
	out := make(map[string]string, len(uids))
	for k, v := range uids {
		out[strings.TrimPrefix(k, "_:")] = fmt.Sprintf("0x%x", v)
	}
	return out, nil
}

func (u embeddedUnit) discard(context.Context) {}

// clusterBackend talks dgo to Dgraph alphas.
type clusterBackend struct{ dg *dgo.Dgraph }

func (c *clusterBackend) alter(ctx context.Context, schema string) error {
	return c.dg.Alter(ctx, &api.Operation{Schema: schema})
}

func (c *clusterBackend) query(ctx context.Context, q string, vars map[string]string) ([]byte, error) {
	resp, err := c.dg.NewReadOnlyTxn().QueryWithVars(ctx, q, vars)
	if err != nil {
		return nil, err
	}
	return resp.Json, nil
}

func (c *clusterBackend) begin(ctx context.Context) unit { return &clusterUnit{txn: c.dg.NewTxn()} }

func (c *clusterBackend) dropAll(ctx context.Context) error {
	return c.dg.Alter(ctx, &api.Operation{DropOp: api.Operation_DATA})
}

func (c *clusterBackend) close() { c.dg.Close() }

type clusterUnit struct{ txn *dgo.Txn }

func (u *clusterUnit) query(ctx context.Context, q string, vars map[string]string) ([]byte, error) {
	resp, err := u.txn.QueryWithVars(ctx, q, vars)
	if err != nil {
		return nil, err
	}
	return resp.Json, nil
}

func (u *clusterUnit) commit(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	mu.CommitNow = true
	resp, err := u.txn.Do(ctx, &api.Request{Mutations: []*api.Mutation{mu}, CommitNow: true})
	if err != nil {
		return nil, err
	}
	return resp.Uids, nil
}

func (u *clusterUnit) discard(ctx context.Context) { _ = u.txn.Discard(ctx) }

// tx is one read-modify-write operation: reads go through the unit, writes are collected and
// committed in one mutation together with the operation's events.
type tx struct {
	s      *Store
	u      unit
	ctx    context.Context
	sets   []map[string]any
	dels   []map[string]any
	events []*domain.Event
	// rendered[i] is events[i] rendered before the write lock was taken (emitRendered), or nil.
	rendered []*renderedEvent
	// scopes are the scopes the operation wrote in, in the order it named them (see inScope): a
	// request record carries them, so deleting a scope deletes the records of its requests.
	scopes []string

	// committed run after the commit, still under the store's write lock, with the uids of the
	// blank nodes.
	committed []func(uids map[string]string)

	// eventNodes are events whose nodes were made ahead of the write, with the pages of their
	// history payloads (see proposalWriter); the write makes each node its event.
	eventNodes map[*domain.Event]string

	// The event counter as read at the start of a cluster transaction.
	counterRead bool
	counterVal  uint64
	counterUID  string
}

func (t *tx) query(q string, vars map[string]string, out any) error {
	raw, err := t.u.query(t.ctx, q, vars)
	if err != nil {
		return wrapErr(err)
	}
	if err := decode(raw, out); err != nil {
		return fmt.Errorf("decode query result: %w", err)
	}
	return nil
}

func (t *tx) set(obj map[string]any) { t.sets = append(t.sets, obj) }

// inScope records that the operation writes in the scopes ids (empty ids are ignored).
func (t *tx) inScope(ids ...string) {
	for _, id := range ids {
		if id != "" && !slices.Contains(t.scopes, id) {
			t.scopes = append(t.scopes, id)
		}
	}
}
func (t *tx) del(obj map[string]any) { t.dels = append(t.dels, obj) }

// onCommit runs fn once the unit is committed.
func (t *tx) onCommit(fn func(uids map[string]string)) { t.committed = append(t.committed, fn) }
func (t *tx) emit(evs ...*domain.Event) {
	t.emitRendered(nil, evs...)
}

// emitRendered emits evs with their renderings made beforehand, outside the write lock
// (renderEvents; rendered[i] is evs[i]'s, or nil rendered is none of them). The events must not
// change between their rendering and the write.
func (t *tx) emitRendered(rendered []*renderedEvent, evs ...*domain.Event) {
	t.events = append(t.events, evs...)
	if rendered == nil {
		rendered = make([]*renderedEvent, len(evs))
	}
	t.rendered = append(t.rendered, rendered...)
}

// retryBudget bounds how long a write conflicting with other servers' writes is retried.
const retryBudget = 30 * time.Second

// write runs fn as one atomic operation, applying req at most once: a request already applied
// returns the result it returned then, without running fn. Cluster conflicts are retried.
func write[T any](ctx context.Context, s *Store, req *domain.Request, fn func(t *tx) (T, error)) (T, error) {
	var zero T
	start := time.Now()
	for attempt := 0; ; attempt++ {
		res, err := writeOnce(ctx, s, req, fn)
		if err == nil {
			return res, nil
		}
		if !errors.Is(err, dgo.ErrAborted) {
			return zero, err
		}
		if time.Since(start) > retryBudget || ctx.Err() != nil {
			return zero, domain.Errorf(domain.ECONFLICT, "write kept conflicting with concurrent writes; retry")
		}
		// Jittered, growing backoff keeps colliding writers from colliding again.
		d := time.Duration(1+rand.IntN(2<<min(attempt, 5))) * time.Millisecond
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
}

type requestNode struct {
	UID         string `json:"uid"`
	Fingerprint string `json:"req.fingerprint"`
	Result      string `json:"req.result"`
}

func requestKey(req *domain.Request) string { return req.Op + "|" + req.RequestID }

// requestJSON is the record of an applied request: its key, fingerprint and result, and the
// scopes it belongs to — those the write named (tx.inScope) and req.ScopeID — so that a scope's
// deletion deletes it and a retry after the deletion cannot replay the deleted data. One scope is
// its tr.scope; a request over several scopes lists them in req.scopes.
func requestJSON(req *domain.Request, result string, scopes []string) map[string]any {
	obj := map[string]any{
		"uid": "_:req", "dgraph.type": kindRequest, "tr.kind": kindRequest,
		"req.key": requestKey(req), "req.fingerprint": req.Fingerprint, "req.result": result,
	}
	if req.ScopeID != "" && !slices.Contains(scopes, req.ScopeID) {
		scopes = append(slices.Clone(scopes), req.ScopeID)
	}
	switch {
	case len(scopes) == 1:
		obj["tr.scope"] = scopes[0]
	case len(scopes) > 1:
		obj["req.scopes"] = scopes
	}
	return obj
}

func writeOnce[T any](ctx context.Context, s *Store, req *domain.Request, fn func(t *tx) (T, error)) (T, error) {
	var zero T
	// One writer at a time per process: on the embedded engine this is the transaction; on a
	// cluster every event-writing transaction conflicts on the event counter anyway, so
	// concurrent local writers would only abort each other — conflicts remain between servers.
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &tx{s: s, u: s.begin(ctx), ctx: ctx}
	committed := false
	defer func() {
		if !committed {
			t.u.discard(ctx)
		}
	}()

	// One round trip reads the request record and, on a cluster, the event counter.
	var pre struct {
		Q []requestNode `json:"q"`
		C []struct {
			UID   string `json:"uid"`
			Value uint64 `json:"counter.value"`
		} `json:"c"`
	}
	withReq := req != nil && req.RequestID != ""
	if withReq || !s.embedded {
		blocks, vars := "", map[string]string{}
		if withReq {
			blocks += `q(func: eq(req.key, $k)) { uid req.fingerprint req.result } `
			vars["$k"] = requestKey(req)
		}
		if !s.embedded {
			blocks += `c(func: eq(tr.id, $c)) { uid counter.value } `
			vars["$c"] = eventCounterID
		}
		if err := t.query(`query q`+varDecl(vars)+` { `+blocks+`}`, vars, &pre); err != nil {
			return zero, err
		}
		t.counterRead = !s.embedded
		if len(pre.C) > 0 {
			t.counterVal, t.counterUID = pre.C[0].Value, pre.C[0].UID
		}
	}
	if withReq {
		r := pre
		if len(r.Q) > 0 {
			if r.Q[0].Fingerprint != req.Fingerprint {
				return zero, domain.Errorf(domain.ECONFLICT,
					"requestId %q was already used for a different %s request", req.RequestID, req.Op)
			}
			var out T
			if err := json.Unmarshal([]byte(r.Q[0].Result), &out); err != nil {
				return zero, fmt.Errorf("decode replayed result: %w", err)
			}
			return out, nil
		}
	}

	res, err := fn(t)
	if err != nil {
		return zero, err
	}
	if req != nil && req.RequestID != "" {
		raw, err := json.Marshal(res)
		if err != nil {
			return zero, fmt.Errorf("encode result: %w", err)
		}
		t.set(requestJSON(req, string(raw), t.scopes))
	}
	// The pages of an event about many artifacts are committed before it (aboutAhead).
	ahead := map[int]string{}
	for i, ev := range t.events {
		if uid, ok := t.eventNodes[ev]; ok {
			ahead[i] = uid
			continue
		}
		if len(ev.About) > aboutInline*aboutPage {
			uid, err := t.aboutAhead(ev)
			if err != nil {
				return zero, err
			}
			ahead[i] = uid
		}
	}
	if len(t.events) > 0 {
		base, counterUID, err := t.lastSeq()
		if err != nil {
			return zero, err
		}
		for i, ev := range t.events {
			ev.Seq = base + uint64(i) + 1
			if t.rendered[i] == nil {
				t.rendered[i] = renderEvent(ev)
			}
		}
		for i := 0; i < len(t.events); {
			ev := t.events[i]
			uid := "_:" + eventBlank(i)
			if u, ok := ahead[i]; ok {
				uid = u
			} else if n := packRun(t.events[i:], t.rendered[i:], func(k int) bool { _, ok := ahead[i+k]; return !ok }); n > 1 {
				t.set(eventPackJSON(uid, t.events[i:i+n], t.rendered[i:i+n]))
				i += n
				continue
			}
			t.set(eventJSON(uid, ev, t.rendered[i]))
			if n := noticeJSON(i, ev); n != nil {
				t.set(n)
			}
			if _, ok := ahead[i]; !ok && len(ev.About) > 0 {
				t.sets = append(t.sets, aboutPages(uid, ev)...)
			}
			i++
		}
		counter := map[string]any{"uid": counterUID, "counter.value": base + uint64(len(t.events))}
		if counterUID == "_:counter" {
			counter["dgraph.type"] = kindCounter
			counter["tr.kind"] = kindCounter
			counter["tr.id"] = eventCounterID
		}
		t.set(counter)
	}
	if len(t.sets) == 0 && len(t.dels) == 0 {
		committed = true
		return res, nil
	}
	mu := &api.Mutation{CommitNow: true}
	if len(t.sets) > 0 {
		if mu.Set, err = toNQuads(t.sets, false); err != nil {
			return zero, err
		}
	}
	if len(t.dels) > 0 {
		if mu.Del, err = toNQuads(t.dels, true); err != nil {
			return zero, err
		}
	}
	uids, err := t.u.commit(ctx, mu)
	if err != nil {
		if errors.Is(err, dgo.ErrAborted) {
			return zero, err
		}
		return zero, wrapErr(err)
	}
	committed = true
	s.commits.Add(1)
	s.cache.written(t.sets, t.dels)
	for i, uid := range ahead {
		uids[eventBlank(i)] = uid
	}
	for _, fn := range t.committed {
		fn(uids)
	}
	if s.embedded && len(t.events) > 0 {
		s.seq = t.events[len(t.events)-1].Seq
		s.published.Store(s.seq)
		if s.counterUID == "" {
			s.counterUID = uids["counter"]
		}
		if s.committed != nil {
			s.committed(committedEvents(t.events, t.rendered, uids))
		}
	}
	return res, nil
}

// Commits is the number of writes this process has committed.
func (s *Store) Commits() uint64 { return s.commits.Load() }

// OnCommit makes fn receive the events of every commit of this store, in commit order, as a read
// of the log would return them (decoded from what was written, with their node uids). It is for
// the event log, which then need not read back what this process wrote. Embedded engine only: on
// a cluster, other servers' commits interleave, so it does nothing there. fn runs under the
// store's write lock and must not call the store.
func (s *Store) OnCommit(fn func([]*domain.Event)) {
	if !s.embedded {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.committed = fn
}

// eventNode makes node uid, made ahead of the write, the node of its event ev.
func (t *tx) eventNode(ev *domain.Event, uid string) {
	if t.eventNodes == nil {
		t.eventNodes = map[*domain.Event]string{}
	}
	t.eventNodes[ev] = uid
}

// aboutInline is how many pages of an event about several artifacts its own commit writes; an
// event with more has them committed ahead (aboutAhead).
const aboutInline = 20

// aboutAhead commits the pages of ev ahead of ev itself, aboutInline pages a commit, each
// linked by ev.of to one new node, whose uid it returns: the write's commit makes that node ev.
// Until then the node is no event (it has no ev.type), so no history shows the pages (a history
// reads only events); if that commit never comes, they stay unseen. One commit of every page of a
// pass over a million memories held gigabytes of the engine's mutation at once; each of these
// holds 10,000 artifacts' worth.
func (t *tx) aboutAhead(ev *domain.Event) (string, error) {
	ab := newAboutPager(ev)
	event := "_:event"
	for lo := 0; lo < ab.pages(); lo += aboutInline {
		var sets []map[string]any
		for k := lo; k < min(lo+aboutInline, ab.pages()); k++ {
			sets = append(sets, ab.page(k, fmt.Sprintf("_:about%d", k), event))
		}
		uids, err := t.s.commitAhead(t.ctx, sets, nil, false)
		if err != nil {
			return "", err
		}
		if strings.HasPrefix(event, "_:") {
			if event = uids["event"]; event == "" {
				return "", errors.New("the engine gave the pages' event node no uid")
			}
		}
	}
	return event, nil
}

// commitAhead commits sets and dels in a commit of their own, beside any write's transaction,
// and returns the uids of the blank nodes it made. lock takes the store's write lock for it;
// without, the caller holds it (a write's own fn does).
func (s *Store) commitAhead(ctx context.Context, sets, dels []map[string]any, lock bool) (map[string]string, error) {
	mu := &api.Mutation{CommitNow: true}
	var err error
	if mu.Set, err = toNQuads(sets, false); err != nil {
		return nil, err
	}
	if mu.Del, err = toNQuads(dels, true); err != nil {
		return nil, err
	}
	if lock {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	uids, err := s.begin(ctx).commit(ctx, mu)
	if err != nil {
		return nil, wrapErr(err)
	}
	s.commits.Add(1)
	s.cache.written(sets, dels)
	return uids, nil
}

// eventBlank is the blank node of a write's i-th event.
func eventBlank(i int) string { return fmt.Sprintf("ev%d", i) }

// committedEvents decodes a commit's events (their renderings and the uids the commit gave their
// blank nodes) as a read of their nodes would.
func committedEvents(evs []*domain.Event, renders []*renderedEvent, uids map[string]string) []*domain.Event {
	out := make([]*domain.Event, len(evs))
	for i, ev := range evs {
		// The node's own values, as a read of it returns them (ev.memory is absent when empty).
		n := eventNode{UID: uids[eventBlank(i)], Seq: ev.Seq, Scope: ev.ScopeID,
			Type: string(ev.Type), Memory: ev.MemoryID, RequestID: ev.Context.RequestID, MessageID: ev.Context.MessageID}
		out[i] = n.eventWith(renders[i].decode())
	}
	return out
}

// lastSeq reads the event counter inside the unit: in cluster mode every event-writing
// transaction reads and writes it, so they serialise on it and Seq has no gaps or duplicates.
func (t *tx) lastSeq() (uint64, string, error) {
	if t.s.embedded {
		if t.s.counterUID == "" {
			return t.s.seq, "_:counter", nil
		}
		return t.s.seq, t.s.counterUID, nil
	}
	if !t.counterRead {
		return 0, "", errors.New("event counter not read in this transaction")
	}
	if t.counterUID == "" {
		return 0, "_:counter", nil
	}
	return t.counterVal, t.counterUID, nil
}

// read runs a read-only query against committed data.
func (s *Store) read(ctx context.Context, q string, vars map[string]string, out any) error {
	raw, err := s.b.query(ctx, q, vars)
	if err != nil {
		return wrapErr(err)
	}
	if err := decode(raw, out); err != nil {
		return fmt.Errorf("decode query result: %w", err)
	}
	return nil
}

// pagesOf reads every node having pred, page nodes at a time in uid order, each with the
// selection fields (its uid among them), and hands each node to each, decoded by dec as a T;
// uid gives a T's uid. each returns false to stop. Export and Warm read the whole graph this way.
func pagesOf[T any](ctx context.Context, s *Store, pred, fields string, page int, dec func([]byte, any) error,
	uid func(*T) string, each func(*T) (bool, error)) error {
	after := "0x0"
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := s.b.query(ctx, fmt.Sprintf(`{ q(func: has(<%s>), first: %d, after: %s) { %s } }`, pred, page, after, fields), nil)
		if err != nil {
			return wrapErr(err)
		}
		var r struct {
			Q []T `json:"q"`
		}
		if err := dec(raw, &r); err != nil {
			return err
		}
		if len(r.Q) == 0 {
			return nil
		}
		after = uid(&r.Q[len(r.Q)-1]) // before each, which may change what it is handed
		for i := range r.Q {
			if more, err := each(&r.Q[i]); err != nil || !more {
				return err
			}
		}
		if len(r.Q) < page {
			return nil
		}
	}
}

// rowUID is the uid of a node decoded as a map.
func rowUID(row *map[string]any) string {
	u, _ := (*row)["uid"].(string)
	return u
}

// wrapErr turns transport errors into domain errors where the caller can act on them.
func wrapErr(err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, modusgraph.ErrClosedEngine) {
		return domain.Errorf(domain.EUNAVAILABLE, "store is closed")
	}
	msg := err.Error()
	if strings.Contains(msg, "Unavailable") || strings.Contains(msg, "connection refused") {
		return &domain.Error{Code: domain.EUNAVAILABLE, Message: "graph store unavailable: " + msg}
	}
	return fmt.Errorf("graph store: %w", err)
}

// RawSet commits one JSON set-mutation as it is, outside every rule of the store: no events, no
// scope checks. It exists for benchmarks, as the raw baseline of a single-mutation commit on
// the same engine.
func (s *Store) RawSet(ctx context.Context, obj map[string]any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = s.commitRaw(ctx, apiMutation(raw))
	return err
}

// commitRaw commits one mutation outside every rule of the store (no events, no checks) and
// returns the uids of its blank nodes. Every raw write goes through it: it takes the write lock
// and, since it cannot say what it changed, empties the read cache before it lets go.
func (s *Store) commitRaw(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cache.clear()
	u := s.begin(ctx)
	defer u.discard(ctx)
	return u.commit(ctx, mu)
}

// RawQuery runs one read-only DQL query as it is; the raw baseline of a point query.
func (s *Store) RawQuery(ctx context.Context, q string, vars map[string]string) ([]byte, error) {
	return s.b.query(ctx, q, vars)
}

func apiMutation(setJSON []byte) *api.Mutation {
	return &api.Mutation{SetJson: setJSON, CommitNow: true}
}

// decode reads a query answer into out. Answers are decoded with go-json, a drop-in for
// encoding/json that decodes them about four times faster (a page of 5,000 refgraph nodes:
// 35 ms against 8 ms): large reads — scans, sweeps, contexts — spent much of their time here.
func decode(raw []byte, out any) error {
	return gojson.Unmarshal(raw, out)
}
