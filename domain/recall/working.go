package recall

import (
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
)

// Working memory (seed 002, operations 5 and 6): a scope's capacity-limited buffer of the
// memories most relevant to the current context. updateContext searches the scope for the
// context text; every hit's relevance is its search score. What the buffer held before fades
// (its relevance is multiplied by WorkingFade) unless found again, so the newest context
// dominates; the buffer is sorted by relevance and pruned to its capacity.
const (
	DefaultWorkingCapacity = 12
	MaxWorkingCapacity     = 100
	WorkingFade            = 0.5
)

// FillWorkingMemory returns the buffer after a context update.
func FillWorkingMemory(prev *domain.WorkingMemory, scopeID, text string, capacity int, hits []*RankedMemory, now time.Time) *domain.WorkingMemory {
	if capacity <= 0 {
		capacity = DefaultWorkingCapacity
	}
	byID := map[string]domain.WorkingItem{}
	if prev != nil {
		for _, it := range prev.Items {
			it.Relevance *= WorkingFade
			byID[it.MemoryID] = it
		}
	}
	for _, h := range hits {
		if h.Memory == nil {
			continue
		}
		id := h.Memory.ID
		cur, ok := byID[id]
		if !ok || h.Score > cur.Relevance {
			added := now
			if ok {
				added = cur.AddedAt
			}
			byID[id] = domain.WorkingItem{MemoryID: id, Relevance: h.Score, AddedAt: added}
		}
	}
	items := make([]domain.WorkingItem, 0, len(byID))
	for _, it := range byID {
		items = append(items, it)
	}
	sortItems(items)
	if len(items) > capacity {
		items = items[:capacity]
	}
	return &domain.WorkingMemory{ScopeID: scopeID, Context: text, Capacity: capacity, Items: items, UpdatedAt: now}
}

func sortItems(items []domain.WorkingItem) {
	sort.Slice(items, func(i, j int) bool {
		if items[i].Relevance != items[j].Relevance {
			return items[i].Relevance > items[j].Relevance
		}
		return items[i].MemoryID < items[j].MemoryID
	})
}

// PromptItem is one memory placed in a prompt.
type PromptItem struct {
	Memory    *domain.Memory
	Relevance float64
	AddedAt   time.Time
	Tokens    int
	Truncated bool
}

// PromptContext is the working memory formatted for a prompt.
type PromptContext struct {
	Text      string
	Tokens    int
	Truncated bool
	Items     []PromptItem
	// Story is the part of Text that is the mind's story (its newest chapters), when asked for:
	// it comes first, then a blank line, then the memories.
	Story string
}

// Prompt limits: a token is estimated as four bytes of UTF-8 text, rounded up (the usual rule
// of thumb for English with BPE tokenizers); a memory that does not fit whole is cut at a rune
// boundary and marked with an ellipsis if at least MinTruncatedTokens of it fit, else left out.
const (
	DefaultPromptMemories = 10
	MaxPromptMemories     = 100
	DefaultPromptTokens   = 1000
	MaxPromptTokens       = 1 << 20
	MinTruncatedTokens    = 8
	ellipsis              = "…"
)

// EstimateTokens estimates the tokens of s.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// PromptLine formats one memory for a prompt: "- [TIER YYYY-MM-DD] content" with line breaks
// folded into spaces.
func PromptLine(m *domain.Memory) string {
	content := strings.Join(strings.Fields(m.Content), " ")
	return "- [" + string(m.Tier) + " " + m.OccurredAt.UTC().Format("2006-01-02") + "] " + content
}

// BuildPromptContext selects the maxMemories most relevant items whose memories still exist,
// formats them one per line and truncates to the maxTokens budget.
func BuildPromptContext(items []domain.WorkingItem, mems map[string]*domain.Memory, maxMemories, maxTokens int) PromptContext {
	if maxMemories <= 0 {
		maxMemories = DefaultPromptMemories
	}
	if maxTokens <= 0 {
		maxTokens = DefaultPromptTokens
	}
	sorted := append([]domain.WorkingItem(nil), items...)
	sortItems(sorted)
	out := PromptContext{Items: []PromptItem{}}
	var b strings.Builder
	for _, it := range sorted {
		if len(out.Items) == maxMemories {
			break
		}
		m := mems[it.MemoryID]
		if m == nil {
			continue // deleted since it entered the buffer
		}
		line := PromptLine(m)
		sep := ""
		if b.Len() > 0 {
			sep = "\n"
		}
		left := maxTokens - out.Tokens
		if need := EstimateTokens(sep + line); need <= left {
			b.WriteString(sep + line)
			out.Tokens += need
			out.Items = append(out.Items, PromptItem{Memory: m, Relevance: it.Relevance, AddedAt: it.AddedAt, Tokens: need})
			continue
		}
		out.Truncated = true
		if left >= MinTruncatedTokens {
			cut := cutToBytes(sep+line, left*4-len(ellipsis))
			b.WriteString(cut + ellipsis)
			need := EstimateTokens(cut + ellipsis)
			out.Tokens += need
			out.Items = append(out.Items, PromptItem{Memory: m, Relevance: it.Relevance, AddedAt: it.AddedAt, Tokens: need, Truncated: true})
		}
		break
	}
	out.Text = b.String()
	return out
}

// cutToBytes returns the longest prefix of s of at most n bytes that ends on a rune boundary.
func cutToBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
