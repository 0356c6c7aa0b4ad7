package graph

import (
	"context"
	"encoding/json"
)

// RawSetMany commits many JSON objects in one set-mutation, outside every rule of the store (no
// events, no scope checks). It exists for benchmarks that load large graphs; blank nodes are
// shared across the objects of one call.
func (s *Store) RawSetMany(ctx context.Context, objs []map[string]any) error {
	raw, err := json.Marshal(objs)
	if err != nil {
		return err
	}
	_, err = s.commitRaw(ctx, apiMutation(raw))
	return err
}
