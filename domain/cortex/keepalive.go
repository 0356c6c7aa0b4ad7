package cortex

import (
	"context"
	"sync"

	"github.com/totalrecall/totalrecall/domain"
)

// A heartbeat is a write, and a write's cost grows with the graph (the embedded engine copies
// the committed uids of every index posting list it touches); a coding agent's hook sends one
// with every prompt and must not wait for it. KeepAlive answers from a read whether the instance
// has an active session and leaves the write to a background writer, which coalesces the beats
// of an instance (the last mode asked wins) and writes them through Heartbeat.

type beat struct {
	ctx  context.Context
	mode domain.SessionMode
}

type beater struct {
	c       *Cortex
	mu      sync.Mutex
	pending map[string]beat
	order   []string
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	started bool
}

func (b *beater) add(ctx context.Context, instanceID string, mode domain.SessionMode) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		b.started = true
		go b.run()
	}
	prev, queued := b.pending[instanceID]
	if !queued {
		b.order = append(b.order, instanceID)
	} else if mode == "" {
		mode = prev.mode // a beat without a mode keeps the mode an earlier one asked for
	}
	// The request's values (its principal) go along; its cancellation does not.
	b.pending[instanceID] = beat{ctx: context.WithoutCancel(ctx), mode: mode}
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

func (b *beater) run() {
	defer close(b.done)
	for {
		select {
		case <-b.kick:
		case <-b.stop:
			b.flush()
			return
		}
		b.flush()
	}
}

func (b *beater) flush() {
	for {
		b.mu.Lock()
		if len(b.order) == 0 {
			b.mu.Unlock()
			return
		}
		inst := b.order[0]
		b.order = b.order[1:]
		bt := b.pending[inst]
		delete(b.pending, inst)
		b.mu.Unlock()
		if _, err := b.c.Heartbeat(bt.ctx, inst, bt.mode); err != nil {
			b.c.logger.Warn("heartbeat", "instance", inst, "err", err)
		}
	}
}

// close writes the beats still pending and stops the writer.
func (b *beater) close() {
	b.once.Do(func() {
		b.mu.Lock()
		started := b.started
		b.started = true // no writer starts after this
		b.mu.Unlock()
		if !started {
			return
		}
		close(b.stop)
		<-b.done
	})
}

// KeepAlive is a heartbeat that does not wait for its write: it returns at once whether the
// instance has an active session (false: start one), and the beat — the session's last
// heartbeat, and its mode when mode is set — is written moments later by a background writer,
// as Heartbeat writes it. Beats pending when the Cortex closes are written before it closes.
// Errors: INVALID_ARGUMENT, UNAVAILABLE.
func (c *Cortex) KeepAlive(ctx context.Context, instanceID string, mode domain.SessionMode) (bool, error) {
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
	reader, ok := l.store.(domain.InstanceSessions)
	if !ok {
		return c.Heartbeat(ctx, instanceID, mode)
	}
	active, err := reader.ActiveSessionsOf(ctx, instanceID)
	if err != nil {
		return false, err
	}
	if len(active) == 0 {
		return false, nil
	}
	c.beats.add(ctx, instanceID, mode)
	return true, nil
}
