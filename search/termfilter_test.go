package search

import "testing"

// TestCondsKeyTellsFiltersApart: a segment keeps its filter bitmaps by key, so two filters with
// the same bytes split differently must never share a key.
func TestCondsKeyTellsFiltersApart(t *testing.T) {
	filters := [][]termCond{
		nil,
		{{field: "a", terms: []string{"bc"}}},
		{{field: "ab", terms: []string{"c"}}},
		{{field: "a", terms: []string{"b", "c"}}},
		{{field: "a", terms: []string{"bc", ""}}},
		{{field: "a", terms: []string{"b"}}, {field: "c", terms: nil}},
		{{field: "a", terms: []string{"b"}}, {field: "c", terms: []string{""}}},
		{{field: "a", terms: []string{"\x01b"}}},
		{{field: FieldScope, terms: []string{"s1"}}, {field: FieldState, terms: []string{"ACTIVE"}}},
		{{field: FieldState, terms: []string{"ACTIVE"}}, {field: FieldScope, terms: []string{"s1"}}},
		{{field: FieldScope, terms: []string{"s2"}}, {field: FieldState, terms: []string{"ACTIVE"}}},
	}
	seen := map[string]int{}
	for k, f := range filters {
		key := condsKey(f)
		if j, ok := seen[key]; ok {
			t.Fatalf("filters %d %+v and %d %+v share the key %q", j, filters[j], k, f, key)
		}
		seen[key] = k
		if condsKey(f) != key {
			t.Fatalf("filter %d: the key changes between calls", k)
		}
	}
}
