package resolvers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/resolvers/generated"
)

// NewHandler serves GraphQL on /query (POST, GET, websocket with both subscription protocols,
// SSE); ready answers /healthz. The playground is a page of package web.
func NewHandler(cx *cortex.Cortex, ready func() bool) http.Handler {
	srv := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{Cortex: cx}}))
	srv.AddTransport(transport.SSE{})
	srv.AddTransport(transport.Websocket{
		KeepAlivePingInterval: 10 * time.Second,
		Upgrader: websocket.Upgrader{
			CheckOrigin:     func(r *http.Request) bool { return true },
			ReadBufferSize:  4096,
			WriteBufferSize: 4096,
		},
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	// A client sends the same few operations again and again: each is parsed and validated
	// against the schema once (LRU of 1,000 documents, keyed by the query text).
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		return &gqlerror.Error{Message: "internal error", Extensions: map[string]any{"code": domain.EINTERNAL}}
	})

	mux := http.NewServeMux()
	mux.Handle("/query", srv)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if ready != nil && !ready() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}

// presentError gives every error a stable extensions.code; internal details are not leaked.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	gerr := graphql.DefaultErrorPresenter(ctx, err)
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		gerr.Message = domain.ErrorMessage(de)
		ext := map[string]any{"code": de.Code}
		if de.Field != "" {
			ext["field"] = de.Field
		}
		gerr.Extensions = ext
	case errors.Is(err, context.DeadlineExceeded):
		gerr.Message = "deadline exceeded"
		gerr.Extensions = map[string]any{"code": domain.EDEADLINEEXCEEDED}
	case errors.Is(err, context.Canceled):
		gerr.Message = "canceled"
		gerr.Extensions = map[string]any{"code": domain.ECANCELED}
	default:
		var ge *gqlerror.Error
		switch {
		case errors.As(err, &ge) && ge.Err == nil:
			// Raised by the executor itself: a parse, validation or input coercion error.
			gerr.Extensions = map[string]any{"code": domain.EINVALID}
		default:
			gerr.Message = "internal error"
			gerr.Extensions = map[string]any{"code": domain.EINTERNAL}
		}
	}
	return gerr
}
