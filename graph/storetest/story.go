package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The story's store capability (domain.StoryStore): the pending log appended through the living
// changes, the consolidation lease, and the one write that commits a chapter.

func storyTests() []struct {
	name string
	fn   func(*testing.T, domain.Store)
} {
	wrap := func(fn func(*testing.T, domain.Store, domain.StoryStore, domain.LivingStore)) func(*testing.T, domain.Store) {
		return func(t *testing.T, st domain.Store) {
			ss, ok := st.(domain.StoryStore)
			ls, ok2 := st.(domain.LivingStore)
			if !ok || !ok2 {
				t.Fatal("the store does not implement domain.StoryStore and domain.LivingStore")
			}
			fn(t, st, ss, ls)
		}
	}
	return []struct {
		name string
		fn   func(*testing.T, domain.Store)
	}{
		{"StoryPendingLog", wrap(testStoryPendingLog)},
		{"StoryLease", wrap(testStoryLease)},
		{"StoryWriteChapter", wrap(testStoryWriteChapter)},
		{"StoryWriteChapterRefusals", wrap(testStoryWriteChapterRefusals)},
	}
}

func pendingOf(scopeID string, m *domain.Memory, seq uint64, tokens int) domain.PendingEntry {
	return domain.PendingEntry{ScopeID: scopeID, MemoryID: m.ID, Seq: seq, Tokens: tokens, StoredAt: t0.Add(time.Duration(seq) * time.Second),
		SessionID: `sess|"<_:x>"`}
}

func appendPending(t *testing.T, ls domain.LivingStore, es ...domain.PendingEntry) {
	t.Helper()
	if _, err := ls.Apply(context.Background(), nil, &domain.Changes{Pending: es}, nil); err != nil {
		t.Fatalf("Apply pending: %v", err)
	}
}

func mustState(t *testing.T, ss domain.StoryStore, scopeID string) *domain.StoryState {
	t.Helper()
	st, err := ss.StoryState(context.Background(), scopeID)
	if err != nil {
		t.Fatalf("StoryState: %v", err)
	}
	return st
}

func pendingIDs(st *domain.StoryState) []string {
	out := []string{}
	for _, e := range st.Pending {
		out = append(out, e.MemoryID)
	}
	return out
}

func testStoryPendingLog(t *testing.T, st domain.Store, ss domain.StoryStore, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	if s := mustState(t, ss, sc.ID); len(s.Pending) != 0 || s.Tokens != 0 || s.Chapters != 0 || s.Anchor != nil {
		t.Fatalf("fresh story = %+v", s)
	}
	a, b, c := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c")
	mustInsert(t, st, a, b, c)
	// A batch consumed again, or in part: each entry kept once, in Seq order; within a write
	// the entries are taken in Seq order; one older than the log's newest is skipped.
	appendPending(t, ls, pendingOf(sc.ID, b, 20, 6), pendingOf(sc.ID, a, 10, 5))
	appendPending(t, ls, pendingOf(sc.ID, b, 20, 6), pendingOf(sc.ID, c, 30, 7), pendingOf(sc.ID, a, 10, 5))
	s := mustState(t, ss, sc.ID)
	if got := fmt.Sprint(pendingIDs(s)); got != fmt.Sprint([]string{a.ID, b.ID, c.ID}) || s.Tokens != 18 {
		t.Fatalf("pending = %v (%d tokens), want a, b, c (18)", got, s.Tokens)
	}
	if e := s.Pending[0]; e.Seq != 10 || e.Tokens != 5 || !e.StoredAt.Equal(t0.Add(10*time.Second)) || e.SessionID != `sess|"<_:x>"` || e.ScopeID != sc.ID {
		t.Fatalf("entry = %+v", e)
	}
	// Scopes over a threshold.
	other := mustScope(t, st)
	o := NewMemory(other.ID, "o")
	mustInsert(t, st, o)
	appendPending(t, ls, pendingOf(other.ID, o, 40, 3))
	over, err := ss.PendingScopes(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(over, sc.ID) || contains(over, other.ID) {
		t.Fatalf("PendingScopes(10) = %v, want %s and not %s", over, sc.ID, other.ID)
	}
	// A scope deleted meanwhile: its entries are dropped, the write goes through.
	gone := NewScope("gone")
	if _, err := ls.Apply(ctx, nil, &domain.Changes{Pending: []domain.PendingEntry{{ScopeID: gone.ID, MemoryID: domain.NewID(), Seq: 50, Tokens: 1}}}, nil); err != nil {
		t.Fatalf("pending of a missing scope: %v", err)
	}
	if s := mustState(t, ss, gone.ID); len(s.Pending) != 0 {
		t.Fatalf("a missing scope got a pending log: %+v", s)
	}
	// Bad entries are refused.
	if _, err := ls.Apply(ctx, nil, &domain.Changes{Pending: []domain.PendingEntry{{ScopeID: sc.ID, MemoryID: "x", Seq: 60}}}, nil); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("bad entry: %v", err)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func testStoryLease(t *testing.T, st domain.Store, ss domain.StoryStore, ls domain.LivingStore) {
	ctx := context.Background()
	sc := mustScope(t, st)
	// Nothing pending: nothing to claim, nothing held.
	if s, err := ss.ClaimStory(ctx, sc.ID, "a", t0, t0.Add(time.Minute)); err != nil || s.LeaseOwner != "" {
		t.Fatalf("claim of an empty story = %+v, %v", s, err)
	}
	m := NewMemory(sc.ID, "m")
	mustInsert(t, st, m)
	appendPending(t, ls, pendingOf(sc.ID, m, 10, 5))
	s, err := ss.ClaimStory(ctx, sc.ID, "a", t0, t0.Add(time.Minute))
	if err != nil || s.LeaseOwner != "a" || !s.LeaseUntil.Equal(t0.Add(time.Minute)) || len(s.Pending) != 1 {
		t.Fatalf("claim = %+v, %v", s, err)
	}
	if _, err := ss.ClaimStory(ctx, sc.ID, "b", t0.Add(30*time.Second), t0.Add(2*time.Minute)); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("claim of a held lease = %v, want CONFLICT", err)
	}
	// Its holder may take it again; anyone may once it expired.
	if _, err := ss.ClaimStory(ctx, sc.ID, "a", t0.Add(10*time.Second), t0.Add(90*time.Second)); err != nil {
		t.Fatalf("the holder's claim: %v", err)
	}
	if s, err := ss.ClaimStory(ctx, sc.ID, "b", t0.Add(91*time.Second), t0.Add(3*time.Minute)); err != nil || s.LeaseOwner != "b" {
		t.Fatalf("claim of an expired lease = %+v, %v", s, err)
	}
	// Only the holder releases it.
	if err := ss.ReleaseStory(ctx, sc.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if s := mustState(t, ss, sc.ID); s.LeaseOwner != "b" {
		t.Fatalf("another's release dropped the lease: %+v", s)
	}
	if err := ss.ReleaseStory(ctx, sc.ID, "b"); err != nil {
		t.Fatal(err)
	}
	if s := mustState(t, ss, sc.ID); s.LeaseOwner != "" {
		t.Fatalf("lease after its release: %+v", s)
	}
	if _, err := ss.ClaimStory(ctx, sc.ID, "a|b", t0, t0); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("owner with |: %v", err)
	}
}

// chapterPage builds a chapter page of scope.
func chapterPage(scopeID string, n int) *domain.Artifact {
	return &domain.Artifact{ID: domain.NewID(), ScopeID: scopeID, Family: domain.FamKnowledge, Type: string(domain.KnowNarrative),
		Title: fmt.Sprintf("Chapter %d: %s", n, Nasty[4]), Content: "I remember. " + Nasty[7], Tags: []string{"story"},
		Metadata: map[string]any{"story": map[string]any{"chapter": n}}, State: domain.StateActive, CreatedAt: t0, UpdatedAt: t0, Version: 1}
}

// plan is the usual check of a chapter write: the story must still be at base.
func chapterPlan(page *domain.Artifact, base int, told []string, prev string, consumed []domain.PendingEntry) domain.StoryWrite {
	return func(cur *domain.StoryState) (*domain.ChapterPlan, error) {
		if cur.Chapters != base {
			return nil, domain.Errorf(domain.ECONFLICT, "the story moved to %d chapters", cur.Chapters)
		}
		last := consumed[len(consumed)-1]
		cmd := &domain.Event{Type: domain.EvStoryChapterWritten, ScopeID: page.ScopeID, MemoryID: page.ID, Context: ctxFor("chapter")}
		return &domain.ChapterPlan{Chapter: page, Told: told, Previous: prev, Consumed: consumed, Anchor: last.StoredAt, AnchorSeq: last.Seq,
			Events: []*domain.Event{cmd}}, nil
	}
}

func testStoryWriteChapter(t *testing.T, st domain.Store, ss domain.StoryStore, ls domain.LivingStore) {
	ctx := context.Background()
	lc := st.(domain.LifecycleStore)
	sc := mustScope(t, st)
	a, b, c, gone := NewMemory(sc.ID, "a"), NewMemory(sc.ID, "b"), NewMemory(sc.ID, "c"), NewMemory(sc.ID, "deleted before its chapter")
	mustInsert(t, st, a, b, c, gone)
	ea, eb, eg, ec := pendingOf(sc.ID, a, 10, 5), pendingOf(sc.ID, b, 20, 6), pendingOf(sc.ID, gone, 25, 2), pendingOf(sc.ID, c, 30, 7)
	appendPending(t, ls, ea, eb, eg, ec)
	if _, err := st.DeleteMemory(ctx, domain.Request{}, gone.ID, func(m *domain.Memory) ([]*domain.Event, error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.ClaimStory(ctx, sc.ID, "me", t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Chapter 1 tells a, b and the deleted one; c was appended after and stays.
	one := chapterPage(sc.ID, 1)
	got, err := ss.WriteChapter(ctx, domain.Request{Op: "chapter", RequestID: "ch1-" + one.ID, Fingerprint: "f"}, sc.ID,
		chapterPlan(one, 0, []string{a.ID, b.ID, gone.ID}, "", []domain.PendingEntry{ea, eb, eg}))
	if err != nil {
		t.Fatalf("WriteChapter: %v", err)
	}
	if got.ID != one.ID || got.Title != one.Title {
		t.Fatalf("chapter = %+v", got)
	}
	s := mustState(t, ss, sc.ID)
	if s.Chapters != 1 || s.AnchorSeq != 25 || s.Anchor == nil || !s.Anchor.Equal(eg.StoredAt) || s.Tokens != 7 || s.LeaseOwner != "" ||
		fmt.Sprint(pendingIDs(s)) != fmt.Sprint([]string{c.ID}) {
		t.Fatalf("story after chapter 1 = %+v", s)
	}
	arts, err := lc.Artifacts(ctx, []string{one.ID})
	if err != nil || len(arts) != 1 || arts[0].Content != one.Content || arts[0].Type != "NARRATIVE" {
		t.Fatalf("the chapter page = %+v, %v", arts, err)
	}
	n, err := lc.Node(ctx, one.ID)
	if err != nil {
		t.Fatal(err)
	}
	var derived []string
	for _, r := range n.Out {
		if r.Type == domain.RefDerivedFrom {
			derived = append(derived, r.TargetID)
		}
	}
	if len(derived) != 2 || !contains(derived, a.ID) || !contains(derived, b.ID) {
		t.Fatalf("chapter 1 derives from %v, want a and b", derived)
	}
	if evs := eventTypes(t, st, one.ID); fmt.Sprint(evs) != "[StoryChapterWritten]" {
		t.Fatalf("chapter events = %v", evs)
	}
	// The same request again: the first chapter, nothing written.
	again, err := ss.WriteChapter(ctx, domain.Request{Op: "chapter", RequestID: "ch1-" + one.ID, Fingerprint: "f"}, sc.ID,
		func(*domain.StoryState) (*domain.ChapterPlan, error) {
			t.Fatal("a replay ran its plan")
			return nil, nil
		})
	if err != nil || again.ID != one.ID {
		t.Fatalf("replay = %+v, %v", again, err)
	}
	if id, err := ss.ReplayedChapter(ctx, domain.Request{Op: "chapter", RequestID: "ch1-" + one.ID, Fingerprint: "f"}); err != nil || id != one.ID {
		t.Fatalf("ReplayedChapter = %q, %v", id, err)
	}
	if _, err := ss.ReplayedChapter(ctx, domain.Request{Op: "chapter", RequestID: "ch1-" + one.ID, Fingerprint: "other"}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Fatalf("ReplayedChapter of another request = %v", err)
	}
	// Chapter 2 derives from c and from chapter 1.
	two := chapterPage(sc.ID, 2)
	if _, err := ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(two, 1, []string{c.ID}, one.ID, []domain.PendingEntry{ec})); err != nil {
		t.Fatal(err)
	}
	n, _ = lc.Node(ctx, two.ID)
	derived = nil
	for _, r := range n.Out {
		derived = append(derived, r.TargetID)
	}
	if len(derived) != 2 || !contains(derived, c.ID) || !contains(derived, one.ID) {
		t.Fatalf("chapter 2 derives from %v", derived)
	}
	if s := mustState(t, ss, sc.ID); s.Chapters != 2 || s.Tokens != 0 || len(s.Pending) != 0 || s.AnchorSeq != 30 {
		t.Fatalf("story after chapter 2 = %+v", s)
	}
	// An entry at or before the anchor is never pending again.
	appendPending(t, ls, ea)
	if s := mustState(t, ss, sc.ID); len(s.Pending) != 0 {
		t.Fatalf("a told memory is pending again: %+v", s)
	}
}

func testStoryWriteChapterRefusals(t *testing.T, st domain.Store, ss domain.StoryStore, ls domain.LivingStore) {
	ctx := context.Background()
	lc := st.(domain.LifecycleStore)
	sc, other := mustScope(t, st), mustScope(t, st)
	a, foreign := NewMemory(sc.ID, "a"), NewMemory(other.ID, "foreign")
	mustInsert(t, st, a, foreign)
	ea := pendingOf(sc.ID, a, 10, 5)
	appendPending(t, ls, ea)
	wantNothing := func(code string, err error) {
		t.Helper()
		if domain.ErrorCode(err) != code {
			t.Fatalf("error = %v, want %s", err, code)
		}
		if s := mustState(t, ss, sc.ID); s.Chapters != 0 || len(s.Pending) != 1 || s.Tokens != 5 {
			t.Fatalf("a refused chapter wrote: %+v", s)
		}
		p, err := lc.ListArtifacts(ctx, sc.ID, domain.FamKnowledge, domain.ArtifactFilter{}, domain.Page{})
		if err != nil || len(p.Artifacts) != 0 {
			t.Fatalf("a refused chapter left pages: %+v, %v", p, err)
		}
	}
	page := chapterPage(sc.ID, 1)
	_, err := ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(page, 0, []string{a.ID, foreign.ID}, "", []domain.PendingEntry{ea}))
	wantNothing(domain.ECROSSSCOPE, err)
	_, err = ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(page, 3, []string{a.ID}, "", []domain.PendingEntry{ea}))
	wantNothing(domain.ECONFLICT, err)
	notPending := ea
	notPending.Seq = 11
	_, err = ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(page, 0, []string{a.ID}, "", []domain.PendingEntry{notPending}))
	wantNothing(domain.ECONFLICT, err)
	skill := chapterPage(sc.ID, 1)
	skill.Type = string(domain.KnowFact)
	_, err = ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(skill, 0, []string{a.ID}, "", []domain.PendingEntry{ea}))
	wantNothing(domain.EINVALID, err)
	elsewhere := chapterPage(other.ID, 1)
	_, err = ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(elsewhere, 0, []string{a.ID}, "", []domain.PendingEntry{ea}))
	wantNothing(domain.EINVALID, err)
	boom := domain.Errorf(domain.EUNAVAILABLE, "the model left")
	_, err = ss.WriteChapter(ctx, domain.Request{}, sc.ID, func(*domain.StoryState) (*domain.ChapterPlan, error) { return nil, boom })
	wantNothing(domain.EUNAVAILABLE, err)
	if _, err := ss.WriteChapter(ctx, domain.Request{}, mustScope(t, st).ID, chapterPlan(page, 0, []string{a.ID}, "", []domain.PendingEntry{ea})); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a chapter of a scope with no pending log: %v", err)
	}
	if _, err := ss.WriteChapter(ctx, domain.Request{}, domain.NewID(), chapterPlan(page, 0, []string{a.ID}, "", []domain.PendingEntry{ea})); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a chapter of a missing scope: %v", err)
	}
}

// testMultiChapterRace: two servers write the same chapter at once; one wins, the other finds
// the story moved, and every memory is told once — while the other server's consumer appends to
// the same pending log, losing no entry and no token.
func testMultiChapterRace(t *testing.T, a, b domain.Store) {
	ctx := context.Background()
	ssA, ssB := a.(domain.StoryStore), b.(domain.StoryStore)
	ls, lsB := a.(domain.LivingStore), b.(domain.LivingStore)
	sc := mustScope(t, a)
	const rounds = 5
	for r := 0; r < rounds; r++ {
		m := NewMemory(sc.ID, fmt.Sprint("round ", r))
		mustInsert(t, a, m)
		e := pendingOf(sc.ID, m, uint64(100+10*r), 5)
		appendPending(t, ls, e)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		start := make(chan struct{})
		late := NewMemory(sc.ID, fmt.Sprint("appended during round ", r))
		mustInsert(t, b, late)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, err := lsB.Apply(ctx, nil, &domain.Changes{Pending: []domain.PendingEntry{pendingOf(sc.ID, late, uint64(105+10*r), 3)}}, nil); err != nil {
				t.Errorf("append during round %d: %v", r, err)
			}
		}()
		for _, ss := range []domain.StoryStore{ssA, ssB, ssA, ssB} {
			wg.Add(1)
			go func(ss domain.StoryStore) {
				defer wg.Done()
				<-start
				_, err := ss.WriteChapter(ctx, domain.Request{}, sc.ID, chapterPlan(chapterPage(sc.ID, r+1), r, []string{m.ID}, "", []domain.PendingEntry{e}))
				mu.Lock()
				defer mu.Unlock()
				switch domain.ErrorCode(err) {
				case "":
					won++
				case domain.ECONFLICT:
					lost++
				default:
					t.Errorf("round %d: %v", r, err)
				}
			}(ss)
		}
		close(start)
		wg.Wait()
		if won != 1 || lost != 3 {
			t.Fatalf("round %d: %d chapters written, %d refused; want 1 and 3", r, won, lost)
		}
	}
	s := mustState(t, ssB, sc.ID)
	p, err := b.(domain.LifecycleStore).ListArtifacts(ctx, sc.ID, domain.FamKnowledge, domain.ArtifactFilter{}, domain.Page{First: 100})
	if err != nil {
		t.Fatal(err)
	}
	if s.Chapters != rounds || len(s.Pending) != rounds || s.Tokens != 3*rounds || p.TotalCount != rounds {
		t.Fatalf("after %d rounds: %d chapters, %d pages, pending %d (%d tokens), want %d appended entries of 3 tokens",
			rounds, s.Chapters, p.TotalCount, len(s.Pending), s.Tokens, rounds)
	}
}
