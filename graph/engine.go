package graph

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/hypermodeinc/dgraph/v25/posting"
	"github.com/hypermodeinc/dgraph/v25/worker"
	"github.com/hypermodeinc/modusgraph"
)

// EngineMemory sizes what the embedded engine keeps in memory, in bytes. Dgraph's posting-list
// cache is weighed by the lists' sizes (third_party/dgraph: at a cost of 1 per list, its 64 MB
// held some 64 million lists); Badger's block cache holds decompressed blocks of its tables; its
// memtables take MemTable bytes each, one being written and the rest waiting to be flushed.
// Badger's table indexes and Bloom filters stay in the memory-mapped table files (IndexCache 0),
// which is page cache the kernel reclaims, not the process's own memory.
type EngineMemory struct {
	PostingCache int64 // Dgraph's posting-list cache (0 turns it off)
	BlockCache   int64 // Badger's block cache (at least 1 MiB: the tables are compressed)
	IndexCache   int64 // Badger's cache of table indexes and Bloom filters (0: they stay mapped)
	MemTable     int64 // one Badger memtable
	Memtables    int   // memtables at most
}

// Total is the most the engine's caches and memtables hold.
func (m EngineMemory) Total() int64 {
	return m.PostingCache + m.BlockCache + m.IndexCache + m.MemTable*int64(m.Memtables)
}

// DefaultEngineMemory is what an embedded store holds unless WithEngineMemory says otherwise:
// the share of a 1 GiB budget (EngineMemoryFor).
func DefaultEngineMemory() EngineMemory { return EngineMemoryFor(1 << 30) }

// EngineMemoryFor is the engine's share of a process's memory budget: about an eighth of it in
// caches and memtables. A memtable is a thirty-second of the budget (at most Badger's default of
// 64 MiB, at least 8 MiB), and three of them at most. The block cache is small: new tables are
// written uncompressed and read in place from their mapped files (badgerOptions), so it holds
// little of the process's own memory.
//
// The posting-list cache is small too, a 256th of the budget (4 MiB of a GiB). The read cache
// answers what searches, loads and walks read; what the engine reads besides is mostly the lists
// a commit adds to. A list the cache holds is decoded, many small objects, which the collector
// marks on every cycle: at a sixteenth (64 MiB) it held about a million objects, a third of the
// heap's, at 100,000 memories. `bench scale -n 100000` with a 256th, then with a sixteenth:
// server CPU per search 8.0 against 15.4 ms, searchMemory p99 18.7 against 36.5 ms, storeMemory
// 1,222 against 728 a second, a bulk import 2,666 against 2,034 turns a second.
func EngineMemoryFor(budget int64) EngineMemory {
	mt := min(max(budget/32, 8<<20), 64<<20)
	return EngineMemory{
		PostingCache: budget / 256,
		BlockCache:   budget / 32,
		MemTable:     mt,
		Memtables:    3,
	}
}

// WithEngineMemory sizes the embedded engine's caches and memtables (DefaultEngineMemory unless
// set).
func WithEngineMemory(m EngineMemory) Option { return func(s *Store) { s.engineMem = m } }

// EngineMemory reports the sizes the embedded engine was opened with (zero on a cluster).
func (s *Store) EngineMemory() EngineMemory {
	if !s.embedded {
		return EngineMemory{}
	}
	return s.engineMem
}

// badgerOptions applies m to the options of the engine's posting store.
//
// New tables are not compressed. A compressed block is read by decompressing it into memory of
// the process's own, which the block cache then holds; an uncompressed one is read in place from
// the table's mapped file, page cache the kernel reclaims, and the block cache holds a reference
// to it. On a LoCoMo-like corpus of 100,000 memories, reads through the snappy blocks spent more
// time decompressing and collecting the copies than finding the values. Tables written
// compressed by earlier builds stay readable (Badger records each table's compression) and go
// as compactions rewrite them.
func (m EngineMemory) badgerOptions(o badger.Options) badger.Options {
	o.Compression = options.None
	// A compressed table of an earlier build is read through the block cache.
	o.BlockCacheSize = max(m.BlockCache, 1<<20)
	o.IndexCacheSize = m.IndexCache
	if m.MemTable > 0 {
		o.MemTableSize = m.MemTable
	}
	if m.Memtables > 0 {
		o.NumMemtables = m.Memtables
		// Level 0 takes the flushed memtables; writes stall beyond three times as many.
		o.NumLevelZeroTables = max(m.Memtables, 2)
		o.NumLevelZeroTablesStall = 3 * o.NumLevelZeroTables
	}
	return o
}

func openEmbedded(path string, mem EngineMemory) (*embeddedBackend, error) {
	rollupPolicy.Do(func() {
		// The engine's rollup policy is its package's (one per process): set once, before any
		// engine of this process runs, so no engine reads it while it is written.
		posting.RollupOnCommit, posting.RollupMinDeltas, posting.RollupMaxPostings = false, rollupMinDeltas, rollupMaxPostings
	})
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	quietEngineMetrics()
	// modusGraph opens Badger with its defaults (some 600 MB of caches and memtables); the
	// patched engine (third_party/dgraph) lets the process size them.
	worker.BadgerOptions = mem.badgerOptions
	defer func() { worker.BadgerOptions = nil }()
	cacheMB := 0
	if mem.PostingCache > 0 {
		cacheMB = int(max(mem.PostingCache>>20, 1))
	}
	eng, err := modusgraph.NewEngine(modusgraph.NewDefaultConfig(abs).WithCacheSizeMB(cacheMB))
	if err != nil {
		if errors.Is(err, modusgraph.ErrSingletonOnly) {
			return nil, fmt.Errorf("embedded store %s: one embedded engine per process: %w", abs, err)
		}
		return nil, fmt.Errorf("embedded store %s: %w", abs, err)
	}
	e := &embeddedBackend{engine: eng, ns: eng.GetDefaultNamespace(), oracleAhead: true}
	e.reading = map[uint64]int{}
	e.discardStop = make(chan struct{})
	e.discardDone = make(chan struct{})
	go e.discardOld()
	return e, nil
}

// Rollups. A posting list is stored in Badger as the deltas of the commits that wrote it until a
// rollup folds them into one complete list. A Dgraph alpha rolls lists up in the background
// (posting.IncrRollup, fed with the keys every commit writes and every read finds with deltas);
// modusGraph never starts it, so every list read from Badger was read as every delta ever
// written to it — a scope's index list as one delta per write since the scope began — and every
// list cached was kept as all of them, decoded (a map entry per delta and per uid).
//
// A rollup reads the list at the timestamp it is given and writes it complete at one past the
// newest commit it folded in, where Dgraph writes no data: its zero hands that timestamp to no
// other commit. modusGraph's zero is not reachable, but every mutation takes two consecutive
// timestamps, the start and the commit, and writes data at the commit one only; one past a
// commit is the next mutation's start (or a schema change's). So the rollups read at the newest
// commit's timestamp, the one reads use. Reads at an earlier timestamp (in flight while a list is
// rolled up) find the complete list above them and read the deltas beneath, which stay.

// rollupMinDeltas is how many deltas a read must find on a list for the list to be rolled up.
// Dgraph hands the rollups every key each commit writes, and every list a read finds with a
// delta; most keys a store writes are a new node's values, written once, and a list of one delta
// rolled up is the same list written twice (a quarter of the allocations of single commits went
// to it). Lists are rolled up when reads find several deltas on them, a scope's index lists and
// the other hot lists, and a list the posting cache holds when it reaches 500 (Dgraph's own rule).
const rollupMinDeltas = 8

// rollupMaxPostings is how many postings the deltas of a list in the posting cache may hold: a
// commit that would leave more takes the list out of the cache and hands it to the rollups. Each
// commit to a cached list copies its map of the deltas' postings (readers share the old one);
// after a bulk import a scope's index list held a hundred deltas of a thousand postings each,
// under Dgraph's 500 deltas, and every storeMemory copied them (about 50 stores a second at
// 100,000 memories, 358 with this; TestSingleCommitsAfterABulkLoad).
const rollupMaxPostings = 4096

var rollupPolicy sync.Once

// startRollups starts the engine's rollups; under the store's write lock, after a commit.
func (e *embeddedBackend) startRollups() {
	if e.rollups != nil {
		return
	}
	e.rollups = z.NewCloser(1)
	go posting.IncrRollup.Process(e.rollups, func(bool) uint64 { return e.readTs.Load() })
}

// stopRollups stops them and waits for the rollup under way; under the store's write lock.
func (e *embeddedBackend) stopRollups() {
	if e.rollups == nil {
		return
	}
	e.rollups.SignalAndWait()
	e.rollups = nil
}

// Old versions. Badger keeps every version of a key unless told below which timestamp nothing
// reads (its discard timestamp): then a compaction drops the versions under a rolled-up list.
// Nothing reads below the oldest timestamp a read in flight holds, nor below the rollups' own
// (the newest commit's as of a tick ago: a rollup that began since reads at that or later).

// discardEvery is how often the discard timestamp moves up.
const discardEvery = 10 * time.Second

func (e *embeddedBackend) discardOld() {
	defer close(e.discardDone)
	t := time.NewTicker(discardEvery)
	defer t.Stop()
	var rolled uint64 // the rollups' timestamp a tick ago
	for {
		select {
		case <-e.discardStop:
			return
		case <-t.C:
		}
		floor := e.oldestRead()
		if rolled > 0 && rolled < floor {
			floor = rolled
		}
		rolled = e.readTs.Load()
		if floor > 1 && floor-1 > e.discarded {
			e.discarded = floor - 1
			worker.State.Pstore.SetDiscardTs(e.discarded)
		}
	}
}

// beginRead registers a read at the newest timestamp and returns it; endRead ends it.
func (e *embeddedBackend) beginRead() uint64 {
	e.readingMu.Lock()
	defer e.readingMu.Unlock()
	ts := e.readTs.Load()
	e.reading[ts]++
	return ts
}

func (e *embeddedBackend) endRead(ts uint64) {
	e.readingMu.Lock()
	defer e.readingMu.Unlock()
	if e.reading[ts]--; e.reading[ts] <= 0 {
		delete(e.reading, ts)
	}
}

// oldestRead is the oldest timestamp a read in flight holds, or the newest when none is.
func (e *embeddedBackend) oldestRead() uint64 {
	e.readingMu.Lock()
	defer e.readingMu.Unlock()
	oldest := e.readTs.Load()
	for ts := range e.reading {
		oldest = min(oldest, ts)
	}
	return oldest
}

// embeddedBackend's rollup and discard state, kept beside its read timestamp.
type engineUpkeep struct {
	rollups *z.Closer // running rollups (under the store's write lock)

	readingMu sync.Mutex
	reading   map[uint64]int // reads in flight by timestamp

	discarded   uint64 // Badger's discard timestamp (discardOld only)
	discardStop chan struct{}
	discardDone chan struct{}
}

// dropEmptied deletes keys whose lists the last commit emptied (posting.DeleteEmptiedAt), one past
// the newest commit: the next write's start timestamp, where nothing is written.
func (e *embeddedBackend) dropEmptied(keys [][]byte) error {
	e.life.RLock()
	defer e.life.RUnlock()
	if e.closed {
		return modusgraph.ErrClosedEngine
	}
	return posting.DeleteEmptiedAt(keys, e.readTs.Load()+1)
}
