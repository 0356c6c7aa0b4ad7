package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/totalrecall/totalrecall/domain"
)

// Collecting the best hits. Bleve's TopNCollector keeps a DocumentMatch per retained hit,
// pre-allocates a pool of size+1 of them, prepares and "loads the fields" of every one, and
// looks up the id of each: per search, work and garbage in proportion to the size asked for.
// Recall asks for a pool of a thousand hits to know the text score of the conversation around
// its seeds, so on a large scope that bookkeeping cost as much as finding the hits. And equal
// scores in id order (what makes a search repeatable) cost Bleve the id of every matching
// document. topHits walks Bleve's searcher itself, keeps each retained hit's score and internal
// number in a heap of plain values, and reads the ids of those hits only, plus of the hits tied
// with the weakest of them.

// scored is one retained hit: its score and Bleve's internal document number (scorch numbers its
// documents with 8 big-endian bytes).
type scored struct {
	score float64
	num   uint64
}

func docNum(id index.IndexInternalID) (uint64, error) {
	if len(id) != 8 {
		return 0, fmt.Errorf("search: internal document id of %d bytes, want 8", len(id))
	}
	return binary.BigEndian.Uint64(id), nil
}

func putDocNum(id index.IndexInternalID, num uint64) { binary.BigEndian.PutUint64(id, num) }

func errDocNum(num uint64) error { return fmt.Errorf("search: document number %d not found", num) }

// minHeap keeps the best hits seen so far, the weakest at 0 (written out: container/heap would
// box every hit it pushes).
type minHeap []scored

func (h *minHeap) push(x scored) {
	*h = append(*h, x)
	s := *h
	for k := len(s) - 1; k > 0; {
		parent := (k - 1) / 2
		if s[parent].score <= s[k].score {
			break
		}
		s[parent], s[k] = s[k], s[parent]
		k = parent
	}
}

// replaceMin puts x in place of the weakest hit.
func (h minHeap) replaceMin(x scored) {
	h[0] = x
	for k := 0; ; {
		least, l, r := k, 2*k+1, 2*k+2
		if l < len(h) && h[l].score < h[least].score {
			least = l
		}
		if r < len(h) && h[r].score < h[least].score {
			least = r
		}
		if least == k {
			return
		}
		h[k], h[least] = h[least], h[k]
		k = least
	}
}

// topHits returns the limit hits of q with the highest scores, best first, equal scores in id
// order. It keeps the best limit hits in a heap and, beside them, every hit whose score equals
// the weakest of those (the tie at the cut); only those have their ids read, and the tie is
// settled by id.
func topHits(ctx context.Context, ix bleve.Index, reader index.IndexReader, q query.Query, limit int, ids *idCache, conds []termCond) ([]domain.IndexHit, error) {
	if limit <= 0 {
		return []domain.IndexHit{}, nil
	}
	view := ids.view(reader)
	var filter *termFilter
	if len(conds) > 0 {
		if view == nil {
			return nil, fmt.Errorf("search: term filters on a %T, not a scorch snapshot", reader)
		}
		var err error
		if filter, err = view.termFilter(conds); err != nil {
			return nil, err
		}
	}
	m := ix.Mapping()
	ctx = withScoringModel(ctx, m)
	s, err := q.Searcher(ctx, reader, m, bsearch.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{
		DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize()+1, 0),
		IndexReader:       reader,
	}
	b := newBest(limit)
	for seen := 0; ; seen++ {
		if seen%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		num, err := docNum(dm.IndexInternalID)
		if err != nil {
			return nil, err
		}
		if filter != nil && !filter.accepts(num) {
			sctx.DocumentMatchPool.Put(dm)
			continue
		}
		b.add(scored{dm.Score, num})
		sctx.DocumentMatchPool.Put(dm)
	}
	return rankKept(view, reader, b.h, b.ties, limit)
}

// best keeps the limit best hits offered and, beside them, every hit scoring what the weakest of
// them scores (the tie at the cut): whatever the order the hits come in, it keeps every hit that
// may be among the limit best once ties are settled by id.
type best struct {
	h     minHeap
	ties  []scored // hits outside h scoring what h[0] scores
	limit int
}

func newBest(limit int) *best { return &best{h: make(minHeap, 0, min(limit, 1024)), limit: limit} }

func (b *best) add(x scored) {
	switch {
	case len(b.h) < b.limit:
		b.h.push(x)
	case x.score == b.h[0].score:
		b.ties = append(b.ties, x)
	case x.score > b.h[0].score:
		out := b.h[0]
		b.h.replaceMin(x)
		if out.score == b.h[0].score {
			b.ties = append(b.ties, out)
		} else {
			b.ties = b.ties[:0]
		}
	}
}

// rankKept returns the best limit of the hits kept, h and ties (hits scoring what the weakest of
// h scores), best first, equal scores in id order: only their ids are read.
func rankKept(view *segView, reader index.IndexReader, h minHeap, ties []scored, limit int) ([]domain.IndexHit, error) {
	kept := slices.Concat(h, ties)
	nums := make([]uint64, len(kept))
	for k, x := range kept {
		nums[k] = x.num
	}
	names, err := docIDs(view, reader, nums)
	if err != nil {
		return nil, fmt.Errorf("search: document id: %w", err)
	}
	ranked := make([]rankedHit, len(kept))
	for k, x := range kept {
		ranked[k] = rankedHit{score: x.score, docID: names[k]}
	}
	slices.SortFunc(ranked, compareRanked)
	hits := make([]domain.IndexHit, min(len(ranked), limit))
	for k := range hits {
		hits[k] = domain.IndexHit{ID: ranked[k].id, Score: ranked[k].score}
	}
	return hits, nil
}

// rankedHit is a hit being ordered: by score, best first, then by id. Short texts take few
// distinct scores, so most comparisons of a large pool are between equal scores; key, the first
// eight bytes of the id, settles almost all of them without reading the ids themselves (a
// pool's ids lie all over the heap: reading them made the ordering an eighth of a search).
type rankedHit struct {
	score float64
	docID
}

// idKey is the first eight bytes of id, big-endian and zero-padded: comparing keys orders as
// comparing ids does, but for ids sharing their first eight bytes.
func idKey(id string) uint64 {
	var b [8]byte
	copy(b[:], id)
	return binary.BigEndian.Uint64(b[:])
}

func compareRanked(a, b rankedHit) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	case a.key < b.key:
		return -1
	case a.key > b.key:
		return 1
	}
	return strings.Compare(a.id, b.id)
}

// openReader opens a snapshot of ix; the caller closes it.
func openReader(ix bleve.Index) (index.IndexReader, error) {
	adv, err := ix.Advanced()
	if err != nil {
		return nil, err
	}
	return adv.Reader()
}

// withScoringModel tells the term searchers the mapping's scoring model, as Bleve's own search
// does.
func withScoringModel(ctx context.Context, m mapping.IndexMapping) context.Context {
	model := index.DefaultScoringModel
	if im, ok := m.(*mapping.IndexMappingImpl); ok && im.ScoringModel == index.BM25Scoring {
		model = index.BM25Scoring
	}
	return context.WithValue(ctx, bsearch.GetScoringModelCallbackKey,
		bsearch.GetScoringModelCallbackFn(func() string { return model }))
}
