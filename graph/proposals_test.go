package graph

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func sortedProposals(n int) []domain.Proposal {
	out := make([]domain.Proposal, n)
	for i := range out {
		out[i] = domain.Proposal{ArtifactID: domain.NewID(), Family: domain.FamMemory, Reasons: []domain.Reason{
			{Code: domain.ReasonStale, Detail: fmt.Sprintf("unused %d", i), ReferenceIDs: []string{}}}}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ArtifactID < out[j].ArtifactID })
	return out
}

// A propose pass's proposals are packed as they are added and committed ahead of its write
// when flushed, with the pages of its event's history payloads, a few pages a commit; its own
// write commits the rest. When
// that write fails, no report names the pages and no history shows the payloads; the pass done
// again is seen once.
func TestProposalPagesCommittedAhead(t *testing.T) {
	ctx := context.Background()
	var failReport atomic.Bool
	var commits atomic.Int64
	s, scope := openScopeStore(t, WithCommitHooks(CommitHooks{Before: func(preds map[string]bool) error {
		commits.Add(1)
		if preds["digest.lastProposal"] && failReport.Load() {
			return errors.New("injected: the pass's commit fails")
		}
		return nil
	}}))
	n := 2*proposalPagesACommit*proposalPage + 7
	props := sortedProposals(n)
	var w domain.ProposalWriter
	var ev *domain.Event
	pass := func(withAbout bool) (string, error) {
		id := domain.NewID()
		ev = &domain.Event{Type: domain.EvDigestProposed, ScopeID: scope.ID, Payload: map[string]any{"proposals": n},
			Context: domain.TransactionContext{RequestID: domain.NewID(), MessageID: domain.NewID(), Timestamp: time.Now().UTC(), SourceContext: "digest"}}
		w = s.ProposalWriter(scope.ID, id, ev.Context.MessageID)
		for lo := 0; lo < n; lo += 1000 {
			part := props[lo:min(n, lo+1000)]
			about := map[string]any{}
			for _, pr := range part {
				if withAbout {
					about[pr.ArtifactID] = map[string]any{"artifactId": pr.ArtifactID}
				}
			}
			if err := w.Add(ctx, part, about); err != nil {
				t.Fatal(err)
			}
		}
		// Add commits the pages it packed each time they fill a commit: with every proposal
		// new, aboutPagesACommit pages of payloads (and the pages of proposals of as many
		// artifacts); with none, proposalPagesACommit pages of proposals. The 7 proposals
		// left make no whole page: Flush has nothing to commit, and the pass's write commits
		// them.
		want := n / (proposalPagesACommit * proposalPage)
		if withAbout {
			want = n / (aboutPagesACommit * aboutPage)
		}
		if c := commits.Load(); c != int64(want) {
			t.Fatalf("%d commits while adding %d proposals, want %d", c, n, want)
		}
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if c := commits.Load(); c != int64(want) {
			t.Fatalf("%d commits ahead of the pass's write for %d proposals, want %d", c, n, want)
		}
		_, err := s.Digest(ctx, domain.Request{}, scope.ID, nil, func(map[string]*domain.RefNode) (*domain.DigestPlan, error) {
			return &domain.DigestPlan{Report: &domain.DigestReport{ID: id, ScopeID: scope.ID, At: time.Now().UTC(), ProposalCount: n},
				Proposed: true, Proposals: w, Events: []*domain.Event{ev}}, nil
		})
		return id, err
	}
	probe := []int{0, proposalPage - 1, proposalPagesACommit * proposalPage, n - 1}
	failReport.Store(true)
	commits.Store(0)
	failed, err := pass(true)
	if err == nil {
		t.Fatal("the pass's commit was refused, yet the pass succeeded")
	}
	if c, want := commits.Load(), int64(n/(aboutPagesACommit*aboutPage)+2); c != want {
		t.Fatalf("%d commits for a pass of %d proposals: want %d (those ahead, the rest and its own)", c, n, want)
	}
	if _, err := s.DigestReport(ctx, failed); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the failed pass's report: %v", err)
	}
	for _, i := range probe {
		if h, err := s.MemoryEvents(ctx, props[i].ArtifactID); err != nil || len(h) != 0 {
			t.Fatalf("after the pass's commit failed, artifact %d's history = %+v, %v", i, h, err)
		}
	}
	// The pages committed ahead are there until discarded, and then gone.
	pageNodes := func() int {
		var r struct{ Q []struct{ UID string } }
		ids := []string{proposalPageID(failed, 0), proposalPageID(failed, 20), ev.Context.MessageID + "/about/0", ev.Context.MessageID + "/about/40"}
		if err := s.read(ctx, `query q($a: string, $b: string, $c: string, $d: string) { q(func: eq(tr.id, [$a, $b, $c, $d])) { uid } }`,
			map[string]string{"$a": ids[0], "$b": ids[1], "$c": ids[2], "$d": ids[3]}, &r); err != nil {
			t.Fatal(err)
		}
		return len(r.Q)
	}
	if k := pageNodes(); k != 4 {
		t.Fatalf("%d of the failed pass's first and last pages found before it is discarded, want 4", k)
	}
	if err := w.Discard(ctx); err != nil {
		t.Fatal(err)
	}
	if k := pageNodes(); k != 0 {
		t.Fatalf("%d of the failed pass's pages left after it is discarded", k)
	}
	failReport.Store(false)
	commits.Store(0)
	id, err := pass(true)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.LastProposal(ctx, scope.ID)
	if err != nil || rep == nil || rep.ID != id || rep.ProposalCount != n {
		t.Fatalf("last proposal = %+v, %v", rep, err)
	}
	for _, i := range probe {
		h, err := s.MemoryEvents(ctx, props[i].ArtifactID)
		if err != nil || len(h) != 1 || h[0].Payload["artifactId"] != props[i].ArtifactID {
			t.Fatalf("artifact %d's history = %+v, %v", i, h, err)
		}
		got, err := s.DigestProposals(ctx, id, props[i].ArtifactID, 1)
		if want := props[i+1 : min(n, i+2)]; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("the proposal after %d = %+v, %v", i, got, err)
		}
	}
	// A pass whose proposals are all in the histories already.
	commits.Store(0)
	again, err := pass(false)
	if err != nil {
		t.Fatal(err)
	}
	if c := commits.Load(); c != 2+2 {
		t.Fatalf("%d commits for a pass of %d proposals, none new: want 2 ahead, the rest and its own", c, n)
	}
	for _, i := range probe {
		if h, err := s.MemoryEvents(ctx, props[i].ArtifactID); err != nil || len(h) != 1 {
			t.Fatalf("after a pass with nothing new, artifact %d's history = %+v, %v", i, h, err)
		}
		got, err := s.DigestProposals(ctx, again, props[i].ArtifactID, 1)
		if want := props[i+1 : min(n, i+2)]; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("the proposal after %d = %+v, %v", i, got, err)
		}
	}
}

// A report written before proposals had pages of their own keeps them in its document: it is
// read as it is, counted and paged.
func TestReportWithProposalsInItsDocument(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	props := sortedProposals(2500)
	id := domain.NewID()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	legacy := struct {
		ID         string            `json:"id"`
		ScopeID    string            `json:"scopeId"`
		At         time.Time         `json:"at"`
		Evaluated  int               `json:"evaluated"`
		Proposals  []domain.Proposal `json:"proposals"`
		Archived   []string          `json:"archived"`
		Removed    []string          `json:"removed"`
		StaleAfter time.Duration     `json:"staleAfter"`
	}{id, scope.ID, at, 3000, props, []string{}, []string{}, time.Hour}
	doc, err := packJSON(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write(ctx, s, nil, func(t *tx) (bool, error) {
		uid, err := t.scopeUID(scope.ID)
		if err != nil {
			return false, err
		}
		t.set(map[string]any{"uid": "_:report", "tr.kind": kindDigestReport, "tr.id": id, "tr.scope": scope.ID,
			"digest.at": ts(at), "digest.doc": doc})
		t.set(map[string]any{"uid": uid, "digest.lastProposal": id})
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	want := domain.DigestReport{ID: id, ScopeID: scope.ID, At: at, Evaluated: 3000, ProposalCount: len(props),
		Archived: []string{}, Removed: []string{}, StaleAfter: time.Hour}
	for _, get := range []func() (*domain.DigestReport, error){
		func() (*domain.DigestReport, error) { return s.DigestReport(ctx, id) },
		func() (*domain.DigestReport, error) { return s.LastProposal(ctx, scope.ID) },
	} {
		if rep, err := get(); err != nil || !reflect.DeepEqual(*rep, want) {
			t.Fatalf("report = %+v, %v; want %+v", rep, err, want)
		}
	}
	var all []domain.Proposal
	for after := ""; ; {
		page, err := s.DigestProposals(ctx, id, after, 999)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, page...)
		after = page[len(page)-1].ArtifactID
	}
	if !reflect.DeepEqual(all, props) {
		t.Fatalf("read 999 at a time: %d proposals, not those written", len(all))
	}
}
