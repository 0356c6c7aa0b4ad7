package graph

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// TestScoreRowsFromTheCache: the scoring rows the read cache gives are those a read of the
// nodes gives — before and after the writes that change them (scores, accesses, a claim, new
// associations both ways) — and a memory it does not hold is read.
func TestScoreRowsFromTheCache(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 4)
	ids := []string{ms[0].ID, ms[1].ID, ms[2].ID, ms[3].ID}
	assoc := func(from, to string, at domain.AssociationType, st float64) {
		t.Helper()
		if _, err := s.Associate(ctx, domain.Request{}, from, to, at, func(_ *domain.Association, src, dst *domain.Memory) (*domain.Association, []*domain.Event, error) {
			return &domain.Association{SourceID: src.ID, TargetID: dst.ID, ScopeID: src.ScopeID, Type: at, Strength: st, UpdatedAt: time.Now().UTC()}, nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	assoc(ms[0].ID, ms[1].ID, domain.AssocThematic, 0.5)
	assoc(ms[2].ID, ms[0].ID, domain.AssocPerson, 0.75)
	read := func() map[string]*domain.ScoreRow {
		t.Helper()
		rows, err := s.scoreRows(ctx, ids, func(chunk []string) string { return "eq(tr.id, " + idList(chunk) + ")" })
		if err != nil {
			t.Fatal(err)
		}
		return byID(rows)
	}
	fill := func() {
		t.Helper()
		if _, err := s.Memories(ctx, ids); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Neighbours(ctx, ids, 0); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, wantCached int) {
		t.Helper()
		cached, miss := s.cache.scoreRows(append(ids, ids[0]))
		if len(cached) != wantCached || len(cached)+len(miss) != len(ids) {
			t.Fatalf("%s: the cache gives %d rows and misses %d, want %d rows of %d", when, len(cached), len(miss), wantCached, len(ids))
		}
		want := read()
		for _, r := range cached {
			w := want[r.ID]
			if w == nil {
				t.Fatalf("%s: the cache gives a row of %s, a read none", when, r.ID)
			}
			if math.Abs(r.Connectivity-w.Connectivity) > 1e-9 {
				t.Fatalf("%s: connectivity of %s: cached %v, read %v", when, r.ID, r.Connectivity, w.Connectivity)
			}
			c, x := *r, *w
			c.Connectivity, x.Connectivity = 0, 0
			if !sameRow(&c, &x) {
				t.Fatalf("%s: row of %s\ncached %+v\n  read %+v", when, r.ID, c, x)
			}
		}
		got, err := s.ScoreRows(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if g := byID(got); len(g) != len(want) {
			t.Fatalf("%s: ScoreRows gives %d rows, want %d", when, len(g), len(want))
		}
	}
	fill()
	check("filled", 4)
	now := time.Date(2025, 6, 1, 2, 3, 4, 5000000, time.UTC)
	p, rec := 0.7, 0.9
	ch := &domain.Changes{
		Accesses: []domain.Access{{MemoryID: ms[1].ID, At: now}, {MemoryID: ms[1].ID, At: now.Add(time.Second)}},
		Scores:   []domain.ScoreUpdate{{MemoryID: ms[1].ID, Salience: 0.63, Potential: &p, Recency: &rec, ScoredAt: &now}},
	}
	if _, err := s.Apply(ctx, nil, ch, nil); err != nil {
		t.Fatal(err)
	}
	check("after an access and a score", 4)
	if _, err := s.UpdateMemory(ctx, domain.Request{}, ms[3].ID, func(m *domain.Memory) ([]*domain.Event, error) {
		claimedAt := now
		m.Claimed, m.ClaimedAt, m.Importance = true, &claimedAt, 0.8
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	fill()
	check("after a claim", 4)
	assoc(ms[3].ID, ms[0].ID, domain.AssocCausal, 0.4)
	check("after an association (its ends dropped)", 2)
	fill()
	check("filled again", 4)
}

func byID(rows []*domain.ScoreRow) map[string]*domain.ScoreRow {
	out := map[string]*domain.ScoreRow{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

func sameRow(a, b *domain.ScoreRow) bool {
	at := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	keys := func(r *domain.ScoreRow) []string {
		return []string{r.Ref, r.ID, r.ScopeID, string(r.Tier), string(r.State), at(r.LastAccessedAt), at(r.ClaimedAt),
			r.CreatedAt.UTC().Format(time.RFC3339Nano), r.ScoredAt.UTC().Format(time.RFC3339Nano)}
	}
	ka, kb := keys(a), keys(b)
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return a.Full == b.Full && a.Claimed == b.Claimed && a.AccessCount == b.AccessCount && a.Importance == b.Importance &&
		a.Version == b.Version && a.Salience == b.Salience && a.Scored == b.Scored && a.Potential == b.Potential &&
		a.Recency == b.Recency && a.ScoredVersion == b.ScoredVersion && a.ScoredClaimed == b.ScoredClaimed
}
