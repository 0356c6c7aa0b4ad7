package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
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

// Options are the limits and hooks of the GraphQL handler; the zero value is the handler with
// no limits, introspection on and no hooks.
type Options struct {
	// MaxComplexity refuses operations of a higher complexity (gqlgen's count: one per field
	// selected) with COMPLEXITY_LIMIT_EXCEEDED; 0: no limit.
	MaxComplexity int
	// MaxDepth refuses operations whose selections nest deeper with DEPTH_LIMIT_EXCEEDED; 0: no
	// limit.
	MaxDepth int
	// NoIntrospection turns the schema's introspection (__schema, __type) off.
	NoIntrospection bool
	// WebsocketInit authenticates a websocket's connection_init payload and returns the
	// connection's context (which closes the socket when it ends).
	WebsocketInit func(ctx context.Context, payload map[string]any) (context.Context, error)
	// CheckOrigin accepts or refuses a websocket's Origin (nil: any).
	CheckOrigin func(r *http.Request) bool
	// Observe is told each response's operation (its first root field) and error codes.
	Observe func(ctx context.Context, operation string, errorCodes []string)
}

// Codes of the limits on operations.
const (
	ECOMPLEXITYLIMIT = "COMPLEXITY_LIMIT_EXCEEDED"
	EDEPTHLIMIT      = "DEPTH_LIMIT_EXCEEDED"
)

// NewHandler serves GraphQL on /query (POST, GET, websocket with both subscription protocols,
// SSE); ready answers /healthz. The playground is a page of package web.
func NewHandler(cx *cortex.Cortex, ready func() bool) http.Handler {
	return NewHandlerWith(cx, ready, Options{})
}

// NewHandlerWith is NewHandler with limits and hooks.
func NewHandlerWith(cx *cortex.Cortex, ready func() bool, o Options) http.Handler {
	srv := handler.New(generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{Cortex: cx}}))
	srv.AddTransport(transport.SSE{})
	checkOrigin := o.CheckOrigin
	if checkOrigin == nil {
		checkOrigin = func(r *http.Request) bool { return true }
	}
	ws := transport.Websocket{
		KeepAlivePingInterval: 10 * time.Second,
		InitTimeout:           30 * time.Second,
		Upgrader: websocket.Upgrader{
			CheckOrigin:     checkOrigin,
			ReadBufferSize:  4096,
			WriteBufferSize: 4096,
		},
	}
	if o.WebsocketInit != nil {
		ws.InitFunc = func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			ctx, err := o.WebsocketInit(ctx, p)
			if err != nil {
				return nil, nil, errors.New(domain.ErrorMessage(err))
			}
			return ctx, nil, nil
		}
	}
	srv.AddTransport(ws)
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	// A client sends the same few operations again and again: each is parsed and validated
	// against the schema once (LRU of 1,000 documents, keyed by the query text).
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	if !o.NoIntrospection {
		srv.Use(extension.Introspection{})
	}
	if o.MaxComplexity > 0 {
		srv.Use(extension.FixedComplexityLimit(o.MaxComplexity))
	}
	if o.MaxDepth > 0 {
		srv.Use(depthLimit(o.MaxDepth))
	}
	if o.Observe != nil {
		srv.Use(observer(o.Observe))
	}
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		return &gqlerror.Error{Message: "internal error", Extensions: map[string]any{"code": domain.EINTERNAL}}
	})

	mux := http.NewServeMux()
	mux.Handle("/query", objectBodies(srv))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if ready != nil && !ready() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}

// objectBodies refuses a POST whose body is not a JSON object, which gqlgen's POST transport
// does not expect (a body of null made it panic).
func objectBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); err != nil || len(trimmed) == 0 || trimmed[0] != '{' {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []map[string]any{{
				"message":    `the body must be a JSON object: {"query": "…", "variables": {…}}`,
				"extensions": map[string]any{"code": domain.EINVALID}}}})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// depthLimit refuses operations whose selections nest deeper than max fields.
type depthLimit int

var _ interface {
	graphql.OperationContextMutator
	graphql.HandlerExtension
} = depthLimit(0)

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	op := oc.Doc.Operations.ForName(oc.OperationName)
	if op == nil {
		return nil
	}
	if got := selectionDepth(op.SelectionSet, oc.Doc.Fragments, int(d)+1, map[string]bool{}); got > int(d) {
		err := gqlerror.Errorf("operation nests %d fields deep or more, deeper than the limit of %d (--max-depth)", got, int(d))
		err.Extensions = map[string]any{"code": EDEPTHLIMIT}
		return err
	}
	return nil
}

// selectionDepth is the depth of the deepest field of ss (fragments followed), counted up to
// stop.
func selectionDepth(ss ast.SelectionSet, frags ast.FragmentDefinitionList, stop int, spreading map[string]bool) int {
	deepest := 0
	for _, sel := range ss {
		var d int
		switch x := sel.(type) {
		case *ast.Field:
			if stop <= 1 {
				return 1
			}
			d = 1 + selectionDepth(x.SelectionSet, frags, stop-1, spreading)
		case *ast.InlineFragment:
			d = selectionDepth(x.SelectionSet, frags, stop, spreading)
		case *ast.FragmentSpread:
			if spreading[x.Name] {
				continue // a cycle: validation refuses it anyway
			}
			if f := frags.ForName(x.Name); f != nil {
				spreading[x.Name] = true
				d = selectionDepth(f.SelectionSet, frags, stop, spreading)
				delete(spreading, x.Name)
			}
		}
		deepest = max(deepest, d)
		if deepest >= stop {
			return deepest
		}
	}
	return deepest
}

// observer tells Observe each response's operation and error codes: around each operation (its
// responses, a subscription's refusal included), and for what fails before one starts (parse and
// validation errors, limits).
type observer func(ctx context.Context, operation string, errorCodes []string)

var _ interface {
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
	graphql.HandlerExtension
} = observer(nil)

type observedKey struct{}

func (observer) ExtensionName() string                   { return "Observer" }
func (observer) Validate(graphql.ExecutableSchema) error { return nil }

func (o observer) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	rh := next(context.WithValue(ctx, observedKey{}, true))
	return func(ctx context.Context) *graphql.Response {
		resp := rh(ctx)
		if resp != nil {
			o.observe(ctx, resp)
		}
		return resp
	}
}

func (o observer) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if ctx.Value(observedKey{}) == nil && resp != nil {
		o.observe(ctx, resp)
	}
	return resp
}

func (o observer) observe(ctx context.Context, resp *graphql.Response) {
	op := "invalid"
	if graphql.HasOperationContext(ctx) {
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil {
			for _, sel := range oc.Operation.SelectionSet {
				if f, ok := sel.(*ast.Field); ok {
					op = f.Name
					break
				}
			}
		}
	}
	var codes []string
	for _, e := range resp.Errors {
		if c, ok := e.Extensions["code"].(string); ok {
			codes = append(codes, c)
		}
	}
	o(ctx, op, codes)
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
			// Raised by the executor itself: a parse, validation or input coercion error, or
			// a limit, which keeps its own code.
			code := domain.EINVALID
			if c, _ := ge.Extensions["code"].(string); c == ECOMPLEXITYLIMIT || c == EDEPTHLIMIT || c == domain.EINTERNAL {
				code = c
			}
			gerr.Extensions = map[string]any{"code": code}
		case err.Error() == "introspection disabled" || (errors.As(err, &ge) && ge.Err != nil && ge.Err.Error() == "introspection disabled"):
			// The executor's own answer to __schema and __type with introspection off.
			gerr.Message = "introspection is turned off on this server (serve --introspection turns it on)"
			gerr.Extensions = map[string]any{"code": domain.EFORBIDDEN}
		default:
			gerr.Message = "internal error"
			gerr.Extensions = map[string]any{"code": domain.EINTERNAL}
		}
	}
	return gerr
}
