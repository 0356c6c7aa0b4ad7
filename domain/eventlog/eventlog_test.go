package eventlog

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// memLog is an event log in memory: the two reads the Log makes of a store.
type memLog struct {
	domain.Store // only EventsSince and LastSeq are called
	mu           sync.Mutex
	evs          []*domain.Event
}

func (m *memLog) append(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for range n {
		m.evs = append(m.evs, &domain.Event{Seq: uint64(len(m.evs) + 1), Type: domain.EvMemoryStored})
	}
}

func (m *memLog) EventsSince(_ context.Context, seq uint64, limit int) ([]*domain.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*domain.Event
	for _, e := range m.evs {
		if e.Seq > seq && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *memLog) LastSeq(context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.evs)), nil
}

// A gathering follower that wakes for one event waits for the ones that follow and takes them
// in one batch; a plain follower, and a gathering one given an urgent event, take the first
// event alone. All see every event once, in order.
func TestFollowGathering(t *testing.T) {
	always := func(*domain.Event) bool { return true }
	for _, tc := range []struct {
		gather time.Duration
		urgent func(*domain.Event) bool
	}{{0, nil}, {time.Second, nil}, {time.Hour, always}} {
		gather, urgent := tc.gather, tc.urgent
		gathers := gather > 0 && urgent == nil
		st := &memLog{}
		l, err := Open(context.Background(), st, 10*time.Millisecond, 0)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		batches := make(chan []*domain.Event, 16)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = l.FollowGathering(ctx, 0, gather, urgent, func(_ context.Context, evs []*domain.Event) error {
				batches <- evs
				return nil
			})
		}()
		st.append(1)
		l.Kick()
		var first []*domain.Event
		if !gathers {
			first = <-batches // delivered before anything else is written
			st.append(4)
			l.Kick()
		} else {
			// The follower now waits a second for more: these four arrive well inside it.
			time.Sleep(50 * time.Millisecond)
			st.append(4)
			l.Kick()
			first = <-batches
		}
		var all []*domain.Event
		all = append(all, first...)
		for len(all) < 5 {
			all = append(all, <-batches...)
		}
		cancel()
		<-done
		l.Close()
		for i, e := range all {
			if e.Seq != uint64(i+1) {
				t.Fatalf("gather %v: event %d has Seq %d", gather, i, e.Seq)
			}
		}
		if len(all) != 5 {
			t.Fatalf("gather %v: %d events, want 5", gather, len(all))
		}
		if !gathers && len(first) != 1 {
			t.Fatalf("gather %v: the first batch held %d events, want the one written", gather, len(first))
		}
		if gathers && len(first) != 5 {
			t.Fatalf("a gathering follower's first batch held %d events, want all 5", len(first))
		}
	}
}

// committingLog is a memLog that hands over what it commits, as the embedded store does; reads
// counts the reads of the log.
type committingLog struct {
	memLog
	fn    func([]*domain.Event)
	reads int
}

func (c *committingLog) OnCommit(fn func([]*domain.Event)) { c.fn = fn }

func (c *committingLog) EventsSince(ctx context.Context, seq uint64, limit int) ([]*domain.Event, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.memLog.EventsSince(ctx, seq, limit)
}

// commit appends n events and hands them over, unless quietly (a writer that does not).
func (c *committingLog) commit(n int, quietly bool) {
	c.mu.Lock()
	first := len(c.evs)
	c.mu.Unlock()
	c.append(n)
	c.mu.Lock()
	evs := append([]*domain.Event(nil), c.evs[first:]...)
	c.mu.Unlock()
	if !quietly {
		c.fn(evs)
	}
}

// Events handed over as they commit are followed without a read; a commit that was not handed
// over leaves a gap, which the next read fills, and what that read finds again is not repeated.
func TestCommittedEventsNeedNoRead(t *testing.T) {
	st := &committingLog{}
	st.append(2) // before the log opened
	l, err := Open(context.Background(), st, time.Hour, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st.fn == nil {
		t.Fatal("the log did not ask the store for its commits")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []uint64
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		_ = l.Follow(ctx, 2, func(_ context.Context, evs []*domain.Event) error {
			mu.Lock()
			defer mu.Unlock()
			for _, e := range evs {
				got = append(got, e.Seq)
			}
			if len(got) == 4 {
				close(done)
			}
			return nil
		})
	}()
	st.commit(2, false)
	if err := l.WaitFor(ctx, 4); err != nil {
		t.Fatal(err)
	}
	st.mu.Lock()
	reads := st.reads
	st.mu.Unlock()
	if reads != 0 {
		t.Fatalf("%d reads of the store for events handed over", reads)
	}
	st.commit(1, true)  // seq 5, not handed over
	st.commit(1, false) // seq 6 does not follow the head: left to the read
	l.Kick()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the follower did not see every event")
	}
	mu.Lock()
	defer mu.Unlock()
	for i, seq := range got {
		if seq != uint64(i+3) {
			t.Fatalf("followed %v, want 3..6 once each, in order", got)
		}
	}
}

// An urgent event that arrives while a batch is gathering ends the wait: the batch, with it, is
// handed over at once.
func TestUrgentEventEndsTheGathering(t *testing.T) {
	st := &memLog{}
	l, err := Open(context.Background(), st, 10*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	urgent := func(e *domain.Event) bool { return e.Type == domain.EvTotalRecallAdvisory }
	batches := make(chan []*domain.Event, 4)
	go func() {
		_ = l.FollowGathering(ctx, 0, time.Hour, urgent, func(_ context.Context, evs []*domain.Event) error {
			batches <- evs
			return nil
		})
	}()
	st.append(1)
	l.Kick()
	time.Sleep(50 * time.Millisecond) // the follower is gathering (for an hour)
	st.mu.Lock()
	st.evs = append(st.evs, &domain.Event{Seq: 2, Type: domain.EvTotalRecallAdvisory})
	st.mu.Unlock()
	l.Kick()
	select {
	case evs := <-batches:
		if len(evs) != 2 || evs[1].Type != domain.EvTotalRecallAdvisory {
			t.Fatalf("batch %v, want the stored memory and the advisory", evs)
		}
	case <-ctx.Done():
		t.Fatal("the urgent event waited for the gathering to end")
	}
}

// The events kept for subscribers are the newest, at least a window's bytes of them and at most
// twice as many, in order, however many commits hand them over; a follower that starts within
// them reads nothing from the store, one that starts before them reads the rest from the store.
func TestRecentWindow(t *testing.T) {
	st := &committingLog{}
	// Every event of the memLog is a MemoryStored without payload, of the same size.
	size := Size(&domain.Event{Type: domain.EvMemoryStored})
	if size != 380 {
		t.Fatalf("a bare MemoryStored weighs %d bytes, want 380", size)
	}
	const keep = 1000
	l, err := Open(context.Background(), st, time.Hour, keep*size)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const total = 5*keep + 7
	for n := 0; n < total; n += 3 {
		st.commit(min(3, total-n), false)
		l.mu.Lock()
		r, head, bytes := l.recent, l.head, l.bytes
		l.mu.Unlock()
		first, last := r[0].Seq, r[len(r)-1].Seq
		// Seqs are ascending and distinct: len = last-first+1 means contiguous.
		if len(r) > 2*keep || (len(r) < keep && first != 1) || last != head || uint64(len(r)) != last-first+1 || bytes != len(r)*size {
			t.Fatalf("after %d events the window holds %d (%d bytes), %d..%d (head %d)", n+3, len(r), bytes, first, last, head)
		}
	}
	for _, from := range []uint64{total - keep, 10} {
		st.mu.Lock()
		st.reads = 0
		st.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		next := from + 1
		err := l.Follow(ctx, from, func(_ context.Context, evs []*domain.Event) error {
			for _, e := range evs {
				if e.Seq != next {
					t.Errorf("from %d: followed %d, want %d", from, e.Seq, next)
				}
				next++
			}
			if next > total {
				cancel()
			}
			return nil
		})
		cancel()
		if next != total+1 {
			t.Fatalf("from %d: followed up to %d of %d (%v)", from, next-1, total, err)
		}
		st.mu.Lock()
		reads := st.reads
		st.mu.Unlock()
		if (from == total-keep) != (reads == 0) {
			t.Fatalf("from %d: %d reads of the store", from, reads)
		}
	}
}

// An event's size counts what its payload holds: the ids of a bulk's memories make it the size
// of hundreds of small ones, and a window counts them so.
func TestEventSizeCountsPayload(t *testing.T) {
	ids := make([]any, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("%036d", i)
	}
	e := &domain.Event{Type: domain.EvMemoriesIngested, ScopeID: "s1", Payload: map[string]any{"memoryIds": ids}}
	// 320 fixed, 16 + 2 for type and scope, the payload's map (48) with its key (16 + 9) and
	// list (24 + 1000 × (16 + 36)).
	if got, want := Size(e), 320+16+2+48+16+9+24+1000*(16+36); got != want {
		t.Fatalf("Size = %d, want %d", got, want)
	}
}

// BenchmarkPublish is the log's part of a storeMemory's commit (three events handed over under
// the store's write lock) once the window is full.
func BenchmarkPublish(b *testing.B) {
	l := &Log{notify: make(chan struct{}), window: DefaultWindow}
	var seq uint64
	commit := func() {
		evs := make([]*domain.Event, 3)
		for i := range evs {
			seq++
			evs[i] = &domain.Event{Seq: seq}
		}
		l.publish(evs)
	}
	for range 2 * DefaultWindow / Size(&domain.Event{}) {
		commit()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		commit()
	}
}
