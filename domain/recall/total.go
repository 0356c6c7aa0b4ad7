package recall

import (
	"context"
	"sort"

	"github.com/totalrecall/totalrecall/domain"
)

// TotalRecallParams bound a total recall (MSG-0007): the traversal goes depth by depth along
// associations of at least Floor, keeps the Beam strongest memories of each level as the next
// frontier, and stops when a level adds nothing or MaxDepth is reached.
type TotalRecallParams struct {
	MaxDepth   int
	Floor      float64
	Beam       int
	MaxResults int
}

// Defaults and limits of a total recall.
const (
	DefaultRecallDepth   = 3
	MaxRecallDepth       = 10
	DefaultRecallFloor   = 0.3
	DefaultRecallBeam    = 16
	DefaultRecallResults = 30
	MaxRecallSources     = 100
)

// WithDefaults fills unset bounds.
func (p TotalRecallParams) WithDefaults() TotalRecallParams {
	if p.MaxDepth <= 0 {
		p.MaxDepth = DefaultRecallDepth
	}
	p.MaxDepth = min(p.MaxDepth, MaxRecallDepth)
	if p.Floor <= 0 {
		p.Floor = DefaultRecallFloor
	}
	if p.Beam <= 0 {
		p.Beam = DefaultRecallBeam
	}
	if p.MaxResults <= 0 {
		p.MaxResults = DefaultRecallResults
	}
	return p
}

// Neighbourer finds the next level of associations (the Synapse's AssociationFindRequest).
type Neighbourer interface {
	Neighbours(ctx context.Context, ids []string, floor float64) ([]domain.Edge, error)
}

// Recollection is one memory reached by total recall.
type Recollection struct {
	MemoryID string `json:"memoryId"`
	// Activation is the product of the strengths along the strongest path from a source.
	Activation float64     `json:"activation"`
	Depth      int         `json:"depth"`
	Via        domain.Edge `json:"via"`
}

// TotalRecallResult is what a traversal found, level by level.
type TotalRecallResult struct {
	// Levels holds each depth's recollections, strongest first; Levels[0] is depth 1.
	Levels       [][]Recollection
	DepthReached int
}

// Ranked returns every recollection, strongest first (ties: shallower, then id), at most max.
func (r *TotalRecallResult) Ranked(max int) []Recollection {
	var out []Recollection
	for _, l := range r.Levels {
		out = append(out, l...)
	}
	sortRecollections(out)
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// TotalRecall traverses the association graph from sources depth by depth, strongest first.
func TotalRecall(ctx context.Context, n Neighbourer, sources []string, p TotalRecallParams) (*TotalRecallResult, error) {
	p = p.WithDefaults()
	res := &TotalRecallResult{}
	visited := make(map[string]bool, len(sources))
	act := make(map[string]float64, len(sources))
	frontier := make([]string, 0, len(sources))
	for _, id := range sources {
		if !visited[id] {
			visited[id] = true
			act[id] = 1
			frontier = append(frontier, id)
		}
	}
	for depth := 1; depth <= p.MaxDepth && len(frontier) > 0; depth++ {
		edges, err := n.Neighbours(ctx, frontier, p.Floor)
		if err != nil {
			return nil, err
		}
		best := map[string]Recollection{}
		for _, e := range edges {
			if visited[e.To] || e.Strength < p.Floor {
				continue
			}
			a := act[e.From] * e.Strength
			if cur, ok := best[e.To]; ok && (cur.Activation > a || (cur.Activation == a && cur.Via.From <= e.From)) {
				continue
			}
			best[e.To] = Recollection{MemoryID: e.To, Activation: a, Depth: depth, Via: e}
		}
		if len(best) == 0 {
			break // the next level adds nothing above the floor
		}
		level := make([]Recollection, 0, len(best))
		for _, r := range best {
			level = append(level, r)
		}
		sortRecollections(level)
		if len(level) > p.Beam {
			level = level[:p.Beam]
		}
		frontier = frontier[:0]
		for _, r := range level {
			visited[r.MemoryID] = true
			act[r.MemoryID] = r.Activation
			frontier = append(frontier, r.MemoryID)
		}
		res.Levels = append(res.Levels, level)
		res.DepthReached = depth
	}
	return res, nil
}

func sortRecollections(rs []Recollection) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Activation != rs[j].Activation {
			return rs[i].Activation > rs[j].Activation
		}
		if rs[i].Depth != rs[j].Depth {
			return rs[i].Depth < rs[j].Depth
		}
		return rs[i].MemoryID < rs[j].MemoryID
	})
}
