package cortex

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Retention is how long the event log keeps its read events (domain.ReadEvents: the searches,
// loads and resonates, and the retrievals and scores they caused). Their effect stays on the
// memories — access counts, last access, salience — while the messages themselves, some twenty a
// search, would otherwise be kept for good.
type Retention struct {
	// Keep is how long a read event is kept; 0 keeps every one.
	Keep time.Duration
	// Interval is how often the log is pruned (DefaultPruneInterval when 0).
	Interval time.Duration
}

// DefaultPruneInterval is how often the log is pruned of its old read events.
const DefaultPruneInterval = 10 * time.Minute

// pruning counts the read events this server pruned.
type pruning struct {
	deleted atomic.Int64
}

// startRetention prunes the log every r.Interval until bg ends, when r keeps read events for a
// limited time and the store can prune.
func (c *Cortex) startRetention(bg context.Context, r Retention) {
	if r.Keep <= 0 {
		return
	}
	if _, ok := c.store.(domain.EventPruner); !ok {
		return
	}
	every := r.Interval
	if every <= 0 {
		every = DefaultPruneInterval
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-t.C:
			}
			if n, err := c.PruneReadEvents(bg, r.Keep); err != nil && bg.Err() == nil {
				c.logger.Error("pruning read events failed", "err", err, "deleted", n)
			} else if n > 0 {
				c.logger.Info("pruned read events", "deleted", n, "olderThan", r.Keep.String())
			}
		}
	}()
}

// PruneReadEvents deletes the log's read events older than keep (domain.ReadEvents), a page per
// write, up to the event the search index and every consumer of this server have applied, and
// returns how many it deleted. Errors: UNAVAILABLE (a store that cannot prune), INVALID_ARGUMENT
// (keep not positive).
func (c *Cortex) PruneReadEvents(ctx context.Context, keep time.Duration) (int, error) {
	pr, ok := c.store.(domain.EventPruner)
	if !ok {
		return 0, domain.Errorf(domain.EUNAVAILABLE, "this store does not prune its event log")
	}
	if keep <= 0 {
		return 0, domain.Errorf(domain.EINVALID, "keep must be positive, got %s", keep)
	}
	upTo, consumers := c.positions()
	for _, p := range consumers {
		upTo = min(upTo, p)
	}
	before := c.now().Add(-keep)
	total := 0
	for {
		t0 := time.Now()
		res, err := pr.PruneEvents(ctx, before, upTo, prunePage)
		total += res.Deleted
		c.pruning.deleted.Add(int64(res.Deleted))
		if err != nil || !res.More {
			return total, err
		}
		// Between pages it rests as long as the page took: a long backlog (the first pass over
		// an old store) takes at most about half of one core.
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(time.Since(t0)):
		}
	}
}

// prunePage is how many events of the log one pruning write looks at.
const prunePage = 1000

// PrunedReadEvents is how many read events this server has pruned since it started.
func (c *Cortex) PrunedReadEvents() int64 { return c.pruning.deleted.Load() }
