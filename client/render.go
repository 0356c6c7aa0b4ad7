package client

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
)

// How memories and notifications read in a model's context: the hooks' additionalContext and the
// MCP channel notifications say them the same way.

// MemoryLine is one memory on one line: "- [TIER YYYY-MM-DD id] content", its whitespace runs
// folded and its content cut to maxRunes (0: uncut).
func MemoryLine(m *domain.Memory, maxRunes int) string {
	return fmt.Sprintf("- [%s %s %s] %s", m.Tier, m.OccurredAt.UTC().Format("2006-01-02"), m.ID, Snippet(m.Content, maxRunes))
}

// Snippet folds s's whitespace runs into single spaces and cuts it to maxRunes (0: uncut).
func Snippet(s string, maxRunes int) string {
	s = strings.Join(strings.Fields(s), " ")
	if maxRunes > 0 && utf8.RuneCountInString(s) > maxRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:maxRunes])) + "…"
	}
	return s
}

// RecallRunes is how much of a recalled memory a notification's text carries.
const RecallRunes = 400

// Text is the notification as the mind reads it.
func (n *Notification) Text() string {
	var b strings.Builder
	switch n.Kind {
	case "SessionAuditPrompt":
		fmt.Fprintf(&b, "SessionAuditPrompt: %s\n", n.Prompt)
		fmt.Fprintf(&b, "(session %s ended %s after %d minutes; %d memories stored in it",
			n.EndedSessionID, strings.ToLower(n.Reason), n.DurationSeconds/60, n.MemoriesStored)
		if len(n.MemoryIDs) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(n.MemoryIDs, ", "))
		}
		b.WriteString(")\nAnswer with store_memory for what is not stored yet and claim_memory for what you refuse to lose.")
	case "BreakNotification":
		fmt.Fprintf(&b, "BreakNotification: %s", n.Suggestion)
	case "TotalRecallNotification":
		fmt.Fprintf(&b, "TotalRecallNotification: total recall from %s reached depth %d and recalled %d memories",
			strings.Join(n.SourceMemoryIDs, ", "), n.DepthReached, len(n.Recalled))
		if len(n.Recalled) > 0 {
			b.WriteString(":")
		}
		for _, r := range n.Recalled {
			fmt.Fprintf(&b, "\n%s (depth %d", MemoryLine(&r.Memory, RecallRunes), r.Depth)
			if r.Via != nil {
				fmt.Fprintf(&b, ", %s %.2f from %s", r.Via.Type, r.Via.Strength, r.Via.SourceID)
			}
			b.WriteString(")")
		}
	default:
		fmt.Fprintf(&b, "%s %s", n.Kind, n.ID)
	}
	return b.String()
}
