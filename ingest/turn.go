package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Turn is one turn of a coding agent, recorded as it happens (by the hooks) rather than read
// from a transcript afterwards.
type Turn struct {
	// SessionID is the agent's own session id; Source names the harness (claude-code, codex).
	SessionID, Source string
	// TurnID, when the agent names its turns, lets a turn be recorded in two calls: the prompt
	// when it is submitted, the answer when the agent stops.
	TurnID               string
	Prompt, PromptID     string
	PromptAt             *time.Time
	Answer, AnswerID     string
	AnswerAt             *time.Time
	Model, WorkspacePath string
}

// TurnSource is the source of one recorded turn: its agent session, its messages and, when the
// agent names the turn, the turn itself — the batch a transcript of the turn would give, whose
// trimmed form (one sent event, one received) is the turn's memories. A message's id defaults to
// the turn's id with ":prompt" or ":answer", else to a digest of the session and the text; given
// the ids of the agent's transcript, importing the transcript later adds nothing twice. It
// chunks no episodes: one turn would stand for its whole session's thread, whose other turns'
// episodes a re-chunking by this turn alone would drop (chunkEpisodes groups a session's turns).
// Errors: INVALID_ARGUMENT.
func TurnSource(t Turn) (*Source, error) {
	if strings.TrimSpace(t.SessionID) == "" {
		return nil, domain.FieldErrorf("input.agentSessionId", "must not be empty")
	}
	if strings.TrimSpace(t.Prompt) == "" && strings.TrimSpace(t.Answer) == "" {
		return nil, domain.FieldErrorf("input.prompt", "give the prompt, the answer or both")
	}
	msgID := func(given, suffix, text string) string {
		switch {
		case given != "":
			return given
		case t.TurnID != "":
			return t.TurnID + ":" + suffix
		}
		sum := sha256.Sum256([]byte(t.SessionID + "\x00" + suffix + "\x00" + text))
		return suffix + ":" + hex.EncodeToString(sum[:12])
	}
	promptID, answerID := msgID(t.PromptID, "prompt", t.Prompt), msgID(t.AnswerID, "answer", t.Answer)
	sess := &domain.AgentSession{ID: t.SessionID, Source: first(t.Source, "agent"), Model: t.Model, WorkspacePath: t.WorkspacePath,
		CreatedAt: t.PromptAt}
	if t.WorkspacePath != "" {
		sess.Project = filepath.Base(t.WorkspacePath)
	}
	b := &domain.SourceBatch{Adapter: AdapterAgentEvents, AgentAdapter: AdapterAgents, Sessions: []*domain.AgentSession{sess}}
	if strings.TrimSpace(t.Prompt) != "" {
		b.Messages = append(b.Messages, &domain.AgentMessage{ID: promptID, SessionID: t.SessionID, Role: "user", Content: t.Prompt,
			Sequence: 1, Timestamp: t.PromptAt})
	}
	if strings.TrimSpace(t.Answer) != "" {
		b.Messages = append(b.Messages, &domain.AgentMessage{ID: answerID, SessionID: t.SessionID, Role: "assistant", Content: t.Answer,
			Sequence: 2, Timestamp: t.AnswerAt})
	}
	if t.TurnID != "" {
		// Both ids, whichever half this call records: the turn's node is whole from its first call.
		at := t.PromptAt
		if at == nil {
			at = t.AnswerAt
		}
		b.Turns = []*domain.AgentTurn{{ID: t.TurnID, SessionID: t.SessionID, QueryMessageIDs: []string{promptID},
			ResponseMessageID: answerID, Model: t.Model, Timestamp: at}}
	}
	return &Source{Adapter: AdapterAgentEvents,
		Batches: func(fn func(*domain.SourceBatch, []domain.SourceProblem) error) error { return fn(b, nil) }}, nil
}
