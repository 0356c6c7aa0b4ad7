package eventlog

import (
	"context"
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
		l, err := Open(context.Background(), st, 10*time.Millisecond)
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
