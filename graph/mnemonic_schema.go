package graph

// The predicates of seed 001's records: the events ledger (threads; events are memory nodes with
// their thread in ing.thread and their source fields in mem.doc), episodes and their
// definitions, analysis types, runs and facets, the agents ledger, and vectors. Each node keeps
// what queries look up by as predicates of its own and the rest in one JSON document, so a
// record costs few N-Quads.
func init() {
	schemaParts = append(schemaParts, `
ing.thread: string @index(exact) .
th.doc: string .
epd.name: string @index(exact) .
epd.doc: string .
ep.def: string @index(exact) .
ep.thread: string @index(exact) .
ep.start: datetime @index(hour) .
ep.doc: string .
ep.items: [uid] @reverse .
at.name: string @index(exact) .
at.doc: string .
ar.type: string @index(exact) .
ar.episode: string @index(exact) .
ar.status: string @index(exact) .
ar.doc: string .
fc.type: string @index(exact) .
fc.value: string @index(exact) .
fc.episode: string @index(exact) .
fc.run: string @index(exact) .
fc.memory: string @index(exact) .
fc.confidence: float .
fc.doc: string .
ag.session: string @index(exact) .
ag.parent: string @index(exact) .
ag.seq: int .
ag.doc: string .
emb.vector: float32vector @index(hnsw(metric:"cosine")) .
`)
}

// Node kinds of seed 001's records (tr.kind).
const (
	kindThread        = "Thread"
	kindEpisodeDef    = "EpisodeDefinition"
	kindEpisode       = "Episode"
	kindAnalysisType  = "AnalysisType"
	kindAnalysisRun   = "AnalysisRun"
	kindFacet         = "Facet"
	kindAgentSession  = "AgentSession"
	kindAgentMessage  = "AgentMessage"
	kindAgentTurn     = "AgentTurn"
	kindAgentToolCall = "AgentToolCall"
)

// facetPredicates lists every predicate a facet node carries, for explicit deletion.
var facetPredicates = []string{"tr.kind", "tr.id", "tr.scope", "fc.type", "fc.value", "fc.episode", "fc.run",
	"fc.memory", "fc.confidence", "fc.doc"}
