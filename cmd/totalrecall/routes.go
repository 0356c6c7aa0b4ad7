package main

import (
	"net/http"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/resolvers"
)

// routes is the server's HTTP surface: every adapter (GraphQL and the playground, and those that
// join them) mounts its paths here, so all of them sit behind the one handler chain serve builds
// (package edge: API keys, limits, access log, metrics). A path that must answer without a key
// (it holds no data) is listed in publicPaths.
func routes(cx *cortex.Cortex, ready func() bool, gql resolvers.Options) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", resolvers.NewHandlerWith(cx, ready, gql))
	mux.Handle("/livez", livez())
	mux.Handle("/readyz", readyz(cx, ready))
	return mux
}
