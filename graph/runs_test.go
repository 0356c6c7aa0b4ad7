package graph_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

// UnfinishedRuns, on the real embedded store: the pending and running runs of every scope, read
// by their status a page at a time; completed and failed runs never come back, and a run's
// status change moves it in or out.
func TestUnfinishedRunsAcrossScopes(t *testing.T) {
	ctx := context.Background()
	st, err := graph.Open(ctx, "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var fs domain.FacetStore = st

	// list reads every page of limit runs, and the number of pages it took.
	list := func(limit int) (map[string]*domain.AnalysisRun, int) {
		t.Helper()
		out := map[string]*domain.AnalysisRun{}
		pages := 0
		for cursor := ""; ; {
			page, next, err := fs.UnfinishedRuns(ctx, cursor, limit)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if limit > 0 && len(page) > limit {
				t.Fatalf("a page of %d runs, limit %d", len(page), limit)
			}
			for _, r := range page {
				if out[r.ID] != nil {
					t.Fatalf("run %s listed twice", r.ID)
				}
				out[r.ID] = r
			}
			if next == "" {
				return out, pages
			}
			if pages > 100 {
				t.Fatal("the cursor never ends")
			}
			cursor = next
		}
	}
	ids := func(m map[string]*domain.AnalysisRun) string {
		var out []string
		for id := range m {
			out = append(out, id)
		}
		sort.Strings(out)
		return fmt.Sprint(out)
	}

	if got, _ := list(0); len(got) != 0 {
		t.Fatalf("an empty store lists %d unfinished runs", len(got))
	}

	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	statuses := map[string][]domain.AnalysisStatus{
		"a": {domain.RunPending, domain.RunPending, domain.RunPending, domain.RunRunning, domain.RunCompleted, domain.RunFailed},
		"b": {domain.RunPending, domain.RunRunning, domain.RunRunning, domain.RunCompleted, domain.RunCompleted},
	}
	scopes := map[string]*domain.Scope{}
	all := map[string]*domain.AnalysisRun{}
	want := map[string]*domain.AnalysisRun{}
	for _, name := range []string{"a", "b"} {
		sc, err := st.CreateScope(ctx, domain.Request{}, storetest.NewScope(name), nil)
		if err != nil {
			t.Fatal(err)
		}
		scopes[name] = sc
		typeID := domain.NewID()
		b := &domain.IngestBatch{}
		for i, s := range statuses[name] {
			r := &domain.AnalysisRun{ID: domain.NewID(), ScopeID: sc.ID, TypeID: typeID, TypeName: "llm", EpisodeID: domain.NewID(),
				Status: s, CreatedAt: at.Add(time.Duration(i) * time.Minute), RequestID: "req-" + name}
			if s != domain.RunPending {
				started := r.CreatedAt.Add(time.Second)
				r.StartedAt = &started
			}
			b.Runs = append(b.Runs, r)
			all[r.ID] = r
			if s == domain.RunPending || s == domain.RunRunning {
				want[r.ID] = r
			}
		}
		if _, err := st.Ingest(ctx, domain.Request{}, sc.ID, b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(want) != 7 {
		t.Fatalf("the test means 7 unfinished runs, has %d", len(want))
	}

	check := func(got map[string]*domain.AnalysisRun) {
		t.Helper()
		if ids(got) != ids(want) {
			t.Fatalf("unfinished runs %s, want %s", ids(got), ids(want))
		}
		for id, g := range got {
			w := want[id]
			if g.ScopeID != w.ScopeID || g.Status != w.Status || g.TypeID != w.TypeID || g.EpisodeID != w.EpisodeID ||
				g.RequestID != w.RequestID || !g.CreatedAt.Equal(w.CreatedAt) {
				t.Fatalf("run %s read as %+v, written as %+v", id, g, w)
			}
		}
	}
	// One page, and pages of two: the same runs, each once.
	got, pages := list(0)
	check(got)
	if pages != 1 {
		t.Fatalf("the largest page took %d pages", pages)
	}
	got, pages = list(2)
	check(got)
	if pages < 4 {
		t.Fatalf("7 runs in %d pages of 2", pages)
	}
	// Both scopes are there.
	perScope := map[string]int{}
	for _, r := range got {
		perScope[r.ScopeID]++
	}
	if perScope[scopes["a"].ID] != 4 || perScope[scopes["b"].ID] != 3 {
		t.Fatalf("unfinished runs per scope = %v, want 4 of a and 3 of b", perScope)
	}

	// A status change moves a run out of the listing, or into it.
	var done, again *domain.AnalysisRun
	for _, r := range all {
		switch {
		case done == nil && r.ScopeID == scopes["a"].ID && r.Status == domain.RunPending:
			done = r
		case again == nil && r.ScopeID == scopes["b"].ID && r.Status == domain.RunCompleted:
			again = r
		}
	}
	finished := *done
	end := at.Add(time.Hour)
	finished.Status, finished.CompletedAt = domain.RunCompleted, &end
	if _, err := st.Ingest(ctx, domain.Request{}, done.ScopeID, &domain.IngestBatch{Runs: []*domain.AnalysisRun{&finished}}, nil); err != nil {
		t.Fatal(err)
	}
	rerun := *again
	rerun.Status, rerun.CompletedAt = domain.RunRunning, nil
	if _, err := st.Ingest(ctx, domain.Request{}, again.ScopeID, &domain.IngestBatch{Runs: []*domain.AnalysisRun{&rerun}}, nil); err != nil {
		t.Fatal(err)
	}
	delete(want, done.ID)
	want[again.ID] = &rerun
	got, _ = list(3)
	check(got)

	// A cursor not of this store.
	if _, _, err := fs.UnfinishedRuns(ctx, "not-a-cursor", 2); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("a bad cursor: %v, want INVALID_ARGUMENT", err)
	}
}
