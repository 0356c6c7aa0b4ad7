package subconscious

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/recall"
)

// Narrative consolidation (seed 003): the memories stored in a mind's sessions wait in their
// scope's pending log; once the log holds ThresholdTokens (or when asked), the Subconscious
// reads the story so far and its anchor and writes the next chapter — with a chat model, a
// first-person chapter from the pending transcript; without one, a dated digest of the pending
// memories by salience. The functions here decide; the Cortex reads, calls the model and commits.

// StoryConfig configures narrative consolidation. Zero values take the defaults, except
// ThresholdTokens: 0 leaves consolidation to explicit requests (as every command but serve,
// and tests unless asked).
type StoryConfig struct {
	// ThresholdTokens: a scope whose pending log holds this many tokens gets its next chapter
	// written without being asked (0: only when asked). It is also the size of a chapter's batch.
	ThresholdTokens int
	// ContextTokens is the budget of the story a session start hands the mind (its newest chapters).
	ContextTokens int
	// PromptTokens is the budget of the story so far shown to the model with the transcript.
	PromptTokens int
	// Timeout bounds one answer of the model.
	Timeout time.Duration
	// RetryAfter is the wait after a failed consolidation; each further failure doubles it, up
	// to RetryMax.
	RetryAfter time.Duration
	RetryMax   time.Duration
	// ScanInterval is how often the scopes over the threshold are looked for: those another
	// server or an earlier run of this one left behind.
	ScanInterval time.Duration
}

// Defaults of StoryConfig.
const (
	DefaultStoryThreshold     = 5000
	DefaultStoryContextTokens = 2000
	DefaultStoryPromptTokens  = 2000
	DefaultStoryTimeout       = 2 * time.Minute
	DefaultStoryRetryAfter    = 30 * time.Second
	DefaultStoryRetryMax      = 30 * time.Minute
	DefaultStoryScanInterval  = time.Minute
	// MaxStoryTokens bounds any token budget of the story a caller asks for.
	MaxStoryTokens = 1 << 20
	// MaxTranscriptLineBytes cuts one memory's text in the model's transcript.
	MaxTranscriptLineBytes = 4000
	// MaxChapterTitleBytes cuts a chapter's title.
	MaxChapterTitleBytes = 200
)

// WithDefaults fills unset values.
func (c StoryConfig) WithDefaults() StoryConfig {
	if c.ThresholdTokens < 0 {
		c.ThresholdTokens = 0
	}
	if c.ContextTokens <= 0 {
		c.ContextTokens = DefaultStoryContextTokens
	}
	if c.PromptTokens <= 0 {
		c.PromptTokens = DefaultStoryPromptTokens
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultStoryTimeout
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = DefaultStoryRetryAfter
	}
	if c.RetryMax < c.RetryAfter {
		c.RetryMax = max(DefaultStoryRetryMax, c.RetryAfter)
	}
	if c.ScanInterval <= 0 {
		c.ScanInterval = DefaultStoryScanInterval
	}
	return c
}

// BatchTokens is the size of a chapter's batch: the threshold, or the default one when
// consolidation runs only when asked.
func (c StoryConfig) BatchTokens() int {
	if c.ThresholdTokens > 0 {
		return c.ThresholdTokens
	}
	return DefaultStoryThreshold
}

// Backoff is the wait after the n-th failure in a row (n ≥ 1): RetryAfter, doubled with each
// further failure, at most RetryMax.
func (c StoryConfig) Backoff(n int) time.Duration {
	d := c.RetryAfter
	for i := 1; i < n && d < c.RetryMax; i++ {
		d *= 2
	}
	return min(d, c.RetryMax)
}

// Pending is the pending-log entry of a MemoryStored event, if the memory goes to the story: a
// heartbeat-only message never does (the same rule as flashbacks and storage use).
func Pending(e *domain.Event) (domain.PendingEntry, bool) {
	content, _ := e.Payload["content"].(string)
	if strings.TrimSpace(content) == "" || domain.IsHeartbeat(content) {
		return domain.PendingEntry{}, false
	}
	return domain.PendingEntry{ScopeID: e.ScopeID, MemoryID: e.MemoryID, Seq: e.Seq, Tokens: recall.EstimateTokens(content),
		StoredAt: e.Context.Timestamp.UTC(), SessionID: e.Context.SessionID}, true
}

// Batch returns the entries the next chapter tells: the oldest, until they hold batchTokens (all
// of them when they hold fewer), leaving out any already told (at or before the anchor).
func Batch(st *domain.StoryState, batchTokens int) []domain.PendingEntry {
	var out []domain.PendingEntry
	sum := 0
	for _, e := range st.Pending {
		if e.Seq <= st.AnchorSeq {
			continue
		}
		out = append(out, e)
		sum += e.Tokens
		if sum >= batchTokens {
			break
		}
	}
	return out
}

// Chapter is a chapter of the story: a NARRATIVE knowledge page and what its metadata says.
type Chapter struct {
	Page   *domain.Artifact
	Number int
	// Title is the page's title without its "Chapter N: " prefix.
	Title string
	// From and To are when the first and the last memory it tells were stored; LastProcessed
	// is the anchor it moved the story to.
	From, To      time.Time
	LastProcessed time.Time
	// Memories counts the memories it tells; Tokens estimates their content.
	Memories int
	Tokens   int
	// Mode is MODEL (written by a chat model, named by Model) or DIGEST (without one).
	Mode  domain.StoryMode
	Model string
}

// ID is the chapter's page id.
func (c *Chapter) ID() string { return c.Page.ID }

// Content is the chapter's text.
func (c *Chapter) Content() string { return c.Page.Content }

// CreatedAt is when the chapter was written.
func (c *Chapter) CreatedAt() time.Time { return c.Page.CreatedAt }

// Knowledge is the chapter's page.
func (c *Chapter) Knowledge() *domain.Artifact { return c.Page }

// chapterMeta is what a chapter keeps in its page's metadata, under "story".
type chapterMeta struct {
	Chapter          int              `json:"chapter"`
	Title            string           `json:"title"`
	From             time.Time        `json:"from"`
	To               time.Time        `json:"to"`
	LastProcessed    time.Time        `json:"lastProcessed"`
	LastProcessedSeq uint64           `json:"lastProcessedSeq"`
	Memories         int              `json:"memories"`
	Tokens           int              `json:"tokens"`
	Mode             domain.StoryMode `json:"mode"`
	Model            string           `json:"model,omitempty"`
}

// PageTitle is a chapter page's title.
func PageTitle(n int, title string) string { return fmt.Sprintf("Chapter %d: %s", n, title) }

// ChapterMetadata is the metadata of a chapter's page.
func ChapterMetadata(ch *Chapter, lastSeq uint64) map[string]any {
	raw, _ := json.Marshal(chapterMeta{Chapter: ch.Number, Title: ch.Title, From: ch.From.UTC(), To: ch.To.UTC(),
		LastProcessed: ch.LastProcessed.UTC(), LastProcessedSeq: lastSeq, Memories: ch.Memories, Tokens: ch.Tokens, Mode: ch.Mode, Model: ch.Model})
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return map[string]any{"story": m}
}

// ChapterOf reads a NARRATIVE page as a chapter; false for any other page.
func ChapterOf(a *domain.Artifact) (*Chapter, bool) {
	if a == nil || a.Family != domain.FamKnowledge || a.Type != string(domain.KnowNarrative) {
		return nil, false
	}
	raw, _ := json.Marshal(a.Metadata["story"])
	var m chapterMeta
	if err := json.Unmarshal(raw, &m); err != nil || m.Chapter < 1 {
		return nil, false
	}
	return &Chapter{Page: a, Number: m.Chapter, Title: m.Title, From: m.From, To: m.To, LastProcessed: m.LastProcessed,
		Memories: m.Memories, Tokens: m.Tokens, Mode: m.Mode, Model: m.Model}, true
}

// SortChapters orders chapters by number.
func SortChapters(chs []*Chapter) {
	sort.Slice(chs, func(i, j int) bool {
		if chs[i].Number != chs[j].Number {
			return chs[i].Number < chs[j].Number
		}
		return chs[i].Page.ID < chs[j].Page.ID
	})
}

// Anchor is the invisible header that tracks how far the story has narrated.
func Anchor(t time.Time) string {
	return "<!-- LAST_PROCESSED: " + t.UTC().Format(time.RFC3339Nano) + " -->"
}

// ChapterMarkdown is one chapter as the story shows it: a heading and the text.
func ChapterMarkdown(ch *Chapter) string {
	return "## " + PageTitle(ch.Number, ch.Title) + "\n\n" + strings.TrimSpace(ch.Page.Content)
}

// StoryMarkdown is the whole story: a title, the anchor (once a chapter moved it) and every
// chapter in order.
func StoryMarkdown(scopeName string, anchor *time.Time, chs []*Chapter) string {
	var b strings.Builder
	b.WriteString("# The story of " + strings.Join(strings.Fields(scopeName), " ") + "\n")
	if anchor != nil {
		b.WriteString("\n" + Anchor(*anchor) + "\n")
	}
	for _, ch := range chs {
		b.WriteString("\n" + ChapterMarkdown(ch) + "\n")
	}
	return b.String()
}

// StoryContext is the story within a token budget: its newest chapters, whole, in order; when
// not even the newest fits, as much of its beginning as does (cut at a rune boundary with an
// ellipsis, if at least recall.MinTruncatedTokens fit). Tokens are estimated as everywhere
// (recall.EstimateTokens). chs must be ordered by number.
func StoryContext(chs []*Chapter, budget int) (text string, tokens int, truncated bool) {
	var parts []string
	for i := len(chs) - 1; i >= 0; i-- {
		md := ChapterMarkdown(chs[i])
		sep := ""
		if len(parts) > 0 {
			sep = "\n\n"
		}
		if need := recall.EstimateTokens(md + sep); tokens+need <= budget {
			parts = append(parts, md)
			tokens += need
			continue
		}
		truncated = true
		if len(parts) == 0 && budget >= recall.MinTruncatedTokens {
			cut := cutBytes(md, budget*4-len("…")) + "…"
			parts = append(parts, cut)
			tokens = recall.EstimateTokens(cut)
		}
		break
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "\n\n"), tokens, truncated
}

func cutBytes(s string, n int) string {
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

// Told is a pending memory as the chapter tells it: the memory and when it was stored.
type Told struct {
	Memory   *domain.Memory
	StoredAt time.Time
}

// ChapterRequest is what the model is given to write chapter Number.
type ChapterRequest struct {
	ScopeName string
	Number    int
	// StorySoFar is the story's newest chapters within the prompt's budget ("" before the first).
	StorySoFar string
	Anchor     *time.Time
	Told       []Told
}

// ChapterPrompt is the chat the model answers with the next chapter.
func ChapterPrompt(r ChapterRequest) []domain.ChatMessage {
	sys := fmt.Sprintf(`You are the subconscious of a mind called %q. You keep its autobiography: one story, told in the
first person ("I", "my", "me"), in the past tense, that grows a chapter at a time. Write the next chapter from
what the mind lived since the story was last told. Keep the voice and the facts of the story so far, say what
happened, what it meant to me and how time passed, and invent nothing that the memories do not say.
Answer with one JSON object and nothing else:
{"title": "a short title", "chapter": "the chapter in Markdown, without a heading"}`, r.ScopeName)
	var b strings.Builder
	if r.StorySoFar == "" {
		b.WriteString("The story has no chapter yet: this is its beginning.\n\n")
	} else {
		b.WriteString("The story so far (its newest chapters):\n\n" + r.StorySoFar + "\n\n")
	}
	if r.Anchor != nil {
		b.WriteString(Anchor(*r.Anchor) + "\n\n")
	}
	b.WriteString("What I lived since, oldest first:\n\n")
	for _, t := range r.Told {
		text := strings.Join(strings.Fields(t.Memory.Content), " ")
		if len(text) > MaxTranscriptLineBytes {
			text = cutBytes(text, MaxTranscriptLineBytes) + "…"
		}
		fmt.Fprintf(&b, "[%s] %s\n", t.StoredAt.UTC().Format("2006-01-02 15:04 MST"), text)
	}
	fmt.Fprintf(&b, "\nWrite chapter %d.", r.Number)
	return []domain.ChatMessage{{Role: "system", Content: sys}, {Role: "user", Content: b.String()}}
}

// ErrMalformed is the code of a model answer that is no chapter.
const ErrMalformed = "MALFORMED_ANSWER"

// ParseChapter reads the model's answer: one JSON object with a non-empty "chapter" (and a
// "title"), possibly inside a Markdown code fence. A chapter that tries to write the anchor, or
// holds NUL characters, or is larger than the content limit, is malformed too.
func ParseChapter(answer string) (title, body string, err error) {
	s := strings.TrimSpace(answer)
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return "", "", domain.Errorf(ErrMalformed, "the answer holds no JSON object")
	}
	var out struct {
		Title   *string `json:"title"`
		Chapter *string `json:"chapter"`
	}
	dec := json.NewDecoder(strings.NewReader(s[i : j+1]))
	if err := dec.Decode(&out); err != nil {
		return "", "", domain.Errorf(ErrMalformed, "the answer is not the JSON object asked for: %v", err)
	}
	if out.Chapter == nil || strings.TrimSpace(*out.Chapter) == "" {
		return "", "", domain.Errorf(ErrMalformed, `the answer has no "chapter"`)
	}
	body = strings.TrimSpace(*out.Chapter)
	if out.Title != nil {
		title = strings.Join(strings.Fields(*out.Title), " ")
	}
	switch {
	case strings.ContainsRune(body+title, 0):
		return "", "", domain.Errorf(ErrMalformed, "the chapter holds NUL characters")
	case strings.Contains(body, "LAST_PROCESSED") || strings.Contains(title, "LAST_PROCESSED"):
		return "", "", domain.Errorf(ErrMalformed, "the chapter tries to write the story's anchor")
	case len(body) > domain.MaxContentBytes():
		return "", "", domain.Errorf(ErrMalformed, "the chapter is larger than the limit of %s", domain.ContentLimitText())
	}
	if title == "" {
		title = "Untitled"
	}
	if len(title) > MaxChapterTitleBytes {
		title = cutBytes(title, MaxChapterTitleBytes) + "…"
	}
	return title, body, nil
}

// DigestChapter is the chapter written without a model: the pending memories by salience (the
// most salient first, ties oldest first), each dated, under a title naming the days they span.
func DigestChapter(told []Told) (title, body string) {
	if len(told) == 0 {
		return "Nothing to tell", "No memory of this batch is left: they were deleted before they were told."
	}
	from, to := told[0].StoredAt, told[0].StoredAt
	for _, t := range told {
		if t.StoredAt.Before(from) {
			from = t.StoredAt
		}
		if t.StoredAt.After(to) {
			to = t.StoredAt
		}
	}
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	title = "Digest of " + day(from)
	if day(to) != day(from) {
		title += " to " + day(to)
	}
	sorted := append([]Told(nil), told...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Memory.Salience != sorted[j].Memory.Salience {
			return sorted[i].Memory.Salience > sorted[j].Memory.Salience
		}
		return sorted[i].StoredAt.Before(sorted[j].StoredAt)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "*%d memories, stored %s to %s, the most salient first.*\n",
		len(told), from.UTC().Format("2006-01-02 15:04"), to.UTC().Format("2006-01-02 15:04 MST"))
	for _, t := range sorted {
		text := strings.Join(strings.Fields(t.Memory.Content), " ")
		if len(text) > MaxTranscriptLineBytes {
			text = cutBytes(text, MaxTranscriptLineBytes) + "…"
		}
		fmt.Fprintf(&b, "\n- [%s] %s (salience %.2f)", t.StoredAt.UTC().Format("2006-01-02 15:04"), text, t.Memory.Salience)
	}
	return title, b.String()
}
