package cortex

import (
	"context"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Shutdown (seed 000's ShutdownCommand: the Subconscious tells the Hippocampus to flush, within a
// timeout). The server calls BeginShutdown when it stops accepting requests and FinishShutdown
// once the requests in flight are answered; Close comes after.

// ShutdownOutcome is what a shutdown achieved.
type ShutdownOutcome struct {
	// Flushed: the index and the log consumers had applied every event, and their positions were
	// committed, before the deadline.
	Flushed bool
	// Head is the last event of the log when the shutdown completed (its own event included).
	Head uint64
	// IndexWatermark and the consumers' positions, as the shutdown left them.
	IndexWatermark uint64
	Consumers      map[string]uint64
	Took           time.Duration
	// Err says what did not finish, when something did not.
	Err error
}

// BeginShutdown records the ShutdownCommand with its flush timeout, ends every subscription (the
// clients see them complete) and stops the living memory's timers and total recalls. Safe to
// call once; later calls do nothing.
func (c *Cortex) BeginShutdown(ctx context.Context, flushTimeout time.Duration) {
	first := false
	c.endingOnce.Do(func() { first = true })
	if !first {
		return
	}
	now := c.now().UTC()
	c.shutdownStart = time.Now()
	tc := keyContext("", now)
	tc.SourceContext = domain.CtxSubconscious
	cmd := command(domain.MsgShutdownCommand, "", "", tc, domain.CtxHippocampus,
		map[string]any{"flushTimeout": flushTimeout.String(), "flushTimeoutMs": flushTimeout.Milliseconds(), "coldStorageTarget": "graph"})
	c.shutdownTC = tc
	if err := c.store.AppendEvents(ctx, []*domain.Event{cmd}); err != nil {
		c.logger.Error("recording the ShutdownCommand failed", "err", err)
	}
	c.log.Kick()
	close(c.ending)
	c.stopLiving()
}

// FinishShutdown flushes what the requests left behind — retrievals, touches, the keys' last
// uses and failed authentications — waits until the search index and the log consumers have
// applied the whole log, commits their positions, and records the outcome (ShutdownCompleted):
// a start after it has nothing to catch up. It stops at ctx's deadline with the outcome so far.
func (c *Cortex) FinishShutdown(ctx context.Context) ShutdownOutcome {
	c.BeginShutdown(ctx, 0)
	c.accesses.flush()
	if c.keys != nil {
		c.keys.Flush(ctx)
	}
	c.log.Kick()
	err := c.drain(ctx)
	out := ShutdownOutcome{Flushed: err == nil, Err: err, Took: time.Since(c.shutdownStart)}
	out.IndexWatermark, out.Consumers = c.positions()
	p := map[string]any{"flushed": out.Flushed, "tookMs": out.Took.Milliseconds(), "indexWatermark": out.IndexWatermark}
	for name, seq := range out.Consumers {
		p[name+"Watermark"] = seq
	}
	if err != nil {
		p["error"] = err.Error()
	}
	ev := &domain.Event{Type: domain.EvShutdownCompleted, Context: c.shutdownTC.Derive(domain.CtxHippocampus, c.now().UTC()), Payload: p}
	// The outcome is written even when the deadline has passed.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if werr := c.store.AppendEvents(wctx, []*domain.Event{ev}); werr != nil {
		c.logger.Error("recording the shutdown's outcome failed", "err", werr)
		if out.Err == nil {
			out.Err = werr
		}
		out.Flushed = false
	}
	c.log.Kick()
	// Its own event too: the next start finds the index and the consumers at the head.
	if err == nil {
		if derr := c.drain(ctx); derr != nil {
			out.Flushed, out.Err = false, derr
		}
	}
	out.Head = c.log.Head()
	out.IndexWatermark, out.Consumers = c.positions()
	return out
}

// drain waits until the index and the living consumers have handled the log up to its head, then
// commits the consumers' positions.
func (c *Cortex) drain(ctx context.Context) error {
	head, err := c.store.LastSeq(ctx)
	if err != nil {
		return err
	}
	if err := c.log.WaitFor(ctx, head); err != nil {
		return err
	}
	for {
		wm, consumers := c.positions()
		done := wm >= head
		for _, seq := range consumers {
			done = done && seq >= head
		}
		if done {
			break
		}
		select {
		case <-ctx.Done():
			return domain.Errorf(domain.EDEADLINEEXCEEDED, "the index (at %d) or a consumer (%v) had not reached the log's head %d", wm, consumers, head)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if c.living == nil {
		return nil
	}
	for name, pos := range c.living.pos {
		if pos.committed.Load() >= head {
			continue
		}
		if _, err := c.living.store.Consume(ctx, c.consumerName(name), head, func(uint64) (*domain.Changes, error) { return nil, nil }); err != nil {
			return err
		}
		pos.committed.Store(head)
	}
	return nil
}

// positions returns the index's watermark and the living consumers' positions.
func (c *Cortex) positions() (uint64, map[string]uint64) {
	wm, _ := c.index.Watermark()
	out := map[string]uint64{}
	if c.living != nil {
		for name, pos := range c.living.pos {
			out[name] = pos.handled.Load()
		}
	}
	return wm, out
}

// Health is what readiness probes look at.
type Health struct {
	// Head is the log's last event; IndexWatermark the index's; Consumers the living consumers'
	// positions.
	Head           uint64
	IndexWatermark uint64
	Consumers      map[string]uint64
	// Err is set when the store or the index cannot be read.
	Err error
}

// Lag is how many events the index or a consumer, the furthest behind, has not applied.
func (h Health) Lag() uint64 {
	lag := uint64(0)
	if h.Head > h.IndexWatermark {
		lag = h.Head - h.IndexWatermark
	}
	for _, seq := range h.Consumers {
		if h.Head > seq {
			lag = max(lag, h.Head-seq)
		}
	}
	return lag
}

// Health reads the store's head and the positions of the index and the consumers.
func (c *Cortex) Health(ctx context.Context) Health {
	var h Health
	h.Head, h.Err = c.store.LastSeq(ctx)
	wm, err := c.index.Watermark()
	if err != nil && h.Err == nil {
		h.Err = err
	}
	h.IndexWatermark = wm
	_, h.Consumers = c.positions()
	return h
}
