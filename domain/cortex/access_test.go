package cortex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/search"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type keyed struct {
	secret string
	p      *domain.Principal
	ctx    context.Context
}

// newKey creates a key through the Cortex (as the server itself) and authenticates it.
func newKey(t *testing.T, cx *cortex.Cortex, in cortex.APIKeyInput) keyed {
	t.Helper()
	nk, err := cx.CreateAPIKey(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(nk.Secret, "trk_") || len(nk.Secret) != 47 {
		t.Fatalf("secret %q: want trk_ and 43 characters", nk.Secret)
	}
	p, err := cx.Authenticate(context.Background(), nk.Secret, "127.0.0.1:1", "/query")
	if err != nil {
		t.Fatal(err)
	}
	if p.KeyID != nk.Key.ID || p.Role != in.Role || p.ScopeID != in.ScopeID {
		t.Fatalf("principal %+v for key %+v", p, nk.Key)
	}
	return keyed{secret: nk.Secret, p: p, ctx: domain.WithPrincipal(context.Background(), p)}
}

func wantCode(t *testing.T, what string, err error, codes ...string) {
	t.Helper()
	got := domain.ErrorCode(err)
	for _, c := range codes {
		if got == c {
			return
		}
	}
	t.Fatalf("%s: code %q (%v), want one of %v", what, got, err, codes)
}

// Every Cortex operation checks the caller's grants: another scope's records are not there
// (NOT_FOUND), its scope is FORBIDDEN, a READ key changes nothing, and nothing of the other scope
// is written by a refused call.
func TestGrantsAreCheckedByTheCortex(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	a, err := cx.CreateScope(ctx, "granted", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cx.CreateScope(ctx, "other", cortex.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	store := func(scope, content, requestID string) *domain.Memory {
		t.Helper()
		m, err := cx.StoreMemory(ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: scope, Content: content}, RequestID: requestID})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	mA := store(a.ID, "apricot in the granted scope", "")
	mB := store(b.ID, "plum secret of the other scope", "req-other-scope")
	mB2 := store(b.ID, "plum second secret", "")
	kB, err := cx.SaveArtifact(ctx, domain.FamKnowledge, cortex.SaveArtifactInput{ScopeID: b.ID, Type: "FACT", Title: "plum fact", Content: "plums are secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cx.SessionStart(ctx, cortex.SessionStartInput{InstanceID: "mind", MindType: "claude", ScopeID: b.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := cx.ImportJournal(ctx, b.ID, []cortex.JournalFile{{Path: "MEMORY.md", Content: "# Plums\n\nplum secret of the journal\n"}}, cortex.Meta{}); err != nil {
		t.Fatal(err)
	}
	eventsOfB := func() []string {
		t.Helper()
		var out []string
		for _, id := range []string{mB.ID, mB2.ID, kB.ID} {
			evs, err := cx.History(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				out = append(out, fmt.Sprintf("%s %s by %s", e.Type, e.Context.MessageID, e.Context.SourceContext))
			}
		}
		return out
	}

	w := newKey(t, cx, cortex.APIKeyInput{Name: "writer", Role: domain.RoleWrite, ScopeID: a.ID})
	r := newKey(t, cx, cortex.APIKeyInput{Name: "reader", Role: domain.RoleRead, ScopeID: a.ID})
	adm := newKey(t, cx, cortex.APIKeyInput{Name: "admin", Role: domain.RoleAdmin})
	// What the set-up set off is written before the count: the Synapse connects B's two plum
	// memories once the stores have been quiet a while.
	waitFor(t, "the consumers to handle what the set-up wrote", func() bool {
		head := cx.Log().Head()
		sal, sub := cx.LivingPosition()
		return cx.SynapsePosition() >= head && sal >= head && sub >= head
	})
	before := eventsOfB()

	// Scopes.
	scopes, err := cx.Scopes(w.ctx)
	if err != nil || len(scopes) != 1 || scopes[0].ID != a.ID {
		t.Fatalf("scopes of a key on one scope: %v %v", scopes, err)
	}
	if all, _ := cx.Scopes(adm.ctx); len(all) != 2 {
		t.Fatalf("an ADMIN key lists %d scopes, want 2", len(all))
	}
	_, err = cx.Scope(w.ctx, b.ID)
	wantCode(t, "scope(B)", err, domain.EFORBIDDEN)
	_, err = cx.CreateScope(w.ctx, "mine", cortex.Meta{})
	wantCode(t, "createScope by a WRITE key", err, domain.EFORBIDDEN)
	_, err = cx.DeleteScope(w.ctx, a.ID, cortex.Meta{})
	wantCode(t, "deleteScope by a WRITE key", err, domain.EFORBIDDEN)

	// Memories by id, by scope, by search.
	_, err = cx.Memory(w.ctx, mB.ID, cortex.Meta{})
	wantCode(t, "memory(B's)", err, domain.ENOTFOUND)
	_, err = cx.Memories(w.ctx, b.ID, domain.MemoryFilter{}, domain.Page{})
	wantCode(t, "memories(B)", err, domain.EFORBIDDEN)
	_, err = cx.SearchMemory(w.ctx, cortex.SearchInput{ScopeID: b.ID, Query: "plum"})
	wantCode(t, "searchMemory(B)", err, domain.EFORBIDDEN)
	_, err = cx.Resonate(w.ctx, b.ID, "plum", 3, cortex.Meta{})
	wantCode(t, "resonate(B)", err, domain.EFORBIDDEN)
	_, err = cx.SearchArtifacts(w.ctx, cortex.ArtifactSearchInput{ScopeID: b.ID, Query: "plum"})
	wantCode(t, "searchArtifacts(B)", err, domain.EFORBIDDEN)
	if ms, err := cx.MemoriesByID(w.ctx, []string{mA.ID, mB.ID}); err != nil || len(ms) != 1 || ms[0].ID != mA.ID {
		t.Fatalf("memoriesByID mixing scopes: %v %v", ms, err)
	}
	_, err = cx.History(w.ctx, mB.ID)
	wantCode(t, "history(B's)", err, domain.ENOTFOUND)
	_, err = cx.Associations(w.ctx, mB.ID, nil, 0)
	wantCode(t, "associations(B's)", err, domain.ENOTFOUND)
	_, _, err = cx.Trace(w.ctx, "req-other-scope")
	wantCode(t, "trace(B's request)", err, domain.ENOTFOUND)
	if _, evs, err := cx.Trace(adm.ctx, "req-other-scope"); err != nil || len(evs) == 0 {
		t.Fatalf("an ADMIN key's trace: %d events, %v", len(evs), err)
	}
	_, err = cx.Artifact(w.ctx, domain.FamKnowledge, kB.ID)
	wantCode(t, "knowledge(B's)", err, domain.ENOTFOUND)
	_, err = cx.References(w.ctx, kB.ID)
	wantCode(t, "references(B's)", err, domain.ENOTFOUND)
	_, err = cx.DerivedView(w.ctx, kB.ID)
	wantCode(t, "derivedView(B's)", err, domain.ENOTFOUND)
	_, err = cx.Lineage(w.ctx, mB.ID)
	wantCode(t, "lineage(B's)", err, domain.ENOTFOUND)

	// Writes into the other scope, and a READ key's writes.
	_, err = cx.StoreMemory(w.ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: b.ID, Content: "planted"}})
	wantCode(t, "storeMemory into B", err, domain.EFORBIDDEN)
	_, err = cx.StoreMemories(w.ctx, []hippocampus.StoreInput{{ScopeID: a.ID, Content: "fine"}, {ScopeID: b.ID, Content: "planted"}}, cortex.Meta{})
	wantCode(t, "storeMemories reaching B", err, domain.EFORBIDDEN)
	_, err = cx.ClaimMemory(w.ctx, mB.ID, cortex.Meta{})
	wantCode(t, "claim(B's)", err, domain.ENOTFOUND)
	_, err = cx.ReclassifyMemory(w.ctx, cortex.ReclassifyInput{ID: mB.ID, Tier: domain.TierLongTerm})
	wantCode(t, "reclassify(B's)", err, domain.ENOTFOUND)
	_, err = cx.DeleteMemory(w.ctx, mB.ID, "gone", cortex.Meta{})
	wantCode(t, "delete(B's)", err, domain.ENOTFOUND)
	_, err = cx.AssociateMemories(w.ctx, cortex.AssociateInput{SourceID: mB.ID, TargetID: mB2.ID, Type: domain.AssocThematic, Strength: 0.5})
	wantCode(t, "associate(B's, B's)", err, domain.ENOTFOUND)
	_, err = cx.AssociateMemories(w.ctx, cortex.AssociateInput{SourceID: mA.ID, TargetID: mB.ID, Type: domain.AssocThematic, Strength: 0.5})
	wantCode(t, "associate(A's, B's)", err, domain.ENOTFOUND, domain.ECROSSSCOPE)
	_, err = cx.Consolidate(w.ctx, []string{mB.ID, mB2.ID}, "", cortex.Meta{})
	wantCode(t, "consolidate(B's)", err, domain.ENOTFOUND)
	_, err = cx.TotalRecallAdvisory(w.ctx, cortex.TotalRecallInput{SourceMemoryIDs: []string{mB.ID}})
	wantCode(t, "totalRecallAdvisory(B's)", err, domain.ENOTFOUND)
	_, err = cx.SaveArtifact(w.ctx, domain.FamKnowledge, cortex.SaveArtifactInput{ScopeID: a.ID, ID: kB.ID, Type: "FACT", Title: "x", Content: "overwritten"})
	wantCode(t, "saveKnowledge over B's", err, domain.ENOTFOUND)
	_, err = cx.UpdateKernel(w.ctx, b.AgentKernel.ID, "taken over", cortex.Meta{})
	wantCode(t, "updateKernel(B's)", err, domain.ENOTFOUND)
	_, err = cx.RunDigest(w.ctx, cortex.DigestInput{ScopeID: b.ID, Propose: true})
	wantCode(t, "runDigest(B)", err, domain.EFORBIDDEN)
	_, err = cx.DecaySweep(w.ctx, b.ID, "", cortex.Meta{})
	wantCode(t, "decaySweep(B)", err, domain.EFORBIDDEN)
	_, err = cx.StoreMemory(r.ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: a.ID, Content: "a reader writes"}})
	wantCode(t, "storeMemory by a READ key", err, domain.EFORBIDDEN)
	_, err = cx.ClaimMemory(r.ctx, mA.ID, cortex.Meta{})
	wantCode(t, "claim by a READ key", err, domain.EFORBIDDEN)
	if _, err := cx.Memory(r.ctx, mA.ID, cortex.Meta{}); err != nil {
		t.Fatalf("a READ key reads its scope: %v", err)
	}
	if _, err := cx.StoreMemory(w.ctx, cortex.StoreMemoryInput{StoreInput: hippocampus.StoreInput{ScopeID: a.ID, Content: "a writer writes"}}); err != nil {
		t.Fatalf("a WRITE key writes its scope: %v", err)
	}

	// Sessions are the instance's within the key's scope: B's session of the same instance name
	// is neither ended nor crashed by A's key.
	if ended, err := cx.SessionEnd(w.ctx, "mind", domain.EndExplicit, cortex.Meta{}); err != nil || ended {
		t.Fatalf("sessionEnd of B's instance by A's key: ended %v, %v", ended, err)
	}
	if ok, err := cx.Heartbeat(w.ctx, "mind", ""); err != nil || ok {
		t.Fatalf("heartbeat of B's instance by A's key: %v, %v", ok, err)
	}
	if _, err := cx.SessionStart(w.ctx, cortex.SessionStartInput{InstanceID: "mind", MindType: "claude", ScopeID: a.ID}); err != nil {
		t.Fatal(err)
	}
	if sess, err := cx.ActiveSession(adm.ctx, "mind"); err != nil || sess == nil {
		t.Fatalf("B's session: %v %v", sess, err)
	}
	if sess, err := cx.ActiveSession(w.ctx, "mind"); err != nil || sess.ScopeID != a.ID {
		t.Fatalf("A's key sees session %+v, %v; want its own", sess, err)
	}

	// Key management is ADMIN's.
	_, err = cx.APIKeys(w.ctx)
	wantCode(t, "apiKeys by a WRITE key", err, domain.EFORBIDDEN)
	_, err = cx.CreateAPIKey(w.ctx, cortex.APIKeyInput{Name: "escalate", Role: domain.RoleAdmin})
	wantCode(t, "createApiKey by a WRITE key", err, domain.EFORBIDDEN)
	_, err = cx.RevokeAPIKey(r.ctx, w.p.KeyID)
	wantCode(t, "revokeApiKey by a READ key", err, domain.EFORBIDDEN)

	// Subscriptions.
	_, err = cx.MemoryEvents(w.ctx, b.ID)
	wantCode(t, "memoryEvents(B)", err, domain.EFORBIDDEN)
	_, err = cx.Notifications(w.ctx, "", b.ID)
	wantCode(t, "notifications(scope B)", err, domain.EFORBIDDEN)

	// The story and the journal.
	_, err = cx.PendingNarrative(w.ctx, b.ID)
	wantCode(t, "pendingNarrative(B)", err, domain.EFORBIDDEN)
	_, err = cx.Story(w.ctx, b.ID)
	wantCode(t, "story(B)", err, domain.EFORBIDDEN)
	_, err = cx.StoryContext(w.ctx, b.ID, 0)
	wantCode(t, "storyContext(B)", err, domain.EFORBIDDEN)
	_, err = cx.ConsolidateStory(w.ctx, b.ID, cortex.Meta{})
	wantCode(t, "consolidateStory(B)", err, domain.EFORBIDDEN)
	_, err = cx.ConsolidateStory(r.ctx, a.ID, cortex.Meta{})
	wantCode(t, "consolidateStory by a READ key", err, domain.EFORBIDDEN)
	_, err = cx.JournalGet(w.ctx, b.ID, "MEMORY.md", 0, 0)
	wantCode(t, "journalGet(B)", err, domain.EFORBIDDEN)
	_, err = cx.JournalSearch(w.ctx, b.ID, "plum", 10)
	wantCode(t, "journalSearch(B)", err, domain.EFORBIDDEN)
	_, err = cx.ImportJournal(w.ctx, b.ID, []cortex.JournalFile{{Path: "MEMORY.md", Content: "# planted\n"}}, cortex.Meta{})
	wantCode(t, "importJournal into B", err, domain.EFORBIDDEN)
	_, err = cx.ImportJournal(r.ctx, a.ID, []cortex.JournalFile{{Path: "MEMORY.md", Content: "# a reader writes\n"}}, cortex.Meta{})
	wantCode(t, "importJournal by a READ key", err, domain.EFORBIDDEN)
	if snip, err := cx.JournalGet(adm.ctx, b.ID, "MEMORY.md", 0, 0); err != nil || snip.Text != "# Plums\n\nplum secret of the journal" {
		t.Fatalf("B's journal after the refused import: %+v, %v", snip, err)
	}

	if after := eventsOfB(); !slices.Equal(after, before) {
		t.Fatalf("refused calls wrote events about B's artifacts: before %q, after %q", before, after)
	}
}

// Notifications addressed by instance only carry the key's scope: the same instance name used
// in another scope is another mind.
func TestNotificationsKeepToTheKeysScope(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx, _ := s.cortex(cortex.MnemonicConfig{})
	a, _ := cx.CreateScope(ctx, "a", cortex.Meta{})
	b, _ := cx.CreateScope(ctx, "b", cortex.Meta{})
	w := newKey(t, cx, cortex.APIKeyInput{Name: "w", Role: domain.RoleWrite, ScopeID: a.ID})
	sctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	mine, err := cx.Notifications(sctx, "mind", "")
	if err != nil {
		t.Fatal(err)
	}
	all, err := cx.Notifications(ctx, "mind", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{b.ID, a.ID} {
		if _, err := cx.SessionStart(ctx, cortex.SessionStartInput{InstanceID: "mind", MindType: "claude", ScopeID: sc}); err != nil {
			t.Fatal(err)
		}
		// Ending it sends the instance a SessionAuditPrompt, of this scope.
		if _, err := cx.SessionEnd(ctx, "mind", domain.EndExplicit, cortex.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	var scopes []string
	for len(scopes) < 2 {
		select {
		case e := <-all:
			scopes = append(scopes, e.ScopeID)
		case <-time.After(30 * time.Second): // a liveness bound
			t.Fatalf("the server's own subscription saw %v", scopes)
		}
	}
	select {
	case e := <-mine:
		if e.ScopeID != a.ID {
			t.Fatalf("A's key was handed a notification of scope %s", e.ScopeID)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("A's key got no notification of its own scope")
	}
	select {
	case e, ok := <-mine:
		if ok {
			t.Fatalf("A's key was handed a second notification, of scope %s", e.ScopeID)
		}
	case <-time.After(500 * time.Millisecond):
	}
}

// A key: shown once, kept as a hash, audited without its secret; revoked or expired it stops
// authenticating and what it holds open ends; its last use is recorded coarsely.
func TestKeyLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	clk := &clock{t: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	cx, err := cortex.New(ctx, cortex.Config{Store: s.st, Index: s.idx, Now: clk.now, MaxSubscriptionsPerKey: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer cx.Close()
	a, _ := cx.CreateScope(ctx, "a", cortex.Meta{})
	w := newKey(t, cx, cortex.APIKeyInput{Name: "writer", Role: domain.RoleWrite, ScopeID: a.ID})
	exp := clk.now().Add(time.Hour)
	short := newKey(t, cx, cortex.APIKeyInput{Name: "short-lived", Role: domain.RoleRead, ScopeID: a.ID, ExpiresAt: &exp})

	for _, tc := range []struct {
		name string
		in   cortex.APIKeyInput
		code string
	}{
		{"blank name", cortex.APIKeyInput{Name: " ", Role: domain.RoleAdmin}, domain.EINVALID},
		{"unknown role", cortex.APIKeyInput{Name: "x", Role: "ROOT"}, domain.EINVALID},
		{"admin with a scope", cortex.APIKeyInput{Name: "x", Role: domain.RoleAdmin, ScopeID: a.ID}, domain.EINVALID},
		{"write without a scope", cortex.APIKeyInput{Name: "x", Role: domain.RoleWrite}, domain.EINVALID},
		{"read on a scope that does not exist", cortex.APIKeyInput{Name: "x", Role: domain.RoleRead, ScopeID: domain.NewID()}, domain.ENOTFOUND},
		{"expired already", cortex.APIKeyInput{Name: "x", Role: domain.RoleAdmin, ExpiresAt: &clk.t}, domain.EINVALID},
		{"name with NUL", cortex.APIKeyInput{Name: "a\x00b", Role: domain.RoleAdmin}, domain.EINVALID},
	} {
		_, err := cx.CreateAPIKey(ctx, tc.in)
		wantCode(t, tc.name, err, tc.code)
	}

	// Subscriptions are capped per key, and end when the key is revoked.
	s1, err := cx.MemoryEvents(w.ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	c2, cancel2 := context.WithCancel(w.ctx)
	if _, err := cx.MemoryEvents(c2, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = cx.MemoryEvents(w.ctx, a.ID)
	wantCode(t, "a third subscription", err, domain.ESUBSCRIPTIONLIMIT)
	cancel2()
	waitFor(t, "the cancelled subscription to be released", func() bool { return cx.OpenSubscriptions() == 1 })
	if _, err := cx.MemoryEvents(w.ctx, a.ID); err != nil {
		t.Fatalf("a subscription after one ended: %v", err)
	}

	if _, err := cx.RevokeAPIKey(ctx, w.p.KeyID); err != nil {
		t.Fatal(err)
	}
	_, err = cx.Authenticate(ctx, w.secret, "10.0.0.9:4000", "/query")
	wantCode(t, "a revoked key", err, domain.EUNAUTHENTICATED)
	select {
	case <-w.p.Revoked:
	default:
		t.Fatal("the revoked key's principal was not told")
	}
	for range s1 { // ends: the key was revoked
	}
	waitFor(t, "the revoked key's subscriptions to end", func() bool { return cx.OpenSubscriptions() == 0 })
	again, err := cx.RevokeAPIKey(ctx, w.p.KeyID)
	if err != nil || again.RevokedAt == nil {
		t.Fatalf("revoking twice: %+v %v", again, err)
	}

	// Expiry follows the clock.
	if _, err := cx.Authenticate(ctx, short.secret, "", "/query"); err != nil {
		t.Fatal(err)
	}
	clk.add(time.Hour)
	_, err = cx.Authenticate(ctx, short.secret, "", "/query")
	wantCode(t, "an expired key", err, domain.EUNAUTHENTICATED)

	// Unknown and malformed keys are refused and audited, without the secret.
	bogus := cortex.NewSecret()
	for _, secret := range []string{bogus, "trk_short", "", "Basic dXNlcg==", strings.Repeat("x", 5000)} {
		_, err := cx.Authenticate(ctx, secret, "10.0.0.9:4000", "/query")
		wantCode(t, "secret "+secret[:min(len(secret), 12)], err, domain.EUNAUTHENTICATED)
	}
	cx.Keys().Flush(ctx)
	evs, err := s.st.EventsSince(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	types := map[domain.EventType]int{}
	for _, e := range evs {
		types[e.Type]++
		raw, _ := json.Marshal(e)
		for _, secret := range []string{w.secret, short.secret, bogus} {
			if strings.Contains(string(raw), secret) || strings.Contains(string(raw), cortex.HashKey(secret)) {
				t.Fatalf("event %s holds a key's secret or hash: %s", e.Type, raw)
			}
		}
		if e.Type == domain.EvAuthenticationFailed {
			reasons[e.Payload["reason"].(string)] += int(e.Payload["count"].(float64))
			if e.Payload["client"] != "10.0.0.9" && e.Payload["client"] != "" {
				t.Fatalf("failure recorded the client as %v", e.Payload["client"])
			}
		}
	}
	if types[domain.EvAPIKeyCreated] != 2 || types[domain.EvAPIKeyRevoked] != 1 {
		t.Fatalf("key events %v: want 2 ApiKeyCreated and 1 ApiKeyRevoked (a second revocation changes nothing)", types)
	}
	want := map[string]int{cortex.FailRevoked: 1, cortex.FailExpired: 1, cortex.FailUnknown: 1, cortex.FailMalformed: 3, cortex.FailMissing: 1}
	for k, n := range want {
		if reasons[k] != n {
			t.Fatalf("AuthenticationFailed reasons %v, want %v", reasons, want)
		}
	}

	// Last use: written in a batch, to the second.
	keys, err := cx.APIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Hash == "" || k.Hash == w.secret {
			t.Fatalf("key %s kept as %q", k.ID, k.Hash)
		}
		if k.LastUsedAt == nil {
			t.Fatalf("key %s (%s) has no last use after authenticating", k.ID, k.Name)
		}
	}
}

// A key revoked through one server stops authenticating on another server of the same graph:
// its table follows the event log.
func TestRevocationReachesEveryServer(t *testing.T) {
	ctx := context.Background()
	s := openTestStack(t)
	cx1, _ := s.cortex(cortex.MnemonicConfig{})
	idx2, err := search.Open(filepath.Join(t.TempDir(), "index2"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx2.Close()
	cx2, err := cortex.New(ctx, cortex.Config{Store: s.st, Index: idx2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer cx2.Close()
	// Created on the first server after the second loaded its table.
	nk, err := cx1.CreateAPIKey(ctx, cortex.APIKeyInput{Name: "shared", Role: domain.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := cx2.Authenticate(ctx, nk.Secret, "", "/query")
	if err != nil {
		t.Fatalf("the second server does not know a key the first created: %v", err)
	}
	if _, err := cx1.RevokeAPIKey(ctx, nk.Key.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second server to refuse the revoked key", func() bool {
		_, err := cx2.Authenticate(ctx, nk.Secret, "", "/query")
		return domain.ErrorCode(err) == domain.EUNAUTHENTICATED
	})
	select {
	case <-p2.Revoked:
	case <-time.After(30 * time.Second):
		t.Fatal("the second server's principal of the key was not told of its revocation")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a liveness bound, not a speed check
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkAuthenticate is the cost of turning a key into its principal, as every request under
// --auth pays it, with 1 and 1,000 keys in the table.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	st, err := graph.Open(ctx, "file://"+filepath.Join(dir, "graph"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	kr, err := cortex.NewKeyring(ctx, st, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	defer kr.Close()
	var secret string
	for n, want := 0, 1; n < 1000; n++ {
		nk, err := kr.Create(ctx, cortex.APIKeyInput{Name: "k", Role: domain.RoleAdmin})
		if err != nil {
			b.Fatal(err)
		}
		secret = nk.Secret
		if n+1 != want {
			continue
		}
		b.Run(strconv.Itoa(want)+" keys", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kr.Authenticate(ctx, secret, "127.0.0.1:1", "/query"); err != nil {
					b.Fatal(err)
				}
			}
		})
		want *= 1000
	}
}
