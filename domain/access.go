package domain

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Role is what an API key may do: ADMIN everything (every scope, scopes and keys included);
// WRITE read and write its one scope; READ read its one scope.
type Role string

const (
	RoleAdmin Role = "ADMIN"
	RoleWrite Role = "WRITE"
	RoleRead  Role = "READ"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleWrite || r == RoleRead }

func (r *Role) UnmarshalGQL(v any) error {
	s, _ := v.(string)
	if !Role(s).Valid() {
		return FieldErrorf("role", "unknown role %q (ADMIN, WRITE or READ)", s)
	}
	*r = Role(s)
	return nil
}

func (r Role) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(r))) }

// EUNAUTHENTICATED is the code of a request without a valid API key (HTTP 401).
const EUNAUTHENTICATED = "UNAUTHENTICATED"

// ESUBSCRIPTIONLIMIT refuses a subscription beyond the open subscriptions a key may hold.
const ESUBSCRIPTIONLIMIT = "SUBSCRIPTION_LIMIT_EXCEEDED"

// Principal is the caller a request acts for: an API key with its role and, unless ADMIN, the
// one scope it is granted. The HTTP edge puts it in the request's context; the Cortex checks it
// for every scope an operation touches. A context without a principal is the server itself (the
// CLI on a data folder, background work, a server run without --auth): it may do everything.
type Principal struct {
	KeyID string
	Name  string
	Role  Role
	// ScopeID is the scope a WRITE or READ key is bound to ("" for ADMIN).
	ScopeID   string
	ExpiresAt *time.Time
	// Revoked is closed when the key is revoked (nil: never watched); long-lived requests
	// (subscriptions, websockets) end then.
	Revoked <-chan struct{}
}

// Admin reports whether p may do everything. A nil principal is the server itself.
func (p *Principal) Admin() bool { return p == nil || p.Role == RoleAdmin }

// CanRead reports whether p may read scopeID.
func (p *Principal) CanRead(scopeID string) bool {
	return p.Admin() || (scopeID != "" && scopeID == p.ScopeID && (p.Role == RoleRead || p.Role == RoleWrite))
}

// CanWrite reports whether p may change scopeID.
func (p *Principal) CanWrite(scopeID string) bool {
	return p.Admin() || (scopeID != "" && scopeID == p.ScopeID && p.Role == RoleWrite)
}

// Label names p in logs and metrics: its key id, or "-" for the server itself.
func (p *Principal) Label() string {
	if p == nil {
		return "-"
	}
	return p.KeyID
}

type principalKey struct{}

// WithPrincipal returns ctx acting for p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx acts for, nil for the server itself.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// APIKey is a key as the graph keeps it: never the secret, only its hash.
type APIKey struct {
	ID   string
	Name string
	Role Role
	// ScopeID is the scope a WRITE or READ key is bound to ("" for ADMIN).
	ScopeID    string
	Hash       string `json:"-"`
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
}

// Active reports whether k authenticates at now: not revoked, not expired.
func (k *APIKey) Active(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// The key events: audited, never carrying the secret. They belong to no scope.
const (
	MsgCreateAPIKeyCommand EventType = "CreateApiKeyCommand"
	MsgRevokeAPIKeyCommand EventType = "RevokeApiKeyCommand"
	EvAPIKeyCreated        EventType = "ApiKeyCreated"
	EvAPIKeyRevoked        EventType = "ApiKeyRevoked"
	EvAuthenticationFailed EventType = "AuthenticationFailed"
)

// Seed 000's ShutdownCommand (Subconscious → Hippocampus: flush timeout) and the outcome of the
// shutdown it starts.
const (
	MsgShutdownCommand  EventType = "ShutdownCommand"
	EvShutdownCompleted EventType = "ShutdownCompleted"
)

// CtxEdge is the HTTP edge, where requests are authenticated, as a source of messages.
const CtxEdge = "Edge"

// MaxKeyNameBytes caps an API key's name.
const MaxKeyNameBytes = 200

// APIKeyPrefix starts every API key.
const APIKeyPrefix = "trk_"

// KeyStore is the store capability of API keys: kept in the graph, so every server of a cluster
// sees the same keys. Safe for concurrent use.
type KeyStore interface {
	// InsertAPIKey persists a new key with its events. Errors: CONFLICT (id or hash taken).
	InsertAPIKey(ctx context.Context, k *APIKey, events []*Event) error
	// APIKeys lists every key, oldest first.
	APIKeys(ctx context.Context) ([]*APIKey, error)
	// APIKey loads one key by id. Errors: NOT_FOUND.
	APIKey(ctx context.Context, id string) (*APIKey, error)
	// APIKeyByHash loads the key whose secret hashes to hash. Errors: NOT_FOUND.
	APIKeyByHash(ctx context.Context, hash string) (*APIKey, error)
	// RevokeAPIKey marks a key revoked at at (a revoked key stays revoked: the first time is
	// kept) and commits the events fn returns for it. Errors: NOT_FOUND, and fn's.
	RevokeAPIKey(ctx context.Context, id string, at time.Time, fn func(k *APIKey) ([]*Event, error)) (*APIKey, error)
	// TouchAPIKeys records the last use of keys (only later times than those kept); no events.
	TouchAPIKeys(ctx context.Context, used map[string]time.Time) error
}
