package graph

import (
	"context"

	"github.com/dgraph-io/dgo/v250/protos/api"
)

// CommitHooks are tests' view into the store's commits, on the real engine.
type CommitHooks struct {
	// Before sees the predicates a commit sets and deletes, before the engine does; a non-nil
	// answer is the commit's error and nothing is written. Fault-injection tests make a write
	// fail at the one moment they mean (a crash between deciding a write and committing it).
	Before func(predicates map[string]bool) error
	// After is called after each commit that succeeded, with the context the write was made
	// with: tests attribute writes to the requests that made them (a refusal writes nothing).
	After func(ctx context.Context)
}

func (h CommitHooks) set() bool { return h.Before != nil || h.After != nil }

// WithCommitHooks makes every commit of the store go through h. For tests.
func WithCommitHooks(h CommitHooks) Option { return func(s *Store) { s.hooks = h } }

// hookedUnit is a unit whose commits go through the store's hooks.
type hookedUnit struct {
	unit
	hooks CommitHooks
}

func (u hookedUnit) commit(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	if u.hooks.Before != nil {
		preds := map[string]bool{}
		for _, nqs := range [][]*api.NQuad{mu.Set, mu.Del} {
			for _, nq := range nqs {
				preds[nq.Predicate] = true
			}
		}
		if err := u.hooks.Before(preds); err != nil {
			return nil, err
		}
	}
	uids, err := u.unit.commit(ctx, mu)
	if err == nil && u.hooks.After != nil {
		u.hooks.After(ctx)
	}
	return uids, err
}
