package graph

import (
	"encoding/json"

	"github.com/totalrecall/totalrecall/domain"
)

// A pack is one node holding a run of read events (domain.ReadEvents) of one write, one scope
// and one request: a search's SearchQuery, MemoryMatchRequest and MemoryAccessed messages, the
// SalienceScored messages of its retrievals. Each event of its own node wrote a dozen keys of
// the engine — its values and the index entries of its Seq, message id, memory, request and
// scope — and a search's twenty-odd messages were most of what a search cost the server. A
// pack writes its values once, one Seq entry (its first), one request and scope entry, and one
// entry per memory it names (ev.memories). Its events keep their own Seqs (from ev.seq on,
// ev.count of them), types, message ids, memories and bodies, in ev.pack; every read of the log
// returns them as events of their own (eventNode.events).
//
// What a pack gives up: its message ids are not indexed (read events are never looked up by
// message: no context records touches of them after their write), and a read of the log from a
// Seq inside a pack looks back up to maxPack Seqs for the pack that holds it.
const (
	maxPack  = 64
	packType = "Pack"
)

// packItem is one event of a pack: what eventJSON writes as predicates of its own node (but its
// scope, request and Seq, which the pack's node holds), and its body as renderEvent rendered it.
type packItem struct {
	Type      string          `json:"t"`
	MessageID string          `json:"id"`
	Memory    string          `json:"m,omitempty"`
	Body      json.RawMessage `json:"b"`
}

// packable says whether ev may share a node with the events next to it: a read event about
// no further artifact (those have pages, see aboutPages), with no notice, and a rendered body
// (renderEvent leaves it empty only where the payload has no JSON).
func packable(ev *domain.Event, r *renderedEvent) bool {
	return domain.IsReadEvent(ev.Type) && len(ev.About) == 0 && !ev.Type.IsNotification() &&
		r != nil && r.body != ""
}

// packRun is how many events from evs[0] on make one pack (at most maxPack): evs[0] and those
// after it that are packable, free (free(k): evs[k] has no node made ahead of the write) and of
// its scope and request. 1 means no pack.
func packRun(evs []*domain.Event, rendered []*renderedEvent, free func(k int) bool) int {
	if !packable(evs[0], rendered[0]) || !free(0) {
		return 1
	}
	n := 1
	for n < len(evs) && n < maxPack && packable(evs[n], rendered[n]) && free(n) &&
		evs[n].ScopeID == evs[0].ScopeID && evs[n].Context.RequestID == evs[0].Context.RequestID {
		n++
	}
	return n
}

// eventPackJSON is the node of a pack of evs (their Seqs consecutive from evs[0]'s), their bodies
// rendered.
func eventPackJSON(uid string, evs []*domain.Event, rendered []*renderedEvent) map[string]any {
	items := make([]packItem, len(evs))
	var mems []string
	seen := map[string]bool{}
	for i, ev := range evs {
		items[i] = packItem{Type: string(ev.Type), MessageID: ev.Context.MessageID, Memory: ev.MemoryID, Body: json.RawMessage(rendered[i].body)}
		if ev.MemoryID != "" && !seen[ev.MemoryID] {
			seen[ev.MemoryID] = true
			mems = append(mems, ev.MemoryID)
		}
	}
	raw, _ := json.Marshal(items) // bodies are rendered JSON (packable)
	obj := map[string]any{
		"uid": uid, "tr.scope": evs[0].ScopeID, "ev.seq": evs[0].Seq, "ev.type": packType, "ev.count": len(evs),
		"ev.requestId": evs[0].Context.RequestID, "ev.pack": string(raw),
	}
	if len(mems) > 0 {
		obj["ev.memories"] = mems
	}
	return obj
}

// events returns the events n holds: itself, or a pack's (each with its own Seq), or, of an
// erased pack, an Erased event for each Seq it held.
func (n *eventNode) events() []*domain.Event {
	switch {
	case n.Pack != "":
		var items []packItem
		if err := json.Unmarshal([]byte(n.Pack), &items); err != nil {
			return nil
		}
		out := make([]*domain.Event, len(items))
		for i, it := range items {
			e := eventNode{UID: n.UID, Scope: n.Scope, Seq: n.Seq + uint64(i), Type: it.Type, Memory: it.Memory,
				RequestID: n.RequestID, MessageID: it.MessageID, Body: string(it.Body)}
			out[i] = e.event()
		}
		return out
	case n.Count > 1 && n.Type == string(domain.EvErased):
		out := make([]*domain.Event, n.Count)
		for i := range out {
			e := eventNode{UID: n.UID, Seq: n.Seq + uint64(i), Type: n.Type}
			out[i] = e.event()
		}
		return out
	default:
		return []*domain.Event{n.event()}
	}
}

// last is the Seq of the last event n holds.
func (n *eventNode) last() uint64 {
	if n.Count > 1 {
		return n.Seq + uint64(n.Count) - 1
	}
	return n.Seq
}
