package graph

import (
	"context"
	"testing"
	"time"

	"github.com/hypermodeinc/dgraph/v25/worker"

	"github.com/totalrecall/totalrecall/domain"
)

// BenchmarkPruneReadEvents is what pruning a search's messages from the log costs (a
// SearchQuery, its MemoryMatchRequest, and a MemoryAccessed and a SalienceScored for each of ten
// memories: 22 events, as a search writes them), beside "write", the same events appended as the
// search recorder appends them, one write a search (a pack: see pack.go), and "write, a node
// each", the same events each in a node of its own (each of another request, so none packs).
// Each reports the process CPU per event.
func BenchmarkPruneReadEvents(b *testing.B) {
	for _, each := range []bool{false, true} {
		name := "write"
		if each {
			name = "write, a node each"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			s, scope := openScopeStore(b)
			mems := pruneBenchMemories(b, s, scope.ID)
			b.ResetTimer()
			defer reportCPUPerEvent(b, cpuTime())
			for i := 0; i < b.N; i++ {
				evs := searchEvents(scope.ID, mems, time.Now())
				if each {
					for _, e := range evs {
						e.Context.RequestID = domain.NewID()
					}
				}
				if err := s.AppendEvents(ctx, evs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("prune", func(b *testing.B) {
		ctx := context.Background()
		s, scope := openScopeStore(b)
		mems := pruneBenchMemories(b, s, scope.ID)
		old := time.Now().Add(-48 * time.Hour)
		for i := 0; i < b.N; i++ {
			if err := s.AppendEvents(ctx, searchEvents(scope.ID, mems, old)); err != nil {
				b.Fatal(err)
			}
		}
		head, err := s.LastSeq(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		defer reportCPUPerEvent(b, cpuTime())
		deleted, _ := pruneAll(b, s, time.Now().Add(-time.Hour), head, 1000)
		if deleted != 22*b.N {
			b.Fatalf("pruned %d events, want %d", deleted, 22*b.N)
		}
	})
}

func pruneBenchMemories(b testing.TB, s *Store, scopeID string) []string {
	b.Helper()
	var ms []*domain.Memory
	var evs []*domain.Event
	for range 10 {
		m := &domain.Memory{ID: domain.NewID(), ScopeID: scopeID, Content: "a memory searched for", Kind: domain.KindEpisodic,
			Tier: domain.TierActiveContext, State: domain.StateActive, Version: 1, CreatedAt: time.Now(), UpdatedAt: time.Now(), OccurredAt: time.Now()}
		ms = append(ms, m)
		evs = append(evs, &domain.Event{Type: domain.EvMemoryStored, ScopeID: scopeID, MemoryID: m.ID, Context: benchContext(time.Now())})
	}
	if _, err := s.InsertMemories(context.Background(), domain.Request{}, ms, evs); err != nil {
		b.Fatal(err)
	}
	return memoryIDs(ms)
}

func benchContext(at time.Time) domain.TransactionContext {
	id := domain.NewID()
	return domain.TransactionContext{SessionID: "bench", RequestID: domain.NewID(), MessageID: id, CausationID: id,
		Timestamp: at, SourceContext: domain.CtxCortex}
}

// searchEvents are the messages one search of mems writes.
func searchEvents(scopeID string, mems []string, at time.Time) []*domain.Event {
	q := benchContext(at)
	match := q.Derive(domain.CtxRecall, at)
	evs := []*domain.Event{
		{Type: domain.MsgSearchQuery, ScopeID: scopeID, Context: q, Payload: map[string]any{"query": "what was searched", "maxResults": 10}},
		{Type: domain.EvMemoryMatchRequest, ScopeID: scopeID, Context: match},
	}
	for _, id := range mems {
		acc := match.Derive(domain.CtxHippocampus, at)
		evs = append(evs, &domain.Event{Type: domain.EvMemoryAccessed, ScopeID: scopeID, MemoryID: id, Context: acc,
			Payload: map[string]any{"memoryId": id, "accessedAt": at.Format(time.RFC3339Nano)}})
		evs = append(evs, &domain.Event{Type: domain.EvSalienceScored, ScopeID: scopeID, Context: acc.Derive(domain.CtxSalience, at),
			Payload: map[string]any{"memoryId": id, "score": 0.5, "potential": 0.6, "recency": 0.9}})
	}
	return evs
}

func reportCPUPerEvent(b *testing.B, cpu0 time.Duration) {
	b.StopTimer()
	if c := cpuTime() - cpu0; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(22*b.N), "cpu-ns/event")
	}
}

// BenchmarkPruneDisk is what a log of searches takes on disk with and without pruning: b.N
// searches' messages (22 events each, as BenchmarkPruneReadEvents writes them) appended in rounds
// of 1,000 searches; "prune" prunes every round's messages after the next round (a store that
// keeps one round), "keep" keeps them. Each reports the store folder's bytes at the end, with
// the engine still open (what compactions have reclaimed by then).
func BenchmarkPruneDisk(b *testing.B) {
	for _, prune := range []bool{false, true} {
		name := "keep"
		if prune {
			name = "prune"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			s, err := Open(ctx, "file://"+dir)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			scope := &domain.Scope{ID: domain.NewID(), Name: "disk", CreatedAt: time.Now()}
			scope.AgentKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyAgentKernel, UpdatedAt: time.Now()}
			scope.WorldKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyWorldKernel, UpdatedAt: time.Now()}
			if _, err := s.CreateScope(ctx, domain.Request{}, scope, nil); err != nil {
				b.Fatal(err)
			}
			mems := pruneBenchMemories(b, s, scope.ID)
			b.ResetTimer()
			var boundary uint64 // the last event of the round before
			for i := 0; i < b.N; i++ {
				if err := s.AppendEvents(ctx, searchEvents(scope.ID, mems, time.Now().Add(-time.Hour))); err != nil {
					b.Fatal(err)
				}
				if (i+1)%1000 != 0 {
					continue
				}
				head, _ := s.LastSeq(ctx)
				if prune && boundary > 0 {
					pruneAll(b, s, time.Now(), boundary, 1000)
				}
				boundary = head
			}
			b.StopTimer()
			time.Sleep(15 * time.Second) // a discard tick and the compactions it lets run
			b.ReportMetric(float64(dirBytes(b, dir))/(1<<20), "disk-MiB")
			// Where compactions take it: every table compacted into one level, dropping the
			// versions below the discard timestamp that newer ones hide.
			if err := worker.State.Pstore.Flatten(2); err != nil {
				b.Fatal(err)
			}
			time.Sleep(15 * time.Second)
			b.ReportMetric(float64(dirBytes(b, dir))/(1<<20), "flat-MiB")
		})
	}
}
