package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// AppendEvents persists events that change no record.
func (s *Store) AppendEvents(ctx context.Context, events []*domain.Event) error {
	if len(events) == 0 {
		return nil
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		t.emit(events...)
		return struct{}{}, nil
	})
	return err
}

// RecordTouches adds touches to persisted messages. Touches of unknown messages are dropped.
func (s *Store) RecordTouches(ctx context.Context, touches map[string][]domain.Touch) error {
	if len(touches) == 0 {
		return nil
	}
	ids := make([]string, 0, len(touches))
	for id := range touches {
		ids = append(ids, id)
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		var r struct {
			Q []struct {
				UID string `json:"uid"`
				ID  string `json:"ev.messageId"`
			} `json:"q"`
		}
		if err := t.query(`{ q(func: eq(ev.messageId, `+idList(ids)+`)) { uid ev.messageId } }`, nil, &r); err != nil {
			return struct{}{}, err
		}
		for _, n := range r.Q {
			vals := []string{}
			for _, tc := range touches[n.ID] {
				vals = append(vals, touchValue(tc))
			}
			t.set(map[string]any{"uid": n.UID, "ev.touches": vals})
		}
		return struct{}{}, nil
	})
	return err
}

func (s *Store) events(ctx context.Context, q string, vars map[string]string) ([]*domain.Event, error) {
	var r struct {
		Q []eventNode `json:"q"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.Event, 0, len(r.Q))
	for i := range r.Q {
		out = append(out, r.Q[i].events()...)
	}
	return out, nil
}

// EventsSince returns up to limit events with Seq > seq, in Seq order. Seq is assigned without
// gaps, but deleting a scope deletes its events, so the log may have holes: the events are read
// as ranges of Seq on the index, up to the committed head, and sorted here — asking Dgraph to
// sort would walk the whole ev.seq index on every call.
func (s *Store) EventsSince(ctx context.Context, seq uint64, limit int) ([]*domain.Event, error) {
	if limit <= 0 {
		limit = 1000
	}
	head, err := s.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	var out []*domain.Event
	for lo := seq + 1; lo <= head && len(out) < limit; {
		hi := min(head, lo+uint64(limit-len(out))-1)
		q := fmt.Sprintf(`q(func: between(ev.seq, %d, %d)) { %s }`, lo, hi, eventFields)
		if lo > 1 {
			// A pack that begins before lo may hold events from lo on.
			q += fmt.Sprintf(` p(func: between(ev.seq, %d, %d)) @filter(has(ev.count)) { %s }`,
				max(1, int64(lo)-maxPack+1), lo-1, eventFields)
		}
		var r struct {
			Q []eventNode `json:"q"`
			P []eventNode `json:"p"`
		}
		if err := s.read(ctx, `{ `+q+` }`, nil, &r); err != nil {
			return nil, err
		}
		for _, n := range append(r.P, r.Q...) {
			if n.last() < lo {
				continue
			}
			for _, e := range n.events() {
				if e.Seq >= lo && e.Seq <= hi {
					out = append(out, e)
				}
			}
		}
		lo = hi + 1
	}
	sortBySeq(out)
	return out, nil
}

func sortBySeq(evs []*domain.Event) {
	sort.Slice(evs, func(i, j int) bool { return evs[i].Seq < evs[j].Seq })
}

// LastSeq returns the Seq of the newest event. The embedded engine's one writer knows it
// without asking.
func (s *Store) LastSeq(ctx context.Context) (uint64, error) {
	if s.embedded {
		return s.published.Load(), nil
	}
	seq, _, err := s.counter(ctx)
	return seq, err
}

func (s *Store) counter(ctx context.Context) (uint64, string, error) {
	var r struct {
		Q []struct {
			UID   string `json:"uid"`
			Value uint64 `json:"counter.value"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) { uid counter.value } }`,
		map[string]string{"$id": eventCounterID}, &r); err != nil {
		return 0, "", err
	}
	if len(r.Q) == 0 {
		return 0, "", nil
	}
	return r.Q[0].Value, r.Q[0].UID, nil
}

// MemoryEvents returns the events about one memory or other artifact, in Seq order: those with
// its id in ev.memory, those of packs naming it in ev.memories, and those whose pages name it in
// ev.about (see aboutPages), each of these returned with that MemoryID and the payload its page
// holds for the artifact.
func (s *Store) MemoryEvents(ctx context.Context, memoryID string) ([]*domain.Event, error) {
	return s.allEvents(ctx, "ev.memory", memoryID, true)
}

// RequestEvents returns every message of one request, in Seq order.
func (s *Store) RequestEvents(ctx context.Context, requestID string) ([]*domain.Event, error) {
	return s.allEvents(ctx, "ev.requestId", requestID, false)
}

// allEvents returns the events whose pred equals value, in Seq order, and with about those
// about value by a page (see aboutPages). It reads the matching uids (direct and through
// pages) in one query and both kinds of event by uid lists of a page each, then sorts here:
// Dgraph caps sorted results at 1000 nodes.
func (s *Store) allEvents(ctx context.Context, pred, value string, about bool) ([]*domain.Event, error) {
	var ids struct {
		Q []struct {
			UID string `json:"uid"`
		} `json:"q"`
		P []struct {
			UID string `json:"uid"`
		} `json:"p"`
		A []struct {
			Doc string     `json:"ev.aboutDoc"`
			Of  uidRefJSON `json:"ev.of"`
		} `json:"a"`
	}
	q := fmt.Sprintf(`q(func: eq(%s, $v)) { uid }`, pred)
	if about {
		q += ` p(func: eq(ev.memories, $v)) { uid } a(func: eq(ev.about, $v)) { ev.aboutDoc ev.of { uid } }`
	}
	if err := s.read(ctx, `query q($v: string) { `+q+` }`, map[string]string{"$v": value}, &ids); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(ids.Q)+len(ids.A))
	var uids, aboutUIDs []string
	for _, n := range append(ids.Q, ids.P...) {
		if !seen[n.UID] {
			seen[n.UID] = true
			uids = append(uids, n.UID)
		}
	}
	docs := make(map[string]string, len(ids.A))
	for _, p := range ids.A {
		if uid := string(p.Of); uid != "" && !seen[uid] {
			seen[uid] = true
			aboutUIDs = append(aboutUIDs, uid)
			docs[uid] = p.Doc
		}
	}
	out := make([]*domain.Event, 0, len(uids)+len(aboutUIDs))
	if err := s.eventsByUID(ctx, uids, func(n *eventNode) {
		for _, e := range n.events() {
			// A pack holds other memories' events too, and a memory's history is its own.
			if !about || e.MemoryID == value {
				out = append(out, e)
			}
		}
	}); err != nil {
		return nil, err
	}
	// An event about several artifacts: as the event about this one, with its payload.
	if err := s.eventsByUID(ctx, aboutUIDs, func(n *eventNode) {
		ev := n.event()
		ev.MemoryID = value
		if pl := aboutPayload(docs[n.UID], value); pl != nil {
			ev.Payload = pl
		}
		out = append(out, ev)
	}); err != nil {
		return nil, err
	}
	sortBySeq(out)
	return out, nil
}

// uidRefJSON decodes the uid of a uid predicate's target, which Dgraph answers as one object
// or as a list of one.
type uidRefJSON string

func (u *uidRefJSON) UnmarshalJSON(b []byte) error {
	type ref struct {
		UID string `json:"uid"`
	}
	var one ref
	if err := json.Unmarshal(b, &one); err == nil {
		*u = uidRefJSON(one.UID)
		return nil
	}
	var many []ref
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	if len(many) > 0 {
		*u = uidRefJSON(many[0].UID)
	}
	return nil
}

// eventsByUID reads the event nodes of uids, a page of uids per query.
func (s *Store) eventsByUID(ctx context.Context, uids []string, fn func(*eventNode)) error {
	const page = 1000
	for lo := 0; lo < len(uids); lo += page {
		chunk := uids[lo:min(lo+page, len(uids))]
		var r struct {
			Q []eventNode `json:"q"`
		}
		if err := s.read(ctx, fmt.Sprintf(`{ q(func: uid(%s)) @filter(has(ev.type)) { %s } }`,
			strings.Join(chunk, ","), eventFields), nil, &r); err != nil {
			return err
		}
		for i := range r.Q {
			fn(&r.Q[i])
		}
	}
	return nil
}
