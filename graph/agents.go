package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// agentDocs reads the ag.doc of nodes of kind found by a root function.
func (s *Store) agentDocs(ctx context.Context, root, kind string, each func(doc string) error) error {
	after := "0x0"
	for {
		var r struct {
			Q []struct {
				UID string `json:"uid"`
				Doc string `json:"ag.doc"`
			} `json:"q"`
		}
		q := `{ q(func: ` + root + `, first: 5000, after: ` + after + `) @filter(eq(tr.kind, "` + kind + `")) { uid ag.doc } }`
		if err := s.read(ctx, q, nil, &r); err != nil {
			return err
		}
		for _, n := range r.Q {
			if err := each(n.Doc); err != nil {
				return fmt.Errorf("%s: bad document: %w", strings.ToLower(kind), err)
			}
		}
		if len(r.Q) < 5000 {
			return nil
		}
		after = r.Q[len(r.Q)-1].UID
	}
}

func validIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if domain.ValidID(id) {
			out = append(out, id)
		}
	}
	return out
}

// AgentSessions loads the sessions among ids.
func (s *Store) AgentSessions(ctx context.Context, ids []string) ([]*domain.AgentSession, error) {
	ids = validIDs(ids)
	out := []*domain.AgentSession{}
	if len(ids) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(tr.id, `+idList(ids)+`)`, kindAgentSession, func(doc string) error {
		var x domain.AgentSession
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	return out, err
}

// ScopeAgentSessions lists a scope's sessions, oldest first.
func (s *Store) ScopeAgentSessions(ctx context.Context, scopeID string) ([]*domain.AgentSession, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	out := []*domain.AgentSession{}
	err := s.agentDocs(ctx, `eq(tr.scope, "`+scopeID+`")`, kindAgentSession, func(doc string) error {
		var x domain.AgentSession
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].CreatedAt, out[j].CreatedAt
		if a != nil && b != nil && !a.Equal(*b) {
			return a.Before(*b)
		}
		return out[i].ID < out[j].ID
	})
	return out, err
}

// AgentTurns loads the turns among ids.
func (s *Store) AgentTurns(ctx context.Context, ids []string) ([]*domain.AgentTurn, error) {
	ids = validIDs(ids)
	out := []*domain.AgentTurn{}
	if len(ids) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(tr.id, `+idList(ids)+`)`, kindAgentTurn, func(doc string) error {
		var x domain.AgentTurn
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	return out, err
}

// SessionTurns lists the turns of sessions, by session and sequence.
func (s *Store) SessionTurns(ctx context.Context, sessionIDs []string) ([]*domain.AgentTurn, error) {
	sessionIDs = validIDs(sessionIDs)
	out := []*domain.AgentTurn{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(ag.session, `+idList(sessionIDs)+`)`, kindAgentTurn, func(doc string) error {
		var x domain.AgentTurn
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SessionID != out[j].SessionID {
			return out[i].SessionID < out[j].SessionID
		}
		return out[i].Sequence < out[j].Sequence
	})
	return out, err
}

// AgentMessages loads the messages among ids, by session and sequence.
func (s *Store) AgentMessages(ctx context.Context, ids []string) ([]*domain.AgentMessage, error) {
	ids = validIDs(ids)
	out := []*domain.AgentMessage{}
	if len(ids) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(tr.id, `+idList(ids)+`)`, kindAgentMessage, func(doc string) error {
		var x domain.AgentMessage
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SessionID != out[j].SessionID {
			return out[i].SessionID < out[j].SessionID
		}
		return out[i].Sequence < out[j].Sequence
	})
	return out, err
}

// SessionMessages lists the messages of sessions, by session and sequence.
func (s *Store) SessionMessages(ctx context.Context, sessionIDs []string) ([]*domain.AgentMessage, error) {
	sessionIDs = validIDs(sessionIDs)
	out := []*domain.AgentMessage{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(ag.session, `+idList(sessionIDs)+`)`, kindAgentMessage, func(doc string) error {
		var x domain.AgentMessage
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SessionID != out[j].SessionID {
			return out[i].SessionID < out[j].SessionID
		}
		return out[i].Sequence < out[j].Sequence
	})
	return out, err
}

// SessionToolCalls lists the tool calls of sessions, by session and number.
func (s *Store) SessionToolCalls(ctx context.Context, sessionIDs []string) ([]*domain.AgentToolCall, error) {
	sessionIDs = validIDs(sessionIDs)
	out := []*domain.AgentToolCall{}
	if len(sessionIDs) == 0 {
		return out, nil
	}
	err := s.agentDocs(ctx, `eq(ag.session, `+idList(sessionIDs)+`)`, kindAgentToolCall, func(doc string) error {
		var x domain.AgentToolCall
		if err := json.Unmarshal([]byte(doc), &x); err != nil {
			return err
		}
		out = append(out, &x)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].SessionID != out[j].SessionID {
			return out[i].SessionID < out[j].SessionID
		}
		return out[i].ToolNumber < out[j].ToolNumber
	})
	return out, err
}
