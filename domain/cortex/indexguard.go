package cortex

import (
	"context"
	"errors"

	"github.com/totalrecall/totalrecall/domain"
)

// guardedIndex is the search index as the Cortex uses it: whatever the index fails with — a disk
// error, a damaged file, a panic in its library — reaches callers as UNAVAILABLE, never as an
// internal error or a crash. The index is derived from the log, so what it loses a restart
// rebuilds.
type guardedIndex struct{ ix domain.Index }

func guardIndex(ix domain.Index) domain.Index {
	if g, ok := ix.(guardedIndex); ok {
		return g
	}
	return guardedIndex{ix}
}

// indexError is how a failure of the index reaches callers.
func indexError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return domain.Errorf(domain.EUNAVAILABLE, "search index: %v", err)
}

// guard runs fn, turning its panic into UNAVAILABLE.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = domain.Errorf(domain.EUNAVAILABLE, "search index failed: %v", p)
		}
	}()
	return indexError(fn())
}

func (g guardedIndex) Put(ctx context.Context, docs []domain.IndexDoc) error {
	return guard(func() error { return g.ix.Put(ctx, docs) })
}

func (g guardedIndex) Queue(ctx context.Context, docs []domain.IndexDoc) error {
	return guard(func() error { return g.ix.Queue(ctx, docs) })
}

func (g guardedIndex) Remove(ctx context.Context, ids []string) error {
	return guard(func() error { return g.ix.Remove(ctx, ids) })
}

func (g guardedIndex) RemoveScope(ctx context.Context, scopeID string) error {
	return guard(func() error { return g.ix.RemoveScope(ctx, scopeID) })
}

func (g guardedIndex) Search(ctx context.Context, q domain.IndexQuery) (hits []domain.IndexHit, err error) {
	err = guard(func() error {
		var e error
		hits, e = g.ix.Search(ctx, q)
		return e
	})
	return hits, err
}

func (g guardedIndex) Watermark() (seq uint64, err error) {
	err = guard(func() error {
		var e error
		seq, e = g.ix.Watermark()
		return e
	})
	return seq, err
}

func (g guardedIndex) SetWatermark(seq uint64) error {
	return guard(func() error { return g.ix.SetWatermark(seq) })
}

func (g guardedIndex) Reset() error { return guard(g.ix.Reset) }

func (g guardedIndex) Count() (n uint64, err error) {
	err = guard(func() error {
		var e error
		n, e = g.ix.Count()
		return e
	})
	return n, err
}

func (g guardedIndex) Close() error { return guard(g.ix.Close) }
