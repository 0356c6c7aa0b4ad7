package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/totalrecall/totalrecall/domain"
)

type opKind int

const (
	opPut opKind = iota
	opRemove
	opWatermark
	opSync        // waits for every write queued before it
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
	// queued ops (Queue) have no caller waiting for their result: the writer may wait up to
	// linger for more of them before it writes a batch.
	queued bool
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
	case <-i.done:
		// The writer answers everything it takes before it returns; an op that reached the
		// buffer after its last look was never taken.
		select {
		case err := <-o.res:
			return err
		default:
			return unavailable()
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enqueue hands o to the writer without waiting for it to be applied.
func (i *Index) enqueue(o *op) error {
	if i.closed.Load() {
		return unavailable()
	}
	o.ctx = context.Background()
	o.res = make(chan error, 1)
	o.queued = true
	n := i.queued.Add(1)
	if o.kind != opWatermark {
		for {
			d := i.docsQueued.Load()
			if d >= n || i.docsQueued.CompareAndSwap(d, n) {
				break
			}
		}
	}
	select {
	case i.ops <- o:
		return nil
	case <-i.quit:
		i.applied.Add(1) // never taken
		return unavailable()
	}
}

// run is the writer goroutine. It takes one request, then every request already waiting (up to
// maxBatch documents), and applies them as one Bleve batch. When every request taken is a
// queued one (no caller waits for it), it also waits up to linger for more, so a stream of
// single stores makes a few large batches instead of many one-document segments that Bleve
// would then merge again and again; the first request a caller waits for (a search's sync, a
// Put, a watermark) ends the wait at once. Barrier requests (RemoveScope, Reset) run on their
// own, in order. Every request it takes gets a result; on Close the requests still buffered are
// applied (or refused, for barriers) before it returns.
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
				i.drain(group)
				return
			}
		}
		if first.barrier() {
			first.res <- i.applyBarrier(first)
			continue
		}
		group = append(group[:0], first)
		n := first.n
		waited := !first.queued
		// Callers answered by the previous batch are usually about to send again; yielding
		// once lets them reach the channel, so they join this batch instead of the next.
		runtime.Gosched()
		var timer *time.Timer
		take := func(o *op) bool {
			if o.barrier() {
				next = o
				return false
			}
			group = append(group, o)
			n += o.n
			waited = waited || !o.queued
			return true
		}
	collect:
		for n < i.maxBatch {
			select {
			case o := <-i.ops:
				if !take(o) {
					break collect
				}
				continue
			default:
			}
			if waited || i.linger <= 0 {
				break
			}
			if timer == nil {
				timer = time.NewTimer(i.linger)
			}
			select {
			case o := <-i.ops:
				if !take(o) {
					break collect
				}
			case <-timer.C:
				break collect
			case <-i.quit:
				break collect
			}
		}
		if timer != nil {
			timer.Stop()
		}
		i.applyGroup(group)
		clear(group)
	}
}

// drain applies the requests still buffered when the index closes; barriers are refused.
func (i *Index) drain(group []*op) {
	for {
		group = group[:0]
	more:
		for len(group) < cap(group) {
			select {
			case o := <-i.ops:
				if o.barrier() {
					o.res <- unavailable()
					continue
				}
				group = append(group, o)
			default:
				break more
			}
		}
		if len(group) == 0 {
			return
		}
		i.applyGroup(group)
	}
}

// applyGroup commits the requests of group in one Bleve batch and answers each of them.
// Requests whose caller has given up are skipped.
func (i *Index) applyGroup(group []*op) {
	queued := uint64(0)
	for _, o := range group {
		if o.queued {
			queued++
		}
	}
	// applied counts the queued requests taken, whatever became of them: sync compares it
	// with queued to know whether anything is left to wait for.
	defer i.applied.Add(queued)
	if i.idx == nil {
		for _, o := range group {
			o.res <- unavailable()
		}
		return
	}
	failed := i.failure()
	b := i.idx.NewBatch()
	live, work := 0, 0
	wm, setWM := uint64(0), false
	for _, o := range group {
		if err := o.ctx.Err(); err != nil {
			o.res <- err
			continue
		}
		if o.kind == opWatermark && failed != nil {
			// A queued batch failed: the documents it held are not in the index, so the
			// watermark must not pass the events that carried them.
			o.res <- failed
			continue
		}
		group[live] = o
		live++
		switch o.kind {
		case opPut:
			for _, d := range o.docs {
				// IndexAdvanced fails only for an empty id, which Put refuses.
				_ = b.IndexAdvanced(d)
				work++
			}
		case opRemove:
			for _, id := range o.ids {
				b.Delete(id)
				work++
			}
		case opWatermark:
			wm, setWM = o.seq, true
			b.SetInternal(keyWatermark, encodeSeq(o.seq))
			work++
		}
	}
	if live == 0 {
		return
	}
	var err error
	if work > 0 {
		err = i.idx.Batch(b)
		i.batches.Add(1)
		i.batchedOps.Add(uint64(live))
		for _, o := range group[:live] {
			if o.kind == opPut && err == nil {
				i.docsWritten.Add(uint64(len(o.docs)))
			}
		}
	}
	if err != nil {
		err = ioError(err)
		for _, o := range group[:live] {
			if o.queued {
				i.fail(err)
				break
			}
		}
	} else if setWM {
		i.watermark.Store(wm)
	}
	for _, o := range group[:live] {
		if o.kind == opSync {
			// A sync answers for the queued writes before it, which may have failed in this
			// batch or an earlier one.
			o.res <- i.failure()
			continue
		}
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
		if err := i.reset(); err != nil {
			return err
		}
		// A new, empty index: what a failed queued batch lost is rebuilt from the log.
		i.failed.Store(nil)
		return nil
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

// fail records that a queued batch failed: its documents are not in the index, and no caller
// waited to hear it. Searches and watermarks fail from then on, until a Reset rebuilds the
// index (the event log holds everything it lost).
func (i *Index) fail(err error) {
	var e error = domain.Errorf(domain.EUNAVAILABLE, "search index: a queued write failed: %v", err)
	i.failed.CompareAndSwap(nil, &e)
}

func (i *Index) failure() error {
	if p := i.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// sync waits until every write queued before it is applied: it is what makes a queued document
// searchable once Queue returns. It costs nothing when nothing queued is pending.
func (i *Index) sync(ctx context.Context) error {
	if err := i.failure(); err != nil {
		return err
	}
	if i.applied.Load() == i.queued.Load() {
		return nil
	}
	return i.submit(ctx, &op{kind: opSync})
}

// syncDocs is sync for a search: it waits only while a queued request changes documents (a
// watermark changes nothing a search finds, and waiting for one made searches wait for the
// writer's batches after every write of the event log).
func (i *Index) syncDocs(ctx context.Context) error {
	if err := i.failure(); err != nil {
		return err
	}
	if i.applied.Load() >= i.docsQueued.Load() {
		return nil
	}
	return i.submit(ctx, &op{kind: opSync})
}
