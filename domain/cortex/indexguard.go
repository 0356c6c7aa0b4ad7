package cortex

import (
	"context"
	"errors"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/shard"
)

// guardedIndex is the search index as the Cortex uses it: whatever the index fails with — a disk
// error, a damaged file, a panic in its library — reaches callers as UNAVAILABLE, never as an
// internal error or a crash. The index is derived from the log, so what it loses a restart
// rebuilds. On a server that serves some of the scopes (shard.go), it holds only their documents
// and refuses to search the others with SCOPE_NOT_SERVED rather than answer from what it lacks.
type guardedIndex struct {
	ix    domain.Index
	shard *shard.Spec
}

func guardIndex(ix domain.Index, sp *shard.Spec) domain.Index {
	if g, ok := ix.(guardedIndex); ok {
		ix = g.ix
	}
	return guardedIndex{ix, sp}
}

// served keeps the documents of the scopes the index serves; docs is not changed.
func (g guardedIndex) served(docs []domain.IndexDoc) []domain.IndexDoc {
	if g.shard.All() {
		return docs
	}
	out := make([]domain.IndexDoc, 0, len(docs))
	for _, d := range docs {
		if g.shard.Serves(docScope(d.ScopeID)) {
			out = append(out, d)
		}
	}
	return out
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
	if docs = g.served(docs); len(docs) == 0 {
		return nil
	}
	return guard(func() error { return g.ix.Put(ctx, docs) })
}

func (g guardedIndex) Queue(ctx context.Context, docs []domain.IndexDoc) error {
	if docs = g.served(docs); len(docs) == 0 {
		return nil
	}
	return guard(func() error { return g.ix.Queue(ctx, docs) })
}

func (g guardedIndex) Remove(ctx context.Context, ids []string) error {
	return guard(func() error { return g.ix.Remove(ctx, ids) })
}

func (g guardedIndex) RemoveScope(ctx context.Context, scopeID string) error {
	return guard(func() error { return g.ix.RemoveScope(ctx, scopeID) })
}

func (g guardedIndex) Search(ctx context.Context, q domain.IndexQuery) (hits []domain.IndexHit, err error) {
	// A search of every scope (ScopeID "") searches the ones served here.
	if q.ScopeID != "" && !g.shard.Serves(docScope(q.ScopeID)) {
		return nil, notServed(docScope(q.ScopeID), g.shard)
	}
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
