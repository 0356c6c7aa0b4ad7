package search

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Document ids by segment. A scorch segment never changes once made, and a document keeps its
// number in it for the segment's life; reading a hit's id means decompressing the segment's
// stored fields around it. A search reads the ids of its whole pool (a thousand hits for Recall),
// and at 100,000 documents that was an eighth of its CPU. The ids read are kept per segment and
// serve every later search; the segments a merge has replaced are dropped once the index holds
// many more segments in the cache than in its current snapshot.

//
// The cache is bounded in bytes (WithIDCache): a segment whose table of ids would not fit is not
// cached, and its ids are read from the segment on every search (some 90 µs for a thousand hits
// at 100,000 documents, against 18 µs from the cache); ids read once the cache is full are not
// kept.

// DefaultIDCacheBytes is the id cache's budget unless WithIDCache says otherwise.
const DefaultIDCacheBytes = 32 << 20

// idTableEntry and idBytes are what the cache takes per document of a segment (its entry in the
// segment's table) and per id kept (the string and its header).
const (
	idTableEntry = 24
	idBytes      = 16
)

// idCache maps segments to the ids read from them.
type idCache struct {
	mu     sync.Mutex
	segs   map[segment.Segment]*segmentIDs
	budget int          // bytes; 0 or less: DefaultIDCacheBytes
	used   atomic.Int64 // bytes of the segments' tables and the ids kept
}

// segmentIDs are the ids of one segment's documents, by local number (empty where not read yet),
// and the bitmaps of the term filters searches have asked of it (termfilter.go). A segment that
// did not fit the cache's budget has no table (ids nil) and keeps no id.
type segmentIDs struct {
	mu      sync.Mutex
	ids     []docID
	bytes   int64 // what the table and its ids take of the cache's budget
	used    *atomic.Int64
	budget  int64
	filters map[string]*roaring.Bitmap
}

// docID is a document's id with its ordering key (idKey), side by side: a search orders its
// hits by key, and reading the key from here costs no visit to the id's bytes.
type docID struct {
	key uint64
	id  string
}

func newDocID(id string) docID { return docID{key: idKey(id), id: id} }

// segView is one snapshot's segments, where each one's document numbers start, and their cache
// entries: made once per search, for its filter and for its ids.
type segView struct {
	segs   []*scorch.SegmentSnapshot
	starts []uint64 // the first number of each segment, and the end
	cached []*segmentIDs
}

// view returns the segments of r, a scorch snapshot, with their cache entries; nil when r is
// another kind of reader.
func (c *idCache) view(r index.IndexReader) *segView {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil
	}
	segs := snap.Segments()
	v := &segView{segs: segs, starts: make([]uint64, len(segs)+1), cached: c.lookup(segs)}
	for k, s := range segs {
		v.starts[k+1] = v.starts[k] + uint64(s.FullSize())
	}
	return v
}

// docIDs returns the ids of the documents numbered nums in the snapshot r, as r.ExternalID would:
// from v, reading each id from its segment at most once in the cache's life, or through r itself
// when v is nil (r is not a scorch snapshot).
func docIDs(v *segView, r index.IndexReader, nums []uint64) ([]docID, error) {
	out := make([]docID, len(nums))
	if v == nil {
		names := make([]string, len(nums))
		if err := readIDs(r, nums, names); err != nil {
			return nil, err
		}
		for k, id := range names {
			out[k] = newDocID(id)
		}
		return out, nil
	}
	for k, num := range nums {
		i := sort.Search(len(v.segs), func(x int) bool { return v.starts[x+1] > num })
		if i == len(v.segs) {
			return nil, errDocNum(num)
		}
		id, err := v.cached[i].id(v.segs[i], num-v.starts[i])
		if err != nil {
			return nil, err
		}
		out[k] = id
	}
	return out, nil
}

// lookup returns the caches of segs, in order, making the missing ones; when the cache holds
// far more segments than segs, it keeps only these.
func (c *idCache) lookup(segs []*scorch.SegmentSnapshot) []*segmentIDs {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.segs == nil {
		c.segs = map[segment.Segment]*segmentIDs{}
	}
	budget := int64(c.budget)
	if budget <= 0 {
		budget = DefaultIDCacheBytes
	}
	out := make([]*segmentIDs, len(segs))
	for k, s := range segs {
		sc := c.segs[s.Segment()]
		if sc == nil {
			sc = &segmentIDs{used: &c.used, budget: budget}
			if table := int64(s.FullSize()) * idTableEntry; c.used.Load()+table <= budget {
				sc.ids, sc.bytes = make([]docID, s.FullSize()), table
				c.used.Add(table)
			}
			c.segs[s.Segment()] = sc
		}
		out[k] = sc
	}
	if len(c.segs) > 2*len(segs)+16 {
		keep := make(map[segment.Segment]*segmentIDs, len(segs))
		for k, s := range segs {
			keep[s.Segment()] = out[k]
		}
		for seg, sc := range c.segs {
			if _, ok := keep[seg]; !ok {
				sc.drop()
			}
		}
		c.segs = keep
	}
	return out
}

// drop gives a replaced segment's bytes back to the cache's budget.
func (sc *segmentIDs) drop() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.used.Add(-sc.bytes)
	sc.ids, sc.bytes = nil, 0
}

// Bytes is what the cache holds of its budget.
func (c *idCache) Bytes() int64 { return c.used.Load() }

func (sc *segmentIDs) id(s *scorch.SegmentSnapshot, local uint64) (docID, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.ids != nil {
		if local >= uint64(len(sc.ids)) {
			return docID{}, errDocNum(local)
		}
		if d := sc.ids[local]; d.id != "" {
			return d, nil
		}
	}
	v, err := s.DocID(local)
	if err != nil {
		return docID{}, err
	}
	if v == nil {
		return docID{}, errDocNum(local)
	}
	d := newDocID(string(v))
	if sc.ids != nil {
		if n := int64(len(d.id) + idBytes); sc.used.Load()+n <= sc.budget {
			sc.ids[local] = d
			sc.bytes += n
			sc.used.Add(n)
		}
	}
	return d, nil
}

// readIDs reads ids through the reader itself (an index that is not scorch's).
func readIDs(r index.IndexReader, nums []uint64, out []string) error {
	internal := make(index.IndexInternalID, 8)
	for k, num := range nums {
		putDocNum(internal, num)
		id, err := r.ExternalID(internal)
		if err != nil {
			return err
		}
		out[k] = id
	}
	return nil
}
