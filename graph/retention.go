package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hypermodeinc/dgraph/v25/tok"
	"github.com/hypermodeinc/dgraph/v25/x"

	"github.com/totalrecall/totalrecall/domain"
)

// pruneCounterID is the tr.id of the node holding the Seq up to which the log has been pruned
// of its old read events (domain.EventPruner).
const pruneCounterID = "counter:events-pruned"

// PruneEvents deletes the read events (domain.ReadEvents) older than before from the log, a
// page at a time from its watermark (see domain.EventPruner). A pruned event is deleted whole —
// its Seq too, so the log has a hole there, as EventsSince allows — and the watermark moves in
// the same write. The events' times are those of their bodies; the scan stops at the first read
// event at or after before, which is where the next call starts. A pack (see pack.go) goes whole
// or not at all: its watermark moves past its last event, and it stays while any of its events
// is young or beyond upTo.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, upTo uint64, page int) (domain.PruneResult, error) {
	if page <= 0 {
		page = 1000
	}
	var pruned []eventNode
	res, err := write(ctx, s, nil, func(t *tx) (domain.PruneResult, error) {
		pruned = pruned[:0]
		var c struct {
			C []struct {
				UID   string `json:"uid"`
				Value uint64 `json:"counter.value"`
			} `json:"c"`
		}
		if err := t.query(`query q($c: string) { c(func: eq(tr.id, $c)) { uid counter.value } }`,
			map[string]string{"$c": pruneCounterID}, &c); err != nil {
			return domain.PruneResult{}, err
		}
		var res domain.PruneResult
		uid := "_:pruned"
		if len(c.C) > 0 {
			uid, res.Watermark = c.C[0].UID, c.C[0].Value
		}
		if res.Watermark >= upTo {
			return res, nil
		}
		hi := min(upTo, res.Watermark+uint64(page))
		var r struct {
			Q []struct {
				eventNode
				Kind     string   `json:"tr.kind"`
				Memories []string `json:"ev.memories"`
			} `json:"q"`
		}
		if err := t.query(fmt.Sprintf(`{ q(func: between(ev.seq, %d, %d)) { %s tr.kind ev.memories } }`,
			res.Watermark+1, hi, eventFields), nil, &r); err != nil {
			return domain.PruneResult{}, err
		}
		sort.Slice(r.Q, func(i, j int) bool { return r.Q[i].Seq < r.Q[j].Seq })
		next := hi
		for _, n := range r.Q {
			if !domain.IsReadEvent(domain.EventType(n.Type)) && n.Pack == "" {
				continue
			}
			evs := n.events()
			// A pack goes whole, once its last event is within the bound and old.
			if n.last() > upTo || !olderThan(evs, before) {
				next = n.Seq - 1
				break
			}
			res.Deleted += len(evs)
			next = max(next, n.last())
			// Each value is named: a delete of a whole predicate reads it first (and would make
			// the read cache drop everything for tr.scope and tr.kind).
			del := map[string]any{"uid": n.UID, "ev.seq": n.Seq, "ev.type": n.Type}
			for p, v := range map[string]string{"tr.scope": n.Scope, "tr.kind": n.Kind, "ev.memory": n.Memory,
				"ev.requestId": n.RequestID, "ev.messageId": n.MessageID, "ev.body": n.Body, "ev.pack": n.Pack} {
				if v != "" {
					del[p] = v
				}
			}
			if len(n.Touches) > 0 {
				del["ev.touches"] = n.Touches
			}
			if n.Count > 0 {
				del["ev.count"] = n.Count
			}
			if len(n.Memories) > 0 {
				del["ev.memories"] = n.Memories
			}
			pruned = append(pruned, n.eventNode)
			t.del(del)
		}
		for _, n := range r.Q {
			if n.Seq <= next {
				res.Scanned += max(1, n.Count)
			}
		}
		res.More = next >= hi && next < upTo
		if next == res.Watermark {
			return res, nil
		}
		res.Watermark = next
		counter := map[string]any{"uid": uid, "counter.value": next}
		if uid == "_:pruned" {
			counter["dgraph.type"] = kindCounter
			counter["tr.kind"] = kindCounter
			counter["tr.id"] = pruneCounterID
		}
		t.set(counter)
		return res, nil
	})
	if err != nil || len(pruned) == 0 {
		return res, err
	}
	if e, ok := s.b.(*embeddedBackend); ok {
		// The embedded engine rolls up only the lists reads find with several deltas, and only a
		// rolled-up or deleted list lets compactions drop what it held: the lists the write
		// emptied are deleted now, or their values would stay on disk for good.
		if err := e.dropEmptied(emptiedKeys(pruned)); err != nil {
			return res, fmt.Errorf("drop the pruned events' lists: %w", err)
		}
	}
	return res, nil
}

// olderThan says whether every event of evs is from before before (the time of its body).
func olderThan(evs []*domain.Event, before time.Time) bool {
	for _, e := range evs {
		if !e.Context.Timestamp.Before(before) {
			return false
		}
	}
	return true
}

// emptiedKeys are the engine's keys a prune of evs leaves empty: each event's values, and the
// index entries only it had (its Seq and message id). A request's index entry, the memory's and
// the scope's hold other events too; reads roll them up as they gather deltas.
func emptiedKeys(evs []eventNode) [][]byte {
	intTok, _ := tok.GetTokenizer("int")
	exactTok, _ := tok.GetTokenizer("exact")
	attr := func(p string) string { return x.NamespaceAttr(x.RootNamespace, p) }
	var keys [][]byte
	for _, n := range evs {
		uid, err := strconv.ParseUint(strings.TrimPrefix(n.UID, "0x"), 16, 64)
		if err != nil {
			continue
		}
		for _, p := range append([]string{"tr.kind", "ev.seq", "ev.type", "ev.count"}, eventPredicates...) {
			keys = append(keys, x.DataKey(attr(p), uid))
		}
		if toks, err := tok.BuildTokens(int64(n.Seq), intTok); err == nil {
			for _, k := range toks {
				keys = append(keys, x.IndexKey(attr("ev.seq"), k))
			}
		}
		if toks, err := tok.BuildTokens(n.MessageID, exactTok); err == nil && n.MessageID != "" {
			for _, k := range toks {
				keys = append(keys, x.IndexKey(attr("ev.messageId"), k))
			}
		}
	}
	return keys
}
