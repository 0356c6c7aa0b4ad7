package cortex

import (
	"context"
	"fmt"
	"math"

	"github.com/totalrecall/totalrecall/domain"
)

// Exploring the graph: the neighbourhood of some nodes, the strongest path between two
// memories, one node with its record, and a scope's whole graph for the exports. Nothing here
// records a retrieval: a person looking at the graph does not reinforce what they look at.

func (c *Cortex) explorer() (domain.GraphExplorer, error) {
	ge, ok := c.store.(domain.GraphExplorer)
	if !ok {
		return nil, domain.Errorf(domain.EUNIMPLEMENTEDFIELD, "this store cannot be explored as a graph")
	}
	return ge, nil
}

// NeighborhoodInput asks for the neighbourhood of seeds in one scope; nil fields take their
// defaults (depth 1, every edge, no strength floor, 200 nodes).
type NeighborhoodInput struct {
	ScopeID     string
	Seeds       []string
	Depth       *int
	Types       []string
	MinStrength *float64
	Limit       *int
}

// Neighborhood returns the nodes within depth edges of the seeds, strongest first, at most limit
// of them, with every followed edge between them. Seeds that are not nodes of the scope are left
// out. Errors: INVALID_ARGUMENT, NOT_FOUND (the scope).
func (c *Cortex) Neighborhood(ctx context.Context, in NeighborhoodInput) (*domain.Subgraph, error) {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	if len(in.Seeds) > domain.MaxNeighborhoodSeeds {
		return nil, domain.FieldErrorf("seeds", "at most %d seeds", domain.MaxNeighborhoodSeeds)
	}
	for i, id := range in.Seeds {
		if err := domain.CheckID(fmt.Sprintf("seeds[%d]", i), id); err != nil {
			return nil, err
		}
	}
	q := domain.NeighborhoodQuery{ScopeID: in.ScopeID, Seeds: append([]string(nil), in.Seeds...),
		Depth: domain.DefaultNeighborhoodDepth, Limit: domain.DefaultNeighborhoodLimit}
	if in.Depth != nil {
		if *in.Depth < 0 || *in.Depth > domain.MaxNeighborhoodDepth {
			return nil, domain.FieldErrorf("depth", "must be within 0..%d", domain.MaxNeighborhoodDepth)
		}
		q.Depth = *in.Depth
	}
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > domain.MaxNeighborhoodLimit {
			return nil, domain.FieldErrorf("limit", "must be within 1..%d", domain.MaxNeighborhoodLimit)
		}
		q.Limit = *in.Limit
	}
	if in.MinStrength != nil {
		f := *in.MinStrength
		if math.IsNaN(f) || f < 0 || f > 1 {
			return nil, domain.FieldErrorf("minStrength", "must be within 0..1")
		}
		q.MinStrength = &f
	}
	follow, err := domain.ParseEdgeTypes("types", in.Types)
	if err != nil {
		return nil, err
	}
	q.Follow = follow
	ge, err := c.explorer()
	if err != nil {
		return nil, err
	}
	return ge.Neighborhood(ctx, q)
}

// Path returns the strongest chain of associations from one memory to another of the same scope
// (least total cost, 1 − strength each) of at most maxDepth associations (default 6), its nodes
// in order from fromID; empty when there is none. Errors: INVALID_ARGUMENT, NOT_FOUND,
// CROSS_SCOPE_REFERENCE.
func (c *Cortex) Path(ctx context.Context, fromID, toID string, maxDepth *int) (*domain.Subgraph, error) {
	if err := domain.CheckID("fromId", fromID); err != nil {
		return nil, err
	}
	if err := domain.CheckID("toId", toID); err != nil {
		return nil, err
	}
	if restricted(ctx) {
		// The ends must lie in a scope the key may read; one that does not is not found.
		for _, end := range []struct{ field, id string }{{"fromId", fromID}, {"toId", toID}} {
			m, err := c.store.Memory(ctx, end.id)
			if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
				return nil, err
			}
			if m == nil || !readable(ctx, m.ScopeID) {
				return nil, &domain.Error{Code: domain.ENOTFOUND, Field: end.field, Message: fmt.Sprintf("memory %s not found", end.id)}
			}
		}
	}
	d := domain.DefaultPathDepth
	if maxDepth != nil {
		if *maxDepth < 1 || *maxDepth > domain.MaxPathDepth {
			return nil, domain.FieldErrorf("maxDepth", "must be within 1..%d", domain.MaxPathDepth)
		}
		d = *maxDepth
	}
	ge, err := c.explorer()
	if err != nil {
		return nil, err
	}
	return ge.Path(ctx, fromID, toID, d)
}

// GraphNodeDetail is one node of a scope's graph with the record behind it: a memory, a
// knowledge page, skill or working state, a kernel, or an episode (facets, agent messages and
// tombstones have their node alone).
type GraphNodeDetail struct {
	Node     *domain.GraphNode
	Memory   *domain.Memory
	Artifact *domain.Artifact
	Kernel   *domain.Kernel
	Episode  *domain.Episode
}

// GraphNode loads one node of the scope's graph and its record, without recording a retrieval;
// nil when the scope has no such node. Errors: INVALID_ARGUMENT.
func (c *Cortex) GraphNode(ctx context.Context, scopeID, id string) (*GraphNodeDetail, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	ge, err := c.explorer()
	if err != nil {
		return nil, err
	}
	ns, err := ge.GraphNodes(ctx, scopeID, []string{id})
	if err != nil || len(ns) == 0 {
		return nil, err
	}
	d := &GraphNodeDetail{Node: ns[0]}
	notFound := func(err error) error {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return nil // deleted between the two reads
		}
		return err
	}
	switch d.Node.Kind {
	case domain.NodeMemory:
		ms, err := c.store.Memories(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		if len(ms) == 1 && ms[0].ScopeID == scopeID {
			d.Memory = ms[0]
		}
	case domain.NodeKnowledge, domain.NodeSkill, domain.NodeWorkingState:
		ls, err := c.lifecycleStore()
		if err != nil {
			return nil, err
		}
		as, err := ls.Artifacts(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		if len(as) == 1 && as[0].ScopeID == scopeID {
			d.Artifact = as[0]
		}
	case domain.NodeAgentKernel, domain.NodeWorldKernel:
		sc, err := c.store.Scope(ctx, scopeID)
		if err != nil {
			return nil, notFound(err)
		}
		for _, k := range []*domain.Kernel{sc.AgentKernel, sc.WorldKernel} {
			if k != nil && k.ID == id {
				d.Kernel = k
			}
		}
	case domain.NodeEpisode:
		es, err := c.episodeStore()
		if err != nil {
			return nil, err
		}
		e, err := es.Episode(ctx, id)
		if err != nil {
			return nil, notFound(err)
		}
		if e.ScopeID == scopeID {
			d.Episode = e
		}
	}
	return d, nil
}

// ScopeGraph hands a scope's whole graph over page by page, every node first, then every edge:
// what the exports write. Errors: INVALID_ARGUMENT, NOT_FOUND, and those of nodes and edges.
func (c *Cortex) ScopeGraph(ctx context.Context, scopeID string, nodes func([]*domain.GraphNode) error, edges func([]*domain.GraphEdge) error) error {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return err
	}
	ge, err := c.explorer()
	if err != nil {
		return err
	}
	return ge.ScopeGraph(ctx, scopeID, nodes, edges)
}
