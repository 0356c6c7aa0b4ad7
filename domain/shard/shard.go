// Package shard says which scopes a server serves. Scopes never reference each other, so the
// derived state of a cluster — the search index and the work of the living consumers — is split
// by scope: a server serves the scopes whose id hashes to its shard (I/N), or a list of scope
// ids. The graph stays one; only what is derived from it is split.
//
// A Spec is immutable once parsed and safe for concurrent use. A nil *Spec serves every scope.
package shard

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// MaxShards bounds N of I/N.
const MaxShards = 1024

// Spec is a server's share of the scopes: shard index of count (count > 1), or a list of ids.
type Spec struct {
	index, count int
	scopes       map[string]bool
	list         []string // sorted
}

// Of is the shard of count a scope id falls in: FNV-1a (64 bits) of the id, modulo count. The
// hash is part of the contract: servers of different builds must agree on it.
func Of(scopeID string, count int) int {
	if count <= 1 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(scopeID))
	return int(h.Sum64() % uint64(count))
}

// ErrEmpty is Parse's error for an empty spec.
var ErrEmpty = errors.New("is empty: want I/N (shard I of N, 0 ≤ I < N) or a comma list of scope ids")

// Parse reads a spec: "I/N" (the scopes whose id hashes to shard I of N) or a comma list of
// scope ids. "all" and "0/1" serve every scope and parse to nil, the spec of a server that is not
// split.
// Errors are one line and say what is expected.
func Parse(s string) (*Spec, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return nil, ErrEmpty
	case "all":
		return nil, nil
	}
	if i, n, ok := strings.Cut(s, "/"); ok {
		index, err1 := strconv.Atoi(strings.TrimSpace(i))
		count, err2 := strconv.Atoi(strings.TrimSpace(n))
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("%q: want I/N with whole numbers, e.g. 0/2", s)
		case count < 1 || count > MaxShards:
			return nil, fmt.Errorf("%q: N must be 1..%d", s, MaxShards)
		case index < 0 || index >= count:
			return nil, fmt.Errorf("%q: I must be 0..%d (shards are numbered from 0)", s, count-1)
		case count == 1:
			return nil, nil
		}
		return &Spec{index: index, count: count}, nil
	}
	sp := &Spec{scopes: map[string]bool{}}
	for _, id := range strings.Split(s, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			return nil, fmt.Errorf("%q: an empty scope id in the list", s)
		}
		if !domain.ValidID(id) {
			return nil, fmt.Errorf("%q: %q is neither I/N nor a scope id (a UUID)", s, truncate(id, 40))
		}
		if !sp.scopes[id] {
			sp.scopes[id] = true
			sp.list = append(sp.list, id)
		}
	}
	sort.Strings(sp.list)
	return sp, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Serves reports whether the server of s serves the scope. An event without a scope (scopeID
// "") belongs to shard 0 of a hash spec and to no list.
func (s *Spec) Serves(scopeID string) bool {
	switch {
	case s == nil:
		return true
	case s.count > 1:
		return Of(scopeID, s.count) == s.index
	}
	return s.scopes[scopeID]
}

// All reports whether s serves every scope (no split).
func (s *Spec) All() bool { return s == nil }

// Hash returns I and N of an I/N spec (ok false for a list or for every scope).
func (s *Spec) Hash() (index, count int, ok bool) {
	if s == nil || s.count <= 1 {
		return 0, 0, false
	}
	return s.index, s.count, true
}

// Scopes returns the ids of a list spec, sorted (nil for the others); the caller may keep it.
func (s *Spec) Scopes() []string {
	if s == nil || s.list == nil {
		return nil
	}
	return append([]string(nil), s.list...)
}

// String is the spec as Parse reads it: "all", "I/N" or the sorted list.
func (s *Spec) String() string {
	switch {
	case s == nil:
		return "all"
	case s.count > 1:
		return fmt.Sprintf("%d/%d", s.index, s.count)
	}
	return strings.Join(s.list, ",")
}

// Suffix names the scope set in identifiers such as consumer names ("" for every scope): s0of2
// for 0/2, and for a list l and eight hex digits of the list's hash.
func (s *Spec) Suffix() string {
	switch {
	case s == nil:
		return ""
	case s.count > 1:
		return fmt.Sprintf("s%dof%d", s.index, s.count)
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.Join(s.list, ",")))
	return fmt.Sprintf("l%08x", h.Sum32())
}
