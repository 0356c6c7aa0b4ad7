package cortex

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

// The event subscriptions of seed 000 kept by touches alone: the Synapse consumes MemoryStored
// and MemoryClaimed through its consumer (synapse.go) where the store can hold what it makes;
// over a store that cannot, it still records that it saw them. Salience and the Subconscious
// consume through the living memory's consumers (living_consumers.go), which record their own
// touches.
var subscriptions = map[string][]domain.EventType{
	domain.CtxSynapse: {domain.EvMemoryStored, domain.EvMemoryClaimed},
}

// catchUp brings the index up to the log's head before the server answers: deleting the index
// folder loses nothing, the log rebuilds it.
func (c *Cortex) catchUp(ctx context.Context) error {
	wm, err := c.index.Watermark()
	if err != nil {
		return err
	}
	head := c.log.Head()
	if wm > head {
		// The index is ahead of the graph it derives from (the graph was replaced): rebuild.
		c.logger.Warn("search index is ahead of the event log; rebuilding", "index", wm, "log", head)
		if err := c.index.Reset(); err != nil {
			return err
		}
		wm = 0
	}
	c.indexFrom = wm
	start := time.Now()
	n := 0
	for wm < head {
		evs, err := c.store.EventsSince(ctx, wm, 500)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			break
		}
		if err := c.applyToIndex(ctx, evs, false); err != nil {
			return err
		}
		wm = evs[len(evs)-1].Seq
		n += len(evs)
	}
	if n > 0 {
		c.logger.Info("search index caught up", "events", n, "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// applyToIndex applies the events of the scopes this server serves to the index, in order, and
// moves its watermark past all of them.
func (c *Cortex) applyToIndex(ctx context.Context, evs []*domain.Event, touch bool) error {
	var puts []domain.IndexDoc
	var reload, refresh []string
	flush := func() error {
		if len(refresh) > 0 {
			if err := c.refreshIndex(ctx, refresh); err != nil {
				return err
			}
			refresh = nil
		}
		if len(reload) > 0 {
			ms, err := c.store.Memories(ctx, reload)
			if err != nil {
				return err
			}
			for _, m := range ms {
				puts = append(puts, docOf(m))
			}
			reload = nil
		}
		if len(puts) > 0 {
			if err := c.putDocs(ctx, puts); err != nil {
				return err
			}
			puts = nil
		}
		return nil
	}
	for _, e := range evs {
		if !c.servesEvent(e, false) {
			continue // another server's scope: the watermark still passes it
		}
		switch e.Type {
		case domain.EvMemoryStored:
			if d, ok := docFromPayload(e); ok {
				puts = append(puts, d)
			} else {
				reload = append(reload, e.MemoryID)
			}
		case domain.EvMemoryReclassified, domain.EvTierChanged, domain.EvTierDemoted, domain.EvTierPromoted, domain.EvMemoryConsolidated:
			reload = append(reload, e.MemoryID)
		case domain.EvMemoriesIngested:
			reload = append(reload, c.versions.unindexed(domain.IngestedIDs(e))...)
		case domain.EvMemoryDeleted:
			if err := flush(); err != nil {
				return err
			}
			if err := c.removeDocs(ctx, []string{e.MemoryID}); err != nil {
				return err
			}
		default:
			if e.Type == domain.EvScopeDeleted {
				if err := flush(); err != nil {
					return err
				}
			}
			r, err := c.lifecycleIndexEvent(ctx, e)
			if err != nil {
				return err
			}
			if !r && e.Type != domain.EvScopeDeleted {
				continue
			}
			if r {
				refresh = append(refresh, e.MemoryID)
			}
		}
		if touch {
			c.touches.add(e.ID(), domain.CtxIndex)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	last := evs[len(evs)-1].Seq
	if err := c.index.SetWatermark(last); err != nil {
		return err
	}
	c.versions.followed(last, c.log.Head())
	return nil
}

func docFromPayload(e *domain.Event) (domain.IndexDoc, bool) {
	p := e.Payload
	content, ok := p["content"].(string)
	if !ok {
		return domain.IndexDoc{}, false
	}
	str := func(k string) string { s, _ := p[k].(string); return s }
	when := func(k string) time.Time { t, _ := time.Parse(time.RFC3339Nano, str(k)); return t }
	var tags []string
	if raw, ok := p["tags"].([]any); ok {
		for _, t := range raw {
			if s, ok := t.(string); ok {
				tags = append(tags, s)
			}
		}
	}
	return domain.IndexDoc{ID: e.MemoryID, ScopeID: e.ScopeID, Content: content, Tags: tags,
		Kind: domain.MemoryKind(str("kind")), Tier: domain.Tier(str("tier")), State: domain.LifecycleState(str("state")),
		OccurredAt: when("occurredAt"), CreatedAt: when("createdAt"), Version: 1}, true
}

func (c *Cortex) startConsumers(ctx context.Context) {
	run := func(name string, fn func(context.Context, []*domain.Event) error, from uint64) {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			_ = c.log.Follow(ctx, from, func(ctx context.Context, evs []*domain.Event) error {
				if err := fn(ctx, evs); err != nil {
					c.logger.Error("consumer failed; will retry", "consumer", name, "err", err)
					return err
				}
				return nil
			})
		}()
	}
	wm, _ := c.index.Watermark()
	run(domain.CtxIndex, func(ctx context.Context, evs []*domain.Event) error { return c.applyToIndex(ctx, evs, true) }, wm)
	head := c.log.Head()
	if c.keys != nil {
		// Keys created or revoked on any server reach this one's table.
		run("keys", c.keys.reload, c.keysFrom)
	}
	for name, types := range subscriptions {
		name, types := name, types
		if _, synapse := c.store.(domain.SynapseStore); synapse && name == domain.CtxSynapse {
			if _, living := c.store.(domain.LivingStore); living {
				continue
			}
		}
		run(name, func(ctx context.Context, evs []*domain.Event) error {
			for _, e := range evs {
				for _, t := range types {
					if e.Type == t {
						c.touches.add(e.ID(), name)
					}
				}
			}
			return nil
		}, head)
	}
	// Not a consumer of the log, but a background loop of the same life: the analysis worker.
	c.startAnalysisWorker(ctx)
}

// touchRecorder batches touches into few writes.
type touchRecorder struct {
	store  domain.Store
	logger *slog.Logger
	mu     sync.Mutex
	buf    map[string][]domain.Touch
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
}

func newTouchRecorder(st domain.Store, lg *slog.Logger) *touchRecorder {
	r := &touchRecorder{store: st, logger: lg, buf: map[string][]domain.Touch{}, wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *touchRecorder) add(messageID, ctxName string) {
	r.mu.Lock()
	r.buf[messageID] = append(r.buf[messageID], domain.Touch{Context: ctxName, At: time.Now().UTC()})
	n := len(r.buf)
	r.mu.Unlock()
	if n >= 500 {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

func (r *touchRecorder) run() {
	defer close(r.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			r.flush()
			return
		case <-t.C:
		case <-r.wake:
		}
		r.flush()
	}
}

func (r *touchRecorder) flush() {
	r.mu.Lock()
	buf := r.buf
	r.buf = map[string][]domain.Touch{}
	r.mu.Unlock()
	if len(buf) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.store.RecordTouches(ctx, buf); err != nil {
		r.logger.Error("recording touches failed", "err", err, "messages", len(buf))
	}
}

func (r *touchRecorder) close() {
	close(r.stop)
	<-r.done
}

// accessRecorder writes the messages of searches — the SearchQuery and one MemoryAccessed per
// returned memory — in batches, off the search's path.
type accessRecorder struct {
	store  domain.Store
	log    interface{ Kick() }
	logger *slog.Logger
	mu     sync.Mutex
	acc    []domain.Access
	evs    []*domain.Event
	wake   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	// scoring, once the living memory runs, scores the retrieved memories in the write that
	// records their retrievals (the Salience consumer then passes those retrievals by).
	scoring atomic.Pointer[accessScoring]
}

type accessScoring struct {
	store  domain.LivingStore
	scorer *salience.Scorer
}

func newAccessRecorder(st domain.Store, lg interface{ Kick() }, logger *slog.Logger) *accessRecorder {
	r := &accessRecorder{store: st, log: lg, logger: logger, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r
}

func (r *accessRecorder) searched(tc domain.TransactionContext, in SearchInput, res []*recall.RankedMemory, h *hippocampus.Hippocampus) {
	q := command(domain.MsgSearchQuery, in.ScopeID, "", tc, domain.CtxRecall, map[string]any{
		"query": in.Query, "maxResults": in.MaxResults, "includeAssociations": in.IncludeAssociations, "results": len(res)})
	// Recall asks the Hippocampus for the matches; the Hippocampus publishes their retrieval.
	match := tc.Derive(domain.CtxRecall, tc.Timestamp)
	mq := &domain.Event{Type: domain.EvMemoryMatchRequest, ScopeID: in.ScopeID, Context: match,
		Touches: []domain.Touch{{Context: domain.CtxHippocampus, At: tc.Timestamp}}}
	evs := []*domain.Event{q, mq}
	acc := make([]domain.Access, 0, len(res))
	for _, rm := range res {
		m := rm.Memory.Clone()
		evs = append(evs, h.Access(m, match))
		acc = append(acc, domain.Access{MemoryID: m.ID, At: *m.LastAccessedAt})
	}
	r.mu.Lock()
	r.acc = append(r.acc, acc...)
	r.evs = append(r.evs, evs...)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *accessRecorder) run() {
	defer close(r.done)
	for {
		select {
		case <-r.stop:
			r.flush()
			return
		case <-r.wake:
		}
		r.flush()
		// Let a few more searches gather before the next write.
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *accessRecorder) flush() {
	r.mu.Lock()
	acc, evs := r.acc, r.evs
	r.acc, r.evs = nil, nil
	r.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	if sc := r.scoring.Load(); sc != nil {
		err = sc.record(ctx, acc, evs)
	} else if ar, ok := r.store.(domain.AccessRecorder); ok {
		err = ar.RecordAccesses(ctx, acc, evs)
	} else {
		err = r.store.AppendEvents(ctx, evs)
	}
	if err != nil {
		r.logger.Error("recording search accesses failed", "err", err)
	}
	r.log.Kick()
}

// record writes retrievals and the messages around them with the scores of the retrieved
// memories: one write where the Salience consumer would add a second (with its reads, its
// watermark and the touches of the retrievals it scored).
func (sc *accessScoring) record(ctx context.Context, acc []domain.Access, evs []*domain.Event) error {
	// Each retrieval has its MemoryAccessed among evs.
	var rows []*domain.ScoreRow
	if ids := salience.MemoryIDs(evs); len(ids) > 0 {
		var err error
		if rows, err = sc.store.ScoreRows(ctx, ids); err != nil {
			return err
		}
	}
	_, err := sc.store.Apply(ctx, nil, sc.scorer.PlanAccesses(acc, evs, rows), nil)
	return err
}

func (r *accessRecorder) close() {
	close(r.stop)
	<-r.done
}

// indexVersions remembers the newest memory version put into the index, so that replaying an
// event (the feed applies what a synchronous put already applied, in any interleaving) never
// puts back an older state, resurrects a deleted memory or indexes the same state twice. It also
// holds the ids an import is about to put, so that the feed does not read them back to put them.
//
// What it remembers is bounded: two generations of at least versionsGeneration ids each. A replay
// can only come from the feed, which follows the log in order; so when the young generation is
// full and the feed has caught up with the log's head (followed), the old generation is
// forgotten and the young one becomes old. An id is thus kept until the feed has caught up
// twice after it was put, which every event that could replay it precedes, but for a write still
// in flight across two whole generations. Before, every id ever put stayed: about 100 bytes a
// memory, 100 MB of heap after an import of a million.
type indexVersions struct {
	mu      sync.Mutex
	v, old  map[string]int64 // the young and the old generation
	pending map[string]int   // id → imports about to put it
}

const deletedVersion = int64(1) << 62

// versionsGeneration is how many ids a generation of indexVersions holds before it may turn old.
const versionsGeneration = 1 << 16

// lookup is the version id was last put at. Under iv.mu.
func (iv *indexVersions) lookup(id string) (int64, bool) {
	if v, ok := iv.v[id]; ok {
		return v, true
	}
	v, ok := iv.old[id]
	return v, ok
}

// followed tells that the feed has applied every event up to seq while the log's head was head:
// once it has caught up, a full young generation turns old and the old one is forgotten.
func (iv *indexVersions) followed(seq, head uint64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if seq >= head && len(iv.v) >= versionsGeneration {
		iv.old, iv.v = iv.v, map[string]int64{}
	}
}

// admit keeps the docs newer than what the index holds and records them. A doc of the version
// the index holds is that same state (every write of a record bumps its version): Bleve would
// delete and re-add it for nothing. Unversioned docs (version 0) are always put.
// It returns, for undo, the version each admitted doc replaced (-1: none).
func (iv *indexVersions) admit(docs []domain.IndexDoc) ([]domain.IndexDoc, []int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.v == nil {
		iv.v = map[string]int64{}
	}
	out := docs[:0:0]
	var prev []int64
	for _, d := range docs {
		cur, ok := iv.lookup(d.ID)
		if ok && (cur > d.Version || (cur == d.Version && d.Version > 0)) {
			continue
		}
		if !ok {
			cur = -1
		}
		iv.v[d.ID] = d.Version
		out = append(out, d)
		prev = append(prev, cur)
	}
	return out, prev
}

// undo forgets admitted docs the index did not take, unless a newer version was admitted since.
func (iv *indexVersions) undo(docs []domain.IndexDoc, prev []int64) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	for i, d := range docs {
		if v, ok := iv.lookup(d.ID); !ok || v != d.Version {
			continue
		}
		if prev[i] < 0 {
			delete(iv.v, d.ID)
			delete(iv.old, d.ID)
		} else {
			iv.v[d.ID] = prev[i]
		}
	}
}

// expect marks ids an import will put once its write returns; done unmarks them.
func (iv *indexVersions) expect(ids []string) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.pending == nil {
		iv.pending = map[string]int{}
	}
	for _, id := range ids {
		iv.pending[id]++
	}
}

func (iv *indexVersions) done(ids []string) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	for _, id := range ids {
		if iv.pending[id] <= 1 {
			delete(iv.pending, id)
		} else {
			iv.pending[id]--
		}
	}
}

// unindexed keeps the ids this process has neither put into the index nor is about to: an import
// puts its memories itself, so following its MemoriesIngested only matters after a restart or on
// another server.
func (iv *indexVersions) unindexed(ids []string) []string {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	out := ids[:0:0]
	for _, id := range ids {
		_, put := iv.lookup(id)
		if !put && iv.pending[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

func (iv *indexVersions) deleted(ids []string) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	if iv.v == nil {
		iv.v = map[string]int64{}
	}
	for _, id := range ids {
		iv.v[id] = deletedVersion
	}
}

func (c *Cortex) putDocs(ctx context.Context, docs []domain.IndexDoc) error {
	docs, prev := c.versions.admit(docs)
	if len(docs) == 0 {
		return nil
	}
	// Queued: searchable by every search that starts after this returns, written in batches.
	if err := c.index.Queue(ctx, docs); err != nil {
		// Not in the index: the feed must still put these versions when it reaches them.
		c.versions.undo(docs, prev)
		return err
	}
	return nil
}

func (c *Cortex) removeDocs(ctx context.Context, ids []string) error {
	c.versions.deleted(ids)
	return c.index.Remove(ctx, ids)
}
