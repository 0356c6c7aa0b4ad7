package ingest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// Codex CLI's rollout files (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) are read by
// ParseAgents too: every line is {"timestamp", "type", "payload"}, where type is
//
//	session_meta  {"id", "cwd", "timestamp", "originator", "cli_version", ...}: the session
//	turn_context  {"model", "cwd", ...}: the model of the turns that follow
//	response_item {"type": "message", "role", "content": [{"type": "input_text"|"output_text",
//	              "text"}]}, {"type": "function_call"|"custom_tool_call", "name", "arguments"|
//	              "input", "call_id"}, {"type": "function_call_output"|"custom_tool_call_output",
//	              "call_id", "output"}, {"type": "reasoning", ...}
//	event_msg, compacted: the UI's copies of the same exchange, and summaries (not kept).
//
// Rollout lines carry no message ids: a message is named by its session and its line
// ("SESSION:LINE"), which stay the same as the file grows, so importing a rollout again adds
// only what is new. The user messages Codex writes for itself (the environment context and the
// project's instructions) are no user queries and are left out.

type codexLine struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Timestamp json.RawMessage `json:"timestamp"`
	Model     string          `json:"model"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// codexSelf are the openings of the user messages Codex writes for itself.
var codexSelf = []string{"<environment_context>", "<user_instructions>", "<INSTRUCTIONS>", "# AGENTS.md instructions", "<permissions instructions>"}

// codexText joins a rollout message's text parts (input_text, output_text, text).
func codexText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if strings.HasSuffix(p.Type, "text") && strings.TrimSpace(p.Text) != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// codexOutput reads a tool call's output: text, or {"output": text, "metadata": ...} as an
// object or as the text of one (as shell calls write it).
func codexOutput(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var o struct {
		Output *string `json:"output"`
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &o) == nil && o.Output != nil {
			return *o.Output
		}
		return s
	}
	if json.Unmarshal(raw, &o) == nil && o.Output != nil {
		return *o.Output
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// codexReader keeps what a rollout's lines share: the session they belong to.
type codexReader struct {
	session  string
	sessions func(id string) *domain.AgentSession
	seq      map[string]int
	calls    map[string]*domain.AgentToolCall
	lastMsg  string
}

// line reads one rollout line of type typ; bad reports a problem with it.
func (c *codexReader) line(b *domain.SourceBatch, n int, typ string, raw []byte, bad func(string, ...any)) {
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		bad("not a Codex rollout line: %v", err)
		return
	}
	var p codexPayload
	if len(l.Payload) > 0 && json.Unmarshal(l.Payload, &p) != nil {
		bad("unreadable payload")
		return
	}
	at := optTime(l.Timestamp)
	switch typ {
	case "event_msg", "compacted":
		return
	case "session_meta":
		if p.ID == "" {
			bad("a session_meta needs a payload id")
			return
		}
		c.session = p.ID
		s := c.sessions(p.ID)
		s.Source = first(s.Source, "codex")
		if s.WorkspacePath == "" {
			s.WorkspacePath = p.Cwd
		}
		if t := optTime(p.Timestamp, l.Timestamp); t != nil {
			s.CreatedAt = t
		}
		return
	}
	if c.session == "" {
		bad("a Codex %s line before the session_meta that names its session", typ)
		return
	}
	s := c.sessions(c.session)
	switch typ {
	case "turn_context":
		if s.Model == "" {
			s.Model = p.Model
		}
	case "response_item":
		switch p.Type {
		case "message":
			role := strings.ToLower(p.Role)
			if role == "developer" {
				role = "system"
			}
			text := codexText(p.Content)
			if role == "user" {
				trimmed := strings.TrimSpace(text)
				for _, pre := range codexSelf {
					if strings.HasPrefix(trimmed, pre) {
						return
					}
				}
			}
			if role == "" {
				bad("a message without a role")
				return
			}
			id := first(p.ID, fmt.Sprintf("%s:%d", c.session, n))
			c.seq[c.session]++
			c.lastMsg = id
			b.Messages = append(b.Messages, &domain.AgentMessage{ID: id, SessionID: c.session, Role: role, Content: text,
				Sequence: c.seq[c.session], Timestamp: at})
		case "function_call", "custom_tool_call", "local_shell_call":
			id := first(p.CallID, p.ID, fmt.Sprintf("%s:%d", c.session, n))
			var params any
			if p.Arguments != "" {
				if json.Unmarshal([]byte(p.Arguments), &params) != nil {
					params = p.Arguments
				}
			} else if len(p.Input) > 0 {
				params = codexOutput(p.Input)
			}
			call := &domain.AgentToolCall{ID: id, SessionID: c.session, MessageID: c.lastMsg, ToolName: first(p.Name, p.Type),
				Params: params, StartedAt: at}
			c.calls[id] = call
			b.ToolCalls = append(b.ToolCalls, call)
		case "function_call_output", "custom_tool_call_output":
			if call := c.calls[p.CallID]; call != nil {
				call.Result, call.CompletedAt, call.Status = codexOutput(p.Output), at, "ok"
			}
		}
	}
}
