package cortex

import (
	"context"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Access control. Every door (GraphQL, MCP, the pages, exports) reaches the data through the
// Cortex with the caller's principal in the context (domain.WithPrincipal), so the grants are
// checked here, for every scope an operation names and every record it touches, and not in any
// one adapter. The rules:
//
//   - a scope given as an argument that the key has no grant on: FORBIDDEN (also when the scope
//     does not exist: a key learns nothing of scopes it has no grant on);
//   - a record given by id that lies in such a scope: NOT_FOUND, exactly as a record that does
//     not exist;
//   - a change asked of a READ key: FORBIDDEN;
//   - lists, searches, traces, histories and subscriptions hold only what the key may read;
//   - creating or deleting scopes and managing keys: ADMIN only.
//
// A context without a principal is the server itself and may do everything.

// Authorize returns nil when the caller of ctx may read (write false) or change (write true)
// scopeID, else FORBIDDEN. Adapters that serve a scope's data outside the Cortex's own methods
// call it first.
func Authorize(ctx context.Context, scopeID string, write bool) error {
	p := domain.PrincipalFrom(ctx)
	if write {
		if p.CanWrite(scopeID) {
			return nil
		}
		if p.CanRead(scopeID) {
			return domain.Errorf(domain.EFORBIDDEN, "this API key may only read scope %s", scopeID)
		}
	} else if p.CanRead(scopeID) {
		return nil
	}
	return domain.Errorf(domain.EFORBIDDEN, "this API key has no grant on scope %s", scopeID)
}

func mayRead(ctx context.Context, scopeID string) error  { return Authorize(ctx, scopeID, false) }
func mayWrite(ctx context.Context, scopeID string) error { return Authorize(ctx, scopeID, true) }

// needAdmin refuses every key but an ADMIN key.
func needAdmin(ctx context.Context, what string) error {
	if domain.PrincipalFrom(ctx).Admin() {
		return nil
	}
	return domain.Errorf(domain.EFORBIDDEN, "only an ADMIN key may %s", what)
}

// reach checks a record found by id that lies in scopeID: one the caller may not read is
// notFound (as if it did not exist); one it may read but not change, when write is asked,
// FORBIDDEN.
func reach(ctx context.Context, scopeID string, write bool, notFound func() error) error {
	p := domain.PrincipalFrom(ctx)
	if !p.CanRead(scopeID) {
		return notFound()
	}
	if write && !p.CanWrite(scopeID) {
		return domain.Errorf(domain.EFORBIDDEN, "this API key may only read scope %s", scopeID)
	}
	return nil
}

// restricted reports whether the caller of ctx is bound to one scope (and so what it is handed
// must be filtered).
func restricted(ctx context.Context) bool { return !domain.PrincipalFrom(ctx).Admin() }

// readable reports whether the caller of ctx may read scopeID.
func readable(ctx context.Context, scopeID string) bool {
	return domain.PrincipalFrom(ctx).CanRead(scopeID)
}

// visible keeps the items of xs whose scope the caller of ctx may read (xs itself when the
// caller is not restricted).
func visible[T any](ctx context.Context, xs []T, scope func(T) string) []T {
	p := domain.PrincipalFrom(ctx)
	if p.Admin() {
		return xs
	}
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		if p.CanRead(scope(x)) {
			out = append(out, x)
		}
	}
	return out
}

func notFoundf(format string, args ...any) func() error {
	return func() error { return domain.Errorf(domain.ENOTFOUND, format, args...) }
}

// subscriptions counts the open subscriptions of each key, against a cap.
type subscriptionCounter struct {
	mu   sync.Mutex
	max  int
	open map[string]int
	all  int
}

// acquire opens a subscription for the caller of ctx: SUBSCRIPTION_LIMIT_EXCEEDED beyond the cap
// of its key. release must be called once when it ends.
func (s *subscriptionCounter) acquire(ctx context.Context) (release func(), err error) {
	p := domain.PrincipalFrom(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p != nil && s.max > 0 && s.open[p.KeyID] >= s.max {
		return nil, domain.Errorf(domain.ESUBSCRIPTIONLIMIT, "this API key holds %d open subscriptions, the most it may (--max-subscriptions)", s.max)
	}
	key := p.Label()
	s.open[key]++
	s.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.open[key]--; s.open[key] <= 0 {
				delete(s.open, key)
			}
			s.all--
		})
	}, nil
}

// OpenSubscriptions is the number of subscriptions open now (all keys).
func (c *Cortex) OpenSubscriptions() int {
	c.subs.mu.Lock()
	defer c.subs.mu.Unlock()
	return c.subs.all
}

// subscribe opens a subscription for the caller of ctx: counted against its key's cap, and
// ended (the returned context cancelled) when ctx ends, when the key is revoked or expires, or
// when the server begins to shut down. Errors: SUBSCRIPTION_LIMIT_EXCEEDED.
func (c *Cortex) subscribe(ctx context.Context) (context.Context, error) {
	release, err := c.subs.acquire(ctx)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	p := domain.PrincipalFrom(ctx)
	var revoked <-chan struct{}
	var expiry <-chan time.Time
	var timer *time.Timer
	if p != nil {
		revoked = p.Revoked
		if p.ExpiresAt != nil {
			timer = time.NewTimer(time.Until(*p.ExpiresAt))
			expiry = timer.C
		}
	}
	go func() {
		defer release()
		defer cancel()
		if timer != nil {
			defer timer.Stop()
		}
		select {
		case <-sctx.Done():
		case <-revoked:
		case <-expiry:
		case <-c.ending:
		}
	}()
	return sctx, nil
}

// MemoryEvents streams a scope's events as they are committed (from any server on the same
// graph). The channel closes when ctx ends, the key is revoked or expires, or the server shuts
// down. Errors: INVALID_ARGUMENT, FORBIDDEN, NOT_FOUND, SUBSCRIPTION_LIMIT_EXCEEDED.
func (c *Cortex) MemoryEvents(ctx context.Context, scopeID string) (<-chan *domain.Event, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	sctx, err := c.subscribe(ctx)
	if err != nil {
		return nil, err
	}
	return c.log.Subscribe(sctx, c.log.Head(), func(e *domain.Event) bool { return e.ScopeID == scopeID }), nil
}

// ---- API keys ----

func (c *Cortex) keyring() (*Keyring, error) {
	if c.keys == nil {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no API keys")
	}
	return c.keys, nil
}

// CreateAPIKey creates an API key and returns it with its secret, shown this once.
// Errors: FORBIDDEN (not ADMIN), INVALID_ARGUMENT, NOT_FOUND (the scope), UNAVAILABLE.
func (c *Cortex) CreateAPIKey(ctx context.Context, in APIKeyInput) (*NewAPIKey, error) {
	if err := needAdmin(ctx, "create API keys"); err != nil {
		return nil, err
	}
	k, err := c.keyring()
	if err != nil {
		return nil, err
	}
	return k.Create(ctx, in)
}

// RevokeAPIKey revokes an API key everywhere; what it holds open ends.
// Errors: FORBIDDEN (not ADMIN), INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE.
func (c *Cortex) RevokeAPIKey(ctx context.Context, id string) (*domain.APIKey, error) {
	if err := needAdmin(ctx, "revoke API keys"); err != nil {
		return nil, err
	}
	k, err := c.keyring()
	if err != nil {
		return nil, err
	}
	return k.Revoke(ctx, id)
}

// APIKeys lists every API key (never a secret), oldest first. Errors: FORBIDDEN (not ADMIN),
// UNAVAILABLE.
func (c *Cortex) APIKeys(ctx context.Context) ([]*domain.APIKey, error) {
	if err := needAdmin(ctx, "list API keys"); err != nil {
		return nil, err
	}
	k, err := c.keyring()
	if err != nil {
		return nil, err
	}
	return k.List(ctx)
}

// Authenticate returns the principal of an API key's secret; client and path are audited with
// a refusal. Errors: UNAUTHENTICATED, UNAVAILABLE.
func (c *Cortex) Authenticate(ctx context.Context, secret, client, path string) (*domain.Principal, error) {
	k, err := c.keyring()
	if err != nil {
		return nil, err
	}
	return k.Authenticate(ctx, secret, client, path)
}

// Keys is the keyring (nil when the store keeps no keys).
func (c *Cortex) Keys() *Keyring { return c.keys }
