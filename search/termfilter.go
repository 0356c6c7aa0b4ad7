package search

import (
	"encoding/binary"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Term filters by segment. The filters of a search on scope, state, tier, kind and tags each name
// terms of a keyword field. Bleve checks such a filter by advancing a searcher of the terms'
// postings to every candidate hit, which at 100,000 documents was a tenth of a search. A scorch
// segment never changes, so the documents of a segment that pass a filter are kept as a bitmap,
// made once from the segment's postings, and a hit passes when its segment's bitmap holds it.
// Deleted documents may stay in a bitmap: the text's searcher never yields them.

// termCond is one condition of a filter: the field holds one of the terms.
type termCond struct {
	field string
	terms []string
}

// maxFiltersPerSegment bounds the bitmaps kept for one segment (filters on tags can name any
// term); a segment that reaches it starts over.
const maxFiltersPerSegment = 256

// condsKey names a filter in a segment's cache. Keyword terms may hold any byte, so every part
// is preceded by its length (and every condition by its number of terms).
func condsKey(conds []termCond) string {
	var b []byte
	for _, c := range conds {
		b = binary.AppendUvarint(b, uint64(len(c.field)))
		b = append(b, c.field...)
		b = binary.AppendUvarint(b, uint64(len(c.terms)))
		for _, t := range c.terms {
			b = binary.AppendUvarint(b, uint64(len(t)))
			b = append(b, t...)
		}
	}
	return string(b)
}

// segmentBitmap returns the documents of seg that meet every condition.
func segmentBitmap(seg segment.Segment, conds []termCond) (*roaring.Bitmap, error) {
	var all *roaring.Bitmap
	for _, c := range conds {
		dict, err := seg.Dictionary(c.field)
		if err != nil {
			return nil, err
		}
		either := roaring.New()
		for _, t := range c.terms {
			pl, err := dict.PostingsList([]byte(t), nil, nil)
			if err != nil {
				return nil, err
			}
			if err := addPostings(either, pl); err != nil {
				return nil, err
			}
		}
		if all == nil {
			all = either
		} else {
			all.And(either)
		}
		if all.IsEmpty() {
			break
		}
	}
	if all == nil {
		all = roaring.New()
	}
	all.RunOptimize()
	return all, nil
}

// addPostings adds the document numbers of pl to b.
func addPostings(b *roaring.Bitmap, pl segment.PostingsList) error {
	it := pl.Iterator(false, false, false, nil)
	if o, ok := it.(segment.OptimizablePostingsIterator); ok {
		if actual := o.ActualBitmap(); actual != nil {
			b.Or(actual)
			return nil
		}
		if num, ok := o.DocNum1Hit(); ok {
			b.Add(uint32(num))
			return nil
		}
	}
	for {
		p, err := it.Next()
		if err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		b.Add(uint32(p.Number()))
	}
}

// passing returns the bitmap of the documents of s that meet conds (named key), making it once.
func (sc *segmentIDs) passing(s *scorch.SegmentSnapshot, key string, conds []termCond) (*roaring.Bitmap, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if b, ok := sc.filters[key]; ok {
		return b, nil
	}
	b, err := segmentBitmap(s.Segment(), conds)
	if err != nil {
		return nil, err
	}
	if sc.filters == nil || len(sc.filters) >= maxFiltersPerSegment {
		sc.filters = map[string]*roaring.Bitmap{}
	}
	sc.filters[key] = b
	return b, nil
}

// termFilter tells whether a document of one snapshot, by number, meets a filter's conditions.
// Hits come in increasing number, so it moves through the segments with them.
type termFilter struct {
	starts []uint64 // the view's
	bits   []*roaring.Bitmap
	cur    int
}

// termFilter returns the filter of conds over the view's segments.
func (v *segView) termFilter(conds []termCond) (*termFilter, error) {
	f := &termFilter{starts: v.starts, bits: make([]*roaring.Bitmap, len(v.segs))}
	key := condsKey(conds)
	for k, sc := range v.cached {
		var err error
		if f.bits[k], err = sc.passing(v.segs[k], key, conds); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// accepts reports whether document num of the snapshot meets the conditions.
func (f *termFilter) accepts(num uint64) bool {
	if num < f.starts[f.cur] {
		f.cur = 0
	}
	for f.cur < len(f.bits) && num >= f.starts[f.cur+1] {
		f.cur++
	}
	if f.cur == len(f.bits) {
		f.cur = 0
		return false
	}
	return f.bits[f.cur].Contains(uint32(num - f.starts[f.cur]))
}

// clause is cond as a Bleve query.
func (c termCond) clause() query.Query {
	return anyTerm(c.field, c.terms)
}
