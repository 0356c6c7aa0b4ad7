package search

import (
	"sort"
	"sync"

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

// idCache maps segments to the ids read from them.
type idCache struct {
	mu   sync.Mutex
	segs map[segment.Segment]*segmentIDs
}

// segmentIDs are the ids of one segment's documents, by local number (empty where not read yet),
// and the bitmaps of the term filters searches have asked of it (termfilter.go).
type segmentIDs struct {
	mu      sync.Mutex
	ids     []docID
	filters map[string]*roaring.Bitmap
}

// docID is a document's id with its ordering key (idKey), side by side: a search orders its
// hits by key, and reading the key from here costs no visit to the id's bytes.
type docID struct {
	key uint64
	id  string
}

func newDocID(id string) docID { return docID{key: idKey(id), id: id} }

// externalIDs returns the ids of the documents numbered nums in the snapshot r, as
// r.ExternalID would, reading each id from its segment at most once in the cache's life.
func (c *idCache) externalIDs(r index.IndexReader, nums []uint64) ([]docID, error) {
	out := make([]docID, len(nums))
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		names := make([]string, len(nums))
		if err := readIDs(r, nums, names); err != nil {
			return nil, err
		}
		for k, id := range names {
			out[k] = newDocID(id)
		}
		return out, nil
	}
	segs := snap.Segments()
	offsets := make([]uint64, len(segs))
	var running uint64
	for k, s := range segs {
		offsets[k] = running
		running += uint64(s.FullSize())
	}
	cached := c.lookup(segs)
	for k, num := range nums {
		i := sort.Search(len(offsets), func(x int) bool { return offsets[x] > num }) - 1
		if i < 0 || num >= running {
			return nil, errDocNum(num)
		}
		id, err := cached[i].id(segs[i], num-offsets[i])
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
	out := make([]*segmentIDs, len(segs))
	for k, s := range segs {
		sc := c.segs[s.Segment()]
		if sc == nil {
			sc = &segmentIDs{ids: make([]docID, s.FullSize())}
			c.segs[s.Segment()] = sc
		}
		out[k] = sc
	}
	if len(c.segs) > 2*len(segs)+16 {
		keep := make(map[segment.Segment]*segmentIDs, len(segs))
		for k, s := range segs {
			keep[s.Segment()] = out[k]
		}
		c.segs = keep
	}
	return out
}

func (sc *segmentIDs) id(s *scorch.SegmentSnapshot, local uint64) (docID, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if local >= uint64(len(sc.ids)) {
		return docID{}, errDocNum(local)
	}
	if d := sc.ids[local]; d.id != "" {
		return d, nil
	}
	v, err := s.DocID(local)
	if err != nil {
		return docID{}, err
	}
	if v == nil {
		return docID{}, errDocNum(local)
	}
	sc.ids[local] = newDocID(string(v))
	return sc.ids[local], nil
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
