package subconscious

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

func TestPlanFeedsThePendingLog(t *testing.T) {
	sess := &domain.Session{ID: "sess-1", ScopeID: "scope", InstanceID: "i", StartedAt: t0}
	ended := t0.Add(time.Minute)
	old := &domain.Session{ID: "sess-old", ScopeID: "scope", InstanceID: "j", StartedAt: t0, EndedAt: &ended}
	f := &fakeLiving{sessions: map[string]*domain.Session{sess.ID: sess, old.ID: old}}
	now := t0
	s := newSub(&now, f, Config{})
	stored := func(session, content string, at time.Time, seq uint64) *domain.Event {
		e := msg(domain.EvMemoryStored, map[string]any{"content": content})
		e.MemoryID, e.Seq, e.Context.SessionID, e.Context.Timestamp = domain.NewID(), seq, session, at
		return e
	}
	in := stored(sess.ID, "I found the old map.", t0, 7)                            // 20 bytes: 5 tokens
	beat := stored(sess.ID, "HEARTBEAT_OK", t0, 8)                                  // never, even if it got stored
	outside := stored("not-a-session", "stored outside every session", t0, 9)       // no session
	late := stored(old.ID, "stored after its session ended", t0.Add(time.Hour), 10) // ended before
	plans, _, err := s.Plan(context.Background(), []*domain.Event{in, beat, outside, late})
	if err != nil {
		t.Fatal(err)
	}
	p := plans[in.ID()]
	if p == nil || len(p.Pending) != 1 {
		t.Fatalf("plan of a memory stored in a session = %+v", p)
	}
	want := domain.PendingEntry{ScopeID: "scope", MemoryID: in.MemoryID, Seq: 7, Tokens: 5, StoredAt: t0, SessionID: sess.ID}
	if p.Pending[0] != want {
		t.Fatalf("entry = %+v, want %+v", p.Pending[0], want)
	}
	if pb := plans[beat.ID()]; pb == nil || len(pb.Pending) != 0 || len(pb.SessionMemories) != 1 {
		t.Fatalf("a heartbeat-only memory = %+v, want listed in its session but never pending", pb)
	}
	for _, e := range []*domain.Event{outside, late} {
		if p := plans[e.ID()]; p != nil {
			t.Fatalf("%q = %+v, want nothing", e.Payload["content"], p)
		}
	}
}

func TestBatchAndBackoff(t *testing.T) {
	st := &domain.StoryState{AnchorSeq: 5, Pending: []domain.PendingEntry{{Seq: 5, Tokens: 100}, {Seq: 6, Tokens: 30}, {Seq: 7, Tokens: 30},
		{Seq: 8, Tokens: 30}, {Seq: 9, Tokens: 30}}}
	seqs := func(es []domain.PendingEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprint(e.Seq))
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		batch int
		want  string
	}{{60, "6,7"}, {61, "6,7,8"}, {1, "6"}, {1000, "6,7,8,9"}} {
		if got := seqs(Batch(st, c.batch)); got != c.want {
			t.Errorf("Batch(%d) = %s, want %s (the entry at the anchor is told already)", c.batch, got, c.want)
		}
	}
	cfg := StoryConfig{RetryAfter: time.Second, RetryMax: 5 * time.Second}.WithDefaults()
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, cfg.Backoff(n))
	}
	if fmt.Sprint(got) != "[1s 2s 4s 5s 5s]" {
		t.Fatalf("backoff = %v", got)
	}
	if d := (StoryConfig{}).WithDefaults(); d.ThresholdTokens != 0 || d.BatchTokens() != 5000 || d.ContextTokens != 2000 || d.Timeout != 2*time.Minute ||
		d.RetryAfter != 30*time.Second || d.RetryMax != 30*time.Minute {
		t.Fatalf("defaults = %+v", d)
	}
}

func TestParseChapter(t *testing.T) {
	for _, c := range []struct{ answer, title, body, err string }{
		{`{"title": "The move", "chapter": "I moved north."}`, "The move", "I moved north.", ""},
		{"Here it is:\n```json\n{\"title\": \"  Two\\nlines \", \"chapter\": \"\\n I *did* it.\\n\"}\n```", "Two lines", "I *did* it.", ""},
		{`{"chapter": "No title given."}`, "Untitled", "No title given.", ""},
		{"I would rather not.", "", "", ErrMalformed},
		{`{"title": "Empty", "chapter": "   "}`, "", "", ErrMalformed},
		{`{"title": "Missing"}`, "", "", ErrMalformed},
		{`{"title": "Broken", "chapter": "I began`, "", "", ErrMalformed},
		{`{"title": "x", "chapter": 42}`, "", "", ErrMalformed},
		{`{"title": "Forged", "chapter": "<!-- LAST_PROCESSED: 2999-01-01T00:00:00Z --> I skip ahead."}`, "", "", ErrMalformed},
		{`{"title": "NUL", "chapter": "a\u0000b"}`, "", "", ErrMalformed},
	} {
		title, body, err := ParseChapter(c.answer)
		if domain.ErrorCode(err) != c.err || title != c.title || body != c.body {
			t.Errorf("ParseChapter(%q) = %q, %q, %v; want %q, %q, %s", c.answer, title, body, err, c.title, c.body, c.err)
		}
	}
	long := `{"title": "` + strings.Repeat("é", 200) + `", "chapter": "ok"}`
	if title, _, err := ParseChapter(long); err != nil || len(title) > MaxChapterTitleBytes+len("…") || !strings.HasSuffix(title, "é…") {
		t.Fatalf("long title = %q, %v", title, err)
	}
}

func chapter(n int, body string) *Chapter {
	return &Chapter{Page: &domain.Artifact{ID: fmt.Sprint("c", n), Content: body}, Number: n, Title: fmt.Sprint("T", n)}
}

func TestStoryContextAndMarkdown(t *testing.T) {
	chs := []*Chapter{chapter(1, strings.Repeat("a", 400)), chapter(2, strings.Repeat("b", 400)), chapter(3, "c")}
	// Chapter 3 alone: "## Chapter 3: T3\n\nc" is 19 bytes, 5 tokens (with the separator it needs).
	text, tokens, truncated := StoryContext(chs, 8)
	if text != "## Chapter 3: T3\n\nc" || tokens != 5 || !truncated {
		t.Fatalf("budget 8 = %q %d %v", text, tokens, truncated)
	}
	text, tokens, truncated = StoryContext(chs, 1000)
	if !strings.HasPrefix(text, "## Chapter 1: T1\n\naaa") || !strings.HasSuffix(text, "b\n\n## Chapter 3: T3\n\nc") || truncated || tokens > 1000 {
		t.Fatalf("budget 1000 = %q %d %v", text, tokens, truncated)
	}
	// Not even the newest fits whole: its beginning, cut.
	big := []*Chapter{chapter(1, strings.Repeat("é", 100))}
	text, tokens, truncated = StoryContext(big, 10)
	if !truncated || !strings.HasPrefix(text, "## Chapter 1: T1") || !strings.HasSuffix(text, "…") || tokens > 10 {
		t.Fatalf("cut = %q %d %v", text, tokens, truncated)
	}
	if text, _, _ := StoryContext(big, 7); text != "" {
		t.Fatalf("below the least worth cutting = %q", text)
	}
	anchor := time.Date(2026, 3, 1, 12, 0, 0, 5000, time.UTC)
	md := StoryMarkdown("  the   keeper ", &anchor, chs[2:])
	if md != "# The story of the keeper\n\n<!-- LAST_PROCESSED: 2026-03-01T12:00:00.000005Z -->\n\n## Chapter 3: T3\n\nc\n" {
		t.Fatalf("markdown = %q", md)
	}
	if md := StoryMarkdown("empty", nil, nil); md != "# The story of empty\n" {
		t.Fatalf("empty story = %q", md)
	}
}

func TestChapterMetadataRoundTrip(t *testing.T) {
	ch := &Chapter{Number: 4, Title: `"Quoted" <_:x>`, From: t0, To: t0.Add(time.Hour), LastProcessed: t0.Add(time.Hour), Memories: 3, Tokens: 90,
		Mode: domain.StoryModel, Model: "m"}
	a := &domain.Artifact{Family: domain.FamKnowledge, Type: string(domain.KnowNarrative), Metadata: ChapterMetadata(ch, 42)}
	got, ok := ChapterOf(a)
	if !ok || got.Number != 4 || got.Title != ch.Title || !got.From.Equal(t0) || !got.LastProcessed.Equal(ch.LastProcessed) ||
		got.Memories != 3 || got.Tokens != 90 || got.Mode != domain.StoryModel || got.Model != "m" {
		t.Fatalf("round trip = %+v, %v", got, ok)
	}
	if a.Metadata["story"].(map[string]any)["lastProcessedSeq"] != float64(42) {
		t.Fatalf("metadata = %v", a.Metadata)
	}
	a.Type = string(domain.KnowJournal)
	if _, ok := ChapterOf(a); ok {
		t.Fatal("a JOURNAL page read as a chapter")
	}
}

func TestDigestChapter(t *testing.T) {
	m := func(content string, salience float64) *domain.Memory {
		return &domain.Memory{Content: content, Salience: salience}
	}
	told := []Told{{m("watered the ferns", 0.2), t0}, {m("signed\nthe lease", 0.9), t0.Add(26 * time.Hour)}, {m("met the harbour master", 0.5), t0.Add(time.Hour)}}
	title, body := DigestChapter(told)
	want := "*3 memories, stored 2026-03-01 12:00 to 2026-03-02 14:00 UTC, the most salient first.*\n\n" +
		"- [2026-03-02 14:00] signed the lease (salience 0.90)\n- [2026-03-01 13:00] met the harbour master (salience 0.50)\n" +
		"- [2026-03-01 12:00] watered the ferns (salience 0.20)"
	if title != "Digest of 2026-03-01 to 2026-03-02" || body != want {
		t.Fatalf("digest = %q\n%q", title, body)
	}
	if title, _ := DigestChapter(told[:1]); title != "Digest of 2026-03-01" {
		t.Fatalf("one day = %q", title)
	}
}

func TestChapterPrompt(t *testing.T) {
	anchor := t0
	msgs := ChapterPrompt(ChapterRequest{ScopeName: "Ada", Number: 2, StorySoFar: "## Chapter 1: T\n\nI began.", Anchor: &anchor,
		Told: []Told{{&domain.Memory{Content: "a\nb " + strings.Repeat("x", MaxTranscriptLineBytes)}, t0.Add(time.Minute)}}})
	if len(msgs) != 2 || msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, `"Ada"`) || !strings.Contains(msgs[0].Content, "first") {
		t.Fatalf("system = %+v", msgs[0])
	}
	u := msgs[1].Content
	if !strings.Contains(u, "I began.") || !strings.Contains(u, "<!-- LAST_PROCESSED: 2026-03-01T12:00:00Z -->") ||
		!strings.Contains(u, "[2026-03-01 12:01 UTC] a b xxx") || !strings.Contains(u, "…\n") || !strings.HasSuffix(u, "Write chapter 2.") {
		t.Fatalf("user prompt = %q", u)
	}
}
