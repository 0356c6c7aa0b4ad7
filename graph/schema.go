package graph

// schemaDQL is the graph's schema. Every node carries tr.kind and tr.scope (indexed): Dgraph
// namespaces do not isolate without ACL, so the scope is checked in every query instead.
const schemaDQL = `
tr.kind: string @index(exact) .
tr.id: string @index(exact) @upsert .
tr.scope: string @index(exact) .
scope.name: string @index(exact) .
scope.createdAt: datetime .
kernel.family: string @index(exact) .
kernel.content: string .
kernel.updatedAt: datetime .
kernel.version: int .
kernel.of: uid @reverse .
mem.content: string .
mem.kind: string @index(exact) .
mem.tier: string @index(exact) .
mem.tags: [string] @index(exact) .
mem.occurredAt: datetime @index(hour) .
mem.salience: float .
mem.claimed: bool @index(bool) .
mem.accessCount: int .
mem.lastAccessedAt: datetime .
mem.state: string @index(exact) .
mem.version: int .
mem.doc: string .
assoc.TEMPORAL: [uid] @reverse .
assoc.CAUSAL: [uid] @reverse .
assoc.THEMATIC: [uid] @reverse .
assoc.EMOTIONAL: [uid] @reverse .
assoc.PERSON: [uid] @reverse .
ev.seq: int @index(int) @upsert .
ev.type: string .
ev.memory: string @index(exact) .
ev.requestId: string @index(exact) .
ev.messageId: string @index(exact) @upsert .
ev.body: string .
ev.touches: [string] .
ev.about: [string] @index(exact) .
ev.aboutDoc: string .
ev.of: uid .
ev.count: int .
ev.pack: string .
ev.memories: [string] @index(exact) .
req.key: string @index(exact) @upsert .
req.fingerprint: string .
req.result: string .
req.scopes: [string] @index(exact) .
counter.value: int .

type Scope {
  tr.kind
  tr.id
  tr.scope
  scope.name
  scope.createdAt
}

type Kernel {
  tr.kind
  tr.id
  tr.scope
  kernel.family
  kernel.content
  kernel.updatedAt
  kernel.version
  kernel.of
}

type Request {
  tr.kind
  tr.scope
  req.scopes
  req.key
  req.fingerprint
  req.result
}

type Counter {
  tr.kind
  tr.id
  counter.value
}
`

// schemaParts are further DQL schema fragments, registered by the files of the store that need
// predicates of their own (each in an init func); they are applied together with schemaDQL.
var schemaParts []string

func fullSchema() string {
	out := schemaDQL
	for _, p := range schemaParts {
		out += "\n" + p
	}
	return out
}

// Node kinds (tr.kind).
const (
	kindScope   = "Scope"
	kindKernel  = "Kernel"
	kindMemory  = "Memory"
	kindEvent   = "Event"
	kindRequest = "Request"
	kindCounter = "Counter"
	// kindEventAbout is a page of an event about several artifacts (see aboutPages).
	kindEventAbout = "EventAbout"
)

// eventCounterID is the tr.id of the node holding the last event Seq.
const eventCounterID = "counter:events"
