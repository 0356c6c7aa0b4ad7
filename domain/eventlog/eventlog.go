// Package eventlog is the Memory Event Store as the bounded contexts see it: it follows the
// store's event log in Seq order and hands every event, exactly in order, to each subscriber.
// The log in the graph is the truth; a subscriber that falls behind or starts late reads from it,
// so nothing is lost, and a slow subscriber only slows itself — never a writer.
package eventlog

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

const fetchSize = 1000

// DefaultWindow is the size in bytes of the recent events a log keeps in memory for its
// subscribers unless Open is given another: the newest events that fit in it, up to twice as
// many before they are trimmed (see Size).
const DefaultWindow = 8 << 20

// Log follows the store's events. Safe for concurrent use.
type Log struct {
	store domain.Store
	poll  time.Duration

	mu     sync.Mutex
	recent []*domain.Event // contiguous, ascending Seq, ending at head
	// sizes[i] is Size(recent[i]); bytes their sum, at most twice window.
	sizes  []int
	bytes  int
	window int
	head   uint64
	notify chan struct{} // closed and replaced when head moves

	kick   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// Open starts following the store from its current head. poll is how often it looks for
// events written by other servers; local writers call Kick to be seen at once. A store that
// hands over what it commits (OnCommit) has its events taken as they commit. window is the
// bytes of recent events kept in memory (DefaultWindow when 0 or less).
func Open(ctx context.Context, st domain.Store, poll time.Duration, window int) (*Log, error) {
	head, err := st.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	if window <= 0 {
		window = DefaultWindow
	}
	cctx, cancel := context.WithCancel(context.Background())
	l := &Log{store: st, poll: poll, head: head, window: window, notify: make(chan struct{}),
		kick: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	if c, ok := st.(committer); ok {
		c.OnCommit(l.publish)
	}
	go l.run(cctx)
	return l, nil
}

// committer is a store that hands over the events it commits, in commit order (the embedded
// graph store): the log takes them as they commit rather than reading them back.
type committer interface {
	OnCommit(func([]*domain.Event))
}

// publish takes events just committed, in order. Events that do not follow the head (others
// committed them first, or they came before the log opened) are left to the next fetch.
func (l *Log) publish(evs []*domain.Event) {
	if len(evs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if evs[0].Seq != l.head+1 {
		return
	}
	l.appendLocked(evs)
}

// appendLocked adds events that follow the head and wakes the waiters. Under l.mu.
func (l *Log) appendLocked(evs []*domain.Event) {
	l.recent = append(l.recent, evs...)
	for _, e := range evs {
		n := Size(e)
		l.sizes = append(l.sizes, n)
		l.bytes += n
	}
	if l.bytes > 2*l.window && len(l.recent) > 1 {
		// Keep the newest that fit in the window, in place: one copy per window's worth of
		// events appended. Trimming on every append copied the whole window, and reallocated it,
		// on every commit.
		from, kept := len(l.recent), 0
		for from > 1 && kept+l.sizes[from-1] <= l.window {
			from--
			kept += l.sizes[from]
		}
		n := copy(l.recent, l.recent[from:])
		clear(l.recent[n:])
		l.recent = l.recent[:n]
		l.sizes = l.sizes[:copy(l.sizes, l.sizes[from:])]
		l.bytes = kept
	}
	l.head = evs[len(evs)-1].Seq
	close(l.notify)
	l.notify = make(chan struct{})
}

// Close stops following; subscriptions end.
func (l *Log) Close() {
	l.cancel()
	<-l.done
}

// Kick tells the log that events were just committed.
func (l *Log) Kick() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Head is the Seq of the newest event the log has seen.
func (l *Log) Head() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head
}

// WaitFor blocks until the log has seen seq (or ctx ends).
func (l *Log) WaitFor(ctx context.Context, seq uint64) error {
	for {
		l.mu.Lock()
		head, ch := l.head, l.notify
		l.mu.Unlock()
		if head >= seq {
			return nil
		}
		l.Kick()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *Log) run(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.kick:
		case <-t.C:
		}
		for {
			n, err := l.fetch(ctx)
			if err != nil || n < fetchSize {
				break
			}
		}
	}
}

func (l *Log) fetch(ctx context.Context) (int, error) {
	l.mu.Lock()
	head := l.head
	l.mu.Unlock()
	evs, err := l.store.EventsSince(ctx, head, fetchSize)
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	// The store answers only committed events, in order; Seq may have holes where a deleted
	// scope's events were. Those published while this read ran are there already.
	n := len(evs)
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := sort.Search(n, func(k int) bool { return evs[k].Seq > l.head }); i < n {
		l.appendLocked(evs[i:])
	}
	return n, nil
}

// after returns up to max events with Seq > seq, and the channel that closes when more arrive.
func (l *Log) after(ctx context.Context, seq uint64, max int) ([]*domain.Event, <-chan struct{}, error) {
	l.mu.Lock()
	head, ch := l.head, l.notify
	if seq >= head {
		l.mu.Unlock()
		return nil, ch, nil
	}
	if len(l.recent) > 0 && l.recent[0].Seq <= seq+1 {
		i := sort.Search(len(l.recent), func(k int) bool { return l.recent[k].Seq > seq })
		j := min(len(l.recent), i+max)
		out := append([]*domain.Event(nil), l.recent[i:j]...)
		l.mu.Unlock()
		return out, ch, nil
	}
	l.mu.Unlock()
	// Older than what is kept: read the log in the graph, never past head.
	evs, err := l.store.EventsSince(ctx, seq, min(max, int(head-seq)))
	if err != nil {
		return nil, ch, err
	}
	out := evs[:0]
	for _, e := range evs {
		if e.Seq <= head {
			out = append(out, e)
		}
	}
	return out, ch, nil
}

// Follow calls fn with every batch of events after seq, in order, until ctx ends or fn fails.
// A failed batch is retried after a pause, so a consumer never skips an event.
func (l *Log) Follow(ctx context.Context, seq uint64, fn func(ctx context.Context, evs []*domain.Event) error) error {
	return l.FollowGathering(ctx, seq, 0, nil, fn)
}

// FollowGathering is Follow for a consumer whose work per batch costs more than its work per
// event: when fewer events than a full batch are waiting, it waits up to gather for more before
// it calls fn, so a stream of single writes is handled in a few batches rather than one each.
// A batch holding an event urgent says is handed over at once, also when that event arrives
// while the batch is gathering.
func (l *Log) FollowGathering(ctx context.Context, seq uint64, gather time.Duration, urgent func(*domain.Event) bool,
	fn func(ctx context.Context, evs []*domain.Event) error) error {
	waited := false
	for {
		evs, ch, err := l.after(ctx, seq, fetchSize)
		if err == nil && len(evs) > 0 {
			if gather > 0 && !waited && len(evs) < fetchSize && (urgent == nil || !slices.ContainsFunc(evs, urgent)) {
				waited = true
				if err := l.gather(ctx, seq, gather, urgent, ch); err != nil {
					return err
				}
				continue
			}
			waited = false
			if err = fn(ctx, evs); err == nil {
				seq = evs[len(evs)-1].Seq
				continue
			}
		}
		if err != nil {
			ch = nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-time.After(l.poll):
		}
	}
}

// gather waits up to d for the events after seq to fill a batch, and no longer once they hold
// one that urgent says cannot wait. ch is the log's change channel as the caller last read it.
func (l *Log) gather(ctx context.Context, seq uint64, d time.Duration, urgent func(*domain.Event) bool, ch <-chan struct{}) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		case <-ch:
			evs, next, err := l.after(ctx, seq, fetchSize)
			if err != nil || len(evs) >= fetchSize || (urgent != nil && slices.ContainsFunc(evs, urgent)) {
				return nil
			}
			ch = next
		}
	}
}

// Subscribe streams the events after seq that keep returns true for. The channel closes when
// ctx ends or the log closes.
func (l *Log) Subscribe(ctx context.Context, seq uint64, keep func(*domain.Event) bool) <-chan *domain.Event {
	out := make(chan *domain.Event, 64)
	go func() {
		defer close(out)
		done := make(chan struct{})
		go func() {
			select {
			case <-ctx.Done():
			case <-l.done:
			}
			close(done)
		}()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { <-done; cancel() }()
		_ = l.Follow(cctx, seq, func(ctx context.Context, evs []*domain.Event) error {
			for _, e := range evs {
				if keep != nil && !keep(e) {
					continue
				}
				select {
				case out <- e:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}()
	return out
}

// Size is about the memory an event takes, in bytes: its fixed fields and what its strings and
// payload hold. A MemoriesIngested of a thousand memories names them all, and takes some hundred
// times a StoreCommand.
func Size(e *domain.Event) int {
	n := 320 + len(e.Type) + len(e.ScopeID) + len(e.MemoryID) + len(e.Context.SessionID) +
		len(e.Context.RequestID) + len(e.Context.MessageID) + len(e.Context.CausationID) +
		len(e.Context.SourceContext) + valueSize(e.Payload)
	for _, t := range e.Touches {
		n += 64 + len(t.Context)
	}
	return n
}

// valueSize is about the memory a decoded JSON value takes.
func valueSize(v any) int {
	switch v := v.(type) {
	case string:
		return 16 + len(v)
	case map[string]any:
		n := 48
		for k, x := range v {
			n += 16 + len(k) + valueSize(x)
		}
		return n
	case []any:
		n := 24
		for _, x := range v {
			n += valueSize(x)
		}
		return n
	case []string:
		n := 24
		for _, x := range v {
			n += 16 + len(x)
		}
		return n
	default:
		return 16
	}
}
