package client

import (
	"context"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The operations the CLI's commands and the hooks send, with the shapes the GraphQL API answers
// in. Memories, scopes and sessions decode into the domain's own types (their JSON names are the
// API's field names).

// MemoryFields selects every field of a Memory.
const MemoryFields = `id scopeId content kind tier suggestedTier metadata tags occurredAt createdAt updatedAt salience importance claimed claimedAt accessCount lastAccessedAt state sessionId version`

// RankedFields selects a RankedMemory.
const RankedFields = `memory { ` + MemoryFields + ` } score reason textScore salience activation via { sourceId targetId type strength } viaFacet { type value episodeId memoryId }`

// NotificationFields selects a Notification of any of the three kinds.
const NotificationFields = `__typename id scopeId instanceId timestamp
  ... on SessionAuditPrompt { prompt endedSessionId reason durationSeconds memoriesStored memoryIds }
  ... on BreakNotification { sessionId minutesInTaskMode suggestion }
  ... on TotalRecallNotification { depthReached originRequestId sourceMemoryIds recalled { ` + RankedFields + ` depth } }`

// TotalRecallFields selects a TotalRecallNotification.
const TotalRecallFields = `__typename id scopeId instanceId timestamp depthReached originRequestId sourceMemoryIds recalled { ` + RankedFields + ` depth }`

const scopeFields = `id name createdAt agentKernel { id scopeId family content updatedAt } worldKernel { id scopeId family content updatedAt }`

const sessionFields = `id scopeId instanceId mindType startedAt lastHeartbeatAt endedAt reason mode durationSeconds memoriesStored`

// Via is the association a ranked memory was reached through.
type Via struct {
	SourceID string  `json:"sourceId"`
	TargetID string  `json:"targetId"`
	Type     string  `json:"type"`
	Strength float64 `json:"strength"`
}

// ViaFacet is the facet a FACET result was reached through.
type ViaFacet struct {
	Type      string `json:"type"`
	Value     string `json:"value"`
	EpisodeID string `json:"episodeId"`
	MemoryID  string `json:"memoryId"`
}

// RankedMemory is a search, resonate or total recall result.
type RankedMemory struct {
	Memory     domain.Memory `json:"memory"`
	Score      float64       `json:"score"`
	Reason     string        `json:"reason"`
	TextScore  float64       `json:"textScore"`
	Salience   float64       `json:"salience"`
	Activation float64       `json:"activation"`
	Via        *Via          `json:"via"`
	ViaFacet   *ViaFacet     `json:"viaFacet"`
	Depth      int           `json:"depth"`
}

// Notification is a notification pushed to a mind: the fields of its three kinds side by side,
// Kind saying which it is (SessionAuditPrompt, BreakNotification, TotalRecallNotification).
type Notification struct {
	Kind       string    `json:"__typename"`
	ID         string    `json:"id"`
	ScopeID    string    `json:"scopeId"`
	InstanceID string    `json:"instanceId"`
	Timestamp  time.Time `json:"timestamp"`
	// SessionAuditPrompt.
	Prompt          string   `json:"prompt"`
	EndedSessionID  string   `json:"endedSessionId"`
	Reason          string   `json:"reason"`
	DurationSeconds int      `json:"durationSeconds"`
	MemoriesStored  int      `json:"memoriesStored"`
	MemoryIDs       []string `json:"memoryIds"`
	// BreakNotification.
	SessionID         string `json:"sessionId"`
	MinutesInTaskMode int    `json:"minutesInTaskMode"`
	Suggestion        string `json:"suggestion"`
	// TotalRecallNotification.
	Recalled        []RankedMemory `json:"recalled"`
	DepthReached    int            `json:"depthReached"`
	OriginRequestID string         `json:"originRequestId"`
	SourceMemoryIDs []string       `json:"sourceMemoryIds"`
}

// MindSession is a mind instance's connection to a scope.
type MindSession struct {
	ID              string     `json:"id"`
	ScopeID         string     `json:"scopeId"`
	InstanceID      string     `json:"instanceId"`
	MindType        string     `json:"mindType"`
	StartedAt       time.Time  `json:"startedAt"`
	LastHeartbeatAt time.Time  `json:"lastHeartbeatAt"`
	EndedAt         *time.Time `json:"endedAt"`
	Reason          string     `json:"reason"`
	Mode            string     `json:"mode"`
	DurationSeconds int        `json:"durationSeconds"`
	MemoriesStored  int        `json:"memoriesStored"`
}

// SessionContext is what a mind gets when its session starts.
type SessionContext struct {
	SessionID   string          `json:"sessionId"`
	Identity    []domain.Memory `json:"identity"`
	AgentKernel domain.Kernel   `json:"agentKernel"`
	WorldKernel domain.Kernel   `json:"worldKernel"`
	LastSession *MindSession    `json:"lastSession"`
	Welcome     string          `json:"welcome"`
	// Story is the newest chapters of the scope's story within the server's budget; "" before
	// the first chapter.
	Story string `json:"story"`
}

// Recollection is the outcome of a total recall waited for.
type Recollection struct {
	OriginRequestID string        `json:"originRequestId"`
	Notification    *Notification `json:"notification"`
	Declined        *string       `json:"declined"`
}

// ImportResult counts what an import or a recorded turn wrote.
type ImportResult struct {
	ScopeID  string `json:"scopeId"`
	Events   int    `json:"events"`
	Imported int    `json:"imported"`
	Skipped  int    `json:"skipped"`
	Sessions int    `json:"sessions"`
	Messages int    `json:"messages"`
	Turns    int    `json:"turns"`
	Problems []struct {
		Line    int    `json:"line"`
		Record  string `json:"record"`
		Message string `json:"message"`
	} `json:"problems"`
}

// ResolveScope returns the scope ref names (an id or a name; an unused name creates it) and
// whether it was created.
func (c *Client) ResolveScope(ctx context.Context, ref string) (*domain.Scope, bool, error) {
	var out struct {
		R struct {
			Scope   domain.Scope `json:"scope"`
			Created bool         `json:"created"`
		} `json:"resolveScope"`
	}
	err := c.Do(ctx, `mutation($s: String!) { resolveScope(scope: $s) { created scope { `+scopeFields+` } } }`, map[string]any{"s": ref}, &out)
	if err != nil {
		return nil, false, err
	}
	return &out.R.Scope, out.R.Created, nil
}

// Scopes lists the scopes.
func (c *Client) Scopes(ctx context.Context) ([]domain.Scope, error) {
	var out struct {
		Scopes []domain.Scope `json:"scopes"`
	}
	if err := c.Do(ctx, `{ scopes { `+scopeFields+` } }`, nil, &out); err != nil {
		return nil, err
	}
	return out.Scopes, nil
}

// StoreInput is store_memory's payload.
type StoreInput struct {
	ScopeID       string         `json:"scopeId"`
	Content       string         `json:"content"`
	Kind          string         `json:"kind,omitempty"`
	SuggestedTier string         `json:"suggestedTier,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	Importance    *float64       `json:"importance,omitempty"`
	RequestID     string         `json:"requestId,omitempty"`
	SessionID     string         `json:"sessionId,omitempty"`
}

// StoreMemory stores a memory.
func (c *Client) StoreMemory(ctx context.Context, in StoreInput) (*domain.Memory, error) {
	var out struct {
		M domain.Memory `json:"storeMemory"`
	}
	if err := c.Do(ctx, `mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { `+MemoryFields+` } }`, map[string]any{"in": in}, &out); err != nil {
		return nil, err
	}
	return &out.M, nil
}

// SearchMemory searches a scope.
func (c *Client) SearchMemory(ctx context.Context, scopeID, query string, maxResults int, associations bool, filters map[string]any) ([]RankedMemory, error) {
	var out struct {
		R []RankedMemory `json:"searchMemory"`
	}
	vars := map[string]any{"s": scopeID, "q": query, "n": maxResults, "a": associations}
	if filters != nil {
		vars["f"] = filters
	}
	err := c.Do(ctx, `query($s: ID!, $q: String!, $n: Int, $a: Boolean, $f: MemoryFilter) {
  searchMemory(scopeId: $s, query: $q, maxResults: $n, includeAssociations: $a, filters: $f) { `+RankedFields+` } }`, vars, &out)
	return out.R, err
}

// Memory loads a memory (nil when there is none).
func (c *Client) Memory(ctx context.Context, id string) (*domain.Memory, error) {
	var out struct {
		M *domain.Memory `json:"memory"`
	}
	if err := c.Do(ctx, `query($id: ID!) { memory(id: $id) { `+MemoryFields+` } }`, map[string]any{"id": id}, &out); err != nil {
		return nil, err
	}
	return out.M, nil
}

// ClaimMemory claims a memory.
func (c *Client) ClaimMemory(ctx context.Context, id string) (*domain.Memory, error) {
	var out struct {
		M domain.Memory `json:"claimMemory"`
	}
	if err := c.Do(ctx, `mutation($id: ID!) { claimMemory(id: $id) { `+MemoryFields+` } }`, map[string]any{"id": id}, &out); err != nil {
		return nil, err
	}
	return &out.M, nil
}

// TotalRecall advises a total recall from ids and waits up to wait for the recollection.
func (c *Client) TotalRecall(ctx context.Context, ids []string, maxDepth int, instanceID string, wait time.Duration) (*Recollection, error) {
	var out struct {
		R Recollection `json:"totalRecall"`
	}
	vars := map[string]any{"ids": ids, "w": int(wait / time.Second)}
	if maxDepth > 0 {
		vars["d"] = maxDepth
	}
	if instanceID != "" {
		vars["i"] = instanceID
	}
	err := c.Do(ctx, `mutation($ids: [ID!]!, $d: Int, $i: ID, $w: Int) {
  totalRecall(sourceMemoryIds: $ids, maxDepth: $d, instanceId: $i, waitSeconds: $w) { originRequestId declined notification { `+TotalRecallFields+` } } }`, vars, &out)
	if err != nil {
		return nil, err
	}
	return &out.R, nil
}

// SessionStart starts a mind instance's session in a scope.
func (c *Client) SessionStart(ctx context.Context, instanceID, mindType, scopeID string) (*SessionContext, error) {
	var out struct {
		S SessionContext `json:"sessionStart"`
	}
	err := c.Do(ctx, `mutation($i: ID!, $m: String!, $s: ID!) { sessionStart(instanceId: $i, mindType: $m, scopeId: $s) {
  sessionId welcome identity { `+MemoryFields+` } agentKernel { id scopeId family content updatedAt } worldKernel { id scopeId family content updatedAt }
  lastSession { `+sessionFields+` } story } }`, map[string]any{"i": instanceID, "m": mindType, "s": scopeID}, &out)
	if err != nil {
		return nil, err
	}
	return &out.S, nil
}

// Session returns an instance's active session (nil when it has none).
func (c *Client) Session(ctx context.Context, instanceID string) (*MindSession, error) {
	var out struct {
		S *MindSession `json:"session"`
	}
	if err := c.Do(ctx, `query($i: ID!) { session(instanceId: $i) { `+sessionFields+` } }`, map[string]any{"i": instanceID}, &out); err != nil {
		return nil, err
	}
	return out.S, nil
}

// SessionEnd ends an instance's session; false when it had none.
func (c *Client) SessionEnd(ctx context.Context, instanceID, reason string) (bool, error) {
	var out struct {
		Ended bool `json:"sessionEnd"`
	}
	err := c.Do(ctx, `mutation($i: ID!, $r: SessionEndReason!) { sessionEnd(instanceId: $i, reason: $r) }`, map[string]any{"i": instanceID, "r": reason}, &out)
	return out.Ended, err
}

// TurnInput is recordTurn's input.
type TurnInput struct {
	ScopeID        string     `json:"scopeId"`
	AgentSessionID string     `json:"agentSessionId"`
	Source         string     `json:"source,omitempty"`
	TurnID         string     `json:"turnId,omitempty"`
	Prompt         string     `json:"prompt,omitempty"`
	PromptID       string     `json:"promptId,omitempty"`
	PromptAt       *time.Time `json:"promptAt,omitempty"`
	Answer         string     `json:"answer,omitempty"`
	AnswerID       string     `json:"answerId,omitempty"`
	AnswerAt       *time.Time `json:"answerAt,omitempty"`
	Model          string     `json:"model,omitempty"`
	WorkspacePath  string     `json:"workspacePath,omitempty"`
}

// RecordTurn records a coding agent's turn as memories.
func (c *Client) RecordTurn(ctx context.Context, in TurnInput) (*ImportResult, error) {
	var out struct {
		R ImportResult `json:"recordTurn"`
	}
	err := c.Do(ctx, `mutation($in: TurnInput!) { recordTurn(input: $in) { scopeId events imported skipped sessions messages turns problems { line record message } } }`,
		map[string]any{"in": in}, &out)
	if err != nil {
		return nil, err
	}
	return &out.R, nil
}

// TakeNotifications hands over (and clears) an instance's queued notifications in a scope.
func (c *Client) TakeNotifications(ctx context.Context, instanceID, scopeID string) ([]Notification, error) {
	var out struct {
		N []Notification `json:"takeNotifications"`
	}
	err := c.Do(ctx, `mutation($i: ID!, $s: ID!) { takeNotifications(instanceId: $i, scopeId: $s) { `+NotificationFields+` } }`,
		map[string]any{"i": instanceID, "s": scopeID}, &out)
	return out.N, err
}
