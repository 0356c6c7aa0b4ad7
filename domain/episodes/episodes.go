// Package episodes chunks ledger records into episodes by the strategies of seed 001:
//
//	time_gap       {gap_seconds: N, scope: "thread"|"channel"|"all"}  a new episode when the next
//	               event is more than N seconds after the previous one of its group (default
//	               scope thread)
//	thread         {}  one episode per thread
//	single_event   {}  one episode per event
//	turn           {}  a user turn — the sent events that open it — with the replies that follow,
//	               up to the next sent event, per thread
//	agent_turn     {}  one episode per agent turn (its messages)
//	agent_session  {}  one episode per agent session (its messages)
//
// An episode's id is derived from its definition and its first item (or thread, or turn), so
// chunking the same records again yields the same episodes: re-running is idempotent.
package episodes

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Item is what chunking sees of an event or an agent message.
type Item struct {
	ID        string
	Thread    string
	Channel   string
	Time      time.Time
	Seq       int64
	Direction string
	// Turn is the agent turn an agent message belongs to.
	Turn string
}

// EventItems turns ledger events into items.
func EventItems(evs []*domain.LedgerEvent) []Item {
	out := make([]Item, len(evs))
	for i, e := range evs {
		out[i] = Item{ID: e.Memory.ID, Thread: e.ThreadID, Channel: e.Channel, Time: e.Memory.OccurredAt, Seq: e.Seq,
			Direction: e.Direction}
	}
	return out
}

// MessageItems turns agent messages into items, each with its turn. A message without a
// timestamp takes the one before it in its session (or the session's start).
func MessageItems(msgs []*domain.AgentMessage, turns []*domain.AgentTurn, sessions map[string]*domain.AgentSession) []Item {
	turnOf := map[string]string{}
	for _, t := range turns {
		for _, m := range t.MessageIDs {
			turnOf[m] = t.ID
		}
	}
	ordered := append([]*domain.AgentMessage(nil), msgs...)
	sort.SliceStable(ordered, func(i, j int) bool {
		if ordered[i].SessionID != ordered[j].SessionID {
			return ordered[i].SessionID < ordered[j].SessionID
		}
		return ordered[i].Sequence < ordered[j].Sequence
	})
	out := make([]Item, 0, len(ordered))
	last := map[string]time.Time{}
	for _, m := range ordered {
		it := Item{ID: m.ID, Thread: m.SessionID, Seq: int64(m.Sequence), Turn: turnOf[m.ID]}
		if s := sessions[m.SessionID]; s != nil {
			it.Channel = s.Source
			if s.CreatedAt != nil && last[m.SessionID].IsZero() {
				last[m.SessionID] = s.CreatedAt.UTC()
			}
		}
		if m.Timestamp != nil {
			last[m.SessionID] = m.Timestamp.UTC()
		}
		it.Time = last[m.SessionID]
		out = append(out, it)
	}
	return out
}

// Known configuration keys per strategy.
var configKeys = map[domain.EpisodeStrategy][]string{
	domain.StrategyTimeGap: {"gap_seconds", "scope"},
}

// CheckDefinition validates a definition's strategy and configuration.
func CheckDefinition(d *domain.EpisodeDefinition) error {
	if strings.TrimSpace(d.Name) == "" {
		return domain.FieldErrorf("name", "must not be empty")
	}
	if len(d.Name) > domain.MaxNameBytes {
		return domain.FieldErrorf("name", "is longer than %d bytes", domain.MaxNameBytes)
	}
	if !d.Strategy.Valid() {
		return domain.FieldErrorf("strategy", "unknown strategy %q", d.Strategy)
	}
	allowed := map[string]bool{}
	for _, k := range configKeys[d.Strategy] {
		allowed[k] = true
	}
	for k := range d.Config {
		if !allowed[k] {
			return domain.FieldErrorf("config", "strategy %s takes no %q", d.Strategy, k)
		}
	}
	if d.Strategy == domain.StrategyTimeGap {
		gap, ok := d.Config["gap_seconds"].(float64)
		if !ok {
			if n, isInt := d.Config["gap_seconds"].(int); isInt {
				gap, ok = float64(n), true
			}
		}
		if !ok || !(gap > 0) || gap > 10*365*24*3600 {
			return domain.FieldErrorf("config.gap_seconds", "time_gap needs gap_seconds, a number of seconds > 0")
		}
		if sc, ok := d.Config["scope"]; ok {
			s, _ := sc.(string)
			if s != "thread" && s != "channel" && s != "all" {
				return domain.FieldErrorf("config.scope", "must be thread, channel or all")
			}
		}
	}
	return nil
}

func gapOf(d *domain.EpisodeDefinition) time.Duration {
	switch g := d.Config["gap_seconds"].(type) {
	case float64:
		return time.Duration(g * float64(time.Second))
	case int:
		return time.Duration(g) * time.Second
	}
	return 0
}

// Chunk groups items (already filtered to the definition's channel) into episodes.
func Chunk(d *domain.EpisodeDefinition, items []Item, now time.Time) ([]*domain.Episode, error) {
	if err := CheckDefinition(d); err != nil {
		return nil, err
	}
	items = append([]Item(nil), items...)
	if d.Channel != "" {
		kept := items[:0]
		for _, it := range items {
			if it.Channel == d.Channel {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	group := func(it Item) string { return it.Thread }
	if d.Strategy == domain.StrategyTimeGap {
		switch d.Config["scope"] {
		case "channel":
			group = func(it Item) string { return it.Channel }
		case "all":
			group = func(Item) string { return "" }
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ga, gb := group(a), group(b); ga != gb {
			return ga < gb
		}
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.ID < b.ID
	})
	var out []*domain.Episode
	emit := func(key string, list []Item) {
		if len(list) == 0 {
			return
		}
		e := &domain.Episode{ID: domain.DeriveID(d.ScopeID, "episode", d.ID, key), ScopeID: d.ScopeID, DefinitionID: d.ID,
			Channel: d.Channel, StartTime: list[0].Time, EndTime: list[0].Time, EventCount: len(list),
			FirstEventID: list[0].ID, LastEventID: list[len(list)-1].ID, CreatedAt: now}
		threads := map[string]bool{}
		channels := map[string]bool{}
		for _, it := range list {
			e.Items = append(e.Items, it.ID)
			if it.Time.Before(e.StartTime) {
				e.StartTime = it.Time
			}
			if it.Time.After(e.EndTime) {
				e.EndTime = it.Time
			}
			threads[it.Thread] = true
			channels[it.Channel] = true
		}
		if len(threads) == 1 {
			e.ThreadID = list[0].Thread
		}
		if e.Channel == "" && len(channels) == 1 {
			e.Channel = list[0].Channel
		}
		out = append(out, e)
	}
	switch d.Strategy {
	case domain.StrategySingleEvent:
		for _, it := range items {
			emit(it.ID, []Item{it})
		}
	case domain.StrategyThread, domain.StrategyAgentSession:
		for start := 0; start < len(items); {
			end := start
			for end < len(items) && items[end].Thread == items[start].Thread {
				end++
			}
			emit("thread:"+items[start].Thread, items[start:end])
			start = end
		}
	case domain.StrategyTimeGap:
		gap := gapOf(d)
		for start := 0; start < len(items); {
			end := start + 1
			for end < len(items) && group(items[end]) == group(items[start]) && items[end].Time.Sub(items[end-1].Time) <= gap {
				end++
			}
			emit(group(items[start])+"|"+items[start].ID, items[start:end])
			start = end
		}
	case domain.StrategyTurn:
		for start := 0; start < len(items); {
			end := start + 1
			opened := items[start].Direction == domain.DirectionSent
			for end < len(items) && items[end].Thread == items[start].Thread {
				if items[end].Direction == domain.DirectionSent && (!opened || items[end-1].Direction != domain.DirectionSent) {
					break
				}
				end++
			}
			emit("turn|"+items[start].ID, items[start:end])
			start = end
		}
	case domain.StrategyAgentTurn:
		byTurn := map[string][]Item{}
		var order []string
		for _, it := range items {
			if it.Turn == "" {
				continue
			}
			if _, ok := byTurn[it.Turn]; !ok {
				order = append(order, it.Turn)
			}
			byTurn[it.Turn] = append(byTurn[it.Turn], it)
		}
		for _, t := range order {
			emit("turn:"+t, byTurn[t])
		}
	default:
		return nil, fmt.Errorf("strategy %s: no chunker", d.Strategy)
	}
	return out, nil
}
