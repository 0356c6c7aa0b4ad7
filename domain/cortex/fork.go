package cortex

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/ledger"
	"github.com/totalrecall/totalrecall/domain/recall"
)

// TurnContext is one past agent turn with what a new session needs of it (seed 001's
// ForkContextBuilder): the turn, its session, its messages and its tool calls — all of the
// turn's scope.
type TurnContext struct {
	ScopeID   string                  `json:"scopeId"`
	Turn      *domain.AgentTurn       `json:"turn"`
	Session   *domain.AgentSession    `json:"session"`
	Messages  []*domain.AgentMessage  `json:"messages"`
	ToolCalls []*domain.AgentToolCall `json:"toolCalls"`
	// Score is the best search score of the turn's trimmed events.
	Score  float64 `json:"score"`
	Tokens int     `json:"tokens"`
}

// ForkContext is the context assembled for a new session that forks from past work.
type ForkContext struct {
	Query         string         `json:"query"`
	RelevantTurns []*TurnContext `json:"relevantTurns"`
	TotalTokens   int            `json:"totalTokens"`
}

// MaxForkTurns caps maxTurns.
const MaxForkTurns = 100

// forkHit is a turn search found: its scope, its best score and its rank in its scope.
type forkHit struct {
	scope string
	turn  string
	score float64
	rank  int
}

// ForkContext finds the past agent turns most relevant to query — searching their trimmed events
// in the events ledger with the full ranking of search (hybrid when vectors exist) — and
// assembles each with its session, messages and tool calls from the agents ledger, best first.
//
// With a scopeID only that scope's turns are searched. Without one (scopeID "") every scope that
// has agent sessions is searched, each with the same ranking, and the best maxTurns turns of all
// of them are kept, by score (ties: the scope listed first, then the rank in the scope). Each
// turn is assembled within its own scope, which it carries: a session, message or tool call of
// another scope is never joined to it. Scores are those of search in each scope, where text
// relevance is relative to the scope's best match. Errors: INVALID_ARGUMENT, NOT_FOUND (the
// scope).
func (c *Cortex) ForkContext(ctx context.Context, scopeID, query string, maxTurns int, m Meta) (*ForkContext, error) {
	if scopeID != "" {
		if err := domain.CheckID("scopeId", scopeID); err != nil {
			return nil, err
		}
		if err := mayRead(ctx, scopeID); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(query) == "" {
		return nil, domain.FieldErrorf("query", "must not be empty")
	}
	if len(query) > 4096 {
		return nil, domain.FieldErrorf("query", "is longer than 4096 bytes")
	}
	if err := hippocampus.CheckText("query", query); err != nil {
		return nil, err
	}
	if maxTurns == 0 {
		maxTurns = 10
	}
	if maxTurns < 0 || maxTurns > MaxForkTurns {
		return nil, domain.FieldErrorf("maxTurns", "must be within 1..%d", MaxForkTurns)
	}
	as, err := c.agentStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	var scopes []string
	if scopeID != "" {
		if _, err := c.store.Scope(ctx, scopeID); err != nil {
			return nil, err
		}
		scopes = []string{scopeID}
	} else {
		// Every scope the caller may read.
		all, err := c.Scopes(ctx)
		if err != nil {
			return nil, err
		}
		for _, sc := range all {
			if !c.shard.Serves(sc.ID) {
				continue // another server's index holds it
			}
			ss, err := as.ScopeAgentSessions(ctx, sc.ID)
			if err != nil {
				return nil, err
			}
			if len(ss) > 0 {
				scopes = append(scopes, sc.ID)
			}
		}
	}
	var hits []forkHit
	for _, s := range scopes {
		found, err := c.forkHits(ctx, s, query, maxTurns)
		if err != nil {
			return nil, err
		}
		hits = append(hits, found...)
	}
	// One scope's hits are in its order already; several scopes' are merged by score.
	order := map[string]int{}
	for i, s := range scopes {
		order[s] = i
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		if hits[i].scope != hits[j].scope {
			return order[hits[i].scope] < order[hits[j].scope]
		}
		return hits[i].rank < hits[j].rank
	})
	hits = hits[:min(len(hits), maxTurns)]
	out := &ForkContext{Query: query, RelevantTurns: []*TurnContext{}}
	if len(hits) > 0 {
		turnIDs := make([]string, len(hits))
		for i, h := range hits {
			turnIDs[i] = h.turn
		}
		turns, err := as.AgentTurns(ctx, turnIDs)
		if err != nil {
			return nil, err
		}
		byTurn := map[string]*domain.AgentTurn{}
		var sessionIDs, msgIDs []string
		for _, t := range turns {
			byTurn[t.ID] = t
			sessionIDs = append(sessionIDs, t.SessionID)
			msgIDs = append(msgIDs, t.MessageIDs...)
		}
		sessions, err := as.AgentSessions(ctx, uniq(sessionIDs))
		if err != nil {
			return nil, err
		}
		bySession := map[string]*domain.AgentSession{}
		for _, s := range sessions {
			bySession[s.ID] = s
		}
		msgs, err := as.AgentMessages(ctx, uniq(msgIDs))
		if err != nil {
			return nil, err
		}
		byMsg := map[string]*domain.AgentMessage{}
		for _, mm := range msgs {
			byMsg[mm.ID] = mm
		}
		calls, err := as.SessionToolCalls(ctx, uniq(sessionIDs))
		if err != nil {
			return nil, err
		}
		callsOf := map[string][]*domain.AgentToolCall{}
		for _, call := range calls {
			callsOf[call.MessageID] = append(callsOf[call.MessageID], call)
		}
		for _, h := range hits {
			t, ok := byTurn[h.turn]
			if !ok || t.ScopeID != h.scope {
				continue
			}
			tcx := &TurnContext{ScopeID: t.ScopeID, Turn: t, Score: h.score,
				Messages: []*domain.AgentMessage{}, ToolCalls: []*domain.AgentToolCall{}}
			if s := bySession[t.SessionID]; s != nil && s.ScopeID == t.ScopeID {
				tcx.Session = s
			}
			for _, mid := range t.MessageIDs {
				if mm := byMsg[mid]; mm != nil && mm.ScopeID == t.ScopeID {
					tcx.Messages = append(tcx.Messages, mm)
					tcx.Tokens += ledger.EstimateTokens(mm.Content)
				}
				for _, call := range callsOf[mid] {
					if call.ScopeID != t.ScopeID {
						continue
					}
					tcx.ToolCalls = append(tcx.ToolCalls, call)
					tcx.Tokens += ledger.EstimateTokens(jsonText(call.Params)) + ledger.EstimateTokens(jsonText(call.Result))
				}
			}
			out.RelevantTurns = append(out.RelevantTurns, tcx)
			out.TotalTokens += tcx.Tokens
		}
	}
	payload := map[string]any{"query": query, "maxTurns": maxTurns, "turns": len(out.RelevantTurns), "totalTokens": out.TotalTokens}
	if scopeID == "" {
		// A query over every scope belongs to none; it names the scopes it searched.
		payload["scopes"] = scopes
	}
	q := command(domain.MsgForkContextQuery, scopeID, "", tc, domain.CtxRecall, payload)
	if err := c.store.AppendEvents(ctx, []*domain.Event{q}); err != nil {
		return nil, err
	}
	c.log.Kick()
	return out, nil
}

// forkHits searches one scope's trimmed agent turns: its best maxTurns turns, best first.
func (c *Cortex) forkHits(ctx context.Context, scopeID, query string, maxTurns int) ([]forkHit, error) {
	res, err := c.recall.Search(ctx, recall.Query{ScopeID: scopeID, Text: query, MaxResults: min(recallMax, maxTurns*4),
		Filter: domain.MemoryFilter{Tags: []string{ledger.TagAgentTurn}}})
	if err != nil {
		return nil, err
	}
	var out []forkHit
	seen := map[string]bool{}
	for _, r := range res {
		tid, _ := r.Memory.Metadata["agentTurnId"].(string)
		if tid == "" || seen[tid] || r.Memory.ScopeID != scopeID {
			continue
		}
		seen[tid] = true
		out = append(out, forkHit{scope: scopeID, turn: tid, score: r.Score, rank: len(out)})
		if len(out) == maxTurns {
			break
		}
	}
	return out, nil
}

// recallMax bounds the search behind a fork context.
const recallMax = 400

func jsonText(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// Probe ranks a scope's memories for a query exactly as SearchMemory does, without recording a
// retrieval: no SearchQuery message, no MemoryAccessed, no salience gained. It is for evaluation,
// where the questions are probes of the memory rather than a mind recalling, and one probe must
// not bias the next. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Probe(ctx context.Context, in SearchInput) ([]*recall.RankedMemory, error) {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, domain.FieldErrorf("query", "must not be empty")
	}
	if len(in.Query) > 4096 {
		return nil, domain.FieldErrorf("query", "is longer than 4096 bytes")
	}
	if err := hippocampus.CheckText("query", in.Query); err != nil {
		return nil, err
	}
	if in.MaxResults == 0 {
		in.MaxResults = 10
	}
	if in.MaxResults < 0 || in.MaxResults > MaxSearchResults {
		return nil, domain.FieldErrorf("maxResults", "must be within 1..%d", MaxSearchResults)
	}
	if _, err := c.store.Scope(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	return c.recall.Search(ctx, recall.Query{ScopeID: in.ScopeID, Text: in.Query, MaxResults: in.MaxResults,
		Filter: in.Filter, IncludeAssociations: in.IncludeAssociations, Literal: in.Literal})
}
