package domain

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Exploring the graph: a scope's artifacts and the edges between them seen as one graph, for a
// person looking at it (the explorer page) and for graph tools (the exports).

// GraphNodeKind is what a node of an explored graph is.
type GraphNodeKind string

const (
	NodeMemory       GraphNodeKind = "MEMORY"
	NodeEpisode      GraphNodeKind = "EPISODE"
	NodeFacet        GraphNodeKind = "FACET"
	NodeKnowledge    GraphNodeKind = "KNOWLEDGE"
	NodeSkill        GraphNodeKind = "SKILL"
	NodeWorkingState GraphNodeKind = "WORKING_STATE"
	NodeAgentKernel  GraphNodeKind = "AGENT_KERNEL"
	NodeWorldKernel  GraphNodeKind = "WORLD_KERNEL"
	// NodeAgentMessage is a message of the agents ledger, grouped by episodes of agent turns.
	NodeAgentMessage GraphNodeKind = "AGENT_MESSAGE"
	// NodeRemoved is the tombstone of a removed artifact that references still point at.
	NodeRemoved GraphNodeKind = "REMOVED"
)

// GraphNodeKinds lists every node kind.
var GraphNodeKinds = []GraphNodeKind{NodeMemory, NodeEpisode, NodeFacet, NodeKnowledge, NodeSkill, NodeWorkingState,
	NodeAgentKernel, NodeWorldKernel, NodeAgentMessage, NodeRemoved}

// GraphEdgeKind is what an edge of an explored graph stands for.
type GraphEdgeKind string

const (
	// EdgeAssociation is an association between two memories; Type is its AssociationType and
	// Strength its strength. Read from either end, it is the same edge.
	EdgeAssociation GraphEdgeKind = "ASSOCIATION"
	// EdgeEpisodeMember goes from an episode to a memory (or agent message) it groups.
	EdgeEpisodeMember GraphEdgeKind = "EPISODE_MEMBER"
	// EdgeFacet goes from a facet to the memory it was found in, else to its episode; Type is
	// the facet's type.
	EdgeFacet GraphEdgeKind = "FACET"
	// EdgeReference is a reference of the refgraph; Type is its RefType.
	EdgeReference GraphEdgeKind = "REFERENCE"
	// EdgeConsolidation goes from a memory to the memory it was consolidated into.
	EdgeConsolidation GraphEdgeKind = "CONSOLIDATION"
)

// GraphEdgeKinds lists every edge kind.
var GraphEdgeKinds = []GraphEdgeKind{EdgeAssociation, EdgeEpisodeMember, EdgeFacet, EdgeReference, EdgeConsolidation}

// Valid reports whether k is a known node kind.
func (k GraphNodeKind) Valid() bool { return oneOf(k, GraphNodeKinds) }

// Valid reports whether k is a known edge kind.
func (k GraphEdgeKind) Valid() bool { return oneOf(k, GraphEdgeKinds) }

func (k *GraphNodeKind) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "GraphNodeKind", GraphNodeKind.Valid, k)
}
func (k GraphNodeKind) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(k))) }
func (k *GraphEdgeKind) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "GraphEdgeKind", GraphEdgeKind.Valid, k)
}
func (k GraphEdgeKind) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(k))) }

// NodeKindOfFamily is the node kind of an artifact family.
func NodeKindOfFamily(f ArtifactFamily) GraphNodeKind {
	switch f {
	case FamMemory:
		return NodeMemory
	case FamKnowledge:
		return NodeKnowledge
	case FamSkill:
		return NodeSkill
	case FamWorkingState:
		return NodeWorkingState
	case FamAgentKernel:
		return NodeAgentKernel
	case FamWorldKernel:
		return NodeWorldKernel
	}
	return ""
}

// GraphNode is one node of an explored graph.
type GraphNode struct {
	// ID is the artifact's own id (a memory's, an episode's, ...).
	ID   string        `json:"id"`
	Kind GraphNodeKind `json:"kind"`
	// Label is a short text to show: a memory's content, a page's title, a facet's type and
	// value, at most MaxLabelRunes runes.
	Label string `json:"label"`
	// Tier and Salience are a memory's (empty and nil for other kinds).
	Tier     Tier     `json:"tier,omitempty"`
	Salience *float64 `json:"salience,omitempty"`
	// State is the node's health as the refgraph sees it: ACTIVE, ARCHIVED, REMOVED (a
	// tombstone) or TRANSIENT (working state).
	State EndState `json:"state"`
	// OccurredAt is when a memory happened, or when an episode starts; nil for other kinds.
	OccurredAt *time.Time `json:"occurredAt,omitempty"`
}

// Clone returns a copy of n that shares nothing with it.
func (n *GraphNode) Clone() *GraphNode {
	c := *n
	if n.Salience != nil {
		v := *n.Salience
		c.Salience = &v
	}
	if n.OccurredAt != nil {
		t := *n.OccurredAt
		c.OccurredAt = &t
	}
	return &c
}

// GraphEdge is one edge of an explored graph, from Source to Target (both node ids).
type GraphEdge struct {
	Source string        `json:"source"`
	Target string        `json:"target"`
	Kind   GraphEdgeKind `json:"kind"`
	// Type is the association type, the reference type or the facet type ("" for membership
	// and consolidation).
	Type string `json:"type,omitempty"`
	// Strength is an association's strength (nil for the other kinds).
	Strength *float64 `json:"strength,omitempty"`
}

// Key identifies an edge: one per source, target, kind and type.
func (e *GraphEdge) Key() string {
	return e.Source + "|" + e.Target + "|" + string(e.Kind) + "|" + e.Type
}

// Subgraph is a part of one scope's graph: every edge joins two of its nodes.
type Subgraph struct {
	Nodes []*GraphNode `json:"nodes"`
	Edges []*GraphEdge `json:"edges"`
	// Truncated says the limit left nodes out that the query would otherwise have reached.
	Truncated bool `json:"truncated"`
}

// Limits of exploration.
const (
	DefaultNeighborhoodDepth = 1
	MaxNeighborhoodDepth     = 4
	DefaultNeighborhoodLimit = 200
	MaxNeighborhoodLimit     = 5000
	MaxNeighborhoodSeeds     = 500
	DefaultPathDepth         = 6
	MaxPathDepth             = 12
	MaxLabelRunes            = 120
)

// NeighborhoodQuery asks for the nodes within Depth edges of the seeds in one scope.
type NeighborhoodQuery struct {
	ScopeID string
	Seeds   []string
	Depth   int
	// Follow says which edges the walk follows (nil: every edge).
	Follow *EdgeFilter
	// MinStrength, when set, leaves out associations weaker than it.
	MinStrength *float64
	Limit       int
}

// EdgeFilter names the edges a walk follows: whole kinds, association types and reference
// types. The zero value follows nothing.
type EdgeFilter struct {
	Kinds map[GraphEdgeKind]bool
	Assoc map[AssociationType]bool
	Refs  map[RefType]bool
}

// ParseEdgeTypes reads the names of a neighborhood's types argument: an association type
// (TEMPORAL, ...), a reference type (SUPPORTS, ...) or an edge kind (ASSOCIATION, REFERENCE,
// EPISODE_MEMBER, FACET, CONSOLIDATION); nil or empty follows every edge. Errors: INVALID_ARGUMENT.
func ParseEdgeTypes(field string, names []string) (*EdgeFilter, error) {
	if len(names) == 0 {
		return nil, nil
	}
	f := &EdgeFilter{Kinds: map[GraphEdgeKind]bool{}, Assoc: map[AssociationType]bool{}, Refs: map[RefType]bool{}}
	for _, n := range names {
		u := strings.ToUpper(strings.TrimSpace(n))
		switch {
		case AssociationType(u).Valid():
			f.Assoc[AssociationType(u)] = true
		case RefType(u).Valid():
			f.Refs[RefType(u)] = true
		case GraphEdgeKind(u).Valid():
			f.Kinds[GraphEdgeKind(u)] = true
		default:
			return nil, FieldErrorf(field, "unknown edge type %q: want an association type (%s), a reference type (%s) or an edge kind (%s)",
				truncate(n, 64), joinNames(AssociationTypes), joinNames(RefTypes), joinNames(GraphEdgeKinds))
		}
	}
	return f, nil
}

func joinNames[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// FollowsAssoc reports whether the filter follows associations of type t (a nil filter follows
// everything).
func (f *EdgeFilter) FollowsAssoc(t AssociationType) bool {
	return f == nil || f.Kinds[EdgeAssociation] || f.Assoc[t]
}

// FollowsRef reports whether the filter follows references of type t.
func (f *EdgeFilter) FollowsRef(t RefType) bool {
	return f == nil || f.Kinds[EdgeReference] || f.Refs[t]
}

// Follows reports whether the filter follows edges of kind k (of any type).
func (f *EdgeFilter) Follows(k GraphEdgeKind) bool { return f == nil || f.Kinds[k] }

// GraphExplorer is the store capability of exploring a scope's graph. The graph store
// implements it; the Cortex finds it by type assertion. Nothing of another scope is ever read
// into an answer. Safe for concurrent use.
type GraphExplorer interface {
	// Neighborhood walks from the seeds of q's scope (seeds of another scope, or of none, are
	// left out) breadth first along the edges q follows, strongest first, up to q.Depth edges
	// and q.Limit nodes, and returns the nodes reached with every edge between them.
	// q is checked by the caller. Errors: NOT_FOUND (the scope).
	Neighborhood(ctx context.Context, q NeighborhoodQuery) (*Subgraph, error)
	// Path returns the strongest chain of associations from one memory to another of the same
	// scope (the least total cost, 1 − strength per association) of at most maxDepth
	// associations, in order from fromID; an empty subgraph when there is none.
	// Errors: NOT_FOUND, CROSS_SCOPE_REFERENCE.
	Path(ctx context.Context, fromID, toID string, maxDepth int) (*Subgraph, error)
	// ScopeGraph hands a scope's whole graph over page by page: every node first (to nodes),
	// then every edge (to edges). Errors: NOT_FOUND (the scope), and those of nodes and edges.
	ScopeGraph(ctx context.Context, scopeID string, nodes func([]*GraphNode) error, edges func([]*GraphEdge) error) error
	// GraphNodes returns the nodes among ids that belong to the scope, in the order of ids.
	GraphNodes(ctx context.Context, scopeID string, ids []string) ([]*GraphNode, error)
}

// Label shortens s to a label of at most MaxLabelRunes runes on one line.
func Label(s string) string {
	if len(s) > 8*MaxLabelRunes {
		// Only the start is shown: a 1 MiB content is not split into words for 120 runes.
		cut := 8 * MaxLabelRunes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " …"
	}
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= MaxLabelRunes {
		return s
	}
	return strings.TrimSpace(string(r[:MaxLabelRunes-1])) + "…"
}
