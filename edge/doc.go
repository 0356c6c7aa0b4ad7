// Package edge is the server's HTTP edge: the one handler chain every path of the public
// listener sits behind, whichever adapter serves it (GraphQL, MCP, the pages, exports). It gives
// each request an id and an access-log line, measures it, authenticates its API key
// (Authorization: Bearer trk_…) and puts the key's principal in the request's context, where the
// Cortex checks the key's grants for every scope the request touches. It also holds the limits
// that belong to HTTP: body size, JSON-only POSTs, per-key rate, websocket message size, and the
// websockets it closes at shutdown.
//
// It is a package of its own because every door shares it: an adapter added later is behind it
// by being mounted, and none of them need to know of keys.
package edge
