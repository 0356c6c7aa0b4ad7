package graph

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/uuid"

	"github.com/totalrecall/totalrecall/domain"
)

// The notification queue. Every notification addressed to a mind instance (a SessionAuditPrompt,
// BreakNotification or TotalRecallNotification whose payload names an instanceId) gets a Notice
// node in the commit that writes the notification itself, so none is lost when no subscriber
// listens: the instance's next hook, another process talking through the server, takes them.
// Taking deletes the notices; the notifications stay in the event log.

func init() {
	schemaParts = append(schemaParts, `
notice.instance: string @index(exact) .
notice.message: string .
notice.seq: int .

type Notice {
  tr.kind
  tr.id
  tr.scope
  notice.instance
  notice.message
  notice.seq
}`)
}

const kindNotice = "Notice"

// MaxTakenNotifications caps the notifications one take hands over; the rest stay queued.
const MaxTakenNotifications = 100

var _ domain.NotificationQueue = (*Store)(nil)

// noticeJSON is the Notice of the i-th event of a write, nil when the event is no notification
// for an instance.
func noticeJSON(i int, ev *domain.Event) map[string]any {
	if !ev.Type.IsNotification() || ev.ScopeID == "" {
		return nil
	}
	inst, _ := ev.Payload["instanceId"].(string)
	if inst == "" {
		return nil
	}
	return map[string]any{"uid": fmt.Sprintf("_:notice%d", i), "dgraph.type": kindNotice, "tr.kind": kindNotice,
		"tr.id": noticeID(inst, ev.Context.MessageID), "tr.scope": ev.ScopeID, "notice.instance": inst,
		"notice.message": ev.Context.MessageID, "notice.seq": ev.Seq}
}

// noticeNamespace makes the ids of notices: a notice is named by its instance and its
// notification, so an export and an import carry it as every other record (by its id).
var noticeNamespace = uuid.MustParse("0c6f3f1e-8a47-4d59-b2f4-3e9a51d7c2a6")

func noticeID(instanceID, messageID string) string {
	return uuid.NewSHA1(noticeNamespace, []byte(instanceID+"\x00"+messageID)).String()
}

type noticeNode struct {
	UID     string `json:"uid"`
	Message string `json:"notice.message"`
	Seq     uint64 `json:"notice.seq"`
}

const noticeQuery = `query q($i: string, $s: string) {
  q(func: eq(notice.instance, $i)) @filter(eq(tr.kind, "Notice") AND eq(tr.scope, $s)) { uid notice.message notice.seq }
}`

// QueuedNotifications returns the notifications queued for instanceID in scopeID, oldest first,
// at most MaxTakenNotifications. It changes nothing.
func (s *Store) QueuedNotifications(ctx context.Context, instanceID, scopeID string) ([]*domain.Event, error) {
	var r struct {
		Q []noticeNode `json:"q"`
	}
	if err := s.read(ctx, noticeQuery, map[string]string{"$i": instanceID, "$s": scopeID}, &r); err != nil {
		return nil, err
	}
	ns := oldestNotices(r.Q)
	if len(ns) == 0 {
		return []*domain.Event{}, nil
	}
	var er struct {
		Q []eventNode `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: eq(ev.messageId, `+idList(noticeMessages(ns))+`)) { `+eventFields+` } }`, nil, &er); err != nil {
		return nil, err
	}
	return noticeEvents(ns, er.Q), nil
}

// TakeNotifications hands over the notifications queued for instanceID in scopeID (oldest first,
// at most MaxTakenNotifications) and removes them from the queue, in one write: two takers never
// both get one. Notices whose notification is gone are dropped.
func (s *Store) TakeNotifications(ctx context.Context, instanceID, scopeID string) ([]*domain.Event, error) {
	// Mostly there is nothing to take: a read says so without the write lock.
	var peek struct {
		Q []noticeNode `json:"q"`
	}
	if err := s.read(ctx, noticeQuery, map[string]string{"$i": instanceID, "$s": scopeID}, &peek); err != nil {
		return nil, err
	}
	if len(peek.Q) == 0 {
		return []*domain.Event{}, nil
	}
	return write(ctx, s, nil, func(t *tx) ([]*domain.Event, error) {
		var r struct {
			Q []noticeNode `json:"q"`
		}
		if err := t.query(noticeQuery, map[string]string{"$i": instanceID, "$s": scopeID}, &r); err != nil {
			return nil, err
		}
		ns := oldestNotices(r.Q)
		if len(ns) == 0 {
			return []*domain.Event{}, nil
		}
		var er struct {
			Q []eventNode `json:"q"`
		}
		if err := t.query(`{ q(func: eq(ev.messageId, `+idList(noticeMessages(ns))+`)) { `+eventFields+` } }`, nil, &er); err != nil {
			return nil, err
		}
		for _, n := range ns {
			t.del(noticeDel(n.UID))
		}
		return noticeEvents(ns, er.Q), nil
	})
}

// DequeueNotifications removes the notifications with the given message ids from instanceID's
// queue (a push delivered them); it returns how many were queued.
func (s *Store) DequeueNotifications(ctx context.Context, instanceID string, messageIDs []string) (int, error) {
	ids := make([]string, 0, len(messageIDs))
	for _, id := range messageIDs {
		if domain.ValidID(id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return write(ctx, s, nil, func(t *tx) (int, error) {
		var r struct {
			Q []noticeNode `json:"q"`
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		if err := t.query(`query q($i: string) { q(func: eq(notice.instance, $i)) @filter(eq(tr.kind, "Notice")) { uid notice.message notice.seq } }`,
			map[string]string{"$i": instanceID}, &r); err != nil {
			return 0, err
		}
		n := 0
		for _, x := range r.Q {
			if want[x.Message] {
				t.del(noticeDel(x.UID))
				n++
			}
		}
		return n, nil
	})
}

// noticeDel deletes a notice node whole.
func noticeDel(uid string) map[string]any { return map[string]any{"uid": uid} }

func oldestNotices(ns []noticeNode) []noticeNode {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Seq < ns[j].Seq })
	if len(ns) > MaxTakenNotifications {
		ns = ns[:MaxTakenNotifications]
	}
	return ns
}

func noticeMessages(ns []noticeNode) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Message
	}
	return out
}

// noticeEvents returns the events of the notices, in the notices' order.
func noticeEvents(ns []noticeNode, evs []eventNode) []*domain.Event {
	byMsg := make(map[string]*eventNode, len(evs))
	for i := range evs {
		byMsg[evs[i].MessageID] = &evs[i]
	}
	out := make([]*domain.Event, 0, len(ns))
	for _, n := range ns {
		if e := byMsg[n.Message]; e != nil {
			out = append(out, e.event())
		}
	}
	return out
}
