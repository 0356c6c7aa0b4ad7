package storetest

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The notification queue (domain.NotificationQueue): a notification for a mind instance is
// queued in the commit that writes it, handed over once, and gone with its scope.

func noticeTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	wrap := func(fn func(*testing.T, domain.Store, domain.NotificationQueue)) func(*testing.T, domain.Store) {
		return func(t *testing.T, st domain.Store) {
			q, ok := st.(domain.NotificationQueue)
			if !ok {
				t.Fatal("the store does not implement domain.NotificationQueue")
			}
			fn(t, st, q)
		}
	}
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"NotificationQueueTakeOnce", wrap(testNoticeTakeOnce)},
		{"NotificationQueueConcurrentTakers", wrap(testNoticeConcurrentTakers)},
		{"NotificationQueueGoesWithScope", wrap(testNoticeGoesWithScope)},
		{"InstanceSessionsRead", wrap(testInstanceSessions)},
	}
}

func notification(typ domain.EventType, scope, instance string) *domain.Event {
	e := ev(typ, scope, "")
	e.Payload = map[string]any{"instanceId": instance, "prompt": "what do you refuse to lose?"}
	return e
}

func messageIDs(evs []*domain.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID()
	}
	return out
}

func testNoticeTakeOnce(t *testing.T, st domain.Store, q domain.NotificationQueue) {
	ctx := context.Background()
	sc, other := mustScope(t, st), mustScope(t, st)
	for i, inst := range Nasty {
		inst := fmt.Sprintf("%s %d", inst, i)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			a := notification(domain.NtSessionAuditPrompt, sc.ID, inst)
			b := notification(domain.NtBreakNotification, sc.ID, inst)
			c := notification(domain.NtTotalRecallNotification, sc.ID, inst)
			elsewhere := notification(domain.NtBreakNotification, other.ID, inst)
			otherInst := notification(domain.NtBreakNotification, sc.ID, inst+"-other")
			noInst := notification(domain.NtTotalRecallNotification, sc.ID, "")
			notNotice := ev(domain.EvMemoryStored, sc.ID, "")
			notNotice.Payload = map[string]any{"instanceId": inst}
			// Two commits: the queue keeps commit order.
			if err := st.AppendEvents(ctx, []*domain.Event{a, elsewhere, noInst, notNotice}); err != nil {
				t.Fatal(err)
			}
			if err := st.AppendEvents(ctx, []*domain.Event{b, otherInst, c}); err != nil {
				t.Fatal(err)
			}
			want := []string{a.ID(), b.ID(), c.ID()}
			peek, err := q.QueuedNotifications(ctx, inst, sc.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := messageIDs(peek); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("queued = %v, want %v", got, want)
			}
			if peek[0].Type != domain.NtSessionAuditPrompt || peek[0].Payload["instanceId"] != inst ||
				peek[0].Payload["prompt"] != "what do you refuse to lose?" || peek[0].ScopeID != sc.ID {
				t.Fatalf("queued notification = %+v", peek[0])
			}
			// Peeking hands nothing over.
			taken, err := q.TakeNotifications(ctx, inst, sc.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := messageIDs(taken); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("taken = %v, want %v", got, want)
			}
			if again, err := q.TakeNotifications(ctx, inst, sc.ID); err != nil || len(again) != 0 {
				t.Fatalf("second take = %v, %v; want none", messageIDs(again), err)
			}
			// The other scope's and the other instance's stay queued; dequeue removes by id once.
			n, err := q.DequeueNotifications(ctx, inst, []string{elsewhere.ID(), domain.NewID(), "junk"})
			if err != nil || n != 1 {
				t.Fatalf("dequeue = %d, %v; want 1", n, err)
			}
			if n, err := q.DequeueNotifications(ctx, inst, []string{elsewhere.ID()}); err != nil || n != 0 {
				t.Fatalf("second dequeue = %d, %v; want 0", n, err)
			}
			if left, err := q.QueuedNotifications(ctx, inst+"-other", sc.ID); err != nil || fmt.Sprint(messageIDs(left)) != fmt.Sprint([]string{otherInst.ID()}) {
				t.Fatalf("other instance's queue = %v, %v", messageIDs(left), err)
			}
		})
	}
}

func testNoticeConcurrentTakers(t *testing.T, st domain.Store, q domain.NotificationQueue) {
	ctx := context.Background()
	sc := mustScope(t, st)
	inst := "instance-" + domain.NewID()
	var want []string
	for i := 0; i < 5; i++ {
		var evs []*domain.Event
		for j := 0; j < 4; j++ {
			e := notification(domain.NtBreakNotification, sc.ID, inst)
			evs = append(evs, e)
			want = append(want, e.ID())
		}
		if err := st.AppendEvents(ctx, evs); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			evs, err := q.TakeNotifications(ctx, inst, sc.ID)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got = append(got, messageIDs(evs)...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("eight takers got %d notifications %v, want each of %d once", len(got), got, len(want))
	}
}

func testNoticeGoesWithScope(t *testing.T, st domain.Store, q domain.NotificationQueue) {
	ctx := context.Background()
	ls, ok := st.(domain.LifecycleStore)
	if !ok {
		t.Skip("the store cannot delete scopes")
	}
	sc := mustScope(t, st)
	inst := "instance-" + domain.NewID()
	if err := st.AppendEvents(ctx, []*domain.Event{notification(domain.NtSessionAuditPrompt, sc.ID, inst)}); err != nil {
		t.Fatal(err)
	}
	if _, err := ls.DeleteScope(ctx, domain.Request{}, sc.ID, func(*domain.ScopeDeletion) []*domain.Event { return nil }); err != nil {
		t.Fatal(err)
	}
	if left, err := q.QueuedNotifications(ctx, inst, sc.ID); err != nil || len(left) != 0 {
		t.Fatalf("queue after the scope's deletion = %v, %v; want none", messageIDs(left), err)
	}
}

// testInstanceSessions: a mind instance's active sessions, read without the write lock.
func testInstanceSessions(t *testing.T, st domain.Store, _ domain.NotificationQueue) {
	ctx := context.Background()
	ls, ok := st.(domain.LivingStore)
	r, ok2 := st.(domain.InstanceSessions)
	if !ok || !ok2 {
		t.Fatal("the store does not implement domain.LivingStore and domain.InstanceSessions")
	}
	sc := mustScope(t, st)
	inst := `inst "quoted" <_:x> ` + domain.NewID()
	sess := &domain.Session{ID: domain.NewID(), ScopeID: sc.ID, InstanceID: inst, MindType: "claude-code",
		StartedAt: t0, LastHeartbeatAt: t0, Mode: domain.ModeConversation, ModeSince: t0}
	if err := ls.UpdateSessions(ctx, nil, inst, func([]*domain.Session) (*domain.Changes, any, error) {
		return &domain.Changes{Sessions: []*domain.Session{sess}}, nil, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := r.ActiveSessionsOf(ctx, inst)
	if err != nil || len(got) != 1 || got[0].ID != sess.ID || got[0].InstanceID != inst || got[0].Mode != domain.ModeConversation {
		t.Fatalf("ActiveSessionsOf = %+v, %v", got, err)
	}
	if other, err := r.ActiveSessionsOf(ctx, inst+"-other"); err != nil || len(other) != 0 {
		t.Fatalf("another instance: %+v, %v", other, err)
	}
	ended := sess.Clone()
	at := t0.Add(time.Minute)
	ended.EndedAt, ended.EndReason = &at, domain.EndExplicit
	if err := ls.UpdateSessions(ctx, nil, inst, func([]*domain.Session) (*domain.Changes, any, error) {
		return &domain.Changes{Sessions: []*domain.Session{ended}}, nil, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := r.ActiveSessionsOf(ctx, inst); err != nil || len(got) != 0 {
		t.Fatalf("after the end: %+v, %v", got, err)
	}
}
