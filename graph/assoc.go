package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// Associations are one edge per pair and type, stored from the smaller memory id to the larger
// (predicate assoc.TYPE, @reverse, facets strength, cost = 1 − strength, updatedAt). Read from
// either end through the edge or its reverse, both ends see the same edge and strength.

func assocPred(t domain.AssociationType) string { return "assoc." + string(t) }

// Associate reads and writes the association of type at between two memories of one scope.
func (s *Store) Associate(ctx context.Context, req domain.Request, sourceID, targetID string, at domain.AssociationType, fn domain.AssociationUpdate) (*domain.Association, error) {
	if !at.Valid() {
		return nil, domain.FieldErrorf("type", "unknown association type %q", at)
	}
	if sourceID == targetID {
		return nil, domain.FieldErrorf("targetId", "a memory cannot be associated with itself")
	}
	pred := assocPred(at)
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Association, error) {
		src, err := t.memoryByID(sourceID)
		if err != nil {
			return nil, err
		}
		dst, err := t.memoryByID(targetID)
		if err != nil {
			return nil, err
		}
		// The cross-scope reference ban, enforced inside the write: nothing is written.
		if src.Scope != dst.Scope {
			return nil, domain.Errorf(domain.ECROSSSCOPE,
				"memory %s and memory %s belong to different scopes", sourceID, targetID)
		}
		t.inScope(src.Scope)
		lo, hi := src, dst
		if hi.ID < lo.ID {
			lo, hi = hi, lo
		}
		var r struct {
			Q []map[string]any `json:"q"`
		}
		q := fmt.Sprintf(`{ q(func: uid(%s)) { %s @filter(uid(%s)) @facets(strength, updatedAt) { uid } } }`, lo.UID, pred, hi.UID)
		if err := t.query(q, nil, &r); err != nil {
			return nil, err
		}
		var cur *domain.Association
		if len(r.Q) > 0 {
			if edges, ok := r.Q[0][pred].([]any); ok && len(edges) > 0 {
				e, _ := edges[0].(map[string]any)
				cur = &domain.Association{SourceID: sourceID, TargetID: targetID, ScopeID: src.Scope, Type: at,
					Strength: num(e[pred+"|strength"]), UpdatedAt: facetTime(e[pred+"|updatedAt"])}
			}
		}
		sm, err := src.memory()
		if err != nil {
			return nil, err
		}
		dm, err := dst.memory()
		if err != nil {
			return nil, err
		}
		next, evs, err := fn(cur, sm, dm)
		if err != nil {
			return nil, err
		}
		if next == nil {
			t.del(map[string]any{"uid": lo.UID, pred: map[string]any{"uid": hi.UID}})
		} else {
			if next.Strength < 0 || next.Strength > 1 {
				return nil, domain.FieldErrorf("strength", "must be within 0..1")
			}
			t.set(map[string]any{"uid": lo.UID, pred: map[string]any{
				"uid": hi.UID, pred + "|strength": next.Strength, pred + "|cost": 1 - next.Strength,
				pred + "|updatedAt": ts(next.UpdatedAt),
			}})
		}
		// Concurrent writers of the pair conflict on the versions and retry.
		t.set(map[string]any{"uid": src.UID, "mem.version": src.Version + 1})
		t.set(map[string]any{"uid": dst.UID, "mem.version": dst.Version + 1})
		t.emit(evs...)
		return next, nil
	})
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}

func facetTime(v any) time.Time {
	s, _ := v.(string)
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t.UTC()
}

// Associations lists the associations of a memory, seen from it, strongest first.
func (s *Store) Associations(ctx context.Context, memoryID string, types []domain.AssociationType, minStrength float64) ([]*domain.Association, error) {
	if !domain.ValidID(memoryID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %q not found", memoryID)
	}
	if len(types) == 0 {
		types = domain.AssociationTypes
	}
	var b strings.Builder
	for _, at := range types {
		if !at.Valid() {
			return nil, domain.FieldErrorf("types", "unknown association type %q", at)
		}
		p := assocPred(at)
		fmt.Fprintf(&b, "%s @facets(strength, updatedAt) { tr.id } ~%s @facets(strength, updatedAt) { tr.id } ", p, p)
	}
	var r struct {
		Q []map[string]any `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Memory")) { tr.id tr.scope `+b.String()+` } }`,
		map[string]string{"$id": memoryID}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", memoryID)
	}
	row := r.Q[0]
	scope, _ := row["tr.scope"].(string)
	out := []*domain.Association{}
	eachEdge(row, types, func(at domain.AssociationType, key string, st float64, em map[string]any) {
		if other, _ := em["tr.id"].(string); other != "" && st >= minStrength {
			out = append(out, &domain.Association{SourceID: memoryID, TargetID: other, ScopeID: scope,
				Type: at, Strength: st, UpdatedAt: facetTime(em[key+"|updatedAt"])})
		}
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Strength != out[j].Strength {
			return out[i].Strength > out[j].Strength
		}
		return out[i].TargetID < out[j].TargetID
	})
	return out, nil
}
