package domain

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The lifecycle of seed 004's artifacts: six families, the refgraph between them, the digest
// that archives in one pass and removes in a later one, explicit deletion and scope deletion.

// ArtifactFamily is one of seed 004's six artifact families. Every artifact belongs to exactly
// one scope and one family.
type ArtifactFamily string

const (
	FamAgentKernel  ArtifactFamily = "agent_model_kernel"
	FamWorldKernel  ArtifactFamily = "world_model_kernel"
	FamMemory       ArtifactFamily = "memory"
	FamKnowledge    ArtifactFamily = "knowledge"
	FamSkill        ArtifactFamily = "skill"
	FamWorkingState ArtifactFamily = "working_state"
)

// ArtifactFamilies lists every family: kernels are core truth, memory / knowledge / skill are
// advisory, working state is never served as truth.
var ArtifactFamilies = []ArtifactFamily{FamAgentKernel, FamWorldKernel, FamMemory, FamKnowledge, FamSkill, FamWorkingState}

// Valid reports whether f is a known family.
func (f ArtifactFamily) Valid() bool { return oneOf(f, ArtifactFamilies) }

// Kernel reports whether f is one of the two kernel families (never cleaned up).
func (f ArtifactFamily) Kernel() bool { return f == FamAgentKernel || f == FamWorldKernel }

// Digestible reports whether the digest may archive and remove artifacts of f.
func (f ArtifactFamily) Digestible() bool {
	return f == FamMemory || f == FamKnowledge || f == FamSkill
}

// Searchable reports whether artifacts of f are served by search.
func (f ArtifactFamily) Searchable() bool { return f.Digestible() }

// KnowledgeType types a knowledge page.
type KnowledgeType string

const (
	KnowConcept   KnowledgeType = "CONCEPT"
	KnowEntity    KnowledgeType = "ENTITY"
	KnowFact      KnowledgeType = "FACT"
	KnowProcedure KnowledgeType = "PROCEDURE"
	KnowDecision  KnowledgeType = "DECISION"
	KnowSummary   KnowledgeType = "SUMMARY"
)

// KnowledgeTypes lists every knowledge page type.
var KnowledgeTypes = []KnowledgeType{KnowConcept, KnowEntity, KnowFact, KnowProcedure, KnowDecision, KnowSummary,
	KnowNarrative, KnowJournal}

// Valid reports whether k is a known knowledge type.
func (k KnowledgeType) Valid() bool { return oneOf(k, KnowledgeTypes) }

// SkillType types an advisory bundle.
type SkillType string

const (
	SkillBlueprint SkillType = "BLUEPRINT"
	SkillProcedure SkillType = "PROCEDURE"
	SkillHeuristic SkillType = "HEURISTIC"
	SkillToolUse   SkillType = "TOOL_USE"
)

// SkillTypes lists every skill type.
var SkillTypes = []SkillType{SkillBlueprint, SkillProcedure, SkillHeuristic, SkillToolUse}

// Valid reports whether s is a known skill type.
func (s SkillType) Valid() bool { return oneOf(s, SkillTypes) }

// Artifact is a knowledge page, a skill or a working state: the families other than kernels and
// memories. Type is a KnowledgeType or SkillType (empty for working state).
type Artifact struct {
	ID       string         `json:"id"`
	ScopeID  string         `json:"scopeId"`
	Family   ArtifactFamily `json:"family"`
	Type     string         `json:"type,omitempty"`
	Title    string         `json:"title"`
	Content  string         `json:"content"`
	Steps    []string       `json:"steps,omitempty"`
	Tags     []string       `json:"tags"`
	Metadata map[string]any `json:"metadata"`
	// State is ACTIVE or ARCHIVED; working state is always ACTIVE.
	State     LifecycleState `json:"state"`
	SessionID string         `json:"sessionId,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Version   int64          `json:"version"`
	// Archive says why and when it was archived (nil while active and never archived).
	Archive *ArchiveRecord `json:"archive,omitempty"`
}

// Clone returns a deep copy.
func (a *Artifact) Clone() *Artifact {
	if a == nil {
		return nil
	}
	c := *a
	c.Steps = append([]string(nil), a.Steps...)
	c.Tags = append([]string(nil), a.Tags...)
	if a.Metadata != nil {
		c.Metadata = make(map[string]any, len(a.Metadata))
		for k, v := range a.Metadata {
			c.Metadata[k] = v
		}
	}
	if a.Archive != nil {
		r := *a.Archive
		r.Reasons = append([]Reason(nil), a.Archive.Reasons...)
		c.Archive = &r
	}
	return &c
}

// ArchiveRecord is the service-owned record of an archival: the digest pass and the typed
// reasons (with the references behind them) that made it. RestoredAt is set by a restore.
type ArchiveRecord struct {
	ReportID   string     `json:"reportId,omitempty"`
	ArchivedAt time.Time  `json:"archivedAt"`
	Reasons    []Reason   `json:"reasons,omitempty"`
	RestoredAt *time.Time `json:"restoredAt,omitempty"`
}

// ArtifactFilter narrows a list of artifacts; empty fields do not filter. States defaults to
// ACTIVE at the boundary.
type ArtifactFilter struct {
	Types  []string
	Tags   []string
	States []LifecycleState
}

// ArtifactPage is one page of artifacts and the cursor for the next.
type ArtifactPage struct {
	Artifacts  []*Artifact
	EndCursor  string
	HasNext    bool
	TotalCount int
}

// RefType is the type of a reference of the refgraph: a directed, typed edge from one artifact
// to another of the same scope.
type RefType string

const (
	// RefSupports: the source is evidence for the target.
	RefSupports RefType = "SUPPORTS"
	// RefDerivedFrom: the source was derived from the target (lineage).
	RefDerivedFrom RefType = "DERIVED_FROM"
	// RefDependsOn: the source is only valid while the target is.
	RefDependsOn RefType = "DEPENDS_ON"
	// RefCites: the source mentions the target.
	RefCites RefType = "CITES"
	// RefContradicts: the source disputes the target.
	RefContradicts RefType = "CONTRADICTS"
)

// RefTypes lists every reference type.
var RefTypes = []RefType{RefSupports, RefDerivedFrom, RefDependsOn, RefCites, RefContradicts}

// Valid reports whether t is a known reference type.
func (t RefType) Valid() bool { return oneOf(t, RefTypes) }

// Supporting reports whether a reference of type t, from an active artifact, keeps its target
// in service: everything but a contradiction.
func (t RefType) Supporting() bool { return t != RefContradicts }

// Dependency reports whether the source rests on the target (so the source is unhealthy when
// the target leaves service).
func (t RefType) Dependency() bool { return t == RefDependsOn || t == RefDerivedFrom }

// EndState is the health of one end of a reference.
type EndState string

const (
	EndActive    EndState = "ACTIVE"
	EndArchived  EndState = "ARCHIVED"
	EndRemoved   EndState = "REMOVED"
	EndTransient EndState = "TRANSIENT" // working state: present, never truth
)

// Reference is one edge of the refgraph with the health of both ends.
type Reference struct {
	ID           string         `json:"id"`
	ScopeID      string         `json:"scopeId"`
	Type         RefType        `json:"type"`
	SourceID     string         `json:"sourceId"`
	SourceFamily ArtifactFamily `json:"sourceFamily"`
	SourceState  EndState       `json:"sourceState"`
	TargetID     string         `json:"targetId"`
	TargetFamily ArtifactFamily `json:"targetFamily,omitempty"`
	TargetState  EndState       `json:"targetState"`
	CreatedAt    time.Time      `json:"createdAt"`
}

// refNamespace makes reference ids: one reference per source, type and target.
var refNamespace = uuid.MustParse("0d5c3b9e-7c1a-4f58-9a63-3b1f3c0e4a21")

// ReferenceID is the stable id of the reference of type t from source to target.
func ReferenceID(sourceID string, t RefType, targetID string) string {
	return uuid.NewSHA1(refNamespace, []byte(sourceID+"|"+string(t)+"|"+targetID)).String()
}

// RefID returns r's id, computing it when a bulk reader left it out (hashing every reference of
// a large scan costs more than reading it).
func (r *Reference) RefID() string {
	if r.ID == "" {
		r.ID = ReferenceID(r.SourceID, r.Type, r.TargetID)
	}
	return r.ID
}

// Healthy reports whether both ends are in service.
func (r *Reference) Healthy() bool {
	return (r.SourceState == EndActive || r.SourceState == EndTransient) && r.TargetState == EndActive
}

// Supports reports whether r keeps its target in service: a supporting type from an active,
// non-transient source.
func (r *Reference) Supports() bool { return r.Type.Supporting() && r.SourceState == EndActive }

// RefNode is an artifact as the refgraph sees it: its family, state, last use and references.
type RefNode struct {
	ID      string         `json:"id"`
	ScopeID string         `json:"scopeId"`
	Family  ArtifactFamily `json:"family"`
	// State is ACTIVE, ARCHIVED, REMOVED (a tombstone kept for references) or TRANSIENT.
	State EndState `json:"state"`
	// LastUsed is the latest of its creation or update, last retrieval and last restore.
	LastUsed time.Time `json:"lastUsed"`
	// Claimed memories resist decay: never stale; so do the pages of the story and the journal
	// (knowledge of type NARRATIVE or JOURNAL).
	Claimed bool           `json:"claimed,omitempty"`
	Archive *ArchiveRecord `json:"archive,omitempty"`
	// ArchivedBy is the report id of the digest pass that archived it, while that archive
	// lasts; empty when it is not archived, or was archived by anything but a digest pass (a
	// consolidation). Only such an artifact may be removed, by a later pass.
	ArchivedBy string       `json:"archivedBy,omitempty"`
	Out        []*Reference `json:"out,omitempty"`
	In         []*Reference `json:"in,omitempty"`
	// Memory or Artifact is the record itself, when the operation loaded it (DeleteArtifact).
	Memory   *Memory   `json:"memory,omitempty"`
	Artifact *Artifact `json:"artifact,omitempty"`
}

// CheckDependents is the dependents rule of an explicit delete: an artifact other artifacts
// reference (n.In, its incoming references) is refused with HAS_DEPENDENTS, naming them, unless
// cascade, which deletes it and leaves their references broken.
func CheckDependents(n *RefNode, cascade bool) error {
	if cascade || len(n.In) == 0 {
		return nil
	}
	who := make([]string, 0, len(n.In))
	for _, r := range n.In {
		who = append(who, fmt.Sprintf("%s %s %s (reference %s)", r.SourceFamily, r.SourceID, strings.ToLower(string(r.Type)), r.RefID()))
	}
	return Errorf(EHASDEPENDENTS, "%d artifact reference(s) point at %s: %s; delete with cascade to leave them broken",
		len(n.In), n.ID, strings.Join(who, "; "))
}

// ReasonCode types a digest reason.
type ReasonCode string

const (
	// ReasonUnsupported: no active artifact supports, cites, derives from or depends on it.
	ReasonUnsupported ReasonCode = "UNSUPPORTED"
	// ReasonBrokenReference: it cites, supports or contradicts an artifact that was archived or removed.
	ReasonBrokenReference ReasonCode = "BROKEN_REFERENCE"
	// ReasonUnhealthyDependency: it depends on or derives from an artifact that was archived or removed.
	ReasonUnhealthyDependency ReasonCode = "UNHEALTHY_DEPENDENCY"
	// ReasonContradicted: an active artifact contradicts it.
	ReasonContradicted ReasonCode = "CONTRADICTED"
	// ReasonStale: not used for longer than the pass's staleness window.
	ReasonStale ReasonCode = "STALE"
)

// Reason is one typed finding against an artifact, pointing at the references behind it.
type Reason struct {
	Code         ReasonCode `json:"code"`
	Detail       string     `json:"detail"`
	ReferenceIDs []string   `json:"referenceIds"`
}

// Proposal is a digest's proposal to archive one artifact.
type Proposal struct {
	ArtifactID string         `json:"artifactId"`
	Family     ArtifactFamily `json:"family"`
	Reasons    []Reason       `json:"reasons"`
}

// DigestReport is the record of one digest pass. Its proposals are kept apart, in artifact id
// order, and read a page at a time (LifecycleStore.DigestProposals): a first pass over a
// million memories proposes a million.
type DigestReport struct {
	ID        string    `json:"id"`
	ScopeID   string    `json:"scopeId"`
	At        time.Time `json:"at"`
	Evaluated int       `json:"evaluated"`
	// ProposalCount is how many proposals the pass made.
	ProposalCount int      `json:"proposalCount"`
	Archived      []string `json:"archived"`
	Removed       []string `json:"removed"`
	// StaleAfter is the staleness window the pass judged by.
	StaleAfter time.Duration `json:"staleAfter"`
}

// MaxProposalPage bounds the proposals one read of a report returns.
const MaxProposalPage = 10000

// EachProposalPage hands fn a report's proposals a page at a time, in artifact id order: read
// returns the page after artifact id after ("" for the first), empty past the last.
func EachProposalPage(read func(after string) ([]Proposal, error), fn func([]Proposal) error) error {
	for after := ""; ; {
		page, err := read(after)
		if err != nil || len(page) == 0 {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		after = page[len(page)-1].ArtifactID
	}
}

// ProposalWriter writes a propose pass's proposals ahead of the pass's own write, packed a page
// at a time, so that neither the pass nor its write holds them all (LifecycleStore.ProposalWriter).
// What it wrote is seen only once the pass's write commits with it (DigestPlan.Proposals); a
// pass whose write fails discards it.
type ProposalWriter interface {
	// Add appends proposals, in artifact id order after every proposal added before, with the
	// payloads the pass's proposed event (EvDigestProposed) has in the histories of those of
	// them new there (Event.About; their ids among the proposals'). Errors: INTERNAL (ids out
	// of order or not ids). Each time its pages packed fill a commit, it commits them.
	Add(ctx context.Context, proposals []Proposal, about map[string]any) error
	// Flush commits the whole pages Add packed and has not committed yet; the pass's write
	// commits whatever is left.
	Flush(ctx context.Context) error
	// Discard deletes what the writer committed: the pages of a pass whose write failed.
	Discard(ctx context.Context) error
}

// ReasonsKey identifies a proposal's reasons by their codes and references, in order.
func ReasonsKey(rs []Reason) string {
	n := 0
	for _, r := range rs {
		n += len(r.Code) + 1
		for _, id := range r.ReferenceIDs {
			n += len(id) + 1
		}
	}
	b := make([]byte, 0, n)
	for _, r := range rs {
		b = append(b, r.Code...)
		for _, id := range r.ReferenceIDs {
			b = append(b, ',')
			b = append(b, id...)
		}
		b = append(b, ';')
	}
	return string(b)
}

// DigestPlan is what a digest pass writes, decided by the digest inside the store's write.
type DigestPlan struct {
	Report  *DigestReport
	Archive map[string]*ArchiveRecord
	Remove  []string
	Events  []*Event
	// Proposed marks a propose pass: its report becomes the scope's latest proposals
	// (LifecycleStore.LastProposal).
	Proposed bool
	// Proposals are the pass's proposals, written by the store's ProposalWriter for this
	// report (nil: none). Report.ProposalCount must count them. The event of type
	// EvDigestProposed among Events is the one their history payloads belong to.
	Proposals ProposalWriter
}

// DigestDecide sees the refgraph nodes of the ids a pass names (read inside the write; ids that
// name nothing are absent) and returns the plan. Returning an error writes nothing.
type DigestDecide func(nodes map[string]*RefNode) (*DigestPlan, error)

// ArtifactUpdate changes an artifact and returns the events that emits.
type ArtifactUpdate func(a *Artifact) ([]*Event, error)

// ReferenceChange sees the two ends (read inside the write, same scope) and the current
// reference (nil if none) and returns the events of the change. Returning an error writes nothing.
type ReferenceChange func(src, dst *RefNode, cur *Reference) ([]*Event, error)

// NodeChange sees one artifact's refgraph node (read inside the write) and returns the events
// of the change.
type NodeChange func(n *RefNode) ([]*Event, error)

// ScopeDeletion counts what a scope deletion removed.
type ScopeDeletion struct {
	ScopeID string `json:"scopeId"`
	// Nodes is every node removed (artifacts, kernels, associations' ends, reports, ...).
	Nodes int `json:"nodes"`
	// Events is the number of the scope's events erased from the log (their Seq stays, empty).
	Events int `json:"events"`
	// Artifacts counts the removed artifacts by family.
	Artifacts map[string]int `json:"artifacts"`
}

// The messages of the lifecycle.
const (
	MsgSaveArtifactCommand      EventType = "SaveArtifactCommand"
	MsgReferenceCommand         EventType = "ReferenceCommand"
	MsgDigestCommand            EventType = "DigestCommand"
	MsgRestoreCommand           EventType = "RestoreCommand"
	MsgDeleteScopeCommand       EventType = "DeleteScopeCommand"
	MsgClearWorkingStateCommand EventType = "ClearWorkingStateCommand"

	EvArtifactSaved       EventType = "ArtifactSaved"
	EvReferenceAdded      EventType = "ReferenceAdded"
	EvReferenceRemoved    EventType = "ReferenceRemoved"
	EvDigestProposed      EventType = "DigestProposed"
	EvArtifactArchived    EventType = "ArtifactArchived"
	EvArtifactRestored    EventType = "ArtifactRestored"
	EvArtifactRemoved     EventType = "ArtifactRemoved"
	EvArtifactDeleted     EventType = "ArtifactDeleted"
	EvWorkingStateCleared EventType = "WorkingStateCleared"
	EvScopeDeleted        EventType = "ScopeDeleted"
	// EvErased is what is left of an event of a deleted scope: its Seq, so the log has no gap.
	EvErased EventType = "Erased"
)

// Error codes of the lifecycle.
const (
	// ENOTCANDIDATE: archive asked for an artifact the refgraph finds nothing against.
	ENOTCANDIDATE = "NOT_A_CANDIDATE"
	// EHASDEPENDENTS: a delete without cascade of an artifact other artifacts reference.
	EHASDEPENDENTS = "HAS_DEPENDENTS"
)

// DerivedFields are the service-derived metadata of seed 004: callers read them, never write them.
var DerivedFields = []string{"support", "lineage", "invalidation", "cleanup"}

// CheckNoDerivedFields refuses caller metadata that tries to write a service-derived field.
func CheckNoDerivedFields(field string, metadata map[string]any) error {
	for k := range metadata {
		for _, d := range DerivedFields {
			if strings.EqualFold(strings.TrimSpace(k), d) {
				return FieldErrorf(field+"."+k, "is service-derived (read it with derivedView); callers cannot write it")
			}
		}
	}
	return nil
}

func (f *ArtifactFamily) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return FieldErrorf("ArtifactFamily", "must be a string")
	}
	x := ArtifactFamily(strings.ToLower(s))
	if !x.Valid() || s != strings.ToUpper(s) {
		return FieldErrorf("ArtifactFamily", "unknown value %q", s)
	}
	*f = x
	return nil
}
func (f ArtifactFamily) MarshalGQL(w io.Writer) {
	fmt.Fprint(w, strconv.Quote(strings.ToUpper(string(f))))
}
func (k *KnowledgeType) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "KnowledgeType", KnowledgeType.Valid, k)
}
func (k KnowledgeType) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(k))) }
func (s *SkillType) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "SkillType", SkillType.Valid, s)
}
func (s SkillType) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(s))) }
func (t *RefType) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "ReferenceType", RefType.Valid, t)
}
func (t RefType) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(t))) }
func (e *EndState) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "EndState", func(x EndState) bool {
		return x == EndActive || x == EndArchived || x == EndRemoved || x == EndTransient
	}, e)
}
func (e EndState) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(e))) }
func (c *ReasonCode) UnmarshalGQL(v any) error {
	return unmarshalEnum(v, "ReasonCode", func(x ReasonCode) bool {
		switch x {
		case ReasonUnsupported, ReasonBrokenReference, ReasonUnhealthyDependency, ReasonContradicted, ReasonStale:
			return true
		}
		return false
	}, c)
}
func (c ReasonCode) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(c))) }
