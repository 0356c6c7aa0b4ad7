package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search/query"
)

type opKind int

const (
	opPut opKind = iota
	opRemove
	opWatermark
	opRemoveScope // barrier: runs alone
	opReset       // barrier: runs alone
)

// op is one caller's write request, handed to the writer goroutine.
type op struct {
	ctx   context.Context
	kind  opKind
	docs  []*document.Document // opPut, already mapped
	ids   []string             // opRemove
	scope string               // opRemoveScope
	seq   uint64               // opWatermark
	n     int                  // documents or ids it adds to a batch
	res   chan error           // buffered, receives exactly one result
}

func (o *op) barrier() bool { return o.kind == opRemoveScope || o.kind == opReset }

// submit hands o to the writer and waits for its result.
func (i *Index) submit(ctx context.Context, o *op) error {
	if i.closed.Load() {
		return unavailable()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	o.ctx = ctx
	o.res = make(chan error, 1)
	select {
	case i.ops <- o:
	case <-i.quit:
		return unavailable()
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-o.res:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the writer goroutine. It takes one request, then every request already waiting (up to
// maxBatch documents), and applies them as one Bleve batch; it never waits for more requests
// when none are pending. Barrier requests (RemoveScope, Reset) run on their own, in order.
// Every request it takes gets a result, even when Close is under way.
func (i *Index) run() {
	defer close(i.done)
	var next *op
	group := make([]*op, 0, 64)
	for {
		first := next
		next = nil
		if first == nil {
			select {
			case first = <-i.ops:
			case <-i.quit:
				return
			}
		}
		if first.barrier() {
			first.res <- i.applyBarrier(first)
			continue
		}
		group = append(group[:0], first)
		n := first.n
		// Callers answered by the previous batch are usually about to send again; yielding
		// once lets them reach the channel, so they join this batch instead of the next.
		runtime.Gosched()
	collect:
		for n < i.maxBatch {
			select {
			case o := <-i.ops:
				if o.barrier() {
					next = o
					break collect
				}
				group = append(group, o)
				n += o.n
			default:
				break collect
			}
		}
		i.applyGroup(group)
		clear(group)
	}
}

// applyGroup commits the requests of group in one Bleve batch and answers each of them.
// Requests whose caller has given up are skipped.
func (i *Index) applyGroup(group []*op) {
	if i.idx == nil {
		for _, o := range group {
			o.res <- unavailable()
		}
		return
	}
	b := i.idx.NewBatch()
	live := 0
	wm, setWM := uint64(0), false
	for _, o := range group {
		if err := o.ctx.Err(); err != nil {
			o.res <- err
			continue
		}
		group[live] = o
		live++
		switch o.kind {
		case opPut:
			for _, d := range o.docs {
				// IndexAdvanced fails only for an empty id, which Put refuses.
				_ = b.IndexAdvanced(d)
			}
		case opRemove:
			for _, id := range o.ids {
				b.Delete(id)
			}
		case opWatermark:
			wm, setWM = o.seq, true
			b.SetInternal(keyWatermark, encodeSeq(o.seq))
		}
	}
	if live == 0 {
		return
	}
	err := i.idx.Batch(b)
	i.batches.Add(1)
	i.batchedOps.Add(uint64(live))
	if err != nil {
		err = fmt.Errorf("search: batch: %w", err)
	} else if setWM {
		i.watermark.Store(wm)
	}
	for _, o := range group[:live] {
		o.res <- err
	}
}

func (i *Index) applyBarrier(o *op) error {
	if err := o.ctx.Err(); err != nil {
		return err
	}
	switch o.kind {
	case opRemoveScope:
		if i.idx == nil {
			return unavailable()
		}
		return i.removeScope(o.ctx, o.scope)
	case opReset:
		return i.reset()
	}
	return nil
}

// removeScope finds the scope's documents with a term query and deletes them, maxBatch at a
// time, until none is left.
func (i *Index) removeScope(ctx context.Context, scopeID string) error {
	q := query.NewTermQuery(scopeID)
	q.SetField(FieldScope)
	for {
		req := bleve.NewSearchRequestOptions(q, i.maxBatch, 0, false)
		req.Score = "none"
		res, err := i.idx.SearchInContext(ctx, req)
		if err != nil {
			return fmt.Errorf("search: remove scope: %w", err)
		}
		if len(res.Hits) == 0 {
			return nil
		}
		b := i.idx.NewBatch()
		for _, h := range res.Hits {
			b.Delete(h.ID)
		}
		if err := i.idx.Batch(b); err != nil {
			return fmt.Errorf("search: remove scope: %w", err)
		}
	}
}

// reset replaces the index with an empty one. It holds mu, so no search runs meanwhile.
func (i *Index) reset() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.idx != nil {
		if err := i.idx.Close(); err != nil {
			return fmt.Errorf("search: reset: %w", err)
		}
		i.idx = nil
	}
	if err := os.RemoveAll(i.dir); err != nil {
		return fmt.Errorf("search: reset: %w", err)
	}
	idx, err := create(i.dir)
	if err != nil {
		return err
	}
	i.idx = idx
	i.watermark.Store(0)
	return nil
}

func encodeSeq(seq uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seq)
	return b[:]
}
