package graph

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

const scopeQuery = `uid tr.id scope.name scope.createdAt
kernels: ~kernel.of { uid tr.id tr.scope kernel.family kernel.content kernel.updatedAt kernel.version }`

type kernelNode struct {
	UID       string    `json:"uid"`
	ID        string    `json:"tr.id"`
	Scope     string    `json:"tr.scope"`
	Family    string    `json:"kernel.family"`
	Content   string    `json:"kernel.content"`
	UpdatedAt time.Time `json:"kernel.updatedAt"`
	Version   int64     `json:"kernel.version"`
}

func (n *kernelNode) kernel() *domain.Kernel {
	return &domain.Kernel{ID: n.ID, ScopeID: n.Scope, Family: domain.KernelFamily(n.Family),
		Content: n.Content, UpdatedAt: n.UpdatedAt.UTC()}
}

type scopeNode struct {
	UID       string       `json:"uid"`
	ID        string       `json:"tr.id"`
	Name      string       `json:"scope.name"`
	CreatedAt time.Time    `json:"scope.createdAt"`
	Kernels   []kernelNode `json:"kernels"`
}

func (n *scopeNode) scope() *domain.Scope {
	s := &domain.Scope{ID: n.ID, Name: n.Name, CreatedAt: n.CreatedAt.UTC()}
	for i := range n.Kernels {
		k := n.Kernels[i].kernel()
		switch k.Family {
		case domain.FamilyAgentKernel:
			s.AgentKernel = k
		case domain.FamilyWorldKernel:
			s.WorldKernel = k
		}
	}
	return s
}

// CreateScope persists s with exactly its two kernels.
func (s *Store) CreateScope(ctx context.Context, req domain.Request, sc *domain.Scope, events []*domain.Event) (*domain.Scope, error) {
	if sc.AgentKernel == nil || sc.WorldKernel == nil {
		return nil, domain.Errorf(domain.EINVALID, "a scope is created with exactly one agent and one world kernel")
	}
	return write(ctx, s, &req, func(t *tx) (*domain.Scope, error) {
		var r struct {
			Q []struct {
				UID string `json:"uid"`
			} `json:"q"`
		}
		if err := t.query(`{ q(func: eq(tr.id, `+idList([]string{sc.ID, sc.AgentKernel.ID, sc.WorldKernel.ID})+`)) { uid } }`, nil, &r); err != nil {
			return nil, err
		}
		if len(r.Q) > 0 {
			return nil, domain.Errorf(domain.ECONFLICT, "scope or kernel id already exists")
		}
		t.inScope(sc.ID)
		t.set(map[string]any{"uid": "_:scope", "dgraph.type": kindScope, "tr.kind": kindScope,
			"tr.id": sc.ID, "tr.scope": sc.ID, "scope.name": sc.Name, "scope.createdAt": ts(sc.CreatedAt)})
		for i, k := range []*domain.Kernel{sc.AgentKernel, sc.WorldKernel} {
			t.set(map[string]any{"uid": "_:k" + string(rune('0'+i)), "dgraph.type": kindKernel, "tr.kind": kindKernel,
				"tr.id": k.ID, "tr.scope": sc.ID, "kernel.family": string(k.Family), "kernel.content": k.Content,
				"kernel.updatedAt": ts(k.UpdatedAt), "kernel.version": 1, "kernel.of": map[string]any{"uid": "_:scope"}})
		}
		t.emit(events...)
		t.onCommit(func(map[string]string) { s.listScope(sc.ID) })
		return sc, nil
	})
}

// Scope loads one scope with its kernels.
func (s *Store) Scope(ctx context.Context, id string) (*domain.Scope, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", id)
	}
	var r struct {
		Q []scopeNode `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Scope")) { `+scopeQuery+` } }`,
		map[string]string{"$id": id}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %s not found", id)
	}
	return r.Q[0].scope(), nil
}

// Scopes lists every scope, oldest first.
func (s *Store) Scopes(ctx context.Context) ([]*domain.Scope, error) {
	// Sorted results are capped at 1000 unless paged: page by uid, then sort.
	const page = 1000
	var out []*domain.Scope
	after := "0x0"
	for {
		var r struct {
			Q []scopeNode `json:"q"`
		}
		if err := s.read(ctx, fmt.Sprintf(`{ q(func: eq(tr.kind, "Scope"), first: %d, after: %s) { %s } }`, page, after, scopeQuery), nil, &r); err != nil {
			return nil, err
		}
		for i := range r.Q {
			out = append(out, r.Q[i].scope())
			after = r.Q[i].UID
		}
		if len(r.Q) < page {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// UpdateKernel runs a read-modify-write of one kernel.
func (s *Store) UpdateKernel(ctx context.Context, req domain.Request, kernelID string, fn domain.KernelUpdate) (*domain.Kernel, error) {
	if !domain.ValidID(kernelID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "kernel %q not found", kernelID)
	}
	return write(ctx, s, &req, func(t *tx) (*domain.Kernel, error) {
		var r struct {
			Q []kernelNode `json:"q"`
		}
		if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Kernel")) { uid tr.id tr.scope kernel.family kernel.content kernel.updatedAt kernel.version } }`,
			map[string]string{"$id": kernelID}, &r); err != nil {
			return nil, err
		}
		if len(r.Q) == 0 {
			return nil, domain.Errorf(domain.ENOTFOUND, "kernel %s not found", kernelID)
		}
		n := r.Q[0]
		t.inScope(n.Scope)
		k := n.kernel()
		evs, err := fn(k)
		if err != nil {
			return nil, err
		}
		t.set(map[string]any{"uid": n.UID, "kernel.content": k.Content, "kernel.updatedAt": ts(k.UpdatedAt),
			"kernel.version": n.Version + 1})
		t.emit(evs...)
		return k, nil
	})
}

// listScope notes that a write found the scope (under mu; embedded only). The list is
// bounded: full, it starts again.
func (s *Store) listScope(id string) {
	if !s.embedded {
		return
	}
	if s.knownScopes == nil || len(s.knownScopes) >= maxKnownScopes {
		s.knownScopes = map[string]bool{}
	}
	s.knownScopes[id] = true
}

// maxKnownScopes bounds Store.knownScopes.
const maxKnownScopes = 100_000
