package graph

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// A replay writes the recorded commits again as new nodes: a memory written in one recorded
// commit and linked in a later one is copied with its link to the copy of the other end, not
// to the original; what was committed while not recording is not replayed.
func TestReplayRecordedWritesCopies(t *testing.T) {
	ctx := context.Background()
	rec := &Recorder{}
	s, scope := openScopeStore(t, WithRecorder(rec))
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	mem := func(content string) *domain.Memory {
		return &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: content,
			Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext,
			OccurredAt: at, CreatedAt: at, UpdatedAt: at, Salience: 0.5, State: domain.StateActive, Version: 1}
	}
	// An association is kept on the end with the lower id: a's.
	ids := []string{domain.NewID(), domain.NewID(), domain.NewID()}
	sort.Strings(ids)
	before := mem("committed before the recording")
	before.ID = ids[2]
	if _, err := s.InsertMemories(ctx, domain.Request{}, []*domain.Memory{before}, nil); err != nil {
		t.Fatal(err)
	}
	rec.Start()
	a, b := mem(`first "quoted" <memory> _:x`), mem("second memory, ünïcode")
	a.ID, b.ID = ids[0], ids[1]
	if _, err := s.InsertMemories(ctx, domain.Request{}, []*domain.Memory{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	link := func(src, dst *domain.Memory) {
		t.Helper()
		_, err := s.Associate(ctx, domain.Request{}, src.ID, dst.ID, domain.AssocThematic,
			func(cur *domain.Association, _, _ *domain.Memory) (*domain.Association, []*domain.Event, error) {
				return &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: scope.ID, Type: domain.AssocThematic,
					Strength: 0.7, UpdatedAt: at}, nil, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	link(a, b)
	link(a, before) // to a node from before the recording: the copy links to that same node
	rec.Stop()
	if _, err := s.InsertMemories(ctx, domain.Request{}, []*domain.Memory{mem("committed after the recording")}, nil); err != nil {
		t.Fatal(err)
	}
	if rec.Commits() != 3 || rec.Quads() == 0 {
		t.Fatalf("recorded %d commits, %d N-Quads; want 3 commits", rec.Commits(), rec.Quads())
	}

	if _, err := s.ReplayRecorded(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if rec.Commits() != 0 {
		t.Fatalf("%d commits recorded after the replay took them", rec.Commits())
	}
	type node struct {
		UID     string `json:"uid"`
		ID      string `json:"tr.id"`
		Content string `json:"mem.content"`
		Them    []struct {
			UID string `json:"uid"`
			ID  string `json:"tr.id"`
		} `json:"assoc.THEMATIC"`
	}
	var r struct {
		Q []node `json:"q"`
	}
	q := fmt.Sprintf(`{ q(func: eq(tr.scope, %q)) @filter(eq(tr.kind, "Memory")) { uid tr.id mem.content assoc.THEMATIC { uid tr.id } } }`, scope.ID)
	if err := s.read(ctx, q, nil, &r); err != nil {
		t.Fatal(err)
	}
	byID := map[string][]node{}
	for _, n := range r.Q {
		byID[n.ID] = append(byID[n.ID], n)
	}
	if len(byID[a.ID]) != 2 || len(byID[b.ID]) != 2 || len(byID[before.ID]) != 1 || len(r.Q) != 6 {
		t.Fatalf("after the replay: %d nodes of a, %d of b, %d of the memory from before, %d in all; want 2, 2, 1, 6",
			len(byID[a.ID]), len(byID[b.ID]), len(byID[before.ID]), len(r.Q))
	}
	for _, n := range byID[a.ID] {
		if n.Content != a.Content {
			t.Fatalf("copy of a reads %q, want %q", n.Content, a.Content)
		}
	}
	// Each a links to a b of its own and to the one memory from before.
	bUIDs := map[string]bool{}
	for _, n := range byID[a.ID] {
		var to []string
		for _, e := range n.Them {
			to = append(to, e.ID)
			if e.ID == b.ID {
				if bUIDs[e.UID] {
					t.Fatalf("both copies of a link to b %s", e.UID)
				}
				bUIDs[e.UID] = true
			}
			if e.ID == before.ID && e.UID != byID[before.ID][0].UID {
				t.Fatalf("a links to %s, not to the memory from before (%s)", e.UID, byID[before.ID][0].UID)
			}
		}
		sort.Strings(to)
		want := []string{b.ID, before.ID}
		sort.Strings(want)
		if fmt.Sprint(to) != fmt.Sprint(want) {
			t.Fatalf("a copy of a links to %v, want %v", to, want)
		}
	}
	if len(bUIDs) != 2 {
		t.Fatalf("the copies of a link to %d nodes of b, want 2", len(bUIDs))
	}
}
