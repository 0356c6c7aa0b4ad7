package main

import (
	"net/http"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/resolvers"
	"github.com/totalrecall/totalrecall/web"
)

// routes is the server's HTTP surface: every adapter (GraphQL and the playground, and those that
// join them) mounts its paths here, so all of them sit behind the one handler chain serve builds.
func routes(cx *cortex.Cortex, ready func() bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", resolvers.NewHandler(cx, ready))
	// The pages and exports (package web): every asset embedded, nothing loaded from elsewhere.
	mux.Handle("GET /{$}", web.Playground())
	mux.Handle("GET /explore", web.Explorer())
	mux.Handle("GET /explore/{$}", http.RedirectHandler("../explore", http.StatusMovedPermanently))
	mux.Handle("GET /assets/", web.Assets("/assets/"))
	mux.Handle("GET /export/{file}", web.Export(cx))
	return mux
}
