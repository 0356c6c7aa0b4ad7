// Package digest is seed 004's digest routine: it reasons over the refgraph to propose which
// memories, knowledge pages and skills leave service, archives the approved ones (reversibly) in
// one pass and removes already archived ones in a later pass. Kernels are never touched; working
// state is cleared only explicitly. Every decision is typed and points at the references behind it.
//
// The rule (documented in the README and tested): an active memory, knowledge page or skill is a
// candidate when nothing active supports it — no active, non-transient artifact supports, cites,
// derives from or depends on it — and at least one of these holds:
//
//	BROKEN_REFERENCE      it cites, supports or contradicts an artifact that was archived or removed
//	UNHEALTHY_DEPENDENCY  it depends on or derives from an artifact that was archived or removed
//	CONTRADICTED          an active artifact contradicts it
//	STALE                 unused (created, updated, retrieved or restored) for longer than the
//	                      window; claimed memories and the pages of the story and the journal
//	                      (knowledge of type NARRATIVE or JOURNAL) are never stale
//
// Its reasons are UNSUPPORTED (with the incoming references whose sources left service) and each
// finding above, one reason per reference.
package digest

import (
	"fmt"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// DefaultStaleAfter is the staleness window of a pass that names none.
const DefaultStaleAfter = 30 * 24 * time.Hour

// MaxIDs bounds the ids one pass may archive and remove together.
const MaxIDs = 10000

// Evaluate returns the reasons against n at now; empty when n is no candidate (including every
// artifact whose family the digest never touches, and archived ones).
func Evaluate(n *domain.RefNode, now time.Time, staleAfter time.Duration) []domain.Reason {
	if !n.Family.Digestible() || n.State != domain.EndActive {
		return nil
	}
	var dead []string
	for _, r := range n.In {
		if r.Supports() {
			return nil // something active keeps it in service
		}
		if r.Type.Supporting() && r.SourceState == domain.EndArchived {
			dead = append(dead, r.RefID())
		}
	}
	var findings []domain.Reason
	for _, r := range n.Out {
		if r.TargetState != domain.EndArchived && r.TargetState != domain.EndRemoved {
			continue
		}
		what := "was archived"
		if r.TargetState == domain.EndRemoved {
			what = "was removed"
		}
		code, verb := domain.ReasonBrokenReference, refVerb(r.Type)
		if r.Type.Dependency() {
			code = domain.ReasonUnhealthyDependency
		}
		findings = append(findings, domain.Reason{Code: code, ReferenceIDs: []string{r.RefID()},
			Detail: fmt.Sprintf("%s %s %s, which %s", verb, familyName(r.TargetFamily), orUnknown(r.TargetID), what)})
	}
	for _, r := range n.In {
		if r.Type == domain.RefContradicts && r.SourceState == domain.EndActive {
			findings = append(findings, domain.Reason{Code: domain.ReasonContradicted, ReferenceIDs: []string{r.RefID()},
				Detail: fmt.Sprintf("contradicted by active %s %s", familyName(r.SourceFamily), r.SourceID)})
		}
	}
	if !n.Claimed && staleAfter >= 0 && !n.LastUsed.IsZero() && now.Sub(n.LastUsed) > staleAfter {
		findings = append(findings, domain.Reason{Code: domain.ReasonStale, ReferenceIDs: []string{},
			Detail: fmt.Sprintf("unused since %s (window %s)", n.LastUsed.UTC().Format(time.RFC3339), staleAfter)})
	}
	if len(findings) == 0 {
		return nil
	}
	detail := "no active artifact references it"
	if len(dead) > 0 {
		detail = fmt.Sprintf("no active artifact references it; %d reference(s) come from archived artifacts", len(dead))
	}
	if dead == nil {
		dead = []string{}
	}
	return append([]domain.Reason{{Code: domain.ReasonUnsupported, Detail: detail, ReferenceIDs: dead}}, findings...)
}

func refVerb(t domain.RefType) string {
	switch t {
	case domain.RefSupports:
		return "supports"
	case domain.RefDerivedFrom:
		return "derives from"
	case domain.RefDependsOn:
		return "depends on"
	case domain.RefCites:
		return "cites"
	case domain.RefContradicts:
		return "contradicts"
	}
	return "references"
}

func familyName(f domain.ArtifactFamily) string {
	if f == "" {
		return "artifact"
	}
	return string(f)
}

func orUnknown(id string) string {
	if id == "" {
		return "(unknown id)"
	}
	return id
}

// Pass is one digest pass as asked.
type Pass struct {
	ScopeID    string
	Propose    bool
	Archive    []string
	Remove     []string
	StaleAfter time.Duration
}

// Check validates a pass before anything is read. Errors: INVALID_ARGUMENT,
// SAME_PASS_ARCHIVE_REMOVE.
func Check(p Pass) error {
	if err := domain.CheckID("scopeId", p.ScopeID); err != nil {
		return err
	}
	if !p.Propose && len(p.Archive) == 0 && len(p.Remove) == 0 {
		return domain.FieldErrorf("propose", "a pass proposes, archives or removes something")
	}
	if len(p.Archive)+len(p.Remove) > MaxIDs {
		return domain.FieldErrorf("archive", "at most %d ids per pass", MaxIDs)
	}
	if p.StaleAfter < 0 {
		return domain.FieldErrorf("staleAfterDays", "must not be negative")
	}
	archive := map[string]bool{}
	for i, id := range p.Archive {
		if err := domain.CheckID(fmt.Sprintf("archive[%d]", i), id); err != nil {
			return err
		}
		if archive[id] {
			return domain.FieldErrorf(fmt.Sprintf("archive[%d]", i), "%s appears twice", id)
		}
		archive[id] = true
	}
	removed := map[string]bool{}
	for i, id := range p.Remove {
		if err := domain.CheckID(fmt.Sprintf("remove[%d]", i), id); err != nil {
			return err
		}
		if removed[id] {
			return domain.FieldErrorf(fmt.Sprintf("remove[%d]", i), "%s appears twice", id)
		}
		removed[id] = true
		// Archive and remove are separate passes: that is what keeps an archive reversible.
		if archive[id] {
			return domain.Errorf(domain.ESAMEPASS, "%s is asked to be archived and removed in the same pass; archive it now and remove it in a later pass", id)
		}
	}
	return nil
}

// Prior is the scope's previous propose pass as a later pass consults it, to tell which of its
// own proposals are new to their artifacts' histories (Fresh). Its proposals are fetched a page
// at a time, in artifact id order, as the later pass asks in that order: neither pass's
// proposals are ever held whole.
type Prior struct {
	at    time.Time
	fetch func(after string) ([]domain.Proposal, error)
	buf   []domain.Proposal
	i     int
	done  bool
}

// NewPrior is the pass made at at whose proposals fetch returns, a page at a time: those after
// artifact id after, in id order; none once there are no more.
func NewPrior(at time.Time, fetch func(after string) ([]domain.Proposal, error)) *Prior {
	return &Prior{at: at, fetch: fetch}
}

// Fresh tells whether proposal pr, of an artifact last used (created, updated, retrieved or
// restored) at lastUsed, is new to its artifact's history: the previous pass (p; nil when there
// was none) did not make it with the same reasons, or the artifact was used since. A pass that
// finds the same artifacts in the same state as the last one records nothing new. Proposals
// are asked in artifact id order.
func (p *Prior) Fresh(pr domain.Proposal, lastUsed time.Time) (bool, error) {
	if p == nil {
		return true, nil
	}
	prev, ok, err := p.find(pr.ArtifactID)
	if err != nil {
		return false, err
	}
	if !ok || lastUsed.After(p.at) {
		return true, nil
	}
	return domain.ReasonsKey(prev.Reasons) != domain.ReasonsKey(pr.Reasons), nil
}

// find returns the previous pass's proposal for artifact id, ids asked in increasing order.
func (p *Prior) find(id string) (*domain.Proposal, bool, error) {
	for {
		for p.i < len(p.buf) && p.buf[p.i].ArtifactID < id {
			p.i++
		}
		if p.i < len(p.buf) {
			if p.buf[p.i].ArtifactID == id {
				return &p.buf[p.i], true, nil
			}
			return nil, false, nil
		}
		if p.done {
			return nil, false, nil
		}
		after := ""
		if len(p.buf) > 0 {
			after = p.buf[len(p.buf)-1].ArtifactID
		}
		page, err := p.fetch(after)
		if err != nil {
			return nil, false, err
		}
		p.buf, p.i, p.done = page, 0, len(page) == 0
	}
}

// Decide checks the archive and remove lists of p against the nodes read inside the write and
// returns the archive records. Errors (nothing is written): NOT_FOUND, CROSS_SCOPE_REFERENCE,
// FORBIDDEN (a kernel or working state), CONFLICT (archive of an archived artifact),
// NOT_A_CANDIDATE (archive of an artifact the refgraph finds nothing against), NOT_ARCHIVED
// (remove of an artifact not archived by an earlier digest pass: active, restored since, or
// archived otherwise, as a consolidation's sources are).
func Decide(p Pass, nodes map[string]*domain.RefNode, reportID string, now time.Time) (map[string]*domain.ArchiveRecord, error) {
	get := func(id string) (*domain.RefNode, error) {
		n, ok := nodes[id]
		if !ok || n.State == domain.EndRemoved {
			return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
		}
		if n.ScopeID != p.ScopeID {
			return nil, domain.Errorf(domain.ECROSSSCOPE, "artifact %s belongs to another scope than %s", id, p.ScopeID)
		}
		if n.Family.Kernel() {
			return nil, domain.Errorf(domain.EFORBIDDEN, "%s is the scope's %s: kernels are core truth, never cleaned up", id, n.Family)
		}
		if n.Family == domain.FamWorkingState {
			return nil, domain.Errorf(domain.EFORBIDDEN, "%s is working state: it is cleared only explicitly (clearWorkingState)", id)
		}
		return n, nil
	}
	records := make(map[string]*domain.ArchiveRecord, len(p.Archive))
	for _, id := range p.Archive {
		n, err := get(id)
		if err != nil {
			return nil, err
		}
		if n.State == domain.EndArchived {
			return nil, domain.Errorf(domain.ECONFLICT, "%s is already archived", id)
		}
		rs := Evaluate(n, now, p.StaleAfter)
		if len(rs) == 0 {
			return nil, domain.Errorf(domain.ENOTCANDIDATE, "%s is not a digest candidate: the refgraph finds nothing against it", id)
		}
		records[id] = &domain.ArchiveRecord{ReportID: reportID, ArchivedAt: now, Reasons: rs}
	}
	for _, id := range p.Remove {
		n, err := get(id)
		if err != nil {
			return nil, err
		}
		if n.State != domain.EndArchived {
			return nil, domain.Errorf(domain.ENOTARCHIVED, "%s was not archived in an earlier pass; archive it first", id)
		}
		if n.ArchivedBy == "" || n.ArchivedBy == reportID {
			return nil, domain.Errorf(domain.ENOTARCHIVED, "%s was archived, but not by an earlier digest pass; only what a digest pass archived is removed", id)
		}
	}
	return records, nil
}
