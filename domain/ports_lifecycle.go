package domain

import (
	"context"
	"time"
)

// LifecycleStore is the store capability of seed 004's lifecycle: the knowledge, skill and
// working-state families, the refgraph, the digest's writes, restore, explicit deletion with a
// dependents check, and scope deletion. The graph store implements it; the Cortex finds it by
// type assertion. Every write refuses references across scopes inside the write
// (CROSS_SCOPE_REFERENCE) and applies a Request at most once. Safe for concurrent use.
type LifecycleStore interface {
	// InsertArtifacts persists new knowledge pages, skills or working states, each in an existing
	// scope, with events, all or none. Errors: NOT_FOUND (a scope), CONFLICT (an id taken).
	InsertArtifacts(ctx context.Context, req Request, arts []*Artifact, events []*Event) ([]*Artifact, error)
	// Artifacts loads the knowledge pages, skills and working states among ids, in their order.
	Artifacts(ctx context.Context, ids []string) ([]*Artifact, error)
	// ListArtifacts pages through a scope's artifacts of one family, newest update first.
	ListArtifacts(ctx context.Context, scopeID string, family ArtifactFamily, f ArtifactFilter, p Page) (*ArtifactPage, error)
	// UpdateArtifact runs a read-modify-write of a knowledge page, skill or working state.
	// Errors: NOT_FOUND, and fn's.
	UpdateArtifact(ctx context.Context, req Request, id string, fn ArtifactUpdate) (*Artifact, error)

	// Node reads one artifact of any family as the refgraph sees it, with its references in both
	// directions and their health. Errors: NOT_FOUND.
	Node(ctx context.Context, id string) (*RefNode, error)
	// Reference adds (add, created at at) or removes the reference of type t from source to target. Both ends
	// are read inside the write; ends in different scopes are refused with CROSS_SCOPE_REFERENCE
	// before fn runs. Errors: NOT_FOUND, CROSS_SCOPE_REFERENCE, and fn's.
	Reference(ctx context.Context, req Request, sourceID string, t RefType, targetID string, add bool, at time.Time, fn ReferenceChange) (*Reference, error)
	// ScanRefgraph reads every artifact of a scope with its outgoing and incoming references, a
	// page at a time, and hands each page to fn (the pages together cover the scope once, in
	// artifact id order).
	ScanRefgraph(ctx context.Context, scopeID string, fn func(page []*RefNode) error) error

	// Digest runs one digest pass: the refgraph nodes of ids are read inside the write, fn
	// decides the plan, and its archivals, removals, report and events are committed together.
	// Errors: fn's.
	Digest(ctx context.Context, req Request, scopeID string, ids []string, fn DigestDecide) (*DigestReport, error)
	// DigestReport loads a pass's report. Errors: NOT_FOUND.
	DigestReport(ctx context.Context, id string) (*DigestReport, error)
	// DigestProposals reads report id's proposals in artifact id order: at most limit
	// (1..MaxProposalPage) of those after artifact id after ("": from the first). Errors:
	// NOT_FOUND, INVALID_ARGUMENT.
	DigestProposals(ctx context.Context, id, after string, limit int) ([]Proposal, error)
	// ProposalWriter writes the proposals of report reportID, a propose pass of scope scopeID,
	// for a DigestPlan to commit; eventKey (the proposed event's message id) names the pages
	// of that event's history payloads.
	ProposalWriter(scopeID, reportID, eventKey string) ProposalWriter
	// ReplayedDigest returns the report of the pass a request ran, nil if it was not applied.
	// Errors: CONFLICT (the request id was used for another request).
	ReplayedDigest(ctx context.Context, req Request) (*DigestReport, error)
	// LastProposal loads the report of the scope's latest propose pass (a plan with Proposed);
	// nil when the scope has had none.
	LastProposal(ctx context.Context, scopeID string) (*DigestReport, error)
	// Restore puts an archived memory, knowledge page or skill back in service. fn sees its node
	// first. Errors: NOT_FOUND, and fn's.
	Restore(ctx context.Context, req Request, id string, fn NodeChange) (*RefNode, error)
	// DeleteArtifact removes a memory, knowledge page, skill or working state destructively with
	// its outgoing references and associations. fn sees its node (with its dependents, the
	// incoming references) first and decides; references pointing at it stay, broken, on a
	// tombstone that keeps only its id, scope and family. Errors: NOT_FOUND, and fn's.
	DeleteArtifact(ctx context.Context, req Request, id string, fn NodeChange) (*RefNode, error)
	// DeleteScope removes every node the scope owns — artifacts of every family, kernels,
	// references, associations, reports, and any other record carrying the scope — and erases
	// its events (each keeps only its Seq), then commits events. Nothing of another scope is
	// touched. Errors: NOT_FOUND.
	DeleteScope(ctx context.Context, req Request, scopeID string, events func(*ScopeDeletion) []*Event) (*ScopeDeletion, error)
}
