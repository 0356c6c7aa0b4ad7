package graph

import "github.com/totalrecall/totalrecall/domain"

// The predicates of seed 004's lifecycle. Knowledge pages, skills and working states are compact
// nodes: what lists filter and sort on as predicates, the rest in art.doc. The refgraph is one
// [uid] @reverse predicate per reference type, so a reference is one N-Quad and is read from
// either end. life.doc holds the service-owned archive record of any digestible artifact
// (memories included); life.archivedBy names the digest pass (its report id) that archived it,
// while that archive lasts — a restore, or an archival by anything else (a consolidation), drops
// it, and only what carries it may be removed by a later pass; a tombstone (kind Removed) keeps the id, scope and family of a removed
// artifact that references still point at, so they show as broken rather than vanish.
func init() {
	schemaParts = append(schemaParts, `
art.type: string @index(exact) .
art.state: string @index(exact) .
art.content: string .
art.tags: [string] @index(exact) .
art.updatedAt: datetime @index(hour) .
art.version: int .
art.doc: string .
life.doc: string .
life.archivedBy: string .
life.family: string .
ref.SUPPORTS: [uid] @reverse .
ref.DERIVED_FROM: [uid] @reverse .
ref.DEPENDS_ON: [uid] @reverse .
ref.CITES: [uid] @reverse .
ref.CONTRADICTS: [uid] @reverse .
digest.at: datetime .
digest.doc: string .
digest.lastProposal: string .
`)
}

// Node kinds of the lifecycle (tr.kind).
const (
	kindKnowledge    = "Knowledge"
	kindSkill        = "Skill"
	kindWorkingState = "WorkingState"
	kindRemoved      = "Removed"
	kindDigestReport = "DigestReport"
)

func refPred(t domain.RefType) string { return "ref." + string(t) }

// refPredicates lists the refgraph predicates, for explicit deletion of a node's references.
func refPredicates() []string {
	out := make([]string, len(domain.RefTypes))
	for i, t := range domain.RefTypes {
		out[i] = refPred(t)
	}
	return out
}

// artPredicates lists every predicate a knowledge, skill or working-state node may carry.
var artPredicates = []string{"tr.kind", "tr.id", "tr.scope", "art.type", "art.state", "art.content", "art.tags",
	"art.updatedAt", "art.version", "art.doc", "life.doc", "life.archivedBy"}

func kindOfFamily(f domain.ArtifactFamily) string {
	switch f {
	case domain.FamMemory:
		return kindMemory
	case domain.FamKnowledge:
		return kindKnowledge
	case domain.FamSkill:
		return kindSkill
	case domain.FamWorkingState:
		return kindWorkingState
	case domain.FamAgentKernel, domain.FamWorldKernel:
		return kindKernel
	}
	return ""
}

func familyOfKind(kind, kernelFamily string) domain.ArtifactFamily {
	switch kind {
	case kindMemory:
		return domain.FamMemory
	case kindKnowledge:
		return domain.FamKnowledge
	case kindSkill:
		return domain.FamSkill
	case kindWorkingState:
		return domain.FamWorkingState
	case kindKernel:
		return domain.ArtifactFamily(kernelFamily)
	}
	return ""
}
