package graph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

// The scan hands out every artifact once, in artifact id order, pages of handPage, each node
// with the references a point read of it finds, both ways, with their ends' families and states.
func TestScanRefgraphPagesInIDOrder(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	defer func(n int) { handPage = n }(handPage)
	handPage = 7
	var ms []*domain.Memory
	for i := range 30 {
		ms = append(ms, storetest.NewMemory(scope.ID, fmt.Sprint("memory ", i)))
	}
	evs := make([]*domain.Event, len(ms))
	for i, m := range ms {
		evs[i] = &domain.Event{Type: domain.EvMemoryStored, ScopeID: scope.ID, MemoryID: m.ID,
			Context: domain.TransactionContext{RequestID: domain.NewID(), MessageID: domain.NewID(), Timestamp: time.Now().UTC(), SourceContext: "test"}}
	}
	if _, err := s.InsertMemories(ctx, domain.Request{}, ms, evs); err != nil {
		t.Fatal(err)
	}
	var as []*domain.Artifact
	for i := range 12 {
		fam := []domain.ArtifactFamily{domain.FamKnowledge, domain.FamSkill, domain.FamWorkingState}[i%3]
		as = append(as, storetest.NewArtifact(scope.ID, fam, fmt.Sprint("artifact ", i)))
	}
	aevs := make([]*domain.Event, len(as))
	for i, a := range as {
		aevs[i] = &domain.Event{Type: domain.EvArtifactSaved, ScopeID: scope.ID, MemoryID: a.ID,
			Context: domain.TransactionContext{RequestID: domain.NewID(), MessageID: domain.NewID(), Timestamp: time.Now().UTC(), SourceContext: "test"}}
	}
	if _, err := s.InsertArtifacts(ctx, domain.Request{}, as, aevs); err != nil {
		t.Fatal(err)
	}
	ids := []string{scope.AgentKernel.ID}
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 90 {
		src, dst := ids[1+rng.IntN(len(ids)-1)], ids[rng.IntN(len(ids))]
		if src == dst {
			continue
		}
		if _, err := s.Reference(ctx, domain.Request{}, src, domain.RefTypes[rng.IntN(len(domain.RefTypes))], dst, true, time.Now().UTC(),
			func(_, _ *domain.RefNode, _ *domain.Reference) ([]*domain.Event, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	var scanned []*domain.RefNode
	pages := 0
	if err := s.ScanRefgraph(ctx, scope.ID, func(page []*domain.RefNode) error {
		pages++
		if len(page) == 0 || len(page) > handPage {
			t.Fatalf("a page of %d", len(page))
		}
		scanned = append(scanned, page...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(scanned) != len(ms)+len(as) || pages != (len(scanned)+handPage-1)/handPage {
		t.Fatalf("%d artifacts in %d pages, want %d (kernels left out)", len(scanned), pages, len(ms)+len(as))
	}
	key := func(r *domain.Reference) string {
		return fmt.Sprintf("%s %s %s/%s/%s -> %s/%s/%s", r.RefID(), r.Type, r.SourceID, r.SourceFamily, r.SourceState, r.TargetID, r.TargetFamily, r.TargetState)
	}
	keys := func(rs []*domain.Reference) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = key(r)
		}
		sort.Strings(out)
		return out
	}
	refs := 0
	for i, n := range scanned {
		if i > 0 && scanned[i-1].ID >= n.ID {
			t.Fatalf("%s handed out after %s", n.ID, scanned[i-1].ID)
		}
		p, err := s.Node(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The scan reads a working state's id alone: the digest never weighs one.
		if n.ScopeID != scope.ID || n.Family != p.Family || n.State != p.State || n.Claimed != p.Claimed ||
			n.Family.Digestible() && !n.LastUsed.Equal(p.LastUsed) {
			t.Fatalf("scanned %+v, read %+v", n, p)
		}
		if got, want := fmt.Sprint(keys(n.Out)), fmt.Sprint(keys(p.Out)); got != want {
			t.Fatalf("%s out: scanned %s, read %s", n.ID, got, want)
		}
		if got, want := fmt.Sprint(keys(n.In)), fmt.Sprint(keys(p.In)); got != want {
			t.Fatalf("%s in: scanned %s, read %s", n.ID, got, want)
		}
		refs += len(n.Out)
	}
	if refs < 60 {
		t.Fatalf("%d references scanned", refs)
	}
}
