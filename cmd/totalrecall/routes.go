package main

import (
	"net/http"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/mcpserver"
	"github.com/totalrecall/totalrecall/resolvers"
)

// routes is the server's HTTP surface: every adapter (GraphQL and the playground, the MCP
// server at /mcp, the dump at /export and /import, and those that join them) mounts its paths here, so all of them sit behind
// the one handler chain serve builds.
func routes(cx *cortex.Cortex, ready func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", resolvers.NewHandler(cx, ready))
	mux.Handle("/mcp", mcpserver.New(cx, mcpserver.Options{}))
	mux.Handle("/export", resolvers.DumpHandler(cx))
	mux.Handle("/import", resolvers.DumpHandler(cx))
	return mux
}
