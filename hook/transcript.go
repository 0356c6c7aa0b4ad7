package hook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// A coding agent's transcript, read at the end of a turn: how many turns the session has had,
// and the last one's prompt and final answer with the ids the agent's transcript gives them —
// the same ids the agent-sessions importer takes, so importing the transcript later adds
// nothing twice. Claude Code's lines ({"type": "user"|"assistant", "uuid", "sessionId",
// "message"}) and Codex CLI's rollout lines ({"type": "session_meta"|"response_item", ...}) are
// read; anything else is passed over.

// MaxTranscriptBytes bounds the transcript read.
const MaxTranscriptBytes = 256 << 20

type turnRecord struct {
	PromptID, Prompt string
	PromptAt         *time.Time
	AnswerID, Answer string
	AnswerAt         *time.Time
}

type transcript struct {
	// SessionID is the session the lines name (Codex's session_meta id, Claude Code's sessionId).
	SessionID string
	Source    string
	Model     string
	// Turns counts the user's prompts.
	Turns int
	// Last is the last turn, nil before the first prompt.
	Last *turnRecord
}

type transcriptLine struct {
	Type        string          `json:"type"`
	UUID        string          `json:"uuid"`
	SessionID   string          `json:"sessionId"`
	IsSidechain bool            `json:"isSidechain"`
	IsMeta      bool            `json:"isMeta"`
	Timestamp   string          `json:"timestamp"`
	Message     json.RawMessage `json:"message"`
	Payload     json.RawMessage `json:"payload"`
}

type ccMessage struct {
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type codexPayload struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

// codexSelf are the openings of the user messages Codex writes for itself (as the importer).
var codexSelf = []string{"<environment_context>", "<user_instructions>", "<INSTRUCTIONS>", "# AGENTS.md instructions", "<permissions instructions>"}

// blocksText joins the text parts of a content field (a string, or blocks); toolResult reports
// blocks that carry a tool's result.
func blocksText(raw json.RawMessage) (text string, toolResult bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Type == "tool_result":
			toolResult = true
		case (b.Type == "text" || strings.HasSuffix(b.Type, "_text")) && strings.TrimSpace(b.Text) != "":
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), toolResult
}

func stampOf(s string) *time.Time {
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// readTranscript reads the transcript at path.
func readTranscript(path string) (*transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseTranscript(io.LimitReader(f, MaxTranscriptBytes))
}

func parseTranscript(r io.Reader) (*transcript, error) {
	tr := &transcript{}
	br := bufio.NewReaderSize(r, 256<<10)
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return tr, nil
			}
			return nil, err
		}
		n++ // every line counts, blank or not, as the importer numbers them
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var l transcriptLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch l.Type {
		case "user", "assistant":
			tr.claudeLine(&l)
		case "session_meta", "response_item", "turn_context":
			tr.codexLine(&l, n)
		}
	}
}

func (tr *transcript) claudeLine(l *transcriptLine) {
	if len(l.Message) == 0 || l.IsSidechain || l.IsMeta || l.UUID == "" {
		return
	}
	tr.Source = "claude-code"
	if tr.SessionID == "" {
		tr.SessionID = l.SessionID
	}
	var m ccMessage
	if json.Unmarshal(l.Message, &m) != nil {
		return
	}
	if m.Model != "" {
		tr.Model = m.Model
	}
	text, toolResult := blocksText(m.Content)
	if strings.TrimSpace(text) == "" {
		return
	}
	switch {
	case l.Type == "user" && !toolResult:
		tr.Turns++
		tr.Last = &turnRecord{PromptID: l.UUID, Prompt: text, PromptAt: stampOf(l.Timestamp)}
	case l.Type == "assistant" && tr.Last != nil:
		tr.Last.AnswerID, tr.Last.Answer, tr.Last.AnswerAt = l.UUID, text, stampOf(l.Timestamp)
	}
}

func (tr *transcript) codexLine(l *transcriptLine, n int) {
	var p codexPayload
	if json.Unmarshal(l.Payload, &p) != nil {
		return
	}
	switch l.Type {
	case "session_meta":
		tr.SessionID, tr.Source = p.ID, "codex"
		return
	case "turn_context":
		if p.Model != "" {
			tr.Model = p.Model
		}
		return
	}
	if p.Type != "message" || tr.SessionID == "" {
		return
	}
	text, _ := blocksText(p.Content)
	if strings.TrimSpace(text) == "" {
		return
	}
	id := p.ID
	if id == "" {
		id = fmt.Sprintf("%s:%d", tr.SessionID, n)
	}
	switch strings.ToLower(p.Role) {
	case "user":
		trimmed := strings.TrimSpace(text)
		for _, pre := range codexSelf {
			if strings.HasPrefix(trimmed, pre) {
				return
			}
		}
		tr.Turns++
		tr.Last = &turnRecord{PromptID: id, Prompt: text, PromptAt: stampOf(l.Timestamp)}
	case "assistant":
		if tr.Last != nil {
			tr.Last.AnswerID, tr.Last.Answer, tr.Last.AnswerAt = id, text, stampOf(l.Timestamp)
		}
	}
}
