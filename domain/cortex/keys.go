package cortex

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// Keyring keeps the API keys: in the graph (hashes only, so every server of a cluster sees the
// same keys) and, for authentication, in memory. The in-memory table is loaded at start and kept
// in step through the event log: every server reloads a key when its ApiKeyCreated or
// ApiKeyRevoked event passes, so a revocation anywhere takes effect everywhere within the log's
// poll. A key this table has not seen yet (created on another server a moment ago) is looked
// up by its hash, at a bounded rate. Last use is recorded coarsely (at most once a minute per
// key, written in one batch) and failed authentications as AuthenticationFailed events,
// aggregated over a few seconds: never a write per request. Safe for concurrent use.
type Keyring struct {
	keys   domain.KeyStore
	store  domain.Store
	now    domain.Clock
	logger *slog.Logger
	kick   func()

	mu     sync.RWMutex
	byHash map[string]*keyEntry
	byID   map[string]*keyEntry

	// misses bounds the graph lookups of keys the table does not know.
	misses bucket

	failMu   sync.Mutex
	failures map[failureKey]*failure

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

type keyEntry struct {
	key       *domain.APIKey
	principal *domain.Principal
	revoked   chan struct{}
	// lastUsed is the unix second of the last authentication; stored the second last written.
	lastUsed, stored atomic.Int64
}

// LastUseGranularity is how coarse a key's recorded last use is: it is written at most this
// often per key.
const LastUseGranularity = time.Minute

// failureFlush is how long failed authentications are gathered into one event per kind.
const failureFlush = 5 * time.Second

// maxFailureKinds bounds the distinct (reason, key, client) failures gathered between flushes.
const maxFailureKinds = 1000

// NewKeyring loads the keys of st. Errors: UNAVAILABLE (a store without keys).
func NewKeyring(ctx context.Context, st domain.Store, now domain.Clock, logger *slog.Logger) (*Keyring, error) {
	ks, ok := st.(domain.KeyStore)
	if !ok {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no API keys")
	}
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	k := &Keyring{keys: ks, store: st, now: now, logger: logger, kick: func() {},
		byHash: map[string]*keyEntry{}, byID: map[string]*keyEntry{}, failures: map[failureKey]*failure{},
		misses: bucket{rate: 20, burst: 50}, stop: make(chan struct{}), done: make(chan struct{})}
	all, err := ks.APIKeys(ctx)
	if err != nil {
		return nil, err
	}
	for _, key := range all {
		k.put(key)
	}
	go k.run()
	return k, nil
}

// Close writes what is pending (last uses, failed authentications) and stops.
func (k *Keyring) Close() {
	k.once.Do(func() {
		close(k.stop)
		<-k.done
	})
}

// Len is the number of keys in the in-memory table.
func (k *Keyring) Len() int {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return len(k.byID)
}

func (k *Keyring) run() {
	defer close(k.done)
	t := time.NewTicker(failureFlush)
	defer t.Stop()
	lastTouch := time.Now()
	for {
		select {
		case <-k.stop:
			k.Flush(context.Background())
			return
		case <-t.C:
		}
		k.flushFailures(context.Background())
		if time.Since(lastTouch) >= LastUseGranularity {
			lastTouch = time.Now()
			k.flushLastUse(context.Background())
		}
	}
}

// Flush writes the pending last uses and failed authentications now.
func (k *Keyring) Flush(ctx context.Context) {
	k.flushFailures(ctx)
	k.flushLastUse(ctx)
}

// put installs key in the table, replacing an older version; a key now revoked has its
// watchers told.
func (k *Keyring) put(key *domain.APIKey) {
	k.mu.Lock()
	defer k.mu.Unlock()
	old := k.byID[key.ID]
	e := &keyEntry{key: key, revoked: make(chan struct{})}
	if old != nil {
		e.revoked = old.revoked
		e.lastUsed.Store(old.lastUsed.Load())
		e.stored.Store(old.stored.Load())
		if old.key.Hash != key.Hash {
			delete(k.byHash, old.key.Hash)
		}
	}
	if key.LastUsedAt != nil && key.LastUsedAt.Unix() > e.stored.Load() {
		e.stored.Store(key.LastUsedAt.Unix())
	}
	e.principal = &domain.Principal{KeyID: key.ID, Name: key.Name, Role: key.Role, ScopeID: key.ScopeID,
		ExpiresAt: key.ExpiresAt, Revoked: e.revoked}
	if key.RevokedAt != nil {
		select {
		case <-e.revoked:
		default:
			close(e.revoked)
		}
	}
	k.byID[key.ID] = e
	k.byHash[key.Hash] = e
}

// HashKey is the hash the graph keeps of a secret.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewSecret draws a key: the prefix and 256 random bits.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails on the platforms Go supports
	return domain.APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// secretLen is the length of every key NewSecret draws.
var secretLen = len(NewSecret())

// Failure reasons of authentication (AuthenticationFailed's reason).
const (
	FailMissing   = "missing"
	FailMalformed = "malformed"
	FailUnknown   = "unknown"
	FailRevoked   = "revoked"
	FailExpired   = "expired"
)

// Authenticate returns the principal of a secret. A refusal is UNAUTHENTICATED and is audited
// (reason, key id when known, client and path; never the secret). client is the caller's
// address, path what it asked for.
func (k *Keyring) Authenticate(ctx context.Context, secret, client, path string) (*domain.Principal, error) {
	if secret == "" {
		return nil, k.refuse(FailMissing, "", client, path)
	}
	if len(secret) != secretLen || !strings.HasPrefix(secret, domain.APIKeyPrefix) {
		return nil, k.refuse(FailMalformed, "", client, path)
	}
	h := HashKey(secret)
	k.mu.RLock()
	e := k.byHash[h]
	k.mu.RUnlock()
	if e == nil {
		// Created on another server since this one last read the log: look it up, at a bounded
		// rate so that a flood of made-up keys cannot become a flood of graph reads.
		if !k.misses.take(k.now()) {
			return nil, k.refuse(FailUnknown, "", client, path)
		}
		key, err := k.keys.APIKeyByHash(ctx, h)
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				return nil, k.refuse(FailUnknown, "", client, path)
			}
			return nil, err
		}
		k.put(key)
		k.mu.RLock()
		e = k.byHash[h]
		k.mu.RUnlock()
	}
	now := k.now()
	switch {
	case e.key.RevokedAt != nil:
		return nil, k.refuse(FailRevoked, e.key.ID, client, path)
	case e.key.ExpiresAt != nil && !now.Before(*e.key.ExpiresAt):
		return nil, k.refuse(FailExpired, e.key.ID, client, path)
	}
	if s := now.Unix(); e.lastUsed.Load() < s {
		e.lastUsed.Store(s)
	}
	return e.principal, nil
}

func (k *Keyring) refuse(reason, keyID, client, path string) error {
	k.recordFailure(reason, keyID, client, path)
	msg := "a valid API key is required (Authorization: Bearer trk_…)"
	switch reason {
	case FailRevoked:
		msg = "this API key was revoked"
	case FailExpired:
		msg = "this API key has expired"
	case FailMalformed, FailUnknown:
		msg = "unknown API key"
	}
	return domain.Errorf(domain.EUNAUTHENTICATED, "%s", msg)
}

type failureKey struct{ reason, keyID, client string }

type failure struct {
	count       int
	first, last time.Time
	path        string
}

func (k *Keyring) recordFailure(reason, keyID, client, path string) {
	if host, _, err := net.SplitHostPort(client); err == nil {
		client = host
	}
	if len(path) > 200 {
		path = path[:200]
	}
	now := k.now().UTC()
	fk := failureKey{reason, keyID, client}
	k.failMu.Lock()
	defer k.failMu.Unlock()
	f := k.failures[fk]
	if f == nil {
		if len(k.failures) >= maxFailureKinds {
			fk = failureKey{reason: "other"}
			if f = k.failures[fk]; f == nil {
				f = &failure{first: now}
				k.failures[fk] = f
			}
		} else {
			f = &failure{first: now, path: path}
			k.failures[fk] = f
		}
	}
	f.count++
	f.last = now
}

func (k *Keyring) flushFailures(ctx context.Context) {
	k.failMu.Lock()
	fs := k.failures
	k.failures = map[failureKey]*failure{}
	k.failMu.Unlock()
	if len(fs) == 0 {
		return
	}
	now := k.now().UTC()
	req := domain.NewID()
	evs := make([]*domain.Event, 0, len(fs))
	for fk, f := range fs {
		p := map[string]any{"reason": fk.reason, "count": f.count, "client": fk.client, "path": f.path,
			"first": f.first.Format(time.RFC3339Nano), "last": f.last.Format(time.RFC3339Nano)}
		if fk.keyID != "" {
			p["keyId"] = fk.keyID
		}
		evs = append(evs, &domain.Event{Type: domain.EvAuthenticationFailed, Payload: p,
			Context: domain.TransactionContext{SessionID: req, RequestID: req, MessageID: domain.NewID(), CausationID: req,
				Timestamp: now, SourceContext: domain.CtxEdge}})
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := k.store.AppendEvents(ctx, evs); err != nil {
		k.logger.Error("recording failed authentications failed", "err", err, "events", len(evs))
		return
	}
	k.kick()
}

func (k *Keyring) flushLastUse(ctx context.Context) {
	used := map[string]time.Time{}
	var entries []*keyEntry
	k.mu.RLock()
	for id, e := range k.byID {
		if last := e.lastUsed.Load(); last-e.stored.Load() >= int64(LastUseGranularity/time.Second) ||
			(last > 0 && e.stored.Load() == 0) {
			used[id] = time.Unix(last, 0).UTC()
			entries = append(entries, e)
		}
	}
	k.mu.RUnlock()
	if len(used) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := k.keys.TouchAPIKeys(ctx, used); err != nil {
		k.logger.Error("recording the last use of API keys failed", "err", err, "keys", len(used))
		return
	}
	for _, e := range entries {
		e.stored.Store(used[e.key.ID].Unix())
	}
}

// reload re-reads keys whose events passed in the log (created or revoked, on any server).
func (k *Keyring) reload(ctx context.Context, evs []*domain.Event) error {
	for _, e := range evs {
		if e.Type != domain.EvAPIKeyCreated && e.Type != domain.EvAPIKeyRevoked {
			continue
		}
		id, _ := e.Payload["keyId"].(string)
		if id == "" {
			continue
		}
		key, err := k.keys.APIKey(ctx, id)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			continue
		}
		if err != nil {
			return err
		}
		k.put(key)
	}
	return nil
}

// NewAPIKey is a created key with its secret, which is never shown again.
type NewAPIKey struct {
	Key    *domain.APIKey
	Secret string
}

// APIKeyInput creates a key.
type APIKeyInput struct {
	Name      string
	Role      domain.Role
	ScopeID   string
	ExpiresAt *time.Time
	RequestID string
}

// Create makes a key and returns its secret. Errors: INVALID_ARGUMENT, NOT_FOUND (the scope).
func (k *Keyring) Create(ctx context.Context, in APIKeyInput) (*NewAPIKey, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, domain.FieldErrorf("name", "must not be blank")
	}
	if len(in.Name) > domain.MaxKeyNameBytes {
		return nil, domain.FieldErrorf("name", "is longer than %d bytes", domain.MaxKeyNameBytes)
	}
	if err := hippocampus.CheckText("name", in.Name); err != nil {
		return nil, err
	}
	if !in.Role.Valid() {
		return nil, domain.FieldErrorf("role", "unknown role %q (ADMIN, WRITE or READ)", in.Role)
	}
	if in.Role == domain.RoleAdmin && in.ScopeID != "" {
		return nil, domain.FieldErrorf("scopeId", "an ADMIN key reaches every scope: give no scopeId")
	}
	if in.Role != domain.RoleAdmin {
		if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
			return nil, domain.FieldErrorf("scopeId", "a %s key is bound to one scope: %s", in.Role, err.(*domain.Error).Message)
		}
		if _, err := k.store.Scope(ctx, in.ScopeID); err != nil {
			return nil, err
		}
	}
	now := k.now().UTC()
	if in.ExpiresAt != nil {
		if !in.ExpiresAt.After(now) {
			return nil, domain.FieldErrorf("expiresAt", "must lie in the future")
		}
		if in.ExpiresAt.Year() > 9999 {
			return nil, domain.FieldErrorf("expiresAt", "is out of range")
		}
		u := in.ExpiresAt.UTC()
		in.ExpiresAt = &u
	}
	if in.RequestID != "" {
		if err := checkToken("requestId", in.RequestID); err != nil {
			return nil, err
		}
	}
	secret := NewSecret()
	key := &domain.APIKey{ID: domain.NewID(), Name: in.Name, Role: in.Role, ScopeID: in.ScopeID, Hash: HashKey(secret),
		CreatedAt: now, ExpiresAt: in.ExpiresAt}
	tc := keyContext(in.RequestID, now)
	p := map[string]any{"keyId": key.ID, "name": key.Name, "role": string(key.Role), "createdBy": domain.PrincipalFrom(ctx).Label()}
	if key.ScopeID != "" {
		p["scopeId"] = key.ScopeID
	}
	if key.ExpiresAt != nil {
		p["expiresAt"] = key.ExpiresAt.Format(time.RFC3339Nano)
	}
	cmd := command(domain.MsgCreateAPIKeyCommand, "", "", tc, domain.CtxCortex, map[string]any{"name": key.Name, "role": string(key.Role)})
	ev := &domain.Event{Type: domain.EvAPIKeyCreated, Context: tc.Derive(domain.CtxCortex, now), Payload: p}
	if err := k.keys.InsertAPIKey(ctx, key, []*domain.Event{cmd, ev}); err != nil {
		return nil, err
	}
	k.put(key)
	k.kick()
	return &NewAPIKey{Key: key, Secret: secret}, nil
}

func keyContext(requestID string, now time.Time) domain.TransactionContext {
	if requestID == "" {
		requestID = domain.NewID()
	}
	return domain.TransactionContext{SessionID: requestID, RequestID: requestID, MessageID: domain.NewID(),
		CausationID: requestID, Timestamp: now, SourceContext: domain.CtxCortex}
}

// Revoke revokes a key: from now on it authenticates nowhere, and what it holds open (websockets,
// subscriptions) ends. Revoking a revoked key changes nothing. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (k *Keyring) Revoke(ctx context.Context, id string) (*domain.APIKey, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	now := k.now().UTC()
	key, err := k.keys.RevokeAPIKey(ctx, id, now, func(key *domain.APIKey) ([]*domain.Event, error) {
		if key.RevokedAt != nil {
			return nil, nil
		}
		tc := keyContext("", now)
		cmd := command(domain.MsgRevokeAPIKeyCommand, "", "", tc, domain.CtxCortex, map[string]any{"keyId": id})
		return []*domain.Event{cmd, {Type: domain.EvAPIKeyRevoked, Context: tc.Derive(domain.CtxCortex, now),
			Payload: map[string]any{"keyId": id, "name": key.Name, "role": string(key.Role), "scopeId": key.ScopeID,
				"revokedBy": domain.PrincipalFrom(ctx).Label()}}}, nil
	})
	if err != nil {
		return nil, err
	}
	k.put(key)
	k.kick()
	return key, nil
}

// List returns every key, oldest first, with its last use as recorded or newer.
func (k *Keyring) List(ctx context.Context) ([]*domain.APIKey, error) {
	all, err := k.keys.APIKeys(ctx)
	if err != nil {
		return nil, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, key := range all {
		if e := k.byID[key.ID]; e != nil {
			if s := e.lastUsed.Load(); s > 0 && (key.LastUsedAt == nil || key.LastUsedAt.Unix() < s) {
				t := time.Unix(s, 0).UTC()
				key.LastUsedAt = &t
			}
		}
	}
	return all, nil
}

// bucket is a small token bucket (rate per second, burst).
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	at     time.Time
}

func (b *bucket) take(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.at.IsZero() {
		b.tokens, b.at = b.burst, now
	}
	b.tokens = min(b.burst, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
