package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The story of a scope is one node (kind Story, tr.id story:SCOPE): its pending log as a list
// of entries, each "SEQ|MEMORY|TOKENS|STORED_AT|SESSION" with SEQ zero-padded so the list sorts
// in log order; the sum of their tokens (story.tokens, indexed, so the scopes over a threshold
// are one lookup); the chapters written (story.chapters, the story's version: every chapter
// write rewrites it, so two writes of the same chapter conflict on a cluster and one retries
// and finds the story moved); the anchor (LAST_PROCESSED) and the consolidation lease.
//
// The pending log grows in the Subconscious consumer's writes (applyPending), in log order: the
// node keeps the newest Seq appended (story.lastSeq), so an append reads no entry and one that is
// not newer is known as appended already. It shrinks only in a chapter's write, which deletes
// exactly the entries the chapter tells: an entry appended meanwhile stays (on a cluster a list
// value's conflict key is the value itself; the two writes conflict on story.tokens alone, and
// the one retried sees the other's).
func init() {
	schemaParts = append(schemaParts, `
story.pending: [string] .
story.tokens: int @index(int) .
story.chapters: int .
story.anchor: datetime .
story.anchorSeq: int .
story.lastSeq: int .
story.lease: string .
`)
}

const kindStory = "Story"

var _ domain.StoryStore = (*Store)(nil)

func storyKey(scopeID string) string { return "story:" + scopeID }

const storyFields = `uid tr.scope story.pending story.tokens story.chapters story.anchor story.anchorSeq story.lease`

type storyNode struct {
	UID       string     `json:"uid"`
	Scope     string     `json:"tr.scope"`
	Pending   []string   `json:"story.pending"`
	Tokens    int        `json:"story.tokens"`
	Chapters  int        `json:"story.chapters"`
	Anchor    *time.Time `json:"story.anchor"`
	AnchorSeq uint64     `json:"story.anchorSeq"`
	LastSeq   uint64     `json:"story.lastSeq"`
	Lease     string     `json:"story.lease"`
}

func pendingValue(e domain.PendingEntry) string {
	return fmt.Sprintf("%020d|%s|%d|%s|%s", e.Seq, e.MemoryID, e.Tokens, ts(e.StoredAt), e.SessionID)
}

func parsePending(scopeID, v string) (domain.PendingEntry, bool) {
	parts := strings.SplitN(v, "|", 5)
	if len(parts) != 5 {
		return domain.PendingEntry{}, false
	}
	seq, err1 := strconv.ParseUint(parts[0], 10, 64)
	tokens, err2 := strconv.Atoi(parts[2])
	at, err3 := time.Parse(time.RFC3339Nano, parts[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return domain.PendingEntry{}, false
	}
	return domain.PendingEntry{ScopeID: scopeID, MemoryID: parts[1], Seq: seq, Tokens: tokens, StoredAt: at.UTC(), SessionID: parts[4]}, true
}

// state decodes the node; raw maps each entry's Seq to its stored value.
func (n *storyNode) state(scopeID string) (*domain.StoryState, map[uint64]string) {
	st := &domain.StoryState{ScopeID: scopeID, Pending: []domain.PendingEntry{}}
	raw := map[uint64]string{}
	if n == nil {
		return st, raw
	}
	st.Chapters, st.AnchorSeq = n.Chapters, n.AnchorSeq
	if n.Anchor != nil {
		a := n.Anchor.UTC()
		st.Anchor = &a
	}
	for _, v := range n.Pending {
		e, ok := parsePending(scopeID, v)
		if !ok {
			continue // unreadable: never told, never counted
		}
		raw[e.Seq] = v
		st.Pending = append(st.Pending, e)
		st.Tokens += e.Tokens
	}
	sort.Slice(st.Pending, func(i, j int) bool { return st.Pending[i].Seq < st.Pending[j].Seq })
	if owner, until, ok := strings.Cut(n.Lease, "|"); ok {
		if ms, err := strconv.ParseInt(until, 10, 64); err == nil {
			st.LeaseOwner, st.LeaseUntil = owner, time.UnixMilli(ms).UTC()
		}
	}
	return st, raw
}

// storyNodes reads the story nodes of scopes (inside a unit or against committed data).
func storyNodes(query func(q string, vars map[string]string, out any) error, scopes []string) (map[string]*storyNode, error) {
	keys := make([]string, 0, len(scopes))
	for _, s := range scopes {
		keys = append(keys, strconv.Quote(storyKey(s)))
	}
	var r struct {
		Q []storyNode `json:"q"`
	}
	if err := query(`{ q(func: eq(tr.id, [`+strings.Join(keys, ", ")+`])) @filter(eq(tr.kind, "Story")) { `+storyFields+` } }`, nil, &r); err != nil {
		return nil, err
	}
	out := make(map[string]*storyNode, len(r.Q))
	for i := range r.Q {
		out[r.Q[i].Scope] = &r.Q[i]
	}
	return out, nil
}

// applyPending appends entries to their scopes' pending logs, creating a scope's story node with
// its first entry. Entries of scopes deleted meanwhile, and entries not newer than the newest
// appended or told (a batch consumed again), are skipped: a log consumer must never fail on them.
func (t *tx) applyPending(entries []domain.PendingEntry) error {
	if len(entries) == 0 {
		return nil
	}
	var scopes []string
	seen := map[string]bool{}
	for _, e := range entries {
		if !domain.ValidID(e.ScopeID) || !domain.ValidID(e.MemoryID) {
			return domain.Errorf(domain.EINVALID, "a pending entry needs UUID scope and memory ids")
		}
		if !seen[e.ScopeID] {
			seen[e.ScopeID] = true
			scopes = append(scopes, e.ScopeID)
		}
	}
	var nr struct {
		Q []storyNode `json:"q"`
	}
	keys := make([]string, 0, len(scopes))
	for _, s := range scopes {
		keys = append(keys, strconv.Quote(storyKey(s)))
	}
	if err := t.query(`{ q(func: eq(tr.id, [`+strings.Join(keys, ", ")+`])) @filter(eq(tr.kind, "Story")) { uid tr.scope story.tokens story.anchorSeq story.lastSeq } }`,
		nil, &nr); err != nil {
		return err
	}
	nodes := make(map[string]*storyNode, len(nr.Q))
	for i := range nr.Q {
		nodes[nr.Q[i].Scope] = &nr.Q[i]
	}
	sorted := append([]domain.PendingEntry(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	var sr struct {
		Q []struct {
			ID string `json:"tr.id"`
		} `json:"q"`
	}
	if err := t.query(`{ q(func: eq(tr.id, `+idList(scopes)+`)) @filter(eq(tr.kind, "Scope")) { tr.id } }`, nil, &sr); err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, s := range sr.Q {
		exists[s.ID] = true
	}
	for i, scope := range scopes {
		if !exists[scope] {
			continue
		}
		n := nodes[scope]
		var newest uint64
		tokens := 0
		if n != nil {
			newest, tokens = max(n.AnchorSeq, n.LastSeq), n.Tokens
		}
		var add []string
		for _, e := range sorted {
			if e.ScopeID != scope || e.Seq <= newest {
				continue
			}
			newest = e.Seq
			add = append(add, pendingValue(e))
			tokens += max(e.Tokens, 0)
		}
		if len(add) == 0 {
			continue
		}
		obj := map[string]any{"story.pending": add, "story.tokens": tokens, "story.lastSeq": newest}
		if n == nil {
			obj["uid"] = fmt.Sprintf("_:story%d", i)
			obj["dgraph.type"], obj["tr.kind"], obj["tr.id"], obj["tr.scope"] = kindStory, kindStory, storyKey(scope), scope
			obj["story.chapters"] = 0
		} else {
			obj["uid"] = n.UID
		}
		t.set(obj)
	}
	return nil
}

// StoryState reads a scope's story state.
func (s *Store) StoryState(ctx context.Context, scopeID string) (*domain.StoryState, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	nodes, err := storyNodes(func(q string, vars map[string]string, out any) error { return s.read(ctx, q, vars, out) }, []string{scopeID})
	if err != nil {
		return nil, err
	}
	st, _ := nodes[scopeID].state(scopeID)
	return st, nil
}

// PendingScopes lists the scopes whose pending log holds at least minTokens.
func (s *Store) PendingScopes(ctx context.Context, minTokens int) ([]string, error) {
	var r struct {
		Q []struct {
			Scope string `json:"tr.scope"`
		} `json:"q"`
	}
	q := fmt.Sprintf(`{ q(func: ge(story.tokens, %d)) @filter(eq(tr.kind, "Story")) { tr.scope } }`, max(minTokens, 1))
	if err := s.read(ctx, q, nil, &r); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(r.Q))
	for _, n := range r.Q {
		out = append(out, n.Scope)
	}
	sort.Strings(out)
	return out, nil
}

// ClaimStory takes the scope's consolidation lease.
func (s *Store) ClaimStory(ctx context.Context, scopeID, owner string, now, until time.Time) (*domain.StoryState, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	if owner == "" || strings.Contains(owner, "|") {
		return nil, domain.FieldErrorf("owner", "must be a token without |")
	}
	return write(ctx, s, nil, func(t *tx) (*domain.StoryState, error) {
		nodes, err := storyNodes(t.query, []string{scopeID})
		if err != nil {
			return nil, err
		}
		n := nodes[scopeID]
		st, _ := n.state(scopeID)
		if n == nil {
			return st, nil // nothing was ever pending: nothing to claim
		}
		if st.LeaseOwner != "" && st.LeaseOwner != owner && st.LeaseUntil.After(now) {
			return nil, domain.Errorf(domain.ECONFLICT, "the story of scope %s is being consolidated (until %s)", scopeID,
				st.LeaseUntil.Format(time.RFC3339))
		}
		st.LeaseOwner, st.LeaseUntil = owner, until.UTC()
		t.set(map[string]any{"uid": n.UID, "story.lease": owner + "|" + strconv.FormatInt(until.UnixMilli(), 10)})
		return st, nil
	})
}

// ReleaseStory gives up owner's lease.
func (s *Store) ReleaseStory(ctx context.Context, scopeID, owner string) error {
	if !domain.ValidID(scopeID) {
		return nil
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		nodes, err := storyNodes(t.query, []string{scopeID})
		if err != nil {
			return struct{}{}, err
		}
		n := nodes[scopeID]
		if n == nil {
			return struct{}{}, nil
		}
		if st, _ := n.state(scopeID); st.LeaseOwner == owner {
			t.del(map[string]any{"uid": n.UID, "story.lease": nil})
		}
		return struct{}{}, nil
	})
	return err
}

// ReplayedChapter returns the chapter a request wrote, "" if it was not applied.
func (s *Store) ReplayedChapter(ctx context.Context, req domain.Request) (string, error) {
	r := reqPtr(req)
	if r == nil {
		return "", nil
	}
	var a domain.Artifact
	ok, err := s.replayed(ctx, r, &a)
	if err != nil || !ok {
		return "", err
	}
	return a.ID, nil
}

// WriteChapter commits a chapter, its references, the emptied pending log and the moved anchor
// in one write.
func (s *Store) WriteChapter(ctx context.Context, req domain.Request, scopeID string, fn domain.StoryWrite) (*domain.Artifact, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Artifact, error) {
		if err := t.scopeExists(scopeID); err != nil {
			return nil, err
		}
		nodes, err := storyNodes(t.query, []string{scopeID})
		if err != nil {
			return nil, err
		}
		n := nodes[scopeID]
		if n == nil {
			return nil, domain.Errorf(domain.ENOTFOUND, "scope %s has no pending memories to tell", scopeID)
		}
		cur, raw := n.state(scopeID)
		plan, err := fn(cur)
		if err != nil {
			return nil, err
		}
		a := plan.Chapter
		if a == nil || a.Family != domain.FamKnowledge || a.Type != string(domain.KnowNarrative) || a.ScopeID != scopeID || !domain.ValidID(a.ID) {
			return nil, domain.Errorf(domain.EINVALID, "a chapter is a NARRATIVE knowledge page of the story's scope")
		}
		if len(plan.Consumed) == 0 {
			return nil, domain.Errorf(domain.EINVALID, "a chapter tells at least one pending memory")
		}
		var gone []string
		left := cur.Tokens
		for _, e := range plan.Consumed {
			v, ok := raw[e.Seq]
			if !ok {
				return nil, domain.Errorf(domain.ECONFLICT, "memory %s is no longer pending: another chapter told it", e.MemoryID)
			}
			gone = append(gone, v)
			delete(raw, e.Seq)
			left -= e.Tokens
		}
		// The memories it tells and the chapter before it, as they are now.
		ids := append([]string{a.ID}, plan.Told...)
		if plan.Previous != "" {
			ids = append(ids, plan.Previous)
		}
		var r struct {
			Q []headNode `json:"q"`
		}
		if err := t.query(`{ q(func: eq(tr.id, `+idList(ids)+`)) { uid tr.id tr.kind tr.scope mem.version art.version } }`, nil, &r); err != nil {
			return nil, err
		}
		heads := map[string]*headNode{}
		for i := range r.Q {
			heads[r.Q[i].ID] = &r.Q[i]
		}
		if heads[a.ID] != nil {
			return nil, domain.Errorf(domain.ECONFLICT, "id %s already exists", a.ID)
		}
		at := ts(a.CreatedAt)
		var refs []map[string]any
		link := func(id string, kind string) error {
			h := heads[id]
			if h == nil || h.Kind != kind {
				return nil // deleted meanwhile: nothing to derive from
			}
			if h.Scope != scopeID {
				return domain.Errorf(domain.ECROSSSCOPE, "artifact %s belongs to another scope than %s", id, scopeID)
			}
			refs = append(refs, map[string]any{"uid": h.UID, "ref.DERIVED_FROM|at": at})
			// Rewriting its version makes a concurrent deletion conflict with this write.
			if v := versionJSON(h); v != nil {
				t.set(v)
			}
			return nil
		}
		for _, id := range plan.Told {
			if err := link(id, kindMemory); err != nil {
				return nil, err
			}
		}
		if plan.Previous != "" {
			if err := link(plan.Previous, kindKnowledge); err != nil {
				return nil, err
			}
		}
		obj, err := artifactJSON("_:chapter", a, true)
		if err != nil {
			return nil, err
		}
		if len(refs) > 0 {
			obj["ref.DERIVED_FROM"] = refs
		}
		t.inScope(scopeID)
		t.set(obj)
		t.del(map[string]any{"uid": n.UID, "story.pending": gone})
		if cur.LeaseOwner != "" {
			t.del(map[string]any{"uid": n.UID, "story.lease": nil})
		}
		t.set(map[string]any{"uid": n.UID, "story.tokens": max(left, 0), "story.chapters": cur.Chapters + 1,
			"story.anchor": ts(plan.Anchor), "story.anchorSeq": plan.AnchorSeq})
		t.emit(plan.Events...)
		return a, nil
	})
}
