package cortex

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

// The living memory's log consumers. Each follows the event log from its watermark in the graph
// and commits every batch through LivingStore.Consume, which moves the watermark in the same
// write: a batch is applied exactly once even with several servers on one graph, and a consumer
// that restarts resumes where it committed. Reads happen before the write; the write keeps only
// what is planned for events past the committed watermark.
const (
	consumerSalience     = "salience"
	consumerSubconscious = "subconscious"
	// idleCommit: a consumer that has had nothing to do for this many events still commits its
	// watermark, so a restart does not re-read them.
	idleCommit = 5000
	// gather is how long a living consumer waits for more events before it handles what
	// arrived: each batch costs reads and a write whatever its size, so under a stream of single
	// stores the Salience consumer re-scores tens of memories per write instead of one. The
	// Subconscious waits only while all it has are stored memories: advisories and session ends
	// are answered at once.
	gather = 50 * time.Millisecond
)

// subconsciousUrgent reports the events the Subconscious answers without gathering more.
func subconsciousUrgent(e *domain.Event) bool {
	return e.Type != domain.EvMemoryStored && subconscious.Consumes(e.Type)
}

// consumerState is where a living consumer is: the last event it has handled and the last
// watermark it committed.
type consumerState struct {
	handled   atomic.Uint64
	committed atomic.Uint64
}

// LivingPosition returns the Seq up to which the Salience and the Subconscious consumers have
// handled the log (for operations and benchmarks).
func (c *Cortex) LivingPosition() (salienceSeq, subconsciousSeq uint64) {
	if c.living == nil {
		return 0, 0
	}
	return c.living.pos[consumerSalience].handled.Load(), c.living.pos[consumerSubconscious].handled.Load()
}

func (c *Cortex) startLivingConsumers(ctx, bg context.Context) error {
	l := c.living
	start := func(base string) (uint64, error) {
		name := c.consumerName(base)
		w, found, err := l.store.ConsumerWatermark(ctx, name)
		if err != nil {
			return 0, err
		}
		if !found {
			// First run on this graph: what came before was never this consumer's to handle.
			// The start is committed at once, so a restart before its first batch resumes here
			// rather than at a later head.
			from := c.log.Head()
			if name != base {
				// A new scope set takes over from the consumer of every scope, where it stopped:
				// a cluster split in two loses none of the events between.
				if wb, ok, err := l.store.ConsumerWatermark(ctx, base); err != nil {
					return 0, err
				} else if ok {
					from = min(from, wb)
				}
			}
			if _, err := l.store.Consume(ctx, name, from, func(uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
				return 0, err
			}
			return from, nil
		}
		return w, nil
	}
	l.pos = map[string]*consumerState{consumerSalience: {}, consumerSubconscious: {}}
	type consumer struct {
		name   string
		fn     func(context.Context, []*domain.Event) error
		urgent func(*domain.Event) bool
		gather time.Duration
	}
	consumers := []consumer{
		{consumerSalience, c.salienceBatch, nil, gather},
		{consumerSubconscious, c.subconsciousBatch, subconsciousUrgent, gather},
	}
	if l.syn != nil {
		l.pos[consumerSynapse] = &consumerState{}
		consumers = append(consumers, consumer{consumerSynapse, c.synapseBatch, nil, synapseGather})
	}
	for _, cons := range consumers {
		from, err := start(cons.name)
		if err != nil {
			return err
		}
		name, fn, urgent, wait, pos := cons.name, cons.fn, cons.urgent, cons.gather, l.pos[cons.name]
		pos.handled.Store(from)
		pos.committed.Store(from)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			_ = c.log.FollowGathering(bg, from, wait, urgent, func(ctx context.Context, evs []*domain.Event) error {
				if mine := c.ownEvents(evs); len(mine) > 0 {
					if err := fn(ctx, mine); err != nil {
						if ctx.Err() == nil {
							c.logger.Error("consumer failed; will retry", "consumer", name, "err", err)
						}
						return err
					}
				}
				last := evs[len(evs)-1].Seq
				if last-pos.committed.Load() >= idleCommit {
					if _, err := l.store.Consume(ctx, c.consumerName(name), last, func(uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
						return err
					}
					pos.committed.Store(last)
				}
				pos.handled.Store(last)
				return nil
			})
		}()
	}
	return nil
}

// ownEvents keeps the events of the scopes this server serves (evs itself on a server of every
// scope).
func (c *Cortex) ownEvents(evs []*domain.Event) []*domain.Event {
	if c.shard.All() {
		return evs
	}
	out := make([]*domain.Event, 0, len(evs))
	for _, e := range evs {
		if c.servesEvent(e, true) {
			out = append(out, e)
		}
	}
	return out
}

// fresh returns the events of evs after seq that keep selects.
func fresh(evs []*domain.Event, seq uint64, keep func(*domain.Event) bool) []*domain.Event {
	var out []*domain.Event
	for _, e := range evs {
		if e.Seq > seq && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// salienceTodo: what the Salience consumer scores, all but the retrievals already scored where
// they were written and the Synapse's automatic associations.
func salienceTodo(e *domain.Event) bool {
	return salience.Consumed(e.Type) && !salience.Handled(e) && !salience.Automatic(e)
}

func subconsciousTodo(e *domain.Event) bool { return subconscious.Consumes(e.Type) }

// salienceBatch recomputes the scores of the memories a batch is about (Salience) and updates
// the associations of reclassified memories (Synapse).
func (c *Cortex) salienceBatch(ctx context.Context, evs []*domain.Event) error {
	l := c.living
	if len(fresh(evs, 0, salienceTodo)) == 0 {
		return nil
	}
	w, _, err := l.store.ConsumerWatermark(ctx, c.consumerName(consumerSalience))
	if err != nil {
		return err
	}
	todo := fresh(evs, w, salienceTodo)
	if len(todo) == 0 {
		return nil
	}
	rows, err := l.store.ScoreRows(ctx, salience.MemoryIDs(todo))
	if err != nil {
		return err
	}
	byID := make(map[string]*domain.ScoreRow, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	assocs := map[string][]*domain.Association{}
	for _, e := range todo {
		if e.Type != domain.EvMemoryReclassified {
			continue
		}
		as, err := c.store.Associations(ctx, e.MemoryID, nil, 0)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return err
		}
		assocs[e.MemoryID] = as
	}
	var applied []*domain.Event
	if _, err := l.store.Consume(ctx, c.consumerName(consumerSalience), evs[len(evs)-1].Seq, func(w uint64) (*domain.Changes, error) {
		applied = fresh(todo, w, salienceTodo)
		ch := l.scorer.Plan(applied, byID)
		now := c.now().UTC()
		for _, e := range applied {
			if e.Type == domain.EvMemoryReclassified {
				sets, evs := synapse.Retier(e, assocs[e.MemoryID], now)
				ch.Associations = append(ch.Associations, sets...)
				ch.Events = append(ch.Events, evs...)
			}
		}
		return ch, nil
	}); err != nil {
		return err
	}
	l.pos[consumerSalience].committed.Store(evs[len(evs)-1].Seq)
	for _, e := range applied {
		c.touches.add(e.ID(), domain.CtxSalience)
		if e.Type == domain.EvMemoryReclassified {
			c.touches.add(e.ID(), domain.CtxSynapse)
		}
	}
	c.log.Kick()
	return nil
}

// subconsciousBatch lets the Subconscious answer what it consumes: total recall advisories,
// session ends (audit prompts), and the memories stored in sessions.
func (c *Cortex) subconsciousBatch(ctx context.Context, evs []*domain.Event) error {
	l := c.living
	if len(fresh(evs, 0, subconsciousTodo)) == 0 {
		return nil
	}
	w, _, err := l.store.ConsumerWatermark(ctx, c.consumerName(consumerSubconscious))
	if err != nil {
		return err
	}
	todo := fresh(evs, w, subconsciousTodo)
	if len(todo) == 0 {
		return nil
	}
	plans, touched, err := l.sub.Plan(ctx, todo)
	if err != nil {
		return err
	}
	if len(plans) == 0 && len(touched) == 0 {
		return nil
	}
	var applied []*domain.Event
	if _, err := l.store.Consume(ctx, c.consumerName(consumerSubconscious), evs[len(evs)-1].Seq, func(w uint64) (*domain.Changes, error) {
		applied = fresh(todo, w, subconsciousTodo)
		ch := &domain.Changes{}
		for _, e := range applied {
			ch.Merge(plans[e.ID()])
		}
		return ch, nil
	}); err != nil {
		return err
	}
	l.pos[consumerSubconscious].committed.Store(evs[len(evs)-1].Seq)
	isTouched := make(map[string]bool, len(touched))
	for _, id := range touched {
		isTouched[id] = true
	}
	var grown []string // scopes whose pending log this batch appended to
	for _, e := range applied {
		if isTouched[e.ID()] {
			c.touches.add(e.ID(), domain.CtxSubconscious)
		}
		if ch := plans[e.ID()]; ch != nil && len(ch.Pending) > 0 {
			grown = append(grown, e.ScopeID)
		}
	}
	c.story.kick(grown...)
	c.log.Kick()
	return nil
}

// record queues messages (and the retrievals they caused) to be written off the caller's path,
// in the batches of the search accesses.
func (r *accessRecorder) record(evs []*domain.Event, acc []domain.Access) {
	r.mu.Lock()
	r.acc = append(r.acc, acc...)
	r.evs = append(r.evs, evs...)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}
