package domain

import (
	"fmt"
	"io"
	"strconv"
)

// Tier is where a memory lives; memories sink through tiers unless claimed.
type Tier string

const (
	TierIdentityCore  Tier = "IDENTITY_CORE"
	TierActiveContext Tier = "ACTIVE_CONTEXT"
	TierLongTerm      Tier = "LONG_TERM"
	TierArchive       Tier = "ARCHIVE"
)

// Tiers lists every tier from the most to the least prominent.
var Tiers = []Tier{TierIdentityCore, TierActiveContext, TierLongTerm, TierArchive}

// MemoryKind is the typed record kind of seed 004.
type MemoryKind string

const (
	KindEpisodic      MemoryKind = "EPISODIC"
	KindSemantic      MemoryKind = "SEMANTIC"
	KindObservational MemoryKind = "OBSERVATIONAL"
)

// Kinds lists every memory kind.
var Kinds = []MemoryKind{KindEpisodic, KindSemantic, KindObservational}

// AssociationType is the type of a bidirectional association between two memories.
type AssociationType string

const (
	AssocTemporal  AssociationType = "TEMPORAL"
	AssocCausal    AssociationType = "CAUSAL"
	AssocThematic  AssociationType = "THEMATIC"
	AssocEmotional AssociationType = "EMOTIONAL"
	AssocPerson    AssociationType = "PERSON"
)

// AssociationTypes lists every association type.
var AssociationTypes = []AssociationType{AssocTemporal, AssocCausal, AssocThematic, AssocEmotional, AssocPerson}

// Direction says what associateMemories does to an association.
type Direction string

const (
	DirCreate     Direction = "CREATE"
	DirStrengthen Direction = "STRENGTHEN"
	DirWeaken     Direction = "WEAKEN"
)

// Directions lists every direction.
var Directions = []Direction{DirCreate, DirStrengthen, DirWeaken}

// LifecycleState is the seed 004 lifecycle of an artifact.
type LifecycleState string

const (
	StateActive   LifecycleState = "ACTIVE"
	StateArchived LifecycleState = "ARCHIVED"
)

// LifecycleStates lists every state a stored memory can be in.
var LifecycleStates = []LifecycleState{StateActive, StateArchived}

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return oneOf(t, Tiers) }

// Rank orders tiers: 0 for IDENTITY_CORE up to 3 for ARCHIVE.
func (t Tier) Rank() int {
	for i, x := range Tiers {
		if x == t {
			return i
		}
	}
	return len(Tiers)
}

// Valid reports whether k is a known kind.
func (k MemoryKind) Valid() bool { return oneOf(k, Kinds) }

// Valid reports whether a is a known association type.
func (a AssociationType) Valid() bool { return oneOf(a, AssociationTypes) }

// Valid reports whether d is a known direction.
func (d Direction) Valid() bool { return oneOf(d, Directions) }

// Valid reports whether s is a known state.
func (s LifecycleState) Valid() bool { return oneOf(s, LifecycleStates) }

func oneOf[T comparable](v T, all []T) bool {
	for _, x := range all {
		if x == v {
			return true
		}
	}
	return false
}

// The GraphQL layer marshals enums through these methods (gqlgen's Marshaler contract), so the
// domain types serve as the API's enums without the domain importing gqlgen.

func unmarshalEnum[T ~string](v any, name string, valid func(T) bool, out *T) error {
	s, ok := v.(string)
	if !ok {
		return FieldErrorf(name, "must be a string")
	}
	if !valid(T(s)) {
		return FieldErrorf(name, "unknown value %q", s)
	}
	*out = T(s)
	return nil
}

func (t *Tier) UnmarshalGQL(v any) error { return unmarshalEnum(v, "Tier", Tier.Valid, t) }
func (t Tier) MarshalGQL(w io.Writer)    { fmt.Fprint(w, strconv.Quote(string(t))) }
func (k *MemoryKind) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "MemoryKind", MemoryKind.Valid, k)
}
func (k MemoryKind) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(k))) }
func (a *AssociationType) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "AssociationType", AssociationType.Valid, a)
}
func (a AssociationType) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(a))) }
func (d *Direction) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "Direction", Direction.Valid, d)
}
func (d Direction) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(d))) }
func (s *LifecycleState) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "LifecycleState", LifecycleState.Valid, s)
}
func (s LifecycleState) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(s))) }
