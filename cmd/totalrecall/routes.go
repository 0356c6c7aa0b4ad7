package main

import (
	"net/http"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/mcpserver"
	"github.com/totalrecall/totalrecall/resolvers"
	"github.com/totalrecall/totalrecall/web"
)

// routes is the server's HTTP surface: every adapter (GraphQL, the MCP server at /mcp, the dump
// at /export and /import, the pages and graph exports of package web, the probes) mounts its
// paths here, so all of them sit behind the one handler chain serve builds (package edge: API
// keys, limits, access log, metrics). A path that must answer without a key (it holds no data)
// is listed in publicPaths. sh, when set, routes the requests by scope between the servers that
// split the scopes (shard_route.go) and answers /shard.
func routes(cx *cortex.Cortex, ready func() bool, gql resolvers.Options, sh *shardServing) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", resolvers.NewHandlerWith(cx, ready, gql))
	mux.Handle("/livez", livez())
	mux.Handle("/readyz", readyz(cx, ready))
	mux.Handle("/mcp", mcpserver.New(cx, mcpserver.Options{}))
	mux.Handle("/export", resolvers.DumpHandler(cx))
	mux.Handle("/import", resolvers.DumpHandler(cx))
	// The pages and exports (package web): every asset embedded, nothing loaded from elsewhere.
	mux.Handle("GET /{$}", web.Playground())
	mux.Handle("GET /explore", web.Explorer())
	mux.Handle("GET /explore/{$}", http.RedirectHandler("../explore", http.StatusMovedPermanently))
	mux.Handle("GET /assets/", web.Assets("/assets/"))
	mux.Handle("GET /export/{file}", web.Export(cx))
	if sh == nil {
		return mux
	}
	mux.Handle("/shard", shardHandler(sh.router, sh.spec, sh.instance))
	if sh.router == nil {
		return mux
	}
	return sh.router.Wrap(mux)
}
