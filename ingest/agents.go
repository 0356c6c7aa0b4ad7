package ingest

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The agent transcript format: JSON Lines, one record a line, in either of two shapes.
//
// The normalised shape (field names as in seed 001's agents ledger; camelCase accepted):
//
//	{"type": "session", "id": "s1", "source": "codex", "model": "…", "project": "…",
//	 "created_at": "…", "parent_session_id": "…", "parent_message_id": "…", "tool_call_id": "…",
//	 "task_description": "…", "task_status": "…", "workspace_path": "…", ...}
//	{"type": "message", "id": "m1", "session_id": "s1", "role": "user|assistant|system|tool",
//	 "content": "…", "sequence": 1, "timestamp": "…", "metadata": {…}}
//	{"type": "tool_call", "id": "t1", "session_id": "s1", "message_id": "m2", "tool_name": "…",
//	 "params": {…}, "result": …, "status": "…", "child_session_id": "s2", "started_at": "…"}
//	{"type": "turn", "id": "…", "session_id": "s1", "query_message_ids": [...],
//	 "response_message_id": "…", "parent_turn_id": "…", "model": "…", "token_count": 0}
//
// Turns are optional: without them a turn is derived from the messages (the user messages that
// open it up to the next user message; its response is its last assistant message with text).
//
// Codex CLI's rollout files are read too (codex.go).
//
// Claude Code's transcript lines ({"type": "user"|"assistant", "uuid", "sessionId",
// "timestamp", "message": {"role", "content": text or blocks}, "isSidechain", "cwd"}) are read
// too: text blocks make a message's content, tool_use blocks tool calls, tool_result blocks their
// results, and sidechain lines a subagent session linked to the Task call that started it.

type agentLine struct {
	Type string `json:"type"`
	// Normalised shape.
	ID              string          `json:"id"`
	SessionID       string          `json:"session_id"`
	SessionIDC      string          `json:"sessionId"`
	Source          string          `json:"source"`
	Model           string          `json:"model"`
	Project         string          `json:"project"`
	CreatedAt       json.RawMessage `json:"created_at"`
	CreatedAtC      json.RawMessage `json:"createdAt"`
	ParentSession   string          `json:"parent_session_id"`
	ParentSessionC  string          `json:"parentSessionId"`
	ParentMessage   string          `json:"parent_message_id"`
	ToolCallID      string          `json:"tool_call_id"`
	TaskDescription string          `json:"task_description"`
	TaskStatus      string          `json:"task_status"`
	WorkspacePath   string          `json:"workspace_path"`
	ContextLimit    int             `json:"context_token_limit"`
	ContextUsed     int             `json:"context_tokens_used"`
	IsAgentic       bool            `json:"is_agentic"`
	ForceMode       string          `json:"force_mode"`
	Role            string          `json:"role"`
	Content         json.RawMessage `json:"content"`
	Sequence        int             `json:"sequence"`
	Timestamp       json.RawMessage `json:"timestamp"`
	CheckpointID    string          `json:"checkpoint_id"`
	Metadata        map[string]any  `json:"metadata"`
	MessageID       string          `json:"message_id"`
	MessageIDC      string          `json:"messageId"`
	ToolName        string          `json:"tool_name"`
	ToolNameC       string          `json:"toolName"`
	Params          any             `json:"params"`
	Result          any             `json:"result"`
	Status          string          `json:"status"`
	ChildSession    string          `json:"child_session_id"`
	ChildSessionC   string          `json:"childSessionId"`
	StartedAt       json.RawMessage `json:"started_at"`
	CompletedAt     json.RawMessage `json:"completed_at"`
	QueryMessageIDs []string        `json:"query_message_ids"`
	ResponseMessage string          `json:"response_message_id"`
	ParentTurn      string          `json:"parent_turn_id"`
	TokenCount      int             `json:"token_count"`
	// Claude Code shape.
	UUID        string          `json:"uuid"`
	IsSidechain bool            `json:"isSidechain"`
	AgentID     string          `json:"agentId"`
	Cwd         string          `json:"cwd"`
	Message     json.RawMessage `json:"message"`
}

type ccMessage struct {
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     any             `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func optTime(raw ...json.RawMessage) *time.Time {
	for _, r := range raw {
		if len(r) == 0 {
			continue
		}
		if t, err := ParseTime(r); err == nil {
			return &t
		}
	}
	return nil
}

// contentText reads a content field: a string, or blocks whose text parts are joined.
func contentText(raw json.RawMessage) (string, []ccBlock) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw), nil
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), blocks
}

// ParseAgents reads an agent transcript. source names the harness when the lines do not
// ("codex", "claude-code", ...).
func ParseAgents(r io.Reader, source string) (*domain.SourceBatch, []domain.SourceProblem, error) {
	b := &domain.SourceBatch{Adapter: AdapterAgentEvents, AgentAdapter: AdapterAgents}
	var problems []domain.SourceProblem
	sessions := map[string]*domain.AgentSession{}
	calls := map[string]*domain.AgentToolCall{}
	lastTask := map[string]*domain.AgentToolCall{} // session → its latest Task call, for sidechains
	seq := map[string]int{}
	session := func(id string, at *time.Time) *domain.AgentSession {
		s, ok := sessions[id]
		if !ok {
			s = &domain.AgentSession{ID: id, Source: source, CreatedAt: at}
			sessions[id] = s
			b.Sessions = append(b.Sessions, s)
		}
		if s.CreatedAt == nil {
			s.CreatedAt = at
		}
		return s
	}
	codex := &codexReader{sessions: func(id string) *domain.AgentSession { return session(id, nil) },
		seq: seq, calls: map[string]*domain.AgentToolCall{}}
	err := Lines(r, func(n int, line []byte) error {
		bad := func(format string, args ...any) {
			problems = append(problems, domain.SourceProblem{Line: n, Message: fmt.Sprintf(format, args...)})
		}
		if line == nil {
			bad("line longer than %d bytes", MaxLineBytes)
			return nil
		}
		var l agentLine
		if err := json.Unmarshal(line, &l); err != nil {
			bad("not a JSON object: %v", err)
			return nil
		}
		sid := first(l.SessionID, l.SessionIDC)
		switch l.Type {
		case "session":
			if l.ID == "" {
				bad("a session needs an id")
				return nil
			}
			s := session(l.ID, optTime(l.CreatedAt, l.CreatedAtC))
			s.Source = first(l.Source, s.Source, source)
			s.Model, s.Project, s.ParentSessionID = l.Model, l.Project, first(l.ParentSession, l.ParentSessionC)
			s.ParentMessageID, s.ToolCallID, s.TaskDescription, s.TaskStatus = l.ParentMessage, l.ToolCallID, l.TaskDescription, l.TaskStatus
			s.WorkspacePath, s.ContextTokenLimit, s.ContextTokensUsed = l.WorkspacePath, l.ContextLimit, l.ContextUsed
			s.IsAgentic, s.ForceMode = l.IsAgentic, l.ForceMode
			var raw map[string]any
			if json.Unmarshal(line, &raw) == nil && len(line) <= 64<<10 {
				s.Raw = raw
			}
		case "message":
			if l.ID == "" || sid == "" {
				bad("a message needs an id and a session_id")
				return nil
			}
			text, _ := contentText(l.Content)
			at := optTime(l.Timestamp)
			session(sid, at)
			seq[sid]++
			m := &domain.AgentMessage{ID: l.ID, SessionID: sid, Role: strings.ToLower(l.Role), Content: text, Sequence: l.Sequence,
				Timestamp: at, CheckpointID: l.CheckpointID, Metadata: l.Metadata}
			if m.Sequence == 0 {
				m.Sequence = seq[sid]
			}
			if m.Role == "" {
				bad("message %s has no role", l.ID)
				return nil
			}
			b.Messages = append(b.Messages, m)
		case "tool_call":
			if l.ID == "" || sid == "" {
				bad("a tool call needs an id and a session_id")
				return nil
			}
			session(sid, nil)
			c := &domain.AgentToolCall{ID: l.ID, SessionID: sid, MessageID: first(l.MessageID, l.MessageIDC), ToolName: first(l.ToolName, l.ToolNameC),
				Params: l.Params, Result: l.Result, Status: l.Status, ChildSessionID: first(l.ChildSession, l.ChildSessionC),
				StartedAt: optTime(l.StartedAt), CompletedAt: optTime(l.CompletedAt)}
			calls[c.ID] = c
			b.ToolCalls = append(b.ToolCalls, c)
		case "turn":
			if l.ID == "" || sid == "" {
				bad("a turn needs an id and a session_id")
				return nil
			}
			b.Turns = append(b.Turns, &domain.AgentTurn{ID: l.ID, SessionID: sid, QueryMessageIDs: l.QueryMessageIDs,
				ResponseMessageID: l.ResponseMessage, ParentTurnID: l.ParentTurn, Model: l.Model, TokenCount: l.TokenCount,
				Timestamp: optTime(l.Timestamp)})
		case "user", "assistant", "system":
			if len(l.Message) == 0 {
				return nil // a Claude Code bookkeeping line without a message
			}
			if l.UUID == "" || sid == "" {
				bad("a transcript line needs a uuid and a sessionId")
				return nil
			}
			var msg ccMessage
			if err := json.Unmarshal(l.Message, &msg); err != nil {
				bad("unreadable message: %v", err)
				return nil
			}
			at := optTime(l.Timestamp)
			parent := sid
			if l.IsSidechain {
				sid = sid + ":" + first(l.AgentID, "sidechain")
			}
			s := session(sid, at)
			if s.Source == "" {
				s.Source = first(source, "claude-code")
			}
			if s.WorkspacePath == "" {
				s.WorkspacePath = l.Cwd
			}
			if msg.Model != "" && s.Model == "" {
				s.Model = msg.Model
			}
			if l.IsSidechain && s.ParentSessionID == "" {
				s.ParentSessionID, s.IsSubagent = parent, true
				session(parent, at)
				if t := lastTask[parent]; t != nil && t.ChildSessionID == "" {
					t.ChildSessionID = sid
					s.ToolCallID, s.ParentMessageID = t.ID, t.MessageID
					if in, ok := t.Params.(map[string]any); ok {
						s.TaskDescription, _ = in["description"].(string)
					}
				}
			}
			text, blocks := contentText(msg.Content)
			role := first(msg.Role, l.Type)
			results := 0
			for _, bl := range blocks {
				switch bl.Type {
				case "tool_use":
					c := &domain.AgentToolCall{ID: bl.ID, SessionID: sid, MessageID: l.UUID, ToolName: bl.Name, Params: bl.Input, StartedAt: at}
					if c.ID == "" {
						c.ID = fmt.Sprintf("%s#%d", l.UUID, len(calls))
					}
					calls[c.ID] = c
					b.ToolCalls = append(b.ToolCalls, c)
					if bl.Name == "Task" || bl.Name == "Agent" {
						lastTask[sid] = c
					}
				case "tool_result":
					results++
					if c, ok := calls[bl.ToolUseID]; ok {
						res, _ := contentText(bl.Content)
						c.Result, c.CompletedAt = res, at
						c.Status = "ok"
						if bl.IsError {
							c.Status = "error"
						}
					}
				}
			}
			if role == "user" && results > 0 && strings.TrimSpace(text) == "" {
				role = "tool" // tool results come back as user lines; they are no user query
			}
			seq[sid]++
			md := map[string]any{}
			if l.IsSidechain {
				md["sidechain"] = true
			}
			if len(l.Message) <= 64<<10 {
				var raw any
				if json.Unmarshal(l.Message, &raw) == nil {
					md["message"] = raw
				}
			}
			b.Messages = append(b.Messages, &domain.AgentMessage{ID: l.UUID, SessionID: sid, Role: role, Content: text,
				Sequence: seq[sid], Timestamp: at, Metadata: md})
		case "session_meta", "response_item", "event_msg", "turn_context", "compacted":
			codex.line(b, n, l.Type, line, bad)
		case "summary", "file-history-snapshot", "queue-operation":
			// Claude Code bookkeeping: nothing to keep.
		default:
			bad("unknown record type %q", l.Type)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return b, problems, nil
}
