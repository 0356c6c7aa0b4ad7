package cortex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/domain/subconscious"
)

// The story of a mind (seed 003) at the boundary: the pending log, narrative consolidation and
// the story handed to minds. subconscious/story.go decides what a chapter says; this file reads
// what it needs, calls the model, and commits each chapter through the store's one write.

// storyPart is the Cortex's part of the story.
type storyPart struct {
	store domain.StoryStore
	arts  domain.LifecycleStore
	cfg   subconscious.StoryConfig
	// owner names this server in the consolidation leases it takes.
	owner string

	mu sync.Mutex
	// due holds the scopes to look at and when (real time); failures the failed attempts in a
	// row per scope, which set the backoff.
	due      map[string]time.Time
	failures map[string]int
	wake     chan struct{}
}

// leaseFor is how long a consolidation lease lasts: the model's timeout, and as long again for
// the reads and the write around it. A server that dies holding one blocks the scope that long.
func leaseFor(timeout time.Duration) time.Duration { return 2 * timeout }

// startStory starts narrative consolidation: its worker runs only with a threshold (serve).
func (c *Cortex) startStory(bg context.Context, cfg subconscious.StoryConfig) {
	ss, ok := c.store.(domain.StoryStore)
	arts, ok2 := c.store.(domain.LifecycleStore)
	if !ok || !ok2 || c.living == nil {
		return
	}
	c.story = &storyPart{store: ss, arts: arts, cfg: cfg.WithDefaults(), owner: domain.NewID()[:8],
		due: map[string]time.Time{}, failures: map[string]int{}, wake: make(chan struct{}, 1)}
	if c.story.cfg.ThresholdTokens <= 0 {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.runStory(bg)
	}()
}

func (c *Cortex) storyOrErr() (*storyPart, error) {
	if c.story == nil {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no story")
	}
	return c.story, nil
}

// StoryConfig returns the story's configuration in force (zero without a story store).
func (c *Cortex) StoryConfig() subconscious.StoryConfig {
	if c.story == nil {
		return subconscious.StoryConfig{}
	}
	return c.story.cfg
}

// ---- The pending log ----

// PendingMemory is one entry of a pending log with its memory (nil when deleted since).
type PendingMemory struct {
	Memory    *domain.Memory
	MemoryID  string
	Seq       int64
	Tokens    int
	StoredAt  time.Time
	SessionID string
}

// PendingNarrative is a scope's pending log: the memories stored in its minds' sessions that no
// chapter tells yet, oldest first, with the story's progress.
type PendingNarrative struct {
	ScopeID string
	// Tokens is the entries' estimated tokens together; ThresholdTokens the server's threshold
	// (0: chapters are written only when asked).
	Tokens          int
	ThresholdTokens int
	// Memories are the entries' memories that still exist, in order.
	Memories      []*domain.Memory
	Entries       []*PendingMemory
	LastProcessed *time.Time
	Chapters      int
}

// PendingNarrative reads a scope's pending log. A memory stored in a session reaches it as soon
// as the Subconscious has consumed its MemoryStored event (moments after the store).
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) PendingNarrative(ctx context.Context, scopeID string) (*PendingNarrative, error) {
	sp, err := c.storyOrErr()
	if err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return nil, err
	}
	st, err := sp.store.StoryState(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(st.Pending))
	for i, e := range st.Pending {
		ids[i] = e.MemoryID
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := &PendingNarrative{ScopeID: scopeID, Tokens: st.Tokens, ThresholdTokens: sp.cfg.ThresholdTokens,
		Memories: []*domain.Memory{}, Entries: []*PendingMemory{}, LastProcessed: st.Anchor, Chapters: st.Chapters}
	for _, e := range st.Pending {
		m := byID[e.MemoryID]
		if m != nil {
			out.Memories = append(out.Memories, m)
		}
		out.Entries = append(out.Entries, &PendingMemory{Memory: m, MemoryID: e.MemoryID, Seq: int64(e.Seq), Tokens: e.Tokens,
			StoredAt: e.StoredAt, SessionID: e.SessionID})
	}
	return out, nil
}

// ---- Consolidation ----

// ConsolidateStory writes the next chapter of a scope's story now: from the oldest pending
// memories up to the batch's tokens (the threshold, or 5,000 without one). With a chat model a
// first-person chapter, else a dated digest by salience. It returns nil when nothing is pending.
// A failed or malformed answer of the model leaves the pending log as it was, is recorded as a
// StoryConsolidationFailed event and answered with UNAVAILABLE. A retry with the same requestId
// returns the chapter the first wrote. Errors: INVALID_ARGUMENT, NOT_FOUND, CONFLICT (another
// consolidation of the scope is under way, or the requestId was used for another request),
// UNAVAILABLE.
func (c *Cortex) ConsolidateStory(ctx context.Context, scopeID string, m Meta) (*subconscious.Chapter, error) {
	sp, err := c.storyOrErr()
	if err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.checkScope(ctx, "scopeId", scopeID); err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	req := domain.Request{Op: "consolidateStory", RequestID: m.RequestID, Fingerprint: fingerprint(scopeID), ScopeID: scopeID}
	if id, err := sp.store.ReplayedChapter(ctx, req); err != nil {
		return nil, err
	} else if id != "" {
		return c.chapter(ctx, id)
	}
	return c.consolidateStory(ctx, sp, scopeID, tc, req)
}

// chapter loads a chapter by its page id. Errors: NOT_FOUND.
func (c *Cortex) chapter(ctx context.Context, id string) (*subconscious.Chapter, error) {
	as, err := c.story.arts.Artifacts(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if ch, ok := subconscious.ChapterOf(a); ok {
			return ch, nil
		}
	}
	return nil, domain.Errorf(domain.ENOTFOUND, "chapter %s not found", id)
}

// consolidateStory writes one chapter under a consolidation lease: claim the scope, read the
// batch and the story so far, ask the model (or make the digest), then commit the chapter, its
// references, the moved anchor and the emptied entries in one write that checks the story has
// not moved and the lease is still this attempt's.
func (c *Cortex) consolidateStory(ctx context.Context, sp *storyPart, scopeID string, tc domain.TransactionContext, req domain.Request) (*subconscious.Chapter, error) {
	now := c.now().UTC()
	owner := sp.owner + "-" + domain.NewID()[:8]
	st, err := sp.store.ClaimStory(ctx, scopeID, owner, now, now.Add(leaseFor(sp.cfg.Timeout)))
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed && st.LeaseOwner == owner {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := sp.store.ReleaseStory(rctx, scopeID, owner); err != nil {
				c.logger.Warn("story: releasing the consolidation lease failed (it expires)", "scope", scopeID, "err", err)
			}
		}
	}()
	batch := subconscious.Batch(st, sp.cfg.BatchTokens())
	if len(batch) == 0 {
		return nil, nil
	}
	ids := make([]string, len(batch))
	tokens := 0
	for i, e := range batch {
		ids[i] = e.MemoryID
		tokens += e.Tokens
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*domain.Memory, len(ms))
	for _, m := range ms {
		if m.ScopeID == scopeID {
			byID[m.ID] = m
		}
	}
	var told []subconscious.Told
	var toldIDs []string
	for _, e := range batch {
		if m := byID[e.MemoryID]; m != nil {
			told = append(told, subconscious.Told{Memory: m, StoredAt: e.StoredAt})
			toldIDs = append(toldIDs, m.ID)
		}
	}
	prev, err := c.newestChapters(ctx, scopeID, 16)
	if err != nil {
		return nil, err
	}
	last := batch[len(batch)-1]
	ch := &subconscious.Chapter{Number: st.Chapters + 1, From: batch[0].StoredAt, To: last.StoredAt, LastProcessed: last.StoredAt,
		Memories: len(told), Tokens: tokens, Mode: domain.StoryDigest}
	cmd := command(domain.MsgConsolidateStoryCommand, scopeID, "", tc, domain.CtxSubconscious,
		map[string]any{"scopeId": scopeID, "chapter": ch.Number, "pendingTokens": st.Tokens, "batchTokens": tokens, "memories": len(batch)})
	var body string
	if model := c.mnemonic.cfg.Chat; model != nil && len(told) > 0 {
		soFar, _, _ := subconscious.StoryContext(prev, sp.cfg.PromptTokens)
		sc, err := c.store.Scope(ctx, scopeID)
		if err != nil {
			return nil, err
		}
		mctx, cancel := context.WithTimeout(ctx, sp.cfg.Timeout)
		answer, err := model.Complete(mctx, subconscious.ChapterPrompt(subconscious.ChapterRequest{ScopeName: sc.Name, Number: ch.Number,
			StorySoFar: soFar, Anchor: st.Anchor, Told: told}))
		timedOut := errors.Is(mctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			reason := "the model failed: " + domain.ErrorMessage(err)
			if timedOut {
				reason = fmt.Sprintf("the model did not answer within %s", sp.cfg.Timeout)
			}
			return nil, c.storyFailed(ctx, sp, scopeID, cmd, st, batch, model.Model(), reason)
		}
		title, text, err := subconscious.ParseChapter(answer)
		if err != nil {
			return nil, c.storyFailed(ctx, sp, scopeID, cmd, st, batch, model.Model(), "the model's answer is malformed: "+domain.ErrorMessage(err))
		}
		ch.Title, body, ch.Mode, ch.Model = title, text, domain.StoryModel, model.Model()
	} else {
		ch.Title, body = subconscious.DigestChapter(told)
	}
	at := c.now().UTC()
	page := &domain.Artifact{ID: domain.NewID(), ScopeID: scopeID, Family: domain.FamKnowledge, Type: string(domain.KnowNarrative),
		Title: subconscious.PageTitle(ch.Number, ch.Title), Content: body, Tags: []string{"story"},
		Metadata: subconscious.ChapterMetadata(ch, last.Seq), State: domain.StateActive, SessionID: tc.SessionID,
		CreatedAt: at, UpdatedAt: at, Version: 1}
	ch.Page = page
	cmd.MemoryID = page.ID
	d := tc.Derive(domain.CtxSubconscious, at)
	saved := &domain.Event{Type: domain.EvArtifactSaved, ScopeID: scopeID, MemoryID: page.ID, Context: d,
		Payload: map[string]any{"artifactId": page.ID, "family": string(domain.FamKnowledge), "type": page.Type, "title": page.Title,
			"contentBytes": len(page.Content), "version": 1}}
	about := make(map[string]any, len(toldIDs))
	for _, id := range toldIDs {
		about[id] = map[string]any{"memoryId": id, "chapterId": page.ID, "chapter": ch.Number, "title": page.Title}
	}
	written := &domain.Event{Type: domain.EvStoryChapterWritten, ScopeID: scopeID, MemoryID: page.ID, Context: d.Derive(domain.CtxSubconscious, at),
		Payload: map[string]any{"chapterId": page.ID, "chapter": ch.Number, "title": page.Title, "mode": string(ch.Mode), "model": ch.Model,
			"memoryIds": toldIDs, "memories": len(toldIDs), "tokens": tokens, "from": ch.From.Format(time.RFC3339Nano),
			"to": ch.To.Format(time.RFC3339Nano), "lastProcessed": ch.LastProcessed.Format(time.RFC3339Nano),
			"lastProcessedSeq": last.Seq, "pendingTokensLeft": st.Tokens - tokens},
		About: about}
	var prevID string
	if n := len(prev); n > 0 && prev[n-1].Number == st.Chapters {
		prevID = prev[n-1].Page.ID
	}
	out, err := sp.store.WriteChapter(ctx, req, scopeID, func(cur *domain.StoryState) (*domain.ChapterPlan, error) {
		if cur.Chapters != st.Chapters {
			return nil, domain.Errorf(domain.ECONFLICT, "chapter %d of the story of scope %s was written meanwhile", cur.Chapters, scopeID)
		}
		if cur.LeaseOwner != owner {
			return nil, domain.Errorf(domain.ECONFLICT, "the consolidation of scope %s outlasted its lease; another may have taken it", scopeID)
		}
		return &domain.ChapterPlan{Chapter: page, Told: toldIDs, Previous: prevID, Consumed: batch, Anchor: ch.LastProcessed,
			AnchorSeq: last.Seq, Events: []*domain.Event{cmd, saved, written}}, nil
	})
	c.log.Kick()
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.ECONFLICT || code == domain.ENOTFOUND || ctx.Err() != nil {
			return nil, err
		}
		cmd.MemoryID = "" // no chapter came of it
		c.logger.Error("story: writing a chapter failed", "scope", scopeID, "err", err)
		return nil, c.storyFailed(ctx, sp, scopeID, cmd, st, batch, ch.Model, "the chapter could not be written: "+domain.ErrorMessage(err))
	}
	committed = true
	sp.succeeded(scopeID)
	if out.ID != page.ID {
		return c.chapter(ctx, out.ID) // a replay: the first attempt's chapter
	}
	if err := c.refreshIndex(ctx, []string{page.ID}); err != nil {
		c.logger.Warn("story: the chapter is written but not searchable yet", "chapter", page.ID, "err", err)
	}
	return ch, nil
}

// storyFailed records a failed consolidation (its command and a StoryConsolidationFailed event),
// schedules the scope's retry with backoff, and returns the error the caller gets.
func (c *Cortex) storyFailed(ctx context.Context, sp *storyPart, scopeID string, cmd *domain.Event, st *domain.StoryState,
	batch []domain.PendingEntry, model, reason string) error {
	attempt, retryIn := sp.failed(scopeID)
	now := c.now().UTC()
	p := map[string]any{"scopeId": scopeID, "reason": reason, "attempt": attempt, "pendingTokens": st.Tokens,
		"memories": len(batch), "model": model}
	if retryIn > 0 {
		p["retryAt"] = now.Add(retryIn).Format(time.RFC3339Nano)
	}
	ev := &domain.Event{Type: domain.EvStoryConsolidationFailed, ScopeID: scopeID, Context: cmd.Context.Derive(domain.CtxSubconscious, now), Payload: p}
	if _, err := c.living.store.Apply(context.WithoutCancel(ctx), nil, &domain.Changes{Events: []*domain.Event{cmd, ev}}, nil); err != nil {
		c.logger.Error("story: recording a failed consolidation failed", "scope", scopeID, "err", err)
	}
	c.log.Kick()
	c.logger.Warn("story: consolidation failed; the pending log is kept", "scope", scopeID, "reason", reason, "attempt", attempt, "retryIn", retryIn)
	return domain.Errorf(domain.EUNAVAILABLE, "%s; the pending log is kept", reason)
}

// failed counts a failure of the scope's consolidation and, when chapters are written without
// being asked, schedules the next attempt after the backoff (returned; 0 when none is).
func (sp *storyPart) failed(scopeID string) (attempt int, retryIn time.Duration) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.failures[scopeID]++
	attempt = sp.failures[scopeID]
	if sp.cfg.ThresholdTokens <= 0 {
		return attempt, 0
	}
	retryIn = sp.cfg.Backoff(attempt)
	sp.due[scopeID] = time.Now().Add(retryIn)
	return attempt, retryIn
}

func (sp *storyPart) succeeded(scopeID string) {
	sp.mu.Lock()
	delete(sp.failures, scopeID)
	sp.mu.Unlock()
}

// kick asks the worker to look at scopes now, unless a failure's backoff holds them.
func (sp *storyPart) kick(scopes ...string) {
	if sp == nil || sp.cfg.ThresholdTokens <= 0 || len(scopes) == 0 {
		return
	}
	sp.mu.Lock()
	now := time.Now()
	for _, s := range scopes {
		if at, ok := sp.due[s]; ok && sp.failures[s] > 0 && at.After(now) {
			continue
		}
		sp.due[s] = now
	}
	sp.mu.Unlock()
	select {
	case sp.wake <- struct{}{}:
	default:
	}
}

// takeDue removes and returns the scopes due by now, and the wait until the next one.
func (sp *storyPart) takeDue(now time.Time) ([]string, time.Duration) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	var out []string
	next := time.Duration(-1)
	for s, at := range sp.due {
		if !at.After(now) {
			out = append(out, s)
			delete(sp.due, s)
		} else if d := at.Sub(now); next < 0 || d < next {
			next = d
		}
	}
	sort.Strings(out)
	return out, next
}

func (sp *storyPart) retryLater(scopeID string, d time.Duration) {
	sp.mu.Lock()
	sp.due[scopeID] = time.Now().Add(d)
	sp.mu.Unlock()
}

// runStory is the worker of the Subconscious that writes chapters without being asked: it
// looks at a scope when the consumer appended to its pending log, after a failure's backoff,
// and every ScanInterval at every scope over the threshold (those another server, or an earlier
// run of this one, left behind).
func (c *Cortex) runStory(ctx context.Context) {
	sp := c.story
	scan := time.NewTicker(sp.cfg.ScanInterval)
	defer scan.Stop()
	c.storyScan(ctx)
	for {
		scopes, next := sp.takeDue(time.Now())
		for _, s := range scopes {
			if ctx.Err() != nil {
				return
			}
			c.autoStory(ctx, s)
		}
		if len(scopes) > 0 {
			continue
		}
		if next < 0 {
			next = time.Hour
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-sp.wake:
		case <-scan.C:
			c.storyScan(ctx)
		case <-t.C:
		}
		t.Stop()
	}
}

func (c *Cortex) storyScan(ctx context.Context) {
	scopes, err := c.story.store.PendingScopes(ctx, c.story.cfg.ThresholdTokens)
	if err != nil {
		if ctx.Err() == nil {
			c.logger.Error("story: looking for scopes over the threshold failed", "err", err)
		}
		return
	}
	// Another server writes the chapters of the scopes it serves.
	scopes = slices.DeleteFunc(scopes, func(s string) bool { return !c.shard.Serves(s) })
	c.story.kick(scopes...)
}

// autoStory writes chapters of a scope while its pending log holds the threshold.
func (c *Cortex) autoStory(ctx context.Context, scopeID string) {
	sp := c.story
	for ctx.Err() == nil {
		st, err := sp.store.StoryState(ctx, scopeID)
		if err != nil {
			if ctx.Err() == nil {
				c.logger.Error("story: reading the pending log failed", "scope", scopeID, "err", err)
				sp.retryLater(scopeID, sp.cfg.RetryAfter)
			}
			return
		}
		if st.Tokens < sp.cfg.ThresholdTokens {
			return
		}
		rid := domain.NewID()
		tc := domain.TransactionContext{SessionID: "subconscious", RequestID: rid, MessageID: domain.NewID(), CausationID: rid,
			Timestamp: c.now().UTC(), SourceContext: domain.CtxSubconscious}
		ch, err := c.consolidateStory(ctx, sp, scopeID, tc, domain.Request{})
		switch {
		case err == nil && ch != nil:
			c.logger.Info("story: chapter written", "scope", scopeID, "chapter", ch.Number, "memories", ch.Memories, "mode", ch.Mode)
			continue
		case err == nil:
			return
		case domain.ErrorCode(err) == domain.ECONFLICT:
			// Another consolidation (here or on another server) holds the scope: look again later.
			sp.retryLater(scopeID, sp.cfg.RetryAfter)
			return
		case domain.ErrorCode(err) == domain.ENOTFOUND:
			return // the scope was deleted
		}
		return // a failure: recorded, and its retry scheduled
	}
}

// ---- The story ----

// listChapters pages through a scope's active chapters (first: how many of the newest; 0: all).
func (c *Cortex) listChapters(ctx context.Context, scopeID string, first int) ([]*subconscious.Chapter, error) {
	sp, err := c.storyOrErr()
	if err != nil {
		return nil, err
	}
	var out []*subconscious.Chapter
	after := ""
	for {
		size := 1000
		if first > 0 {
			size = first
		}
		p, err := sp.arts.ListArtifacts(ctx, scopeID, domain.FamKnowledge, domain.ArtifactFilter{Types: []string{string(domain.KnowNarrative)},
			States: []domain.LifecycleState{domain.StateActive}}, domain.Page{First: size, After: after})
		if err != nil {
			return nil, err
		}
		for _, a := range p.Artifacts {
			if ch, ok := subconscious.ChapterOf(a); ok {
				out = append(out, ch)
			}
		}
		if first > 0 || !p.HasNext {
			break
		}
		after = p.EndCursor
	}
	subconscious.SortChapters(out)
	return out, nil
}

// newestChapters returns about the n newest chapters (those written last), in order.
func (c *Cortex) newestChapters(ctx context.Context, scopeID string, n int) ([]*subconscious.Chapter, error) {
	return c.listChapters(ctx, scopeID, n)
}

// Story is a scope's whole story.
type Story struct {
	ScopeID string
	// Markdown is the story: its title, the <!-- LAST_PROCESSED: ISO-8601 --> anchor (once a
	// chapter moved it) and every active chapter in order.
	Markdown      string
	LastProcessed *time.Time
	Chapters      []*subconscious.Chapter
	// Tokens estimates Markdown.
	Tokens int
}

// Story returns a scope's story: every chapter (archived ones left out) in order, and the whole
// as Markdown with its anchor. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Story(ctx context.Context, scopeID string) (*Story, error) {
	sp, err := c.storyOrErr()
	if err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	sc, err := c.checkScope(ctx, "scopeId", scopeID)
	if err != nil {
		return nil, err
	}
	// The state and the chapters are two reads; a chapter committed between them moves the
	// anchor, so they are read again until the anchor is the same before and after.
	var chs []*subconscious.Chapter
	st, err := sp.store.StoryState(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		if chs, err = c.listChapters(ctx, scopeID, 0); err != nil {
			return nil, err
		}
		after, err := sp.store.StoryState(ctx, scopeID)
		if err != nil {
			return nil, err
		}
		same := (st.Anchor == nil) == (after.Anchor == nil) && (st.Anchor == nil || st.Anchor.Equal(*after.Anchor))
		st = after
		if same || attempt == 4 {
			break
		}
	}
	if chs == nil {
		chs = []*subconscious.Chapter{}
	}
	md := subconscious.StoryMarkdown(sc.Name, st.Anchor, chs)
	return &Story{ScopeID: scopeID, Markdown: md, LastProcessed: st.Anchor, Chapters: chs, Tokens: recall.EstimateTokens(md)}, nil
}

// StoryContext is the story as a mind gets it where it starts and thinks: its newest chapters,
// whole and in order, within maxTokens (0: the server's ContextTokens), estimated as
// everywhere (bytes / 4, rounded up); "" when the scope has no chapter yet. Session starts hand
// it over as SessionContext.Story. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) StoryContext(ctx context.Context, scopeID string, maxTokens int) (string, error) {
	text, _, err := c.storyContext(ctx, scopeID, maxTokens)
	return text, err
}

func (c *Cortex) storyContext(ctx context.Context, scopeID string, maxTokens int) (string, int, error) {
	sp, err := c.storyOrErr()
	if err != nil {
		return "", 0, err
	}
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return "", 0, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return "", 0, err
	}
	if maxTokens < 0 || maxTokens > subconscious.MaxStoryTokens {
		return "", 0, domain.FieldErrorf("maxTokens", "must be within 1..%d", subconscious.MaxStoryTokens)
	}
	if maxTokens == 0 {
		maxTokens = sp.cfg.ContextTokens
	}
	// The newest chapters a budget can hold: a chapter is rarely under a few hundred tokens.
	chs, err := c.newestChapters(ctx, scopeID, min(1000, max(16, maxTokens/100)))
	if err != nil {
		return "", 0, err
	}
	text, tokens, _ := subconscious.StoryContext(chs, maxTokens)
	return text, tokens, nil
}

// ChapterMemoryIDs returns the memories a chapter tells that still exist (its DERIVED_FROM
// references to memories), in their order. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) ChapterMemoryIDs(ctx context.Context, chapterID string) ([]string, error) {
	n, err := c.References(ctx, chapterID)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, r := range n.Out {
		if r.Type == domain.RefDerivedFrom && r.TargetFamily == domain.FamMemory && r.TargetState != domain.EndRemoved {
			out = append(out, r.TargetID)
		}
	}
	return out, nil
}
