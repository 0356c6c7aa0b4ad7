package graph

import (
	"context"
	"slices"
	"testing"
)

// pagesOf hands over every node having the predicate once, in uid order, across pages, also when
// the callback changes what it is handed (Export deletes the uid it pages by); a false from the
// callback stops it.
func TestPagesOfVisitsEveryNodeOnce(t *testing.T) {
	ctx := context.Background()
	s, scope := openScopeStore(t)
	ms := cacheMemories(t, s, scope, 10)
	want := map[string]bool{}
	for _, m := range ms {
		want[m.ID] = true
	}
	for _, page := range []int{1, 3, 10, 11} {
		var ids, uids []string
		err := pagesOf(ctx, s, "mem.state", "uid tr.id", page, decode, rowUID, func(row *map[string]any) (bool, error) {
			uids = append(uids, rowUID(row))
			id, _ := (*row)["tr.id"].(string)
			ids = append(ids, id)
			delete(*row, "uid")
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(want) {
			t.Fatalf("page %d: visited %d nodes, want %d", page, len(ids), len(want))
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if !want[id] || seen[id] {
				t.Fatalf("page %d: visited %v", page, ids)
			}
			seen[id] = true
		}
		if !slices.IsSortedFunc(uids, func(a, b string) int {
			ua, _ := parseUID(a)
			ub, _ := parseUID(b)
			return int(ua) - int(ub)
		}) {
			t.Fatalf("page %d: uids out of order: %v", page, uids)
		}
	}
	n := 0
	if err := pagesOf(ctx, s, "mem.state", "uid", 3, decode, rowUID, func(*map[string]any) (bool, error) {
		n++
		return n < 4, nil
	}); err != nil || n != 4 {
		t.Fatalf("stopped after %d nodes (%v), want 4", n, err)
	}
}
