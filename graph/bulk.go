package graph

import (
	"context"
	"encoding/json"

	"github.com/dgraph-io/dgo/v250/protos/api"
)

// RawSetMany commits many JSON objects in one set-mutation, outside every rule of the store (no
// events, no scope checks). It exists for benchmarks that load large graphs; blank nodes are
// shared across the objects of one call.
func (s *Store) RawSetMany(ctx context.Context, objs []map[string]any) error {
	raw, err := json.Marshal(objs)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cache.clear() // before the lock is released: a writer may read the cache under it
	u := s.b.begin(ctx)
	_, err = u.commit(ctx, &api.Mutation{SetJson: raw, CommitNow: true})
	if err != nil {
		u.discard(ctx)
	}
	return err
}
