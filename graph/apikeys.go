package graph

import (
	"context"
	"sort"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// API keys are nodes of their own kind. A key's scope is key.scope, not tr.scope: deleting a
// scope leaves its keys listed (granting nothing) until they are revoked. Only the SHA-256 of
// the secret is kept (key.hash, looked up on every authentication that misses the cache).
func init() {
	schemaParts = append(schemaParts, `
key.hash: string @index(exact) @upsert .
key.name: string .
key.role: string .
key.scope: string .
key.createdAt: datetime .
key.expiresAt: datetime .
key.revokedAt: datetime .
key.lastUsedAt: datetime .

type ApiKey {
  tr.kind
  tr.id
  key.hash
  key.name
  key.role
  key.scope
  key.createdAt
  key.expiresAt
  key.revokedAt
  key.lastUsedAt
}
`)
}

const kindAPIKey = "ApiKey"

var _ domain.KeyStore = (*Store)(nil)

const apiKeyFields = `uid tr.id key.hash key.name key.role key.scope key.createdAt key.expiresAt key.revokedAt key.lastUsedAt`

type apiKeyNode struct {
	UID        string     `json:"uid"`
	ID         string     `json:"tr.id"`
	Hash       string     `json:"key.hash"`
	Name       string     `json:"key.name"`
	Role       string     `json:"key.role"`
	Scope      string     `json:"key.scope"`
	CreatedAt  time.Time  `json:"key.createdAt"`
	ExpiresAt  *time.Time `json:"key.expiresAt"`
	RevokedAt  *time.Time `json:"key.revokedAt"`
	LastUsedAt *time.Time `json:"key.lastUsedAt"`
}

func (n *apiKeyNode) key() *domain.APIKey {
	return &domain.APIKey{ID: n.ID, Name: n.Name, Role: domain.Role(n.Role), ScopeID: n.Scope, Hash: n.Hash,
		CreatedAt: n.CreatedAt.UTC(), ExpiresAt: utcPtr(n.ExpiresAt), RevokedAt: utcPtr(n.RevokedAt), LastUsedAt: utcPtr(n.LastUsedAt)}
}

// InsertAPIKey persists a new key with its events.
func (s *Store) InsertAPIKey(ctx context.Context, k *domain.APIKey, events []*domain.Event) error {
	if !domain.ValidID(k.ID) || k.Hash == "" {
		return domain.Errorf(domain.EINVALID, "an API key needs an id and a hash")
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		var r struct {
			I []struct {
				UID string `json:"uid"`
			} `json:"i"`
			H []struct {
				UID string `json:"uid"`
			} `json:"h"`
		}
		if err := t.query(`query q($id: string, $h: string) { i(func: eq(tr.id, $id)) { uid } h(func: eq(key.hash, $h)) { uid } }`,
			map[string]string{"$id": k.ID, "$h": k.Hash}, &r); err != nil {
			return struct{}{}, err
		}
		if len(r.I) > 0 || len(r.H) > 0 {
			return struct{}{}, domain.Errorf(domain.ECONFLICT, "API key id or secret already exists")
		}
		obj := map[string]any{"uid": "_:key", "dgraph.type": kindAPIKey, "tr.kind": kindAPIKey, "tr.id": k.ID,
			"key.hash": k.Hash, "key.name": k.Name, "key.role": string(k.Role), "key.createdAt": ts(k.CreatedAt)}
		if k.ScopeID != "" {
			obj["key.scope"] = k.ScopeID
		}
		if k.ExpiresAt != nil {
			obj["key.expiresAt"] = ts(*k.ExpiresAt)
		}
		t.set(obj)
		t.emit(events...)
		return struct{}{}, nil
	})
	return err
}

// APIKeys lists every key, oldest first.
func (s *Store) APIKeys(ctx context.Context) ([]*domain.APIKey, error) {
	var out []*domain.APIKey
	err := pagesOf(ctx, s, "key.hash", apiKeyFields, 1000, decode, func(n *apiKeyNode) string { return n.UID },
		func(n *apiKeyNode) (bool, error) {
			out = append(out, n.key())
			return true, nil
		})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

func (s *Store) oneKey(ctx context.Context, pred, value string) (*domain.APIKey, error) {
	var r struct {
		Q []apiKeyNode `json:"q"`
	}
	if err := s.read(ctx, `query q($v: string) { q(func: eq(`+pred+`, $v)) @filter(eq(tr.kind, "ApiKey")) { `+apiKeyFields+` } }`,
		map[string]string{"$v": value}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "API key not found")
	}
	return r.Q[0].key(), nil
}

// APIKey loads one key by id.
func (s *Store) APIKey(ctx context.Context, id string) (*domain.APIKey, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "API key %q not found", id)
	}
	k, err := s.oneKey(ctx, "tr.id", id)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil, domain.Errorf(domain.ENOTFOUND, "API key %s not found", id)
	}
	return k, err
}

// APIKeyByHash loads the key whose secret hashes to hash.
func (s *Store) APIKeyByHash(ctx context.Context, hash string) (*domain.APIKey, error) {
	if hash == "" {
		return nil, domain.Errorf(domain.ENOTFOUND, "API key not found")
	}
	return s.oneKey(ctx, "key.hash", hash)
}

// RevokeAPIKey marks a key revoked (once) and commits fn's events.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time, fn func(k *domain.APIKey) ([]*domain.Event, error)) (*domain.APIKey, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "API key %q not found", id)
	}
	return write(ctx, s, nil, func(t *tx) (*domain.APIKey, error) {
		var r struct {
			Q []apiKeyNode `json:"q"`
		}
		if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "ApiKey")) { `+apiKeyFields+` } }`,
			map[string]string{"$id": id}, &r); err != nil {
			return nil, err
		}
		if len(r.Q) == 0 {
			return nil, domain.Errorf(domain.ENOTFOUND, "API key %s not found", id)
		}
		k := r.Q[0].key()
		evs, err := fn(k)
		if err != nil {
			return nil, err
		}
		if k.RevokedAt == nil {
			when := at.UTC()
			k.RevokedAt = &when
			t.set(map[string]any{"uid": r.Q[0].UID, "key.revokedAt": ts(when)})
		}
		t.emit(evs...)
		return k, nil
	})
}

// TouchAPIKeys records the keys' last use; earlier times than those kept are ignored.
func (s *Store) TouchAPIKeys(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	_, err := write(ctx, s, nil, func(t *tx) (struct{}, error) {
		var r struct {
			Q []apiKeyNode `json:"q"`
		}
		if err := t.query(`{ q(func: eq(tr.id, `+idList(ids)+`)) @filter(eq(tr.kind, "ApiKey")) { uid tr.id key.lastUsedAt } }`, nil, &r); err != nil {
			return struct{}{}, err
		}
		for _, n := range r.Q {
			at := used[n.ID]
			if n.LastUsedAt != nil && !at.After(*n.LastUsedAt) {
				continue
			}
			t.set(map[string]any{"uid": n.UID, "key.lastUsedAt": ts(at)})
		}
		return struct{}{}, nil
	})
	return err
}
