// Package graph is the knowledge graph: the Dgraph store behind domain.Store, its DQL schema,
// and the two ways to reach Dgraph — the embedded modusGraph engine on a local folder
// (file://PATH) and dgo to a cluster (dgraph://HOST:PORT). The same DQL runs on both.
//
// Every write goes through one primitive (Store.write): read what the operation needs, then
// commit all its mutations — records, events, the request record — in one request. In embedded
// mode a process lock serialises writes (the engine applies each mutation at once and offers no
// multi-request transactions); in cluster mode the operation runs as a dgo transaction and is
// retried on ErrAborted, conflicts being detected on @upsert predicates and on the scalar
// predicates every writer of a record touches (its version).
package graph
