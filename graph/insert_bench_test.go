package graph

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// BenchmarkInsertScoredMemory is the graph write of one storeMemory, as the Cortex makes it: the
// memory with its first score, its StoreCommand, MemoryStored and SalienceScored, in one write.
// It reports the process CPU per write beside BenchmarkRawSetMemory, a bare single-mutation
// commit of the memory's predicates. "fresh" is the Cortex's call (ids drawn for it, a scope
// the store has found before: nothing is read before the write); "lookup" reads the scope and
// the new id first, as an insert of ids from elsewhere does.
func BenchmarkInsertScoredMemory(b *testing.B) {
	b.Run("fresh", func(b *testing.B) { benchInsertScoredMemory(b, domain.Request{FreshIDs: true}) })
	b.Run("lookup", func(b *testing.B) { benchInsertScoredMemory(b, domain.Request{}) })
}

func benchInsertScoredMemory(b *testing.B, req domain.Request) {
	ctx := context.Background()
	s, scope := openScopeStore(b)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	for i := 0; i < b.N; i++ {
		ms, evs, ups := scoredInsert(scope.ID)
		if _, err := s.InsertScoredMemories(ctx, req, ms, evs, ups); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertScoredMemoryParallel is the same write from eight goroutines at once, with the
// event log's hand-over registered as a server has it: the store's one writer bounds it, so it
// reports the writes a second that pass the write lock (stores/s) beside the CPU per write.
func BenchmarkInsertScoredMemoryParallel(b *testing.B) {
	ctx := context.Background()
	s, scope := openScopeStore(b)
	s.OnCommit(func([]*domain.Event) {})
	b.SetParallelism(8 / min(8, runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	defer reportCPU(b, cpuTime())
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			ms, evs, ups := scoredInsert(scope.ID)
			if _, err := s.InsertScoredMemories(ctx, domain.Request{FreshIDs: true}, ms, evs, ups); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "stores/s")
}

// scoredInsert is one storeMemory's graph write as the Cortex makes it.
func scoredInsert(scopeID string) ([]*domain.Memory, []*domain.Event, []domain.ScoreUpdate) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p, r := 0.25, 1.0
	tc := func(src string) domain.TransactionContext {
		return domain.TransactionContext{SessionID: "s", RequestID: domain.NewID(), MessageID: domain.NewID(), CausationID: "c",
			Timestamp: at, SourceContext: src}
	}
	m := &domain.Memory{ID: domain.NewID(), ScopeID: scopeID, Content: "a memory of a benchmark, some twenty words long, about nothing at all in particular",
		Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext, OccurredAt: at,
		CreatedAt: at, UpdatedAt: at, Salience: 0.25, State: domain.StateActive, Version: 1}
	evs := []*domain.Event{
		{Type: domain.MsgStoreCommand, ScopeID: scopeID, MemoryID: m.ID, Context: tc(domain.CtxCortex), Payload: map[string]any{"contentBytes": 80}},
		{Type: domain.EvMemoryStored, ScopeID: scopeID, MemoryID: m.ID, Context: tc(domain.CtxHippocampus), Payload: map[string]any{"content": m.Content}},
	}
	u := domain.ScoreUpdate{MemoryID: m.ID, Salience: 0.25, Potential: &p, Recency: &r, ScoredAt: &at, ReinforcedAt: &at,
		Events: []*domain.Event{{Type: domain.EvSalienceScored, ScopeID: scopeID, Context: tc(domain.CtxSalience),
			Payload: map[string]any{"memoryId": m.ID}}}}
	return []*domain.Memory{m}, evs, []domain.ScoreUpdate{u}
}

func BenchmarkRawSetMemory(b *testing.B) {
	ctx := context.Background()
	s, scope := openScopeStore(b)
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b, cpuTime())
	for i := 0; i < b.N; i++ {
		if err := s.RawSet(ctx, map[string]any{"uid": "_:m", "tr.kind": kindMemory, "tr.id": domain.NewID(), "tr.scope": scope.ID,
			"mem.content": "a memory of a benchmark, some twenty words long, about nothing at all in particular",
			"mem.kind":    "EPISODIC", "mem.tier": "ACTIVE_CONTEXT", "mem.state": "ACTIVE", "mem.version": 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the process CPU per operation since cpu0 (cpu-ns/op): the writes' work on
// every goroutine, which wall time on a loaded machine misstates.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.StopTimer()
	if c := cpuTime() - cpu0; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
