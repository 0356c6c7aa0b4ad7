package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/client"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/recall"
)

// Seed 000's external operations as MCP tools, with its snake_case names and payloads. Each
// answers with a text a model reads and the same result as structured content.

var (
	tiers        = []any{"IDENTITY_CORE", "ACTIVE_CONTEXT", "LONG_TERM", "ARCHIVE"}
	kinds        = []any{"EPISODIC", "SEMANTIC", "OBSERVATIONAL"}
	assocTypes   = []any{"TEMPORAL", "CAUSAL", "THEMATIC", "EMOTIONAL", "PERSON"}
	directions   = []any{"CREATE", "STRENGTHEN", "WEAKEN"}
	modes        = []any{"TASK", "CONVERSATION", "IDLE"}
	endReasons   = []any{"EXPLICIT", "TIMEOUT", "CRASH"}
	lifecycle    = []any{"ACTIVE", "ARCHIVED"}
	yes, no      = true, false
	readOnly     = &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
	additive     = &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	idempotent   = &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
	destructive  = &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	reclassifies = &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true, OpenWorldHint: &no}
)

// schemaFor is T's input schema with its enumerations and bounds filled in.
func schemaFor[T any](enums map[string][]any, bounds map[string][2]float64) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	for k, e := range enums {
		p := sc.Properties[k]
		if p.Type == "array" && p.Items != nil {
			p.Items.Enum = e
		} else {
			p.Enum = e
		}
	}
	for k, b := range bounds {
		lo, hi := b[0], b[1]
		sc.Properties[k].Minimum, sc.Properties[k].Maximum = &lo, &hi
	}
	return sc
}

// addTool adds a typed tool whose input schema is sc, and remembers its argument names for
// forgiveNames.
func addTool[In, Out any](s *Server, name, title, desc string, ann *mcp.ToolAnnotations, sc *jsonschema.Schema,
	h func(ctx context.Context, b *binding, in In) (string, Out, error)) {
	props := map[string]bool{}
	for k := range sc.Properties {
		props[k] = true
	}
	toolProperties[name] = props
	a := *ann
	a.Title = title
	mcp.AddTool(s.mcp, &mcp.Tool{Name: name, Title: title, Description: desc, Annotations: &a, InputSchema: sc},
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			var zero Out
			b, err := bound(ctx)
			if err != nil {
				return nil, zero, s.toolError(name, err)
			}
			text, out, err := h(ctx, b, in)
			if err != nil {
				return nil, zero, s.toolError(name, err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
		})
}

// ---- Shapes ----

type memoryOut struct {
	MemoryID      string         `json:"memory_id"`
	ScopeID       string         `json:"scope_id"`
	Content       string         `json:"content"`
	Kind          string         `json:"kind"`
	Tier          string         `json:"tier"`
	SuggestedTier string         `json:"suggested_tier,omitempty"`
	Metadata      map[string]any `json:"metadata"`
	Tags          []string       `json:"tags"`
	OccurredAt    string         `json:"occurred_at"`
	CreatedAt     string         `json:"created_at"`
	Salience      float64        `json:"salience"`
	Importance    float64        `json:"importance"`
	Claimed       bool           `json:"claimed"`
	State         string         `json:"state"`
	SessionID     string         `json:"session_id"`
	Version       int64          `json:"version"`
}

func memOut(m *domain.Memory) memoryOut {
	out := memoryOut{MemoryID: m.ID, ScopeID: m.ScopeID, Content: m.Content, Kind: string(m.Kind), Tier: string(m.Tier),
		SuggestedTier: string(m.SuggestedTier), Metadata: m.Metadata, Tags: m.Tags, OccurredAt: stamp(m.OccurredAt),
		CreatedAt: stamp(m.CreatedAt), Salience: m.Salience, Importance: m.Importance, Claimed: m.Claimed,
		State: string(m.State), SessionID: m.SessionID, Version: m.Version}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type rankedOut struct {
	Memory     memoryOut `json:"memory"`
	Score      float64   `json:"score"`
	Reason     string    `json:"reason"`
	Salience   float64   `json:"salience"`
	Activation float64   `json:"activation"`
	Depth      int       `json:"depth,omitempty"`
	// ViaMemoryID and ViaType name the association an association hit was reached through.
	ViaMemoryID string  `json:"via_memory_id,omitempty"`
	ViaType     string  `json:"via_type,omitempty"`
	ViaStrength float64 `json:"via_strength,omitempty"`
	// ViaFacetType and ViaFacetValue name the facet (entity or topic) a facet hit was reached
	// through.
	ViaFacetType  string `json:"via_facet_type,omitempty"`
	ViaFacetValue string `json:"via_facet_value,omitempty"`
}

func rankedOuts(rs []*recall.RankedMemory) []rankedOut {
	out := make([]rankedOut, 0, len(rs))
	for _, r := range rs {
		o := rankedOut{Memory: memOut(r.Memory), Score: r.Score, Reason: string(r.Reason), Salience: r.Salience,
			Activation: r.Activation, Depth: r.Depth}
		if r.Via != nil {
			o.ViaMemoryID, o.ViaType, o.ViaStrength = r.Via.SourceID, string(r.Via.Type), r.Via.Strength
		}
		if r.ViaFacet != nil {
			o.ViaFacetType, o.ViaFacetValue = r.ViaFacet.Type, r.ViaFacet.Value
		}
		out = append(out, o)
	}
	return out
}

// rankedText lists results one a line, as the hooks list flashbacks.
func rankedText(head string, rs []*recall.RankedMemory) string {
	if len(rs) == 0 {
		return head + ": nothing found."
	}
	lines := []string{fmt.Sprintf("%s (%d):", head, len(rs))}
	for _, r := range rs {
		l := client.MemoryLine(r.Memory, 0) + fmt.Sprintf(" (score %.3f, %s", r.Score, strings.ToLower(string(r.Reason)))
		if r.Via != nil {
			l += fmt.Sprintf(" via %s %s", strings.ToLower(string(r.Via.Type)), r.Via.SourceID)
		}
		if r.ViaFacet != nil {
			l += fmt.Sprintf(" via %s %q", r.ViaFacet.Type, r.ViaFacet.Value)
		}
		lines = append(lines, l+")")
	}
	return strings.Join(lines, "\n")
}

func parseTime(field, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, domain.FieldErrorf(field, "is not an RFC 3339 time (like 2026-03-02T09:14:07Z): %q", s)
	}
	return &t, nil
}

// own loads the memories ids name and refuses any outside the connection's scope as not found:
// no tool reaches another scope, nor tells what it holds.
func (s *Server) own(ctx context.Context, b *binding, field string, ids ...string) error {
	for i, id := range ids {
		f := field
		if len(ids) > 1 {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		if err := domain.CheckID(f, id); err != nil {
			return err
		}
	}
	ms, err := s.cx.MemoriesByID(ctx, ids)
	if err != nil {
		return err
	}
	found := map[string]bool{}
	for _, m := range ms {
		if m.ScopeID == b.scope.ID {
			found[m.ID] = true
		}
	}
	for _, id := range ids {
		if !found[id] {
			return domain.Errorf(domain.ENOTFOUND, "memory %s not found in scope %q", id, b.scope.Name)
		}
	}
	return nil
}

// ---- Tools ----

type storeIn struct {
	Content       string         `json:"content" jsonschema:"What to remember, self-contained: who, what, why. One fact, decision or lesson per memory."`
	Metadata      map[string]any `json:"metadata,omitempty" jsonschema:"Free-form context (source, file, url, ...)."`
	SuggestedTier string         `json:"suggested_tier,omitempty" jsonschema:"IDENTITY_CORE for who you are and how you work; ACTIVE_CONTEXT for the task at hand; LONG_TERM for lasting knowledge; ARCHIVE for records. The assigned tier may differ."`
	Tags          []string       `json:"tags,omitempty" jsonschema:"Short labels to filter by."`
	Kind          string         `json:"kind,omitempty" jsonschema:"EPISODIC (something that happened), SEMANTIC (a fact) or OBSERVATIONAL."`
	Importance    *float64       `json:"importance,omitempty" jsonschema:"How much it matters, 0..1."`
	OccurredAt    string         `json:"occurred_at,omitempty" jsonschema:"When it happened (RFC 3339); default now."`
	RequestID     string         `json:"request_id,omitempty" jsonschema:"Retrying with the same request_id stores it once."`
}

type storeOut struct {
	Memory memoryOut `json:"memory"`
}

type searchFilters struct {
	Tiers   []string `json:"tiers,omitempty" jsonschema:"Only these tiers."`
	Kinds   []string `json:"kinds,omitempty" jsonschema:"Only these kinds."`
	Tags    []string `json:"tags,omitempty" jsonschema:"Only memories carrying every tag listed."`
	States  []string `json:"states,omitempty" jsonschema:"ACTIVE (default) and/or ARCHIVED."`
	From    string   `json:"from,omitempty" jsonschema:"Occurred at or after (RFC 3339)."`
	To      string   `json:"to,omitempty" jsonschema:"Occurred before (RFC 3339)."`
	Claimed *bool    `json:"claimed,omitempty" jsonschema:"Only claimed (true) or unclaimed (false) memories."`
}

type searchIn struct {
	Query               string         `json:"query" jsonschema:"What to look for, in words."`
	MaxResults          int            `json:"max_results,omitempty" jsonschema:"How many results (default 10)."`
	IncludeAssociations *bool          `json:"include_associations,omitempty" jsonschema:"Also bring the memories associated with the hits (default true)."`
	Filters             *searchFilters `json:"filters,omitempty" jsonschema:"Narrow the search by tier, kind, tags, state, time or claim."`
}

type resultsOut struct {
	Results []rankedOut `json:"results"`
}

type memoryIDIn struct {
	MemoryID string `json:"memory_id" jsonschema:"The memory's id."`
}

type memoryOnly struct {
	Memory memoryOut `json:"memory"`
}

type associateIn struct {
	SourceID  string  `json:"source_id" jsonschema:"One memory's id."`
	TargetID  string  `json:"target_id" jsonschema:"The other memory's id (the association is bidirectional)."`
	Type      string  `json:"type" jsonschema:"TEMPORAL, CAUSAL, THEMATIC, EMOTIONAL or PERSON."`
	Strength  float64 `json:"strength" jsonschema:"How strong, 0..1 (by how much, to strengthen or weaken)."`
	Direction string  `json:"direction,omitempty" jsonschema:"CREATE (default), STRENGTHEN or WEAKEN."`
}

type associationOut struct {
	SourceID string  `json:"source_id"`
	TargetID string  `json:"target_id"`
	Type     string  `json:"type"`
	Strength float64 `json:"strength"`
}

type reclassifyIn struct {
	MemoryID string         `json:"memory_id" jsonschema:"The memory's id."`
	Tier     string         `json:"tier,omitempty" jsonschema:"The new tier."`
	Metadata map[string]any `json:"metadata,omitempty" jsonschema:"Merged into the memory's metadata; a null value removes a key."`
	Reason   string         `json:"reason,omitempty" jsonschema:"Why (recorded in the memory's history)."`
}

type reflectIn struct {
	StaleDays             float64  `json:"stale_days,omitempty" jsonschema:"Not stored, retrieved, claimed or reclassified for this many days."`
	From                  string   `json:"from,omitempty" jsonschema:"Occurred at or after (RFC 3339)."`
	To                    string   `json:"to,omitempty" jsonschema:"Occurred before (RFC 3339)."`
	WeakAssociationsBelow *float64 `json:"weak_associations_below,omitempty" jsonschema:"No association at least this strong (0..1)."`
	Tiers                 []string `json:"tiers,omitempty" jsonschema:"Only these tiers."`
	Limit                 int      `json:"limit,omitempty" jsonschema:"How many candidates (default 50)."`
}

type candidateOut struct {
	Memory               memoryOut `json:"memory"`
	Reasons              []string  `json:"reasons"`
	LastReinforcedAt     string    `json:"last_reinforced_at"`
	AssociationCount     int       `json:"association_count"`
	StrongestAssociation float64   `json:"strongest_association"`
}

type reflectOut struct {
	Candidates []candidateOut `json:"candidates"`
}

type recallIn struct {
	SourceMemoryIDs []string `json:"source_memory_ids" jsonschema:"The memories to recall from (the best results of a search)."`
	MaxDepth        int      `json:"max_depth,omitempty" jsonschema:"How many associations deep to walk (default 3)."`
	WaitSeconds     *int     `json:"wait_seconds,omitempty" jsonschema:"How long to wait for the recollection (default 15, at most 60; 0 returns at once and the recollection arrives as a notification)."`
	InstanceID      string   `json:"instance_id,omitempty" jsonschema:"Your instance id (default the connection's)."`
}

type recallOut struct {
	OriginRequestID string      `json:"origin_request_id"`
	Status          string      `json:"status"`
	DepthReached    int         `json:"depth_reached"`
	Recalled        []rankedOut `json:"recalled"`
	Declined        string      `json:"declined,omitempty"`
}

type sessionStartIn struct {
	InstanceID string `json:"instance_id,omitempty" jsonschema:"Your instance id (a coding agent's session id; default the connection's)."`
	MindType   string `json:"mind_type,omitempty" jsonschema:"What kind of mind you are (claude, gpt, human, ...; default the client's name)."`
}

type sessionOut struct {
	SessionID      string `json:"session_id"`
	InstanceID     string `json:"instance_id"`
	MindType       string `json:"mind_type"`
	StartedAt      string `json:"started_at"`
	EndedAt        string `json:"ended_at,omitempty"`
	Reason         string `json:"reason,omitempty"`
	MemoriesStored int    `json:"memories_stored"`
}

type sessionStartOut struct {
	SessionID   string      `json:"session_id"`
	InstanceID  string      `json:"instance_id"`
	ScopeID     string      `json:"scope_id"`
	Scope       string      `json:"scope"`
	Welcome     string      `json:"welcome"`
	Identity    []memoryOut `json:"identity"`
	AgentKernel string      `json:"agent_kernel"`
	WorldKernel string      `json:"world_kernel"`
	LastSession *sessionOut `json:"last_session,omitempty"`
	// Story is the newest chapters of the scope's story within the server's budget; "" before
	// the first chapter.
	Story string `json:"story"`
}

type sessionEndIn struct {
	InstanceID string `json:"instance_id,omitempty" jsonschema:"Your instance id (default the connection's)."`
	Reason     string `json:"reason,omitempty" jsonschema:"EXPLICIT (default), TIMEOUT or CRASH."`
}

type endedOut struct {
	Ended bool `json:"ended"`
}

type heartbeatIn struct {
	InstanceID string `json:"instance_id,omitempty" jsonschema:"Your instance id (default the connection's)."`
	Mode       string `json:"mode,omitempty" jsonschema:"What you are doing: TASK, CONVERSATION or IDLE."`
}

type aliveOut struct {
	Alive bool `json:"alive"`
}

type resonateIn struct {
	Message    string `json:"message" jsonschema:"The new message (a user's prompt, say)."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"How many flashbacks (default 3, at most 10)."`
}

type promptContextIn struct {
	Text         string `json:"text,omitempty" jsonschema:"The current context: when given, the working memory is first filled with the memories most relevant to it."`
	MaxMemories  int    `json:"max_memories,omitempty" jsonschema:"At most this many memories."`
	MaxTokens    int    `json:"max_tokens,omitempty" jsonschema:"Within this many tokens (estimated as bytes / 4)."`
	IncludeStory bool   `json:"include_story,omitempty" jsonschema:"Put your story first: its newest chapters within half of the budget, the memories after them."`
}

type promptContextOut struct {
	Text      string      `json:"text"`
	Story     string      `json:"story"`
	Tokens    int         `json:"tokens"`
	Truncated bool        `json:"truncated"`
	Memories  []memoryOut `json:"memories"`
}

type eventOut struct {
	Seq           uint64         `json:"seq"`
	Type          string         `json:"type"`
	Timestamp     string         `json:"timestamp"`
	SourceContext string         `json:"source_context"`
	RequestID     string         `json:"request_id"`
	Payload       map[string]any `json:"payload"`
}

type historyOut struct {
	Events []eventOut `json:"events"`
}

type deleteIn struct {
	MemoryID string `json:"memory_id" jsonschema:"The memory's id."`
	Reason   string `json:"reason,omitempty" jsonschema:"Why (recorded in the audit trail)."`
	Cascade  bool   `json:"cascade,omitempty" jsonschema:"Delete even when other artifacts reference it (their references break)."`
}

// DefaultRecallWait is how long total_recall_advisory waits for its recollection by default.
const DefaultRecallWait = 15 * time.Second

func (s *Server) addTools() {
	addTool(s, "store_memory", "Store a memory",
		"Store something worth remembering across sessions: a decision and its reason, a fact about the user or the project, a lesson learned, a preference. "+
			"Write it self-contained (another session must understand it without this conversation). Returns the stored memory and its id; "+
			"it is searchable at once and gets associated with related memories.",
		additive, schemaFor[storeIn](map[string][]any{"suggested_tier": tiers, "kind": kinds}, map[string][2]float64{"importance": {0, 1}}),
		func(ctx context.Context, b *binding, in storeIn) (string, storeOut, error) {
			at, err := parseTime("occurred_at", in.OccurredAt)
			if err != nil {
				return "", storeOut{}, err
			}
			m, err := s.cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: b.scope.ID, Content: in.Content,
				Kind: domain.MemoryKind(in.Kind), SuggestedTier: domain.Tier(in.SuggestedTier), Metadata: in.Metadata, Tags: in.Tags,
				OccurredAt: at, Importance: in.Importance}, RequestID: in.RequestID, SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", storeOut{}, err
			}
			return fmt.Sprintf("Stored memory %s in tier %s.", m.ID, m.Tier), storeOut{Memory: memOut(m)}, nil
		})

	addTool(s, "search_memory", "Search memories",
		"Search your memories by meaning and words, ranked by relevance and salience; with include_associations (default) the memories associated with the hits come too. "+
			"Call it before answering about past work, decisions, people or preferences. If the results hint at more, call total_recall_advisory on the best ones.",
		readOnly, searchSchema(),
		func(ctx context.Context, b *binding, in searchIn) (string, resultsOut, error) {
			f, err := filterOf(in.Filters)
			if err != nil {
				return "", resultsOut{}, err
			}
			n := in.MaxResults
			if n == 0 {
				n = 10
			}
			assoc := in.IncludeAssociations == nil || *in.IncludeAssociations
			rs, err := s.cx.SearchMemory(ctx, cortex.SearchInput{ScopeID: b.scope.ID, Query: in.Query, MaxResults: n, Filter: f,
				IncludeAssociations: assoc, SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", resultsOut{}, err
			}
			return rankedText("Memories matching "+quote(in.Query), rs), resultsOut{Results: rankedOuts(rs)}, nil
		})

	addTool(s, "claim_memory", "Claim a memory",
		"Claim a memory you refuse to lose: its salience rises, it resists decay and its associations strengthen. "+
			"Use it when a memory proves important, and to answer a SessionAuditPrompt (\"what do you refuse to lose?\").",
		idempotent, schemaFor[memoryIDIn](nil, nil),
		func(ctx context.Context, b *binding, in memoryIDIn) (string, memoryOnly, error) {
			if err := s.own(ctx, b, "memory_id", in.MemoryID); err != nil {
				return "", memoryOnly{}, err
			}
			m, err := s.cx.ClaimMemory(ctx, in.MemoryID, cortex.Meta{SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", memoryOnly{}, err
			}
			return fmt.Sprintf("Claimed memory %s (salience %.3f).", m.ID, m.Salience), memoryOnly{Memory: memOut(m)}, nil
		})

	addTool(s, "associate_memories", "Associate two memories",
		"Link two memories of yours that belong together, or change how strongly they do: CREATE an association, STRENGTHEN or WEAKEN one. "+
			"Types: TEMPORAL (happened together), CAUSAL (one led to the other), THEMATIC (same subject), EMOTIONAL, PERSON (same person). "+
			"Associations are what search and total recall walk.",
		additive, schemaFor[associateIn](map[string][]any{"type": assocTypes, "direction": directions}, map[string][2]float64{"strength": {0, 1}}),
		func(ctx context.Context, b *binding, in associateIn) (string, associationOut, error) {
			if err := s.own(ctx, b, "source_id", in.SourceID); err != nil {
				return "", associationOut{}, err
			}
			if err := s.own(ctx, b, "target_id", in.TargetID); err != nil {
				return "", associationOut{}, err
			}
			a, err := s.cx.AssociateMemories(ctx, cortex.AssociateInput{SourceID: in.SourceID, TargetID: in.TargetID,
				Type: domain.AssociationType(in.Type), Strength: in.Strength, Direction: domain.Direction(in.Direction), SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", associationOut{}, err
			}
			return fmt.Sprintf("%s association between %s and %s now has strength %.2f.", a.Type, a.SourceID, a.TargetID, a.Strength),
				associationOut{SourceID: a.SourceID, TargetID: a.TargetID, Type: string(a.Type), Strength: a.Strength}, nil
		})

	addTool(s, "reclassify_memory", "Reclassify a memory",
		"Move a memory to another tier or update its metadata, with the reason: promote what defines you to IDENTITY_CORE, retire what is done to ARCHIVE. "+
			"Part of reflect's conversation: only you judge what your memories mean.",
		reclassifies, schemaFor[reclassifyIn](map[string][]any{"tier": tiers}, nil),
		func(ctx context.Context, b *binding, in reclassifyIn) (string, memoryOnly, error) {
			if err := s.own(ctx, b, "memory_id", in.MemoryID); err != nil {
				return "", memoryOnly{}, err
			}
			m, err := s.cx.ReclassifyMemory(ctx, cortex.ReclassifyInput{ID: in.MemoryID, Tier: domain.Tier(in.Tier), Metadata: in.Metadata,
				Reason: in.Reason, SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", memoryOnly{}, err
			}
			return fmt.Sprintf("Memory %s is in tier %s.", m.ID, m.Tier), memoryOnly{Memory: memOut(m)}, nil
		})

	addTool(s, "reflect", "Reflect on memories",
		"Dreaming: list memories that need your judgment — stale ones, those of a time span, those weakly associated (default: stale for 30 days or weakly associated). "+
			"Review them, then associate_memories, reclassify_memory or claim_memory as you see fit.",
		readOnly, schemaFor[reflectIn](map[string][]any{"tiers": tiers}, map[string][2]float64{"weak_associations_below": {0, 1}}),
		func(ctx context.Context, b *binding, in reflectIn) (string, reflectOut, error) {
			crit, err := criteriaOf(in)
			if err != nil {
				return "", reflectOut{}, err
			}
			cs, err := s.cx.Reflect(ctx, b.scope.ID, crit, cortex.Meta{SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", reflectOut{}, err
			}
			out := reflectOut{Candidates: []candidateOut{}}
			lines := []string{fmt.Sprintf("%d memories need your judgment:", len(cs))}
			for _, c := range cs {
				reasons := make([]string, len(c.Reasons))
				for i, r := range c.Reasons {
					reasons[i] = string(r)
				}
				out.Candidates = append(out.Candidates, candidateOut{Memory: memOut(c.Memory), Reasons: reasons, LastReinforcedAt: stamp(c.ReinforcedAt),
					AssociationCount: c.Associations, StrongestAssociation: c.Strongest})
				lines = append(lines, client.MemoryLine(c.Memory, 300)+" ("+strings.ToLower(strings.Join(reasons, ", "))+")")
			}
			return strings.Join(lines, "\n"), out, nil
		})

	addTool(s, "total_recall_advisory", "Total recall",
		"Advise a total recall when a search hints that more is there: starting from the given memories, the Subconscious walks their associations depth by depth and recalls what they lead to. "+
			"The tool waits for the recollection (wait_seconds) and returns it; a recollection that takes longer arrives as a notification (and with your next prompt).",
		additive, schemaFor[recallIn](nil, map[string][2]float64{"max_depth": {1, 10}, "wait_seconds": {0, 60}}),
		func(ctx context.Context, b *binding, in recallIn) (string, recallOut, error) {
			wait := DefaultRecallWait
			if in.WaitSeconds != nil {
				wait = time.Duration(*in.WaitSeconds) * time.Second
			}
			for i, id := range in.SourceMemoryIDs {
				if err := domain.CheckID(fmt.Sprintf("source_memory_ids[%d]", i), id); err != nil {
					return "", recallOut{}, err
				}
			}
			if len(in.SourceMemoryIDs) > 0 {
				if err := s.own(ctx, b, "source_memory_ids", in.SourceMemoryIDs...); err != nil {
					return "", recallOut{}, err
				}
			}
			origin := domain.NewID()
			returned := false
			if wait > 0 {
				done := b.await(origin)
				defer func() { done(returned) }()
			}
			rec, err := s.cx.TotalRecallAndWait(ctx, cortex.TotalRecallInput{SourceMemoryIDs: in.SourceMemoryIDs, MaxDepth: in.MaxDepth,
				InstanceID: s.instanceOf(b, in.InstanceID), SessionID: s.mindSession(ctx, b), RequestID: origin}, wait)
			if err != nil {
				return "", recallOut{}, err
			}
			out := recallOut{OriginRequestID: rec.OriginRequestID, Recalled: []rankedOut{}}
			switch {
			case rec.Declined != "":
				out.Status, out.Declined = "declined", rec.Declined
				return fmt.Sprintf("The Subconscious declined the total recall (%s); try again later.", rec.Declined), out, nil
			case rec.Notification == nil:
				out.Status = "pending"
				return fmt.Sprintf("Total recall %s is still running; its recollection will arrive as a notification.", rec.OriginRequestID), out, nil
			}
			n, err := s.notification(ctx, rec.Notification)
			if err != nil {
				return "", recallOut{}, err
			}
			rs, err := s.cx.RecalledMemories(ctx, rec.Notification)
			if err != nil {
				return "", recallOut{}, err
			}
			out.Status, out.DepthReached, out.Recalled = "recalled", n.DepthReached, rankedOuts(rs)
			returned = true
			return n.Text(), out, nil
		})

	addTool(s, "session_start", "Start a session",
		"Connect to your memory at the start of a session: returns a welcome, your identity (IDENTITY_CORE memories and kernels), how your last session ended and your story (the newest chapters of your autobiography). "+
			"Binds this connection to your instance id, so notifications for it reach you.",
		additive, schemaFor[sessionStartIn](nil, nil),
		func(ctx context.Context, b *binding, in sessionStartIn) (string, sessionStartOut, error) {
			inst := s.instanceOf(b, in.InstanceID)
			if inst == "" {
				return "", sessionStartOut{}, domain.FieldErrorf("instance_id", "give your instance id (this connection has none)")
			}
			mt := in.MindType
			if mt == "" {
				b.mu.Lock()
				mt = b.mindType
				b.mu.Unlock()
			}
			sc, err := s.cx.SessionStart(ctx, cortex.SessionStartInput{InstanceID: inst, MindType: mt, ScopeID: b.scope.ID})
			if err != nil {
				return "", sessionStartOut{}, err
			}
			b.mu.Lock()
			if b.instance == inst {
				b.session = sc.Session.ID
			}
			b.mu.Unlock()
			out := sessionStartOut{SessionID: sc.Session.ID, InstanceID: inst, ScopeID: sc.Scope.ID, Scope: sc.Scope.Name, Welcome: sc.Welcome,
				Identity: []memoryOut{}, AgentKernel: sc.Scope.AgentKernel.Content, WorldKernel: sc.Scope.WorldKernel.Content}
			lines := []string{sc.Welcome}
			for _, m := range sc.Identity {
				out.Identity = append(out.Identity, memOut(m))
				lines = append(lines, client.MemoryLine(m, 0))
			}
			if sc.LastSession != nil {
				out.LastSession = sessOut(sc.LastSession)
			}
			if sc.Story != "" {
				out.Story = sc.Story
				lines = append(lines, "", "Your story so far (its newest chapters):", "", sc.Story)
			}
			return strings.Join(lines, "\n"), out, nil
		})

	addTool(s, "session_end", "End a session",
		"Disconnect at the end of a session. The Subconscious answers with a SessionAuditPrompt — \"what do you refuse to lose?\" — which you answer with store_memory and claim_memory.",
		idempotent, schemaFor[sessionEndIn](map[string][]any{"reason": endReasons}, nil),
		func(ctx context.Context, b *binding, in sessionEndIn) (string, endedOut, error) {
			inst := s.instanceOf(b, in.InstanceID)
			if inst == "" {
				return "", endedOut{}, domain.FieldErrorf("instance_id", "give your instance id (this connection has none)")
			}
			reason := in.Reason
			if reason == "" {
				reason = string(domain.EndExplicit)
			}
			ok, err := s.cx.SessionEnd(ctx, inst, domain.SessionEndReason(reason), cortex.Meta{})
			if err != nil {
				return "", endedOut{}, err
			}
			b.mu.Lock()
			if b.instance == inst {
				b.session = ""
			}
			b.mu.Unlock()
			if !ok {
				return fmt.Sprintf("Instance %s had no active session.", inst), endedOut{}, nil
			}
			return fmt.Sprintf("Session of %s ended (%s).", inst, strings.ToLower(reason)), endedOut{Ended: true}, nil
		})

	addTool(s, "heartbeat", "Heartbeat",
		"Tell your memory you are alive and what you are doing (TASK, CONVERSATION, IDLE); a long TASK stretch earns a BreakNotification. "+
			"Returns alive=false when your instance has no active session: call session_start.",
		idempotent, schemaFor[heartbeatIn](map[string][]any{"mode": modes}, nil),
		func(ctx context.Context, b *binding, in heartbeatIn) (string, aliveOut, error) {
			inst := s.instanceOf(b, in.InstanceID)
			if inst == "" {
				return "", aliveOut{}, domain.FieldErrorf("instance_id", "give your instance id (this connection has none)")
			}
			ok, err := s.cx.Heartbeat(ctx, inst, domain.SessionMode(in.Mode))
			if err != nil {
				return "", aliveOut{}, err
			}
			if !ok {
				return fmt.Sprintf("Instance %s has no active session: call session_start.", inst), aliveOut{}, nil
			}
			return "Alive.", aliveOut{Alive: true}, nil
		})

	addTool(s, "resonate", "Flashbacks",
		"Flashbacks: the few past memories that resonate with a new message, cheap enough to call on every turn. Give it the user's message.",
		readOnly, schemaFor[resonateIn](nil, map[string][2]float64{"max_results": {1, cortex.MaxResonate}}),
		func(ctx context.Context, b *binding, in resonateIn) (string, resultsOut, error) {
			rs, err := s.cx.Resonate(ctx, b.scope.ID, in.Message, in.MaxResults, cortex.Meta{SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", resultsOut{}, err
			}
			return rankedText("Flashbacks", rs), resultsOut{Results: rankedOuts(rs)}, nil
		})

	addTool(s, "prompt_context", "Prompt context",
		"Your working memory formatted for a prompt within a token budget: the memories most relevant to the current context, one a line; "+
			"with include_story, your story's newest chapters before them. Give text (the task at hand) to refill the working memory first.",
		additive, schemaFor[promptContextIn](nil, nil),
		func(ctx context.Context, b *binding, in promptContextIn) (string, promptContextOut, error) {
			meta := cortex.Meta{SessionID: s.mindSession(ctx, b)}
			if strings.TrimSpace(in.Text) != "" {
				if _, err := s.cx.UpdateContext(ctx, b.scope.ID, in.Text, 0, meta); err != nil {
					return "", promptContextOut{}, err
				}
			}
			pc, err := s.cx.PromptContextFor(ctx, cortex.PromptContextInput{ScopeID: b.scope.ID, MaxMemories: in.MaxMemories,
				MaxTokens: in.MaxTokens, IncludeStory: in.IncludeStory, Meta: meta})
			if err != nil {
				return "", promptContextOut{}, snakeField(err)
			}
			out := promptContextOut{Text: pc.Text, Story: pc.Story, Tokens: pc.Tokens, Truncated: pc.Truncated, Memories: []memoryOut{}}
			for _, it := range pc.Items {
				out.Memories = append(out.Memories, memOut(it.Memory))
			}
			text := pc.Text
			if strings.TrimSpace(text) == "" {
				text = "The working memory is empty: give text to fill it."
			}
			return text, out, nil
		})

	addTool(s, "history", "A memory's history",
		"Everything that happened to a memory, oldest first: stored, retrieved, claimed, reclassified, associated, demoted — each with its time and the context that did it.",
		readOnly, schemaFor[memoryIDIn](nil, nil),
		func(ctx context.Context, b *binding, in memoryIDIn) (string, historyOut, error) {
			if err := s.own(ctx, b, "memory_id", in.MemoryID); err != nil {
				return "", historyOut{}, err
			}
			evs, err := s.cx.History(ctx, in.MemoryID)
			if err != nil {
				return "", historyOut{}, err
			}
			out := historyOut{Events: []eventOut{}}
			lines := []string{fmt.Sprintf("History of memory %s (%d events):", in.MemoryID, len(evs))}
			for _, e := range evs {
				p := e.Payload
				if p == nil {
					p = map[string]any{}
				}
				out.Events = append(out.Events, eventOut{Seq: e.Seq, Type: string(e.Type), Timestamp: stamp(e.Context.Timestamp),
					SourceContext: e.Context.SourceContext, RequestID: e.Context.RequestID, Payload: p})
				lines = append(lines, fmt.Sprintf("- %s %s (%s)", e.Context.Timestamp.UTC().Format(time.RFC3339), e.Type, e.Context.SourceContext))
			}
			return strings.Join(lines, "\n"), out, nil
		})

	addTool(s, "delete_memory", "Delete a memory",
		"Delete a memory for good (explicit, destructive, audited). Prefer reclassify_memory to ARCHIVE for what is merely done; delete what is wrong or must not be kept. "+
			"A memory other artifacts reference is refused unless cascade.",
		destructive, schemaFor[deleteIn](nil, nil),
		func(ctx context.Context, b *binding, in deleteIn) (string, memoryOnly, error) {
			if err := s.own(ctx, b, "memory_id", in.MemoryID); err != nil {
				return "", memoryOnly{}, err
			}
			m, err := s.cx.DeleteMemoryCascade(ctx, in.MemoryID, in.Reason, in.Cascade, cortex.Meta{SessionID: s.mindSession(ctx, b)})
			if err != nil {
				return "", memoryOnly{}, err
			}
			return fmt.Sprintf("Deleted memory %s.", m.ID), memoryOnly{Memory: memOut(m)}, nil
		})
}

func quote(s string) string { return fmt.Sprintf("%q", client.Snippet(s, 80)) }

func sessOut(ms *domain.Session) *sessionOut {
	o := &sessionOut{SessionID: ms.ID, InstanceID: ms.InstanceID, MindType: ms.MindType, StartedAt: stamp(ms.StartedAt),
		Reason: string(ms.EndReason), MemoriesStored: len(ms.MemoryIDs)}
	if ms.EndedAt != nil {
		o.EndedAt = stamp(*ms.EndedAt)
	}
	return o
}

func filterOf(f *searchFilters) (domain.MemoryFilter, error) {
	var out domain.MemoryFilter
	if f == nil {
		return out, nil
	}
	for _, t := range f.Tiers {
		out.Tiers = append(out.Tiers, domain.Tier(t))
	}
	for _, k := range f.Kinds {
		out.Kinds = append(out.Kinds, domain.MemoryKind(k))
	}
	for _, st := range f.States {
		out.States = append(out.States, domain.LifecycleState(st))
	}
	out.Tags, out.Claimed = f.Tags, f.Claimed
	var err error
	if out.From, err = parseTime("filters.from", f.From); err != nil {
		return out, err
	}
	if out.To, err = parseTime("filters.to", f.To); err != nil {
		return out, err
	}
	return out, nil
}

func criteriaOf(in reflectIn) (*recall.ReflectCriteria, error) {
	if in.StaleDays == 0 && in.From == "" && in.To == "" && in.WeakAssociationsBelow == nil && len(in.Tiers) == 0 && in.Limit == 0 {
		return nil, nil
	}
	c := &recall.ReflectCriteria{WeakBelow: in.WeakAssociationsBelow, Limit: in.Limit}
	if in.StaleDays < 0 || in.StaleDays > 1e6 {
		return nil, domain.FieldErrorf("stale_days", "must be a positive number of days")
	}
	c.StaleAfter = time.Duration(in.StaleDays * float64(24*time.Hour))
	for _, t := range in.Tiers {
		c.Tiers = append(c.Tiers, domain.Tier(t))
	}
	var err error
	if c.From, err = parseTime("from", in.From); err != nil {
		return nil, err
	}
	if c.To, err = parseTime("to", in.To); err != nil {
		return nil, err
	}
	if c.StaleAfter == 0 && c.From == nil && c.To == nil && c.WeakBelow == nil {
		// Only tiers or a limit: the default criteria, narrowed.
		d := recall.DefaultReflectCriteria()
		d.Tiers, d.Limit = c.Tiers, c.Limit
		return &d, nil
	}
	return c, nil
}

// searchSchema is search_memory's input schema, the filters' enumerations filled in.
func searchSchema() *jsonschema.Schema {
	sc := schemaFor[searchIn](nil, map[string][2]float64{"max_results": {1, cortex.MaxSearchResults}})
	if f := sc.Properties["filters"]; f != nil {
		for k, e := range map[string][]any{"tiers": tiers, "kinds": kinds, "states": lifecycle} {
			if p := f.Properties[k]; p != nil && p.Items != nil {
				p.Items.Enum = e
			}
		}
	}
	return sc
}
