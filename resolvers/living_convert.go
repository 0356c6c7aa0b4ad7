package resolvers

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/resolvers/model"
)

func sessionContext(sc *cortex.SessionContext) *model.SessionContext {
	out := &model.SessionContext{SessionID: sc.Session.ID, Session: sc.Session, Identity: sc.Identity,
		AgentKernel: sc.Scope.AgentKernel, WorldKernel: sc.Scope.WorldKernel, LastSession: sc.LastSession, Welcome: sc.Welcome}
	if out.Identity == nil {
		out.Identity = []*domain.Memory{}
	}
	if sc.Story != "" {
		out.Story = &sc.Story
	}
	return out
}

func sweepResult(r salience.SweepResult) *model.SweepResult {
	out := &model.SweepResult{ScopeID: r.ScopeID, MemoriesEvaluated: r.Evaluated, Demotions: r.Demotions, Rescored: r.Rescored,
		DurationMs: float64(r.Duration.Microseconds()) / 1000}
	if r.Tier != "" {
		t := r.Tier
		out.Tier = &t
	}
	return out
}

func workingMemory(v *cortex.WorkingView) *model.WorkingMemory {
	out := &model.WorkingMemory{ScopeID: v.Memory.ScopeID, Context: v.Memory.Context, Capacity: v.Memory.Capacity,
		UpdatedAt: v.Memory.UpdatedAt, Items: []*model.WorkingMemoryItem{}}
	for _, it := range v.Items {
		out.Items = append(out.Items, &model.WorkingMemoryItem{Memory: it.Memory, Relevance: it.Relevance, AddedAt: it.AddedAt})
	}
	return out
}

func promptContext(pc recall.PromptContext) *model.PromptContext {
	out := &model.PromptContext{Text: pc.Text, Tokens: pc.Tokens, Truncated: pc.Truncated, Memories: []*model.PromptContextItem{}}
	if pc.Story != "" {
		out.Story = &pc.Story
	}
	for _, it := range pc.Items {
		out.Memories = append(out.Memories, &model.PromptContextItem{Memory: it.Memory, Relevance: it.Relevance, Tokens: it.Tokens, Truncated: it.Truncated})
	}
	return out
}

func reflectCriteria(in *model.ReflectCriteria) (*recall.ReflectCriteria, error) {
	if in == nil {
		return nil, nil
	}
	out := &recall.ReflectCriteria{From: in.From, To: in.To, WeakBelow: in.WeakAssociationsBelow, Tiers: in.Tiers}
	if in.StaleDays != nil {
		d := *in.StaleDays
		if !(d > 0) || d > 1e6 || math.IsInf(d, 0) {
			return nil, domain.FieldErrorf("criteria.staleDays", "must be a positive number of days")
		}
		out.StaleAfter = time.Duration(d * float64(24*time.Hour))
	}
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, domain.FieldErrorf("criteria.limit", "must be at least 1")
		}
		out.Limit = *in.Limit
	}
	return out, nil
}

func reflectionCandidates(cs []*recall.ReflectionCandidate) []*model.ReflectionCandidate {
	out := make([]*model.ReflectionCandidate, len(cs))
	for i, c := range cs {
		reasons := make([]model.ReflectionReason, len(c.Reasons))
		for j, r := range c.Reasons {
			reasons[j] = model.ReflectionReason(r)
		}
		out[i] = &model.ReflectionCandidate{Memory: c.Memory, Reasons: reasons, LastReinforcedAt: c.ReinforcedAt,
			AssociationCount: c.Associations, StrongestAssociation: c.Strongest}
	}
	return out
}

func payloadStr(p map[string]any, k string) string { s, _ := p[k].(string); return s }

func payloadInt(p map[string]any, k string) int {
	switch v := p[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

func payloadStrs(p map[string]any, k string) []string {
	out := []string{}
	switch v := p[k].(type) {
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	}
	return out
}

// notification turns a notification event of the log into its GraphQL type.
func (r *Resolver) notification(ctx context.Context, e *domain.Event) (model.Notification, error) {
	var inst *string
	if s := payloadStr(e.Payload, "instanceId"); s != "" {
		inst = &s
	}
	tc := e.Context
	p := e.Payload
	switch e.Type {
	case domain.NtSessionAuditPrompt:
		return &model.SessionAuditPrompt{ID: e.ID(), ScopeID: e.ScopeID, InstanceID: inst, Timestamp: tc.Timestamp, Context: &tc,
			Prompt: payloadStr(p, "prompt"), EndedSessionID: payloadStr(p, "endedSessionId"),
			Reason: domain.SessionEndReason(payloadStr(p, "reason")), DurationSeconds: payloadInt(p, "durationSeconds"),
			MemoriesStored: payloadInt(p, "memoriesStored"), MemoryIds: payloadStrs(p, "memoryIds")}, nil
	case domain.NtBreakNotification:
		return &model.BreakNotification{ID: e.ID(), ScopeID: e.ScopeID, InstanceID: inst, Timestamp: tc.Timestamp, Context: &tc,
			SessionID: payloadStr(p, "sessionId"), MinutesInTaskMode: payloadInt(p, "minutesInTaskMode"), Suggestion: payloadStr(p, "suggestion")}, nil
	case domain.NtTotalRecallNotification:
		recalled, err := r.Cortex.RecalledMemories(ctx, e)
		if err != nil {
			return nil, err
		}
		return &model.TotalRecallNotification{ID: e.ID(), ScopeID: e.ScopeID, InstanceID: inst, Timestamp: tc.Timestamp, Context: &tc,
			Recalled: recalled, DepthReached: payloadInt(p, "depthReached"), OriginRequestID: payloadStr(p, "originRequestId"),
			SourceMemoryIds: payloadStrs(p, "sourceMemoryIds")}, nil
	}
	return nil, fmt.Errorf("event %s is no notification", e.Type)
}
