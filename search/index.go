package search

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/totalrecall/totalrecall/domain"
)

// DefaultMaxBatch is the default largest number of documents the writer puts in one Bleve batch.
const DefaultMaxBatch = 1000

// Keys of the values kept in Bleve's internal storage.
var (
	keyWatermark = []byte("totalrecall.watermark")
	keySchema    = []byte("totalrecall.schema")
	keyFlush     = []byte("totalrecall.flush")
)

// metaFile is the file Bleve keeps at the root of every index folder.
const metaFile = "index_meta.json"

// Option configures Open.
type Option func(*config)

type config struct {
	maxBatch int
	linger   time.Duration
	idCache  int
}

// WithIDCache bounds the cache of document ids read for searches, in bytes (idcache.go;
// DefaultIDCacheBytes when 0 or less).
func WithIDCache(bytes int) Option { return func(c *config) { c.idCache = bytes } }

// DefaultLinger is how long the writer waits for more queued documents before it writes a batch
// that no caller waits for (see Queue). Longer batches make fewer, larger segments for Bleve's
// merger to rewrite: under a stream of single stores, 1 s instead of 200 ms cut the merger's CPU
// from 4.8 s to 1.7 s for 6,000 stores. A search that comes while documents wait writes them
// first, at most DefaultMaxBatch at a time.
const DefaultLinger = time.Second

// WithLinger sets how long the writer may wait for more queued documents; 0 writes at once.
func WithLinger(d time.Duration) Option {
	return func(c *config) {
		if d >= 0 {
			c.linger = d
		}
	}
}

// WithMaxBatch sets the largest number of documents (or removals) the writer groups into one
// Bleve batch; n <= 0 keeps DefaultMaxBatch. A single Put larger than n is split into batches
// of n.
func WithMaxBatch(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBatch = n
		}
	}
}

var _ domain.Index = (*Index)(nil)

// Index is the on-disk full-text index of memories. It is safe for concurrent use: any number
// of goroutines may Put, Remove, Search and so on at the same time. All writes go through one
// writer goroutine that groups the pending requests of every caller into a single Bleve batch.
type Index struct {
	dir      string
	maxBatch int
	mapping  *mapping.IndexMappingImpl

	// mu guards idx. Searches and counts hold it shared; Reset (run by the writer) and Close
	// hold it exclusively while they swap the Bleve index. The writer reads idx without it, as
	// it is the only goroutine that changes idx while the Index is open.
	mu  sync.RWMutex
	idx bleve.Index // nil once closed, or after a Reset that failed to recreate the index

	watermark atomic.Uint64 // cache of the persisted watermark
	ids       idCache       // document ids by segment (idcache.go)
	linger    time.Duration

	// queued counts the requests handed over by Queue, applied those of them the writer has
	// taken; failed is set when a batch of queued requests failed (see fail). docsQueued is the
	// count queued reached with the last request that changes documents: a search waits for the
	// writer only while applied is below it (a watermark changes no document).
	queued, applied, docsQueued atomic.Uint64
	failed                      atomic.Pointer[error]

	// contentDict is the content field's dictionary of the latest snapshot a search expanded in
	// (lexical): building one opens every segment's dictionary, in goroutines.
	contentDict atomic.Pointer[snapshotDict]

	// plans remembers, per scope, whether it held most of the index when last looked at
	// (searchPlan), so a search does not open a reader of its own just to choose its plan.
	plans   sync.Map // scope ID → plan
	planned atomic.Uint64

	// batches and batchedOps count grouped batches and the requests they carried; docsWritten
	// the documents those batches indexed (a document put twice counts twice).
	batches, batchedOps, docsWritten atomic.Uint64
	closed                           atomic.Bool

	ops       chan *op      // buffered, so Queue returns while the writer is busy with a batch
	quit      chan struct{} // closed by Close
	done      chan struct{} // closed when the writer has returned
	closeOnce sync.Once
	closeErr  error
}

// Open opens the index in dir, or creates it (and dir) when dir holds no index. A folder that
// exists but holds something other than an index is refused, since Reset deletes the folder.
// An index built with another mapping version is rebuilt empty, with watermark 0, so the
// caller replays the event log into it.
func Open(dir string, opts ...Option) (*Index, error) {
	cfg := config{maxBatch: DefaultMaxBatch, linger: DefaultLinger}
	for _, o := range opts {
		o(&cfg)
	}
	if dir == "" {
		return nil, domain.FieldErrorf("dir", "must not be empty")
	}
	idx, err := openOrCreate(dir)
	if err != nil {
		return nil, err
	}
	wm, err := idx.GetInternal(keyWatermark)
	if err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("search: read watermark: %w", err)
	}
	i := &Index{
		dir:      dir,
		maxBatch: cfg.maxBatch,
		linger:   cfg.linger,
		mapping:  newMapping(),
		idx:      idx,
		ids:      idCache{budget: cfg.idCache},
		ops:      make(chan *op, 4096),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if len(wm) == 8 {
		i.watermark.Store(binary.BigEndian.Uint64(wm))
	}
	go i.run()
	return i, nil
}

// openOrCreate opens the index in dir, creating it when missing and rebuilding it when its
// schema version differs or it is damaged: a segment whose content does not match its checksum
// (garbled or truncated on disk), or an index Bleve cannot open. The index is derived data: the
// caller replays the event log into the new one.
func openOrCreate(dir string) (bleve.Index, error) {
	if _, err := os.Stat(filepath.Join(dir, metaFile)); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("search: %w", err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("search: %w", err)
		}
		if len(entries) > 0 {
			if !holdsSegments(dir) {
				return nil, fmt.Errorf("search: %s is not empty and holds no index", dir)
			}
			// An index whose mapping file is gone: damaged, not someone else's folder.
			return rebuildDamaged(dir, "its index_meta.json is missing")
		}
		return create(dir)
	}
	idx, err := openBleve(dir)
	if err != nil {
		// A process killed while the index was new may leave it unreadable (its mapping not
		// yet on disk); a damaged root.bolt too.
		return rebuildDamaged(dir, err.Error())
	}
	if err := checkSegments(idx); err != nil {
		_ = idx.Close()
		return rebuildDamaged(dir, err.Error())
	}
	v, err := idx.GetInternal(keySchema)
	if err == nil && string(v) == schemaVersion {
		return idx, nil
	}
	// Another mapping (or an unreadable marker, or Bleve fell back to no snapshot): the index is
	// derived data, rebuild it.
	slog.Warn("search index made with another mapping, or its snapshot unreadable; rebuilding it from the event log", "dir", dir)
	_ = idx.Close()
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("search: remove outdated index: %w", err)
	}
	return create(dir)
}

// rebuildDamaged replaces a damaged index with an empty one (watermark 0: the caller replays the log).
func rebuildDamaged(dir, why string) (bleve.Index, error) {
	slog.Warn("search index damaged, rebuilding it from the event log", "dir", dir, "damage", why)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("search: remove damaged index: %w", err)
	}
	return create(dir)
}

// openBleve opens the index, turning a panic of a damaged file into an error. A damaged file is
// read through a memory map (bolt maps root.bolt, and reads a truncated one past its end), so a
// fault on that memory is a panic too, not a crash of the process.
func openBleve(dir string) (idx bleve.Index, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			idx, err = nil, fmt.Errorf("opening the index panicked: %v", p)
		}
	}()
	return bleve.OpenUsing(dir, runtimeConfig())
}

// holdsSegments reports whether dir looks like an index (its store folder with Bleve's files).
func holdsSegments(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, "store"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == "root.bolt" || filepath.Ext(e.Name()) == ".zap" {
			return true
		}
	}
	return false
}

// zapFooterCRC is the size of a segment's checksum, the last bytes of its file: the CRC-32
// (IEEE) of everything before it.
const zapFooterCRC = 4

// checkSegments verifies every segment file the index is made of against its checksum, before
// any search reads it. (Files no snapshot names — a segment whose writer was killed — are not
// the index's: Bleve removes them.) It reads the whole index once at start, about a second per
// GB from the page cache.
func checkSegments(idx bleve.Index) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("reading the index panicked: %v", p)
		}
	}()
	r, err := openReader(idx)
	if err != nil {
		return err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	for _, ss := range snap.Segments() {
		ps, ok := ss.Segment().(segment.PersistedSegment)
		if !ok {
			continue
		}
		fi, err := os.Stat(ps.Path())
		if err != nil {
			return err
		}
		if err := checkSegment(ps.Path(), fi.Size()); err != nil {
			return fmt.Errorf("segment %s: %w", filepath.Base(ps.Path()), err)
		}
	}
	return nil
}

func checkSegment(path string, size int64) error {
	if size < 68 { // zap's footer
		return fmt.Errorf("truncated to %d bytes", size)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, bufio.NewReaderSize(f, 1<<20), size-zapFooterCRC); err != nil {
		return err
	}
	var want [zapFooterCRC]byte
	if _, err := f.ReadAt(want[:], size-zapFooterCRC); err != nil {
		return err
	}
	if got := h.Sum32(); got != binary.BigEndian.Uint32(want[:]) {
		return fmt.Errorf("checksum %08x, the footer says %08x: the file is garbled or truncated", got, binary.BigEndian.Uint32(want[:]))
	}
	return nil
}

// runtimeConfig lets a batch return once it is searchable, before it is on disk. The index is
// derived from the event log: scorch persists snapshots in order, so the watermark on disk never
// runs ahead of the documents on disk, and after a crash the catch-up from the watermark
// re-applies whatever the lost snapshots held. Waiting for each batch to reach the disk would
// cost a write to the disk per batch (measured: ~6 ms per single-document batch here).
//
// The persister naps up to a second between rounds, so the small segments of single-document
// batches are merged in memory before they are written: a file (and its fsync) per batch made
// a single Put cost ~1.9 ms; with the nap ~0.67 ms (BenchmarkPutSingle; concurrent Puts
// 1,810 → 4,579 docs/s). A crash loses at most that second, which the catch-up re-applies.
func runtimeConfig() map[string]interface{} {
	return map[string]interface{}{
		"unsafe_batch":           true,
		"scorchPersisterOptions": map[string]interface{}{"PersisterNapTimeMSec": 1000},
	}
}

// create makes a new, empty index in dir (which must hold no index). It is created with
// durable batches and closed, so its mapping and schema marker are on disk before any document
// goes in, and then opened with the runtime configuration.
func create(dir string) (bleve.Index, error) {
	idx, err := bleve.NewUsing(dir, newMapping(), scorch.Name, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return nil, fmt.Errorf("search: create %s: %w", dir, err)
	}
	if err := idx.SetInternal(keySchema, []byte(schemaVersion)); err != nil {
		_ = idx.Close()
		return nil, fmt.Errorf("search: create %s: %w", dir, err)
	}
	if err := idx.Close(); err != nil {
		return nil, fmt.Errorf("search: create %s: %w", dir, err)
	}
	idx, err = bleve.OpenUsing(dir, runtimeConfig())
	if err != nil {
		return nil, fmt.Errorf("search: open new index %s: %w", dir, err)
	}
	return idx, nil
}

func unavailable() error { return domain.Errorf(domain.EUNAVAILABLE, "search index is closed") }

// ioError is how a failure of Bleve (a disk error, a damaged file) reaches callers: UNAVAILABLE.
// The event log holds everything, so a restart rebuilds what the index lost.
func ioError(err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return domain.Errorf(domain.EUNAVAILABLE, "search index: %v", err)
}

// Put adds or replaces documents. Concurrent calls are grouped into one Bleve batch; Put
// returns when its documents are committed (and searchable), with the error of that batch.
// A Put larger than the maximum batch is committed in several batches, so an error may leave
// part of it applied. When ctx ends first Put returns ctx.Err(); the documents may or may not
// be applied.
func (i *Index) Put(ctx context.Context, docs []domain.IndexDoc) error {
	return i.put(ctx, docs, false)
}

// Queue adds or replaces documents like Put, but returns once they are handed to the writer,
// without waiting for their batch: every Search and Count that starts after Queue returns waits
// for them (and only then, when something queued is still pending), so they are searchable as
// soon as Queue returns. A stream of single Queues becomes a few large batches. The caller does
// not see a batch's error: a failed queued batch makes every later Search, Count and
// SetWatermark fail with UNAVAILABLE until Reset, since its documents are missing.
func (i *Index) Queue(ctx context.Context, docs []domain.IndexDoc) error {
	return i.put(ctx, docs, true)
}

func (i *Index) put(ctx context.Context, docs []domain.IndexDoc, queue bool) error {
	if i.closed.Load() {
		return unavailable()
	}
	for k := range docs {
		if docs[k].ID == "" {
			return domain.FieldErrorf("id", "document %d has no id", k)
		}
		if docs[k].ScopeID == "" {
			return domain.FieldErrorf("scopeId", "document %q has no scope", docs[k].ID)
		}
	}
	for len(docs) > 0 {
		n := min(len(docs), i.maxBatch)
		// Mapping (reflection, field building) runs here, in parallel across callers; the
		// writer only analyses and writes.
		mapped := make([]*document.Document, n)
		for k, d := range docs[:n] {
			doc := document.NewDocument(d.ID)
			if err := i.mapping.MapDocument(doc, toBleve(d)); err != nil {
				return fmt.Errorf("search: map document %q: %w", d.ID, err)
			}
			mapped[k] = doc
		}
		o := &op{kind: opPut, docs: mapped, n: n}
		var err error
		if queue {
			err = i.enqueue(o)
		} else {
			err = i.submit(ctx, o)
		}
		if err != nil {
			return err
		}
		docs = docs[n:]
	}
	return nil
}

// Remove deletes documents by id; unknown ids are ignored. Concurrent calls are grouped like Put.
func (i *Index) Remove(ctx context.Context, ids []string) error {
	if i.closed.Load() {
		return unavailable()
	}
	for len(ids) > 0 {
		n := min(len(ids), i.maxBatch)
		if err := i.submit(ctx, &op{kind: opRemove, ids: ids[:n], n: n}); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// RemoveScope deletes every document of a scope, in batches. Writes submitted before it are
// applied first, writes submitted after it wait for it.
func (i *Index) RemoveScope(ctx context.Context, scopeID string) error {
	if scopeID == "" {
		return domain.FieldErrorf("scopeId", "must not be empty")
	}
	return i.submit(ctx, &op{kind: opRemoveScope, scope: scopeID})
}

// DocsWritten is the number of documents the index has written since it was opened, every put
// of a document counted: Bleve deletes and re-adds a document put again, whatever it holds.
func (i *Index) DocsWritten() uint64 { return i.docsWritten.Load() }

// Watermark returns the Seq of the last event applied in order, as last set by SetWatermark
// (0 for a new or reset index).
func (i *Index) Watermark() (uint64, error) {
	if i.closed.Load() {
		return 0, unavailable()
	}
	if err := i.sync(context.Background()); err != nil {
		return 0, err
	}
	return i.watermark.Load(), nil
}

// Applied is the watermark of what the writer has applied, without waiting for what is queued:
// a reader that searches with NoWait knows from it that the documents of the events up to it
// are in.
func (i *Index) Applied() uint64 { return i.watermark.Load() }

// SetWatermark sets seq as the watermark. It is queued like Queue's documents, rides in the
// writer's next batch together with the documents queued before it (it never ends the writer's
// wait for more), and costs nothing when seq is already the watermark. It is refused once a
// queued batch has failed: the watermark never passes documents the index lost.
func (i *Index) SetWatermark(seq uint64) error {
	if i.closed.Load() {
		return unavailable()
	}
	if err := i.failure(); err != nil {
		return err
	}
	if i.watermark.Load() == seq {
		return nil
	}
	return i.enqueue(&op{kind: opWatermark, seq: seq})
}

// Reset empties the index and sets its watermark to 0: it closes the Bleve index, deletes its
// folder and creates a new one. Writes submitted before it are applied first; searches wait.
func (i *Index) Reset() error {
	return i.submit(context.Background(), &op{kind: opReset})
}

// Count returns the number of documents.
func (i *Index) Count() (uint64, error) {
	if i.closed.Load() {
		return 0, unavailable()
	}
	if err := i.sync(context.Background()); err != nil {
		return 0, err
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.idx == nil {
		return 0, unavailable()
	}
	n, err := i.idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("search: count: %w", err)
	}
	return n, nil
}

// flush waits until everything applied so far is on disk: batches return before they are
// persisted (see runtimeConfig), and a clean close should not leave the catch-up any work.
func (i *Index) flush() {
	b := i.idx.NewBatch()
	persisted := make(chan error, 1)
	b.SetPersistedCallback(func(err error) { persisted <- err })
	b.SetInternal(keyFlush, []byte{1})
	if err := i.idx.Batch(b); err != nil {
		return
	}
	select {
	case <-persisted:
	case <-time.After(30 * time.Second):
	}
}

// Close waits for the writer to finish the requests it has taken and closes the index. It is
// idempotent; every other method returns UNAVAILABLE afterwards.
func (i *Index) Close() error {
	i.closeOnce.Do(func() {
		i.closed.Store(true)
		close(i.quit)
		<-i.done
		i.mu.Lock()
		defer i.mu.Unlock()
		if i.idx != nil {
			i.flush()
			if err := i.idx.Close(); err != nil {
				i.closeErr = fmt.Errorf("search: close: %w", err)
			}
			i.idx = nil
		}
	})
	return i.closeErr
}
