package recall

import (
	"context"
	"sort"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// ReflectionReason says why a memory needs the mind's judgment (MSG-0006).
type ReflectionReason string

const (
	// ReasonStale: not stored, retrieved, claimed or reclassified for the stale span.
	ReasonStale ReflectionReason = "STALE"
	// ReasonInTimeSpan: it occurred within the asked time span.
	ReasonInTimeSpan ReflectionReason = "IN_TIME_SPAN"
	// ReasonWeaklyAssociated: no association, or none as strong as the asked strength.
	ReasonWeaklyAssociated ReflectionReason = "WEAKLY_ASSOCIATED"
)

// ReflectCriteria say which memories to surface. A memory is a candidate when it meets at least
// one asked criterion; Tiers only narrow.
type ReflectCriteria struct {
	StaleAfter time.Duration // 0: staleness not asked
	From, To   *time.Time    // both nil: time span not asked
	WeakBelow  *float64      // nil: weak associations not asked
	Tiers      []domain.Tier
	Limit      int
}

// Defaults and limits of reflection.
const (
	DefaultStaleAfter = 30 * 24 * time.Hour
	DefaultWeakBelow  = 0.3
	DefaultReflectMax = 50
	MaxReflectLimit   = 1000
	MaxReflectScanned = 200000
	reflectPageSize   = 2000
)

// DefaultReflectCriteria are used when the mind asks for none: stale for 30 days, or weakly
// associated (nothing of strength 0.3 or more).
func DefaultReflectCriteria() ReflectCriteria {
	w := DefaultWeakBelow
	return ReflectCriteria{StaleAfter: DefaultStaleAfter, WeakBelow: &w, Limit: DefaultReflectMax}
}

// ReflectionCandidate is a memory needing judgment, with the reasons and what they rest on.
type ReflectionCandidate struct {
	Memory       *domain.Memory
	Reasons      []ReflectionReason
	ReinforcedAt time.Time
	Associations int
	Strongest    float64
}

// Judge returns the reasons row is a candidate under c at now.
func (c ReflectCriteria) Judge(row *domain.ReflectRow, now time.Time) []ReflectionReason {
	var out []ReflectionReason
	if c.StaleAfter > 0 && !reinforcedAt(row).After(now.Add(-c.StaleAfter)) {
		out = append(out, ReasonStale)
	}
	if c.From != nil || c.To != nil {
		at := row.Memory.OccurredAt
		if (c.From == nil || !at.Before(*c.From)) && (c.To == nil || at.Before(*c.To)) {
			out = append(out, ReasonInTimeSpan)
		}
	}
	if c.WeakBelow != nil && (row.Associations == 0 || row.Strongest < *c.WeakBelow) {
		out = append(out, ReasonWeaklyAssociated)
	}
	return out
}

func reinforcedAt(row *domain.ReflectRow) time.Time {
	if row.ReinforcedAt != nil {
		return *row.ReinforcedAt
	}
	at := row.Memory.CreatedAt
	if row.Memory.LastAccessedAt != nil && row.Memory.LastAccessedAt.After(at) {
		at = *row.Memory.LastAccessedAt
	}
	return at
}

// Reflect assembles the reflection set of a scope: the candidates meeting c, most reasons
// first, then the longest unreinforced. It scans the scope in storage order and stops once it
// has Limit candidates (or after MaxReflectScanned memories).
func Reflect(ctx context.Context, st domain.LivingStore, scopeID string, c ReflectCriteria, now time.Time) ([]*ReflectionCandidate, error) {
	limit := c.Limit
	if limit <= 0 {
		limit = DefaultReflectMax
	}
	f := domain.ReflectFilter{Tiers: c.Tiers, From: c.From, To: c.To, Weak: c.WeakBelow != nil}
	if c.StaleAfter > 0 {
		before := now.Add(-c.StaleAfter)
		f.StaleBefore = &before
	}
	out := []*ReflectionCandidate{}
	cursor, scanned := "", 0
	for len(out) < limit && scanned < MaxReflectScanned {
		rows, next, err := st.ReflectRows(ctx, scopeID, f, cursor, reflectPageSize)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			scanned++
			if reasons := c.Judge(r, now); len(reasons) > 0 {
				out = append(out, &ReflectionCandidate{Memory: r.Memory, Reasons: reasons, ReinforcedAt: reinforcedAt(r),
					Associations: r.Associations, Strongest: r.Strongest})
				if len(out) == limit {
					break
				}
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].Reasons) != len(out[j].Reasons) {
			return len(out[i].Reasons) > len(out[j].Reasons)
		}
		if !out[i].ReinforcedAt.Equal(out[j].ReinforcedAt) {
			return out[i].ReinforcedAt.Before(out[j].ReinforcedAt)
		}
		return out[i].Memory.ID < out[j].Memory.ID
	})
	return out, nil
}
