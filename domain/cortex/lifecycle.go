package cortex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/digest"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// Seed 004's lifecycle at the boundary: the knowledge, skill and working-state families, the
// refgraph, service-derived views, the digest, restore, explicit deletion and scope deletion.

// The lifecycle's contexts as they appear in sourceContext and touches: the digest routine and
// the refgraph.
const (
	CtxDigest   = "Digest"
	CtxRefgraph = "Refgraph"
)

// Limits of the lifecycle's input.
const (
	MaxTitleBytes = 1024
	MaxSteps      = 256
)

func (c *Cortex) lifecycleStore() (domain.LifecycleStore, error) {
	ls, ok := c.store.(domain.LifecycleStore)
	if !ok {
		return nil, domain.Errorf(domain.EUNIMPLEMENTEDFIELD, "this store keeps no artifact lifecycle")
	}
	return ls, nil
}

// SaveArtifactInput saves a knowledge page, a skill or a working state: a new one when ID is
// empty, otherwise a new version of an existing one of the same scope and family.
type SaveArtifactInput struct {
	ScopeID  string
	ID       string
	Type     string
	Title    string
	Content  string
	Steps    []string
	Tags     []string
	Metadata map[string]any
	Meta
}

func checkArtifactInput(f domain.ArtifactFamily, in SaveArtifactInput) error {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return err
	}
	if in.ID != "" {
		if err := domain.CheckID("id", in.ID); err != nil {
			return err
		}
	}
	switch f {
	case domain.FamKnowledge:
		if !domain.KnowledgeType(in.Type).Valid() {
			return domain.FieldErrorf("type", "unknown knowledge type %q", in.Type)
		}
		if err := checkNotWritten(in.Type); err != nil {
			return err
		}
	case domain.FamSkill:
		if !domain.SkillType(in.Type).Valid() {
			return domain.FieldErrorf("type", "unknown skill type %q", in.Type)
		}
	case domain.FamWorkingState:
		if in.Type != "" {
			return domain.FieldErrorf("type", "working state has no type")
		}
	default:
		return domain.FieldErrorf("family", "%q is not saved as an artifact", f)
	}
	if f != domain.FamWorkingState && strings.TrimSpace(in.Title) == "" {
		return domain.FieldErrorf("title", "must not be empty")
	}
	if len(in.Title) > MaxTitleBytes {
		return domain.FieldErrorf("title", "is longer than %d bytes", MaxTitleBytes)
	}
	if err := hippocampus.CheckText("title", in.Title); err != nil {
		return err
	}
	if f != domain.FamWorkingState && strings.TrimSpace(in.Content) == "" {
		return domain.FieldErrorf("content", "must not be empty")
	}
	if err := domain.CheckContentSize("content", in.Content); err != nil {
		return err
	}
	if err := hippocampus.CheckText("content", in.Content); err != nil {
		return err
	}
	if len(in.Steps) > 0 && f != domain.FamSkill {
		return domain.FieldErrorf("steps", "only skills have steps")
	}
	if len(in.Steps) > MaxSteps {
		return domain.FieldErrorf("steps", "at most %d steps", MaxSteps)
	}
	size := 0
	for _, s := range in.Steps {
		if strings.TrimSpace(s) == "" {
			return domain.FieldErrorf("steps", "a step must not be blank")
		}
		if err := hippocampus.CheckText("steps", s); err != nil {
			return err
		}
		size += len(s)
	}
	if size > domain.MaxContentBytes() {
		return domain.FieldErrorf("steps", "are larger than the limit of %s together", domain.ContentLimitText())
	}
	if len(in.Tags) > domain.MaxTags {
		return domain.FieldErrorf("tags", "at most %d tags", domain.MaxTags)
	}
	for _, tag := range in.Tags {
		if strings.TrimSpace(tag) == "" || len(tag) > domain.MaxTagBytes {
			return domain.FieldErrorf("tags", "a tag must be 1..%d bytes and not blank", domain.MaxTagBytes)
		}
		if err := hippocampus.CheckText("tags", tag); err != nil {
			return err
		}
	}
	if in.Metadata != nil {
		raw, err := json.Marshal(in.Metadata)
		if err != nil || len(raw) > domain.MaxMetadataBytes {
			return domain.FieldErrorf("metadata", "must be a JSON object of at most %d bytes", domain.MaxMetadataBytes)
		}
	}
	return domain.CheckNoDerivedFields("metadata", in.Metadata)
}

func lcDedupe(ss []string) []string {
	out := make([]string, 0, len(ss))
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// checkNotWritten refuses a caller's save of a page only the server writes: the story's chapters
// (NARRATIVE) and the journal's sections (JOURNAL).
func checkNotWritten(t string) error {
	switch domain.KnowledgeType(t) {
	case domain.KnowNarrative:
		return domain.Errorf(domain.EFORBIDDEN, "NARRATIVE pages are the story's chapters: only the Subconscious writes them (consolidateStory)")
	case domain.KnowJournal:
		return domain.Errorf(domain.EFORBIDDEN, "JOURNAL pages mirror the journal's files: only importJournal writes them")
	}
	return nil
}

// SaveArtifact saves a knowledge page, skill or working state of family f. Errors:
// INVALID_ARGUMENT, NOT_FOUND (scope, or the artifact to update), CONFLICT (an archived
// artifact: restore it first; a requestId reused), CROSS_SCOPE_REFERENCE (an update naming
// another scope), FORBIDDEN (a page of the story or the journal).
func (c *Cortex) SaveArtifact(ctx context.Context, f domain.ArtifactFamily, in SaveArtifactInput) (*domain.Artifact, error) {
	if err := checkArtifactInput(f, in); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(in.Meta)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	req := domain.Request{Op: "save_" + string(f), RequestID: in.RequestID, Fingerprint: fingerprint(in), ScopeID: in.ScopeID}
	payload := func(a *domain.Artifact) map[string]any {
		return map[string]any{"artifactId": a.ID, "family": string(f), "type": a.Type, "title": a.Title,
			"contentBytes": len(a.Content), "version": a.Version}
	}
	var out *domain.Artifact
	if in.ID == "" {
		a := &domain.Artifact{ID: domain.NewID(), ScopeID: in.ScopeID, Family: f, Type: in.Type, Title: in.Title,
			Content: in.Content, Steps: in.Steps, Tags: lcDedupe(in.Tags), Metadata: in.Metadata, State: domain.StateActive,
			SessionID: tc.SessionID, CreatedAt: now, UpdatedAt: now, Version: 1}
		if a.Metadata == nil {
			a.Metadata = map[string]any{}
		}
		cmd := command(domain.MsgSaveArtifactCommand, a.ScopeID, a.ID, tc, domain.CtxHippocampus, map[string]any{"family": string(f)})
		ev := &domain.Event{Type: domain.EvArtifactSaved, ScopeID: a.ScopeID, MemoryID: a.ID,
			Context: tc.Derive(domain.CtxHippocampus, now), Payload: payload(a)}
		res, err := ls.InsertArtifacts(ctx, req, []*domain.Artifact{a}, []*domain.Event{cmd, ev})
		if err != nil {
			return nil, err
		}
		out = res[0]
	} else {
		out, err = ls.UpdateArtifact(ctx, req, in.ID, func(a *domain.Artifact) ([]*domain.Event, error) {
			if err := reach(ctx, a.ScopeID, true, notFoundf("%s %s not found", f, in.ID)); err != nil {
				return nil, err
			}
			if a.Family != f {
				return nil, domain.Errorf(domain.ENOTFOUND, "%s %s not found", f, in.ID)
			}
			if a.ScopeID != in.ScopeID {
				return nil, domain.Errorf(domain.ECROSSSCOPE, "%s %s belongs to another scope than %s", f, in.ID, in.ScopeID)
			}
			if a.State == domain.StateArchived {
				return nil, domain.Errorf(domain.ECONFLICT, "%s %s is archived; restore it before changing it", f, in.ID)
			}
			if err := checkNotWritten(a.Type); f == domain.FamKnowledge && err != nil {
				return nil, err
			}
			a.Type, a.Title, a.Content, a.Steps, a.Tags = in.Type, in.Title, in.Content, in.Steps, lcDedupe(in.Tags)
			if in.Metadata != nil {
				a.Metadata = in.Metadata
			}
			a.UpdatedAt = now
			cmd := command(domain.MsgSaveArtifactCommand, a.ScopeID, a.ID, tc, domain.CtxHippocampus, map[string]any{"family": string(f)})
			p := payload(a)
			p["version"] = a.Version + 1
			return []*domain.Event{cmd, {Type: domain.EvArtifactSaved, ScopeID: a.ScopeID, MemoryID: a.ID,
				Context: tc.Derive(domain.CtxHippocampus, now), Payload: p}}, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := c.refreshIndex(ctx, []string{out.ID}); err != nil {
		return nil, err
	}
	c.log.Kick()
	return out, nil
}

// Artifact loads a knowledge page, skill or working state of family f. Errors: NOT_FOUND.
func (c *Cortex) Artifact(ctx context.Context, f domain.ArtifactFamily, id string) (*domain.Artifact, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	as, err := ls.Artifacts(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if len(as) == 0 || as[0].Family != f || !readable(ctx, as[0].ScopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "%s %s not found", f, id)
	}
	return as[0], nil
}

// ListArtifacts lists a scope's artifacts of family f. Archived ones are left out unless the
// filter asks for a state. Errors: NOT_FOUND, INVALID_ARGUMENT.
func (c *Cortex) ListArtifacts(ctx context.Context, scopeID string, f domain.ArtifactFamily, filter domain.ArtifactFilter, p domain.Page) (*domain.ArtifactPage, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	for _, tag := range filter.Tags {
		if err := hippocampus.CheckText("filter.tags", tag); err != nil {
			return nil, err
		}
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	if len(filter.States) == 0 {
		filter.States = []domain.LifecycleState{domain.StateActive}
	}
	return ls.ListArtifacts(ctx, scopeID, f, filter, p)
}

// ---- The refgraph ----

// ReferenceInput names one reference.
type ReferenceInput struct {
	SourceID string
	Type     domain.RefType
	TargetID string
	Meta
}

// Reference adds (add) or removes a reference. Sources are memories, knowledge pages, skills or
// working states; targets are memories, knowledge pages, skills or kernels (working state is
// never a target: it is never served as truth). Errors: INVALID_ARGUMENT, NOT_FOUND,
// CROSS_SCOPE_REFERENCE, FORBIDDEN, CONFLICT.
func (c *Cortex) Reference(ctx context.Context, in ReferenceInput, add bool) (*domain.Reference, error) {
	if err := domain.CheckID("sourceId", in.SourceID); err != nil {
		return nil, err
	}
	if err := domain.CheckID("targetId", in.TargetID); err != nil {
		return nil, err
	}
	if !in.Type.Valid() {
		return nil, domain.FieldErrorf("type", "unknown reference type %q", in.Type)
	}
	if in.SourceID == in.TargetID {
		return nil, domain.FieldErrorf("targetId", "an artifact cannot reference itself")
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(in.Meta)
	if err != nil {
		return nil, err
	}
	op, evType := "addReference", domain.EvReferenceAdded
	if !add {
		op, evType = "removeReference", domain.EvReferenceRemoved
	}
	ref, err := ls.Reference(ctx, domain.Request{Op: op, RequestID: in.RequestID, Fingerprint: fingerprint(in)},
		in.SourceID, in.Type, in.TargetID, add, tc.Timestamp,
		func(src, dst *domain.RefNode, cur *domain.Reference) ([]*domain.Event, error) {
			if err := reach(ctx, src.ScopeID, true, notFoundf("artifact %s not found", in.SourceID)); err != nil {
				return nil, err
			}
			if err := reach(ctx, dst.ScopeID, true, notFoundf("artifact %s not found", in.TargetID)); err != nil {
				return nil, err
			}
			if add {
				if src.Family.Kernel() {
					return nil, domain.Errorf(domain.EFORBIDDEN, "kernels are core truth: they reference nothing")
				}
				if dst.Family == domain.FamWorkingState {
					return nil, domain.Errorf(domain.EFORBIDDEN, "working state is never served as truth: nothing may reference it")
				}
				if src.State == domain.EndArchived || dst.State == domain.EndArchived {
					return nil, domain.Errorf(domain.ECONFLICT, "an archived artifact takes no new references; restore it first")
				}
			}
			p := map[string]any{"referenceId": domain.ReferenceID(in.SourceID, in.Type, in.TargetID), "sourceId": in.SourceID,
				"type": string(in.Type), "targetId": in.TargetID, "sourceFamily": string(src.Family), "targetFamily": string(dst.Family)}
			cmd := command(domain.MsgReferenceCommand, src.ScopeID, src.ID, tc, CtxRefgraph, p)
			d := tc.Derive(CtxRefgraph, tc.Timestamp)
			// Both ends' histories show the reference.
			return []*domain.Event{cmd,
				{Type: evType, ScopeID: src.ScopeID, MemoryID: src.ID, Context: d, Payload: p},
				{Type: evType, ScopeID: src.ScopeID, MemoryID: dst.ID, Context: d.Derive(CtxRefgraph, tc.Timestamp), Payload: p}}, nil
		})
	c.log.Kick()
	return ref, err
}

// References reads an artifact's references in both directions with their health.
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) References(ctx context.Context, id string) (*domain.RefNode, error) {
	if err := domain.CheckID("artifactId", id); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	n, err := ls.Node(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := reach(ctx, n.ScopeID, false, notFoundf("artifact %s not found", id)); err != nil {
		return nil, err
	}
	return n, nil
}

// ---- Service-derived metadata ----

// DerivedView is seed 004's service-derived metadata of one artifact: computed by the service
// from the refgraph and the event log, never written by callers.
type DerivedView struct {
	ArtifactID   string
	Family       domain.ArtifactFamily
	ScopeID      string
	Support      SupportView
	Lineage      LineageView
	Invalidation InvalidationView
	Cleanup      CleanupView
}

// SupportView is what keeps an artifact in service: the references pointing at it.
type SupportView struct {
	// Supported: an active, non-transient artifact supports, cites, derives from or depends on it.
	Supported bool
	// Active counts those supporting references; Lost counts supporting references whose source was archived.
	Active int
	Lost   int
	// References are every incoming reference with its health.
	References []*domain.Reference
}

// LineageView is where an artifact comes from and what came from it.
type LineageView struct {
	DerivedFrom []*domain.Reference
	Derivatives []*domain.Reference
	// Origin is the first event of its history (its creation).
	Origin *domain.Event
	// Versions counts the events that changed it.
	Events int
}

// InvalidationView says whether what an artifact rests on is still in service.
type InvalidationView struct {
	Valid                 bool
	BrokenReferences      []*domain.Reference
	UnhealthyDependencies []*domain.Reference
	ContradictedBy        []*domain.Reference
}

// CleanupEligibility says how an artifact may leave service.
type CleanupEligibility string

const (
	CleanupNever         CleanupEligibility = "NEVER"          // kernels
	CleanupExplicitClear CleanupEligibility = "EXPLICIT_CLEAR" // working state
	CleanupDigest        CleanupEligibility = "DIGEST"         // memory, knowledge, skill
)

func (e *CleanupEligibility) UnmarshalGQL(v any) error {
	s, _ := v.(string)
	switch x := CleanupEligibility(s); x {
	case CleanupNever, CleanupExplicitClear, CleanupDigest:
		*e = x
		return nil
	}
	return domain.FieldErrorf("CleanupEligibility", "unknown value %q", s)
}

func (e CleanupEligibility) MarshalGQL(w io.Writer) { fmt.Fprint(w, strconv.Quote(string(e))) }

// CleanupView is the digest's view of an artifact now, and its cleanup history.
type CleanupView struct {
	State       domain.EndState
	Eligibility CleanupEligibility
	// Candidate and Reasons: what a propose pass with the default window would say now.
	Candidate bool
	Reasons   []domain.Reason
	// Archive is the record of its (last) archival: the pass and the typed reasons.
	Archive *domain.ArchiveRecord
	// Removable: archived in an earlier pass, so a later pass may remove it.
	Removable bool
	// History is its lifecycle events: archivals, restores, removals and deletions.
	History []*domain.Event
}

var lifecycleEvents = map[domain.EventType]bool{domain.EvArtifactArchived: true, domain.EvArtifactRestored: true,
	domain.EvArtifactRemoved: true, domain.EvArtifactDeleted: true, domain.EvMemoryDeleted: true, domain.EvWorkingStateCleared: true}

// DerivedView computes an artifact's service-derived metadata. A removed artifact still
// answers while references point at it. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) DerivedView(ctx context.Context, id string) (*DerivedView, error) {
	n, err := c.References(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, err := c.store.MemoryEvents(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &DerivedView{ArtifactID: n.ID, Family: n.Family, ScopeID: n.ScopeID}
	v.Support.References = nonNil(n.In)
	for _, r := range n.In {
		if r.Supports() {
			v.Support.Active++
		} else if r.Type.Supporting() && r.SourceState == domain.EndArchived {
			v.Support.Lost++
		}
		if r.Type == domain.RefDerivedFrom {
			v.Lineage.Derivatives = append(v.Lineage.Derivatives, r)
		}
		if r.Type == domain.RefContradicts && r.SourceState == domain.EndActive {
			v.Invalidation.ContradictedBy = append(v.Invalidation.ContradictedBy, r)
		}
	}
	v.Support.Supported = v.Support.Active > 0
	for _, r := range n.Out {
		if r.Type == domain.RefDerivedFrom {
			v.Lineage.DerivedFrom = append(v.Lineage.DerivedFrom, r)
		}
		if r.TargetState == domain.EndArchived || r.TargetState == domain.EndRemoved {
			if r.Type.Dependency() {
				v.Invalidation.UnhealthyDependencies = append(v.Invalidation.UnhealthyDependencies, r)
			} else {
				v.Invalidation.BrokenReferences = append(v.Invalidation.BrokenReferences, r)
			}
		}
	}
	v.Invalidation.Valid = len(v.Invalidation.UnhealthyDependencies) == 0 && len(v.Invalidation.BrokenReferences) == 0 &&
		len(v.Invalidation.ContradictedBy) == 0
	for _, e := range evs {
		if e.Type.IsCommand() || e.Type == domain.MsgSaveArtifactCommand || e.Type == domain.MsgReferenceCommand || e.Type == domain.MsgRestoreCommand {
			continue
		}
		if v.Lineage.Origin == nil {
			v.Lineage.Origin = e
		}
		if e.Type != domain.EvMemoryAccessed {
			v.Lineage.Events++
		}
		if lifecycleEvents[e.Type] {
			v.Cleanup.History = append(v.Cleanup.History, e)
		}
	}
	v.Cleanup.State = n.State
	switch {
	case n.Family.Kernel():
		v.Cleanup.Eligibility = CleanupNever
	case n.Family == domain.FamWorkingState:
		v.Cleanup.Eligibility = CleanupExplicitClear
	default:
		v.Cleanup.Eligibility = CleanupDigest
	}
	v.Cleanup.Reasons = digest.Evaluate(n, c.now().UTC(), digest.DefaultStaleAfter)
	v.Cleanup.Candidate = len(v.Cleanup.Reasons) > 0
	if v.Cleanup.Reasons == nil {
		v.Cleanup.Reasons = []domain.Reason{}
	}
	v.Cleanup.Archive = n.Archive
	v.Cleanup.Removable = n.State == domain.EndArchived && n.ArchivedBy != ""
	for _, p := range []*[]*domain.Reference{&v.Lineage.DerivedFrom, &v.Lineage.Derivatives, &v.Invalidation.BrokenReferences,
		&v.Invalidation.UnhealthyDependencies, &v.Invalidation.ContradictedBy} {
		*p = nonNil(*p)
	}
	if v.Cleanup.History == nil {
		v.Cleanup.History = []*domain.Event{}
	}
	return v, nil
}

func nonNil(rs []*domain.Reference) []*domain.Reference {
	if rs == nil {
		return []*domain.Reference{}
	}
	return rs
}

// ---- The digest ----

// DigestInput is one digest pass.
type DigestInput struct {
	ScopeID string
	Propose bool
	Archive []string
	Remove  []string
	// StaleAfter is the staleness window (default digest.DefaultStaleAfter when nil).
	StaleAfter *time.Duration
	Meta
}

// RunDigest runs one pass: propose scans the scope's refgraph and proposes archivals with typed
// reasons; archive archives the given candidates (reversibly); remove removes artifacts archived
// in an earlier pass. Errors (nothing written): INVALID_ARGUMENT, NOT_FOUND,
// SAME_PASS_ARCHIVE_REMOVE, NOT_ARCHIVED, FORBIDDEN (a kernel or working state),
// NOT_A_CANDIDATE, CONFLICT, CROSS_SCOPE_REFERENCE.
func (c *Cortex) RunDigest(ctx context.Context, in DigestInput) (*domain.DigestReport, error) {
	p := digest.Pass{ScopeID: in.ScopeID, Propose: in.Propose, Archive: in.Archive, Remove: in.Remove,
		StaleAfter: digest.DefaultStaleAfter}
	if in.StaleAfter != nil {
		p.StaleAfter = *in.StaleAfter
	}
	if err := digest.Check(p); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, p.ScopeID); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(in.Meta)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	req := domain.Request{Op: "runDigest", RequestID: in.RequestID, Fingerprint: fingerprint(p), ScopeID: p.ScopeID}
	report := &domain.DigestReport{ID: domain.NewID(), ScopeID: p.ScopeID, At: now,
		Archived: append([]string{}, p.Archive...), Removed: append([]string{}, p.Remove...), StaleAfter: p.StaleAfter}
	// A request applied already answers as it did, before any proposal is written again.
	if rep, err := ls.ReplayedDigest(ctx, req); err != nil || rep != nil {
		return rep, err
	}
	ids := append(append([]string{}, p.Archive...), p.Remove...)
	if p.Propose && len(ids) > 0 {
		// An archive or removal refused refuses the pass before its proposals are written (the
		// write decides again on what it reads).
		nodes := make(map[string]*domain.RefNode, len(ids))
		for _, id := range ids {
			n, err := ls.Node(ctx, id)
			if err == nil {
				nodes[id] = n
			} else if domain.ErrorCode(err) != domain.ENOTFOUND {
				return nil, err
			}
		}
		if _, err := digest.Decide(p, nodes, report.ID, now); err != nil {
			return nil, err
		}
	}
	dc := tc.Derive(CtxDigest, now)
	var prop *proposing
	if p.Propose {
		if prop, err = c.propose(ctx, ls, p, report, dc); err != nil {
			return nil, err
		}
	}
	out, err := ls.Digest(ctx, req, p.ScopeID, ids, func(nodes map[string]*domain.RefNode) (*domain.DigestPlan, error) {
		records, err := digest.Decide(p, nodes, report.ID, now)
		if err != nil {
			return nil, err
		}
		cmd := command(domain.MsgDigestCommand, p.ScopeID, "", tc, CtxDigest, map[string]any{
			"reportId": report.ID, "propose": p.Propose, "archive": p.Archive, "remove": p.Remove, "staleAfter": p.StaleAfter.String()})
		evs := []*domain.Event{cmd}
		if prop != nil {
			// A proposal is a step in its artifact's history, with the typed reasons, unless the
			// previous pass made it already (a scheduled pass repeats itself). The pass's one
			// event is about every such artifact, with its own payload there (written ahead
			// with the proposals): one event per proposal cost a first pass over a large scope
			// more than the scan itself.
			evs = append(evs, &domain.Event{Type: domain.EvDigestProposed, ScopeID: p.ScopeID, Context: dc,
				Payload: map[string]any{"reportId": report.ID, "evaluated": report.Evaluated, "proposals": report.ProposalCount,
					"newProposals": prop.fresh, "firstCandidates": prop.candidates}})
		}
		for _, id := range p.Archive {
			n := nodes[id]
			evs = append(evs, &domain.Event{Type: domain.EvArtifactArchived, ScopeID: p.ScopeID, MemoryID: id,
				Context: dc.Derive(CtxDigest, now), Payload: map[string]any{"artifactId": id, "family": string(n.Family),
					"reportId": report.ID, "reasons": records[id].Reasons}})
		}
		for _, id := range p.Remove {
			n := nodes[id]
			pl := map[string]any{"artifactId": id, "family": string(n.Family), "reportId": report.ID,
				"brokenReferences": refIDs(n.In)}
			pl["archivedBy"] = n.ArchivedBy
			if n.Archive != nil {
				pl["archiveReasons"] = n.Archive.Reasons
			}
			evs = append(evs, &domain.Event{Type: domain.EvArtifactRemoved, ScopeID: p.ScopeID, MemoryID: id,
				Context: dc.Derive(CtxDigest, now), Payload: pl})
		}
		plan := &domain.DigestPlan{Report: report, Archive: records, Remove: p.Remove, Events: evs, Proposed: p.Propose}
		if prop != nil {
			plan.Proposals = prop.w
		}
		return plan, nil
	})
	c.log.Kick()
	if err != nil {
		prop.discard(ctx, c.logger)
		return nil, err
	}
	if out.ID != report.ID {
		// The same request was applied meanwhile (its result is replayed): this pass's pages
		// belong to no report.
		prop.discard(ctx, c.logger)
	}
	if err := c.refreshIndex(ctx, ids); err != nil {
		return nil, err
	}
	return out, nil
}

// proposing is what a propose pass wrote ahead of its write.
type proposing struct {
	w          domain.ProposalWriter
	fresh      int      // proposals new to their artifacts' histories
	candidates []string // the first 100 proposals' artifacts
}

// discard deletes the pages a pass wrote ahead of a write that failed (nothing for a pass that
// proposed nothing).
func (p *proposing) discard(ctx context.Context, logger *slog.Logger) {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := p.w.Discard(ctx); err != nil {
		logger.Warn("digest: the pages of a failed pass were not deleted", "err", err)
	}
}

// propose scans the scope's refgraph and writes the pass's proposals, in artifact id order, with
// the payloads of those new to their artifacts' histories (digest.Prior), ahead of the pass's
// write; it counts them in report. The scan holds the refgraph, compact, and makes a page of it
// whole at a time; the proposals are held a page at a time, packed and committed a few pages at a
// time, and the previous pass's are read a page at a time.
func (c *Cortex) propose(ctx context.Context, ls domain.LifecycleStore, p digest.Pass, report *domain.DigestReport, dc domain.TransactionContext) (*proposing, error) {
	if _, err := c.store.Scope(ctx, p.ScopeID); err != nil {
		return nil, err
	}
	var prior *digest.Prior
	prev, err := ls.LastProposal(ctx, p.ScopeID)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		prior = digest.NewPrior(prev.At, func(after string) ([]domain.Proposal, error) {
			return ls.DigestProposals(ctx, prev.ID, after, domain.MaxProposalPage)
		})
	}
	out := &proposing{w: ls.ProposalWriter(p.ScopeID, report.ID, dc.MessageID), candidates: []string{}}
	failed := func(err error) (*proposing, error) {
		out.discard(ctx, c.logger)
		return nil, err
	}
	// The scan hands its pages in artifact id order, which is the order of the proposals.
	if err := ls.ScanRefgraph(ctx, p.ScopeID, func(page []*domain.RefNode) error {
		var props []domain.Proposal
		about := map[string]any{}
		for _, n := range page {
			if n.Family.Digestible() {
				report.Evaluated++
			}
			rs := digest.Evaluate(n, report.At, p.StaleAfter)
			if len(rs) == 0 {
				continue
			}
			pr := domain.Proposal{ArtifactID: n.ID, Family: n.Family, Reasons: rs}
			props = append(props, pr)
			fresh, err := prior.Fresh(pr, n.LastUsed)
			if err != nil {
				return err
			}
			if fresh {
				about[pr.ArtifactID] = proposedAbout{ArtifactID: pr.ArtifactID, Family: pr.Family, ReportID: report.ID, Reasons: pr.Reasons}
			}
			if len(out.candidates) < 100 {
				out.candidates = append(out.candidates, pr.ArtifactID)
			}
		}
		if err := out.w.Add(ctx, props, about); err != nil {
			return err
		}
		report.ProposalCount += len(props)
		out.fresh += len(about)
		return nil
	}); err != nil {
		return failed(err)
	}
	// The writer committed its pages as they filled a commit; what is left, less than one, is
	// committed ahead too.
	if err := out.w.Flush(ctx); err != nil {
		return failed(err)
	}
	return out, nil
}

// proposedAbout is the payload a propose pass's event has in the history of an artifact it
// proposes: one small record each, sharing the proposal's reasons, where a map took four times
// the memory (a first pass over a million memories proposes a million).
type proposedAbout struct {
	ArtifactID string                `json:"artifactId"`
	Family     domain.ArtifactFamily `json:"family"`
	ReportID   string                `json:"reportId"`
	Reasons    []domain.Reason       `json:"reasons"`
}

func refIDs(rs []*domain.Reference) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// DigestReport loads a pass's report. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) DigestReport(ctx context.Context, id string) (*domain.DigestReport, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	rep, err := ls.DigestReport(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := reach(ctx, rep.ScopeID, false, notFoundf("digest report %s not found", id)); err != nil {
		return nil, err
	}
	return rep, nil
}

// DefaultProposalPage is how many proposals a read of a report's gives when it names no number.
const DefaultProposalPage = 1000

// ReportProposals reads the proposals of rep (a report its caller loaded) in artifact id order,
// a page at a time: at most first (1 to domain.MaxProposalPage; nil: DefaultProposalPage) of
// those after artifact id after (nil or "": from the first). Errors: INVALID_ARGUMENT,
// NOT_FOUND.
func (c *Cortex) ReportProposals(ctx context.Context, rep *domain.DigestReport, after *string, first *int) ([]domain.Proposal, error) {
	if err := reach(ctx, rep.ScopeID, false, notFoundf("digest report %s not found", rep.ID)); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	n, from := DefaultProposalPage, ""
	if first != nil {
		n = *first
	}
	if after != nil {
		from = *after
	}
	return ls.DigestProposals(ctx, rep.ID, from, n)
}

// errStopArchiving ends a scheduled archive of a scope's proposals.
var errStopArchiving = errors.New("stop archiving")

// DigestScopes runs one scheduled pass over every scope: propose, and with archive also archive
// what the pass proposes. It returns the reports.
func (c *Cortex) DigestScopes(ctx context.Context, archive bool, staleAfter time.Duration) ([]*domain.DigestReport, error) {
	scopes, err := c.Scopes(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	var out []*domain.DigestReport
	for _, sc := range scopes {
		if !domain.PrincipalFrom(ctx).CanWrite(sc.ID) {
			continue
		}
		rep, err := c.RunDigest(ctx, DigestInput{ScopeID: sc.ID, Propose: true, StaleAfter: &staleAfter})
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				continue // deleted meanwhile
			}
			return out, err
		}
		out = append(out, rep)
		if !archive || rep.ProposalCount == 0 {
			continue
		}
		// The proposals are archived digest.MaxIDs a pass, read as they are archived.
		if err := domain.EachProposalPage(func(after string) ([]domain.Proposal, error) {
			return ls.DigestProposals(ctx, rep.ID, after, digest.MaxIDs)
		}, func(page []domain.Proposal) error {
			ids := make([]string, len(page))
			for i, pr := range page {
				ids[i] = pr.ArtifactID
			}
			arch, err := c.RunDigest(ctx, DigestInput{ScopeID: sc.ID, Archive: ids, StaleAfter: &staleAfter})
			if err != nil {
				// The graph changed since the proposal: the next scheduled pass proposes afresh.
				c.logger.Warn("scheduled digest: archive pass refused", "scope", sc.ID, "err", err)
				return errStopArchiving
			}
			out = append(out, arch)
			return nil
		}); err != nil && !errors.Is(err, errStopArchiving) {
			return out, err
		}
	}
	return out, nil
}

// ---- Restore ----

// Restore puts an archived memory, knowledge page or skill of family f back in service; its
// archive record stays readable. Errors: INVALID_ARGUMENT, NOT_FOUND, NOT_ARCHIVED, FORBIDDEN.
func (c *Cortex) Restore(ctx context.Context, f domain.ArtifactFamily, id string, m Meta) (*domain.RefNode, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	n, err := ls.Restore(ctx, domain.Request{Op: "restore_" + string(f), RequestID: m.RequestID, Fingerprint: fingerprint(id)}, id,
		func(n *domain.RefNode) ([]*domain.Event, error) {
			if err := reach(ctx, n.ScopeID, true, notFoundf("%s %s not found", f, id)); err != nil {
				return nil, err
			}
			if n.Family != f {
				if n.Family.Kernel() || n.Family == domain.FamWorkingState {
					return nil, domain.Errorf(domain.EFORBIDDEN, "%s is a %s: never archived, never restored", id, n.Family)
				}
				return nil, domain.Errorf(domain.ENOTFOUND, "%s %s not found", f, id)
			}
			if n.State != domain.EndArchived {
				return nil, domain.Errorf(domain.ENOTARCHIVED, "%s %s is not archived", f, id)
			}
			if n.Archive == nil {
				n.Archive = &domain.ArchiveRecord{}
			}
			n.Archive.RestoredAt = &now
			cmd := command(domain.MsgRestoreCommand, n.ScopeID, id, tc, CtxDigest, map[string]any{"artifactId": id, "family": string(f)})
			return []*domain.Event{cmd, {Type: domain.EvArtifactRestored, ScopeID: n.ScopeID, MemoryID: id,
				Context: tc.Derive(CtxDigest, now), Payload: map[string]any{"artifactId": id, "family": string(f),
					"archivedBy": n.Archive.ReportID, "archiveReasons": n.Archive.Reasons}}}, nil
		})
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	if err := c.refreshIndex(ctx, []string{id}); err != nil {
		return nil, err
	}
	return n, nil
}

// RestoreMemory restores an archived memory. Errors: as Restore.
func (c *Cortex) RestoreMemory(ctx context.Context, id string, m Meta) (*domain.Memory, error) {
	if _, err := c.Restore(ctx, domain.FamMemory, id, m); err != nil {
		return nil, err
	}
	return c.store.Memory(ctx, id)
}

// RestoreArtifact restores an archived knowledge page or skill. Errors: as Restore.
func (c *Cortex) RestoreArtifact(ctx context.Context, f domain.ArtifactFamily, id string, m Meta) (*domain.Artifact, error) {
	if _, err := c.Restore(ctx, f, id, m); err != nil {
		return nil, err
	}
	return c.Artifact(ctx, f, id)
}

// ---- Explicit deletion ----

// DeleteInput is an explicit, destructive delete.
type DeleteInput struct {
	ID     string
	Reason string
	// Cascade proceeds although other artifacts reference it: their references stay, broken
	// (target REMOVED), for them and the digest to see. Without it such a delete is refused.
	Cascade bool
	Meta
}

// Delete deletes a memory, knowledge page or skill of family f destructively, after checking
// its dependents, and audits the deletion. Separate from the digest. Errors: INVALID_ARGUMENT,
// NOT_FOUND, HAS_DEPENDENTS (referenced, without cascade), FORBIDDEN (kernels; working state
// is cleared with ClearWorkingState).
func (c *Cortex) Delete(ctx context.Context, f domain.ArtifactFamily, in DeleteInput) (*domain.RefNode, error) {
	if err := domain.CheckID("id", in.ID); err != nil {
		return nil, err
	}
	if err := hippocampus.CheckText("reason", in.Reason); err != nil {
		return nil, err
	}
	if len(in.Reason) > domain.MaxContentBytes() {
		return nil, domain.FieldErrorf("reason", "is too long")
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(in.Meta)
	if err != nil {
		return nil, err
	}
	op := "delete_" + string(f)
	if f == domain.FamMemory {
		op = "deleteMemory"
	}
	n, err := ls.DeleteArtifact(ctx, domain.Request{Op: op, RequestID: in.RequestID, Fingerprint: fingerprint([]any{in.ID, in.Cascade})}, in.ID,
		func(n *domain.RefNode) ([]*domain.Event, error) {
			if err := reach(ctx, n.ScopeID, true, notFoundf("%s %s not found", f, in.ID)); err != nil {
				return nil, err
			}
			return c.deletion(f, n, in.Reason, in.Cascade, tc)
		})
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	if err := c.removeDocs(ctx, []string{in.ID}); err != nil {
		return nil, err
	}
	return n, nil
}

// deletion decides an explicit delete of n and returns its audit events.
func (c *Cortex) deletion(f domain.ArtifactFamily, n *domain.RefNode, reason string, cascade bool, tc domain.TransactionContext) ([]*domain.Event, error) {
	if n.Family != f {
		if n.Family.Kernel() {
			return nil, domain.Errorf(domain.EFORBIDDEN, "%s is the scope's %s: kernels are removed only with their scope", n.ID, n.Family)
		}
		return nil, domain.Errorf(domain.ENOTFOUND, "%s %s not found", f, n.ID)
	}
	if err := domain.CheckDependents(n, cascade); err != nil {
		return nil, err
	}
	now := tc.Timestamp
	broken := refIDs(n.In)
	cmd := command(domain.MsgDeleteCommand, n.ScopeID, n.ID, tc, domain.CtxHippocampus,
		map[string]any{"memoryId": n.ID, "family": string(f), "reason": reason, "cascade": cascade})
	var ev *domain.Event
	if f == domain.FamMemory && n.Memory != nil {
		ev = c.hippo.Delete(n.Memory, reason, tc)
	} else {
		ev = &domain.Event{Type: domain.EvArtifactDeleted, ScopeID: n.ScopeID, MemoryID: n.ID,
			Context: tc.Derive(domain.CtxHippocampus, now), Payload: map[string]any{"artifactId": n.ID, "reason": reason}}
		if f == domain.FamWorkingState {
			ev.Type = domain.EvWorkingStateCleared
		}
	}
	ev.Payload["family"], ev.Payload["cascade"], ev.Payload["brokenReferences"] = string(f), cascade, broken
	return []*domain.Event{cmd, ev}, nil
}

// DeleteMemoryCascade is DeleteMemory with the dependents check: without cascade, a memory
// other artifacts reference is refused with HAS_DEPENDENTS. Errors: as Delete.
func (c *Cortex) DeleteMemoryCascade(ctx context.Context, id, reason string, cascade bool, m Meta) (*domain.Memory, error) {
	n, err := c.Delete(ctx, domain.FamMemory, DeleteInput{ID: id, Reason: reason, Cascade: cascade, Meta: m})
	if err != nil {
		return nil, err
	}
	return n.Memory, nil
}

// DeleteArtifact deletes a knowledge page or skill. Errors: as Delete.
func (c *Cortex) DeleteArtifact(ctx context.Context, f domain.ArtifactFamily, in DeleteInput) (*domain.Artifact, error) {
	if f != domain.FamKnowledge && f != domain.FamSkill {
		return nil, domain.FieldErrorf("family", "%s is not deleted this way", f)
	}
	n, err := c.Delete(ctx, f, in)
	if err != nil {
		return nil, err
	}
	return n.Artifact, nil
}

// ClearWorkingState clears working state explicitly: the ids given, or all of the scope's.
// References it held go with it. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) ClearWorkingState(ctx context.Context, scopeID string, ids []string, m Meta) ([]string, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	for i, id := range ids {
		if err := domain.CheckID(fmt.Sprintf("ids[%d]", i), id); err != nil {
			return nil, err
		}
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	if ids == nil {
		after := ""
		for {
			p, err := ls.ListArtifacts(ctx, scopeID, domain.FamWorkingState, domain.ArtifactFilter{}, domain.Page{First: 1000, After: after})
			if err != nil {
				return nil, err
			}
			for _, a := range p.Artifacts {
				ids = append(ids, a.ID)
			}
			if !p.HasNext {
				break
			}
			after = p.EndCursor
		}
	} else {
		// All named ids must be this scope's working state before anything is cleared.
		as, err := ls.Artifacts(ctx, ids)
		if err != nil {
			return nil, err
		}
		found := map[string]bool{}
		for _, a := range as {
			if a.Family == domain.FamWorkingState && a.ScopeID == scopeID {
				found[a.ID] = true
			}
		}
		for _, id := range ids {
			if !found[id] {
				return nil, domain.Errorf(domain.ENOTFOUND, "working state %s not found in scope %s", id, scopeID)
			}
		}
	}
	cleared := []string{}
	for _, id := range ids {
		meta := m
		if m.RequestID != "" {
			meta.RequestID = m.RequestID + ":" + id
		}
		if _, err := c.Delete(ctx, domain.FamWorkingState, DeleteInput{ID: id, Reason: "cleared", Cascade: true, Meta: meta}); err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				continue // cleared meanwhile
			}
			return cleared, err
		}
		cleared = append(cleared, id)
	}
	return cleared, nil
}

// ---- Scope deletion ----

// DeleteScope deletes a scope and everything it owns: kernels, artifacts of every family,
// references, associations, reports and its search documents; its events are erased (their
// Seq stays, so the log has no gap). A DeleteScopeCommand and a ScopeDeleted event record the
// deletion. Nothing of another scope is touched. Errors: INVALID_ARGUMENT, NOT_FOUND, FORBIDDEN
// (not ADMIN).
func (c *Cortex) DeleteScope(ctx context.Context, scopeID string, m Meta) (*domain.ScopeDeletion, error) {
	if err := domain.CheckID("id", scopeID); err != nil {
		return nil, err
	}
	if err := needAdmin(ctx, "delete scopes"); err != nil {
		return nil, err
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	out, err := ls.DeleteScope(ctx, domain.Request{Op: "deleteScope", RequestID: m.RequestID, Fingerprint: fingerprint(scopeID)}, scopeID,
		func(d *domain.ScopeDeletion) []*domain.Event {
			cmd := command(domain.MsgDeleteScopeCommand, scopeID, "", tc, domain.CtxHippocampus, map[string]any{"scopeId": scopeID})
			return []*domain.Event{cmd, {Type: domain.EvScopeDeleted, ScopeID: scopeID, Context: tc.Derive(domain.CtxHippocampus, tc.Timestamp),
				Payload: map[string]any{"scopeId": scopeID, "nodes": d.Nodes, "events": d.Events, "artifacts": d.Artifacts}}}
		})
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	if err := c.removeScopeDocs(ctx, scopeID); err != nil {
		return nil, err
	}
	return out, nil
}

// ---- Search across families ----

// ArtifactHit is one search result with the family it belongs to.
type ArtifactHit struct {
	Family   domain.ArtifactFamily
	ID       string
	Score    float64
	Memory   *domain.Memory
	Artifact *domain.Artifact
}

// ArtifactSearchInput searches a scope's memories, knowledge pages and skills.
type ArtifactSearchInput struct {
	ScopeID         string
	Query           string
	Families        []domain.ArtifactFamily
	MaxResults      int
	IncludeArchived bool
	// KnowledgeTypes keeps only knowledge pages of these types (JOURNAL: the journal; NARRATIVE:
	// the story); other families are not filtered.
	KnowledgeTypes []domain.KnowledgeType
}

// indexScope is the index scope a family's documents live under: memories under the scope's
// id, knowledge and skills under "<scope>/<family>", so a memory search never sees them.
func indexScope(scopeID string, f domain.ArtifactFamily) string {
	if f == domain.FamMemory {
		return scopeID
	}
	return scopeID + "/" + string(f)
}

// SearchArtifacts runs a full-text search over the families asked (default memory, knowledge
// and skill) and ranks the hits together by text relevance; every hit names its family.
// Archived artifacts are left out unless asked for. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) SearchArtifacts(ctx context.Context, in ArtifactSearchInput) ([]*ArtifactHit, error) {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Query) == "" {
		return nil, domain.FieldErrorf("query", "must not be empty")
	}
	if len(in.Query) > 4096 {
		return nil, domain.FieldErrorf("query", "is longer than 4096 bytes")
	}
	if err := hippocampus.CheckText("query", in.Query); err != nil {
		return nil, err
	}
	if in.MaxResults == 0 {
		in.MaxResults = 10
	}
	if in.MaxResults < 0 || in.MaxResults > MaxSearchResults {
		return nil, domain.FieldErrorf("maxResults", "must be within 1..%d", MaxSearchResults)
	}
	fams := in.Families
	if len(fams) == 0 {
		fams = []domain.ArtifactFamily{domain.FamMemory, domain.FamKnowledge, domain.FamSkill}
	}
	for _, f := range fams {
		if !f.Searchable() {
			return nil, domain.FieldErrorf("families", "%s is never served by search", f)
		}
	}
	var kinds []domain.MemoryKind
	for _, k := range in.KnowledgeTypes {
		if !k.Valid() {
			return nil, domain.FieldErrorf("knowledgeTypes", "unknown knowledge type %q", k)
		}
		kinds = append(kinds, domain.MemoryKind(k))
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	filter := domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}
	if in.IncludeArchived {
		filter.States = nil
	}
	var hits []*ArtifactHit
	seen := map[domain.ArtifactFamily]bool{}
	for _, f := range fams {
		if seen[f] {
			continue
		}
		seen[f] = true
		ff := filter
		if f == domain.FamKnowledge {
			ff.Kinds = kinds
		}
		hs, err := c.index.Search(ctx, domain.IndexQuery{ScopeID: indexScope(in.ScopeID, f), Text: in.Query,
			Limit: max(in.MaxResults*2, 20), Filter: ff})
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			hits = append(hits, &ArtifactHit{Family: f, ID: h.ID, Score: h.Score})
		}
	}
	var memIDs, artIDs []string
	for _, h := range hits {
		if h.Family == domain.FamMemory {
			memIDs = append(memIDs, h.ID)
		} else {
			artIDs = append(artIDs, h.ID)
		}
	}
	ms, err := c.store.Memories(ctx, memIDs)
	if err != nil {
		return nil, err
	}
	as, err := ls.Artifacts(ctx, artIDs)
	if err != nil {
		return nil, err
	}
	mByID := map[string]*domain.Memory{}
	for _, m := range ms {
		mByID[m.ID] = m
	}
	aByID := map[string]*domain.Artifact{}
	for _, a := range as {
		aByID[a.ID] = a
	}
	out := make([]*ArtifactHit, 0, len(hits))
	for _, h := range hits {
		// Deleted, changed or archived since it was indexed: the graph is the truth.
		if m := mByID[h.ID]; h.Family == domain.FamMemory && m != nil && m.ScopeID == in.ScopeID &&
			(in.IncludeArchived || m.State == domain.StateActive) {
			h.Memory = m
			out = append(out, h)
		} else if a := aByID[h.ID]; h.Family != domain.FamMemory && a != nil && a.Family == h.Family && a.ScopeID == in.ScopeID &&
			(in.IncludeArchived || a.State == domain.StateActive) && (len(kinds) == 0 || a.Family != domain.FamKnowledge ||
			slices.Contains(kinds, domain.MemoryKind(a.Type))) {
			h.Artifact = a
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > in.MaxResults {
		out = out[:in.MaxResults]
	}
	return out, nil
}

// ---- The index ----

// artifactDoc is what the index keeps of a knowledge page or skill.
func artifactDoc(a *domain.Artifact) domain.IndexDoc {
	text := a.Title + "\n" + a.Content
	if len(a.Steps) > 0 {
		text += "\n" + strings.Join(a.Steps, "\n")
	}
	return domain.IndexDoc{ID: a.ID, ScopeID: indexScope(a.ScopeID, a.Family), Content: text, Tags: a.Tags,
		Kind: domain.MemoryKind(a.Type), State: a.State, OccurredAt: a.UpdatedAt, CreatedAt: a.CreatedAt, Version: a.Version}
}

// refreshIndex makes the index agree with the graph for ids of any family: present memories,
// knowledge pages and skills are put (with their current state), the rest removed.
func (c *Cortex) refreshIndex(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	ls, err := c.lifecycleStore()
	if err != nil {
		return err
	}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return err
	}
	as, err := ls.Artifacts(ctx, ids)
	if err != nil {
		return err
	}
	present := map[string]bool{}
	var docs []domain.IndexDoc
	for _, m := range ms {
		present[m.ID] = true
		docs = append(docs, docOf(m))
	}
	for _, a := range as {
		present[a.ID] = true
		if a.Family.Searchable() {
			docs = append(docs, artifactDoc(a))
		}
	}
	var gone []string
	for _, id := range ids {
		if !present[id] {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if err := c.removeDocs(ctx, gone); err != nil {
			return err
		}
	}
	return c.putDocs(ctx, docs)
}

// removeScopeDocs removes every search document of a scope, of every family.
func (c *Cortex) removeScopeDocs(ctx context.Context, scopeID string) error {
	for _, f := range []domain.ArtifactFamily{domain.FamMemory, domain.FamKnowledge, domain.FamSkill} {
		if err := c.index.RemoveScope(ctx, indexScope(scopeID, f)); err != nil {
			return err
		}
	}
	return nil
}

// lifecycleIndexEvent reports whether e changes what the index holds of an artifact (refreshed
// from the graph) — and handles a scope deletion at once.
func (c *Cortex) lifecycleIndexEvent(ctx context.Context, e *domain.Event) (refresh bool, err error) {
	switch e.Type {
	case domain.EvArtifactSaved, domain.EvArtifactArchived, domain.EvArtifactRestored, domain.EvArtifactRemoved,
		domain.EvArtifactDeleted, domain.EvWorkingStateCleared:
		return e.MemoryID != "", nil
	case domain.EvScopeDeleted:
		return false, c.removeScopeDocs(ctx, e.ScopeID)
	}
	return false, nil
}
