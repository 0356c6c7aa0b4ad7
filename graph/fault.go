package graph

import (
	"context"

	"github.com/dgraph-io/dgo/v250/protos/api"
)

// CommitFault decides whether a commit fails before it reaches the engine: it sees the
// predicates the commit sets and deletes, and a non-nil answer is the commit's error (nothing
// is written). It is how tests make a write fail at the one moment they mean — a crash between
// deciding a write and committing it — on the real engine.
type CommitFault func(predicates map[string]bool) error

// WithCommitFault makes every commit of the store ask f first. For fault-injection tests.
func WithCommitFault(f CommitFault) Option { return func(s *Store) { s.fault = f } }

type faultUnit struct {
	unit
	fault CommitFault
}

func (u faultUnit) commit(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	preds := map[string]bool{}
	for _, nqs := range [][]*api.NQuad{mu.Set, mu.Del} {
		for _, nq := range nqs {
			preds[nq.Predicate] = true
		}
	}
	if err := u.fault(preds); err != nil {
		return nil, err
	}
	return u.unit.commit(ctx, mu)
}
