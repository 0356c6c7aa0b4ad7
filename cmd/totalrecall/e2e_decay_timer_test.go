package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
)

// TestDecayTimer: with `serve --decay-interval` set, the Subconscious sweeps every scope on its
// own — nobody asks for a sweep — and a memory left alone for a simulated year sinks, its
// demotion traced back to the Subconscious's DecaySweep command.
func TestDecayTimer(t *testing.T) {
	var clock offsetClock
	sf := storeFlags{store: "file://" + t.TempDir(), now: clock.now,
		living: cortex.LivingConfig{Subconscious: subconscious.Config{DecayInterval: 100 * time.Millisecond}}}
	s := startServer(t, sf)
	defer s.stop(t)
	scope, _, _ := s.createScope(t, "left alone")
	rid := "timer-" + runID
	m := s.store(t, map[string]any{"scopeId": scope, "content": "a memory nobody comes back to",
		"suggestedTier": "ACTIVE_CONTEXT", "requestId": rid})
	eventually(t, func() string {
		var tr struct {
			Trace struct{ Messages []struct{ Type string } }
		}
		s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type } } }`, map[string]any{"r": rid}, &tr)
		if !strings.Contains(fmt.Sprint(tr.Trace.Messages), "SalienceScored") {
			return "the memory is not scored yet"
		}
		return ""
	})
	tierOf := func() string {
		var list struct{ Memories struct{ Nodes []memory } }
		// The list records no retrieval, so reading it does not reinforce the memory.
		s.ok(t, `query($s: ID!) { memories(scopeId: $s, first: 10) { nodes { id tier } } }`, map[string]any{"s": scope}, &list)
		if len(list.Memories.Nodes) != 1 || list.Memories.Nodes[0].ID != m.ID {
			t.Fatalf("memories = %+v, want the one memory", list.Memories.Nodes)
		}
		return list.Memories.Nodes[0].Tier
	}
	if got := tierOf(); got != "ACTIVE_CONTEXT" {
		t.Fatalf("tier before the year = %s, want ACTIVE_CONTEXT", got)
	}
	clock.advance(400 * 24 * time.Hour)
	eventually(t, func() string {
		if got := tierOf(); got != "ARCHIVE" {
			return "after a simulated year the timer has not archived the memory: " + got
		}
		return ""
	})
	var h struct {
		History []struct {
			Type    string
			Context struct{ RequestID string }
		}
	}
	s.ok(t, `query($id: ID!) { history(memoryId: $id) { type context { requestId } } }`, map[string]any{"id": m.ID}, &h)
	var sweepRequest string
	for _, e := range h.History {
		if e.Type == "TierDemoted" || e.Type == "TierChanged" {
			sweepRequest = e.Context.RequestID
		}
	}
	if sweepRequest == "" {
		t.Fatalf("history %+v has no demotion", h.History)
	}
	var tr struct {
		Trace struct {
			Messages []struct {
				Type    string
				Context struct{ SourceContext string }
			}
		}
	}
	s.ok(t, `query($r: ID!) { trace(requestId: $r) { messages { type context { sourceContext } } } }`, map[string]any{"r": sweepRequest}, &tr)
	if len(tr.Trace.Messages) == 0 || tr.Trace.Messages[0].Type != "DecaySweep" || !strings.EqualFold(tr.Trace.Messages[0].Context.SourceContext, "subconscious") {
		t.Fatalf("the demotion's request %s starts with %+v, want the Subconscious's DecaySweep", sweepRequest, tr.Trace.Messages)
	}
}
