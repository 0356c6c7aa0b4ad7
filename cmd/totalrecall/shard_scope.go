package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/totalrecall/totalrecall/domain"
)

// The scopes a request names decide which server answers it (shard_route.go). A request names a
// scope by the argument or input field scopeId of a GraphQL operation (as a literal or a
// variable, at any depth of an input object or list), by /mcp?scope=, or by the file of
// /export/SCOPEID.FORMAT. Subscriptions, websockets and everything else name none: they are
// answered where they arrive (the graph and the event log are shared).

// maxQueryTokens bounds the parse of a query the router reads (the GraphQL handler parses it
// again with its own limits).
const maxQueryTokens = 1 << 16

// graphqlRequest is the body of a GraphQL POST (and the parameters of a GET).
type graphqlRequest struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

// requestScopes returns the scope ids r names, sorted and distinct, and the body of a GraphQL
// POST, which it reads (r's body is replaced by a reader of the same bytes). A request it cannot read names no scope:
// the server it arrived at answers it, with the error it deserves.
func requestScopes(r *http.Request, resolve func(context.Context, string) (string, error)) ([]string, []byte, error) {
	var body []byte
	path := r.URL.Path
	if path == "/query" && r.Method == http.MethodPost {
		var err error
		if body, err = readBody(r); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case path == "/query":
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			return nil, body, nil
		}
		var req graphqlRequest
		switch r.Method {
		case http.MethodGet:
			q := r.URL.Query()
			req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
			if v := q.Get("variables"); v != "" {
				if json.Unmarshal([]byte(v), &req.Variables) != nil {
					return nil, body, nil
				}
			}
		case http.MethodPost:
			if json.Unmarshal(body, &req) != nil {
				return nil, body, nil
			}
		default:
			return nil, body, nil
		}
		return graphqlScopes(req.Query, req.OperationName, req.Variables), body, nil
	case path == "/mcp":
		ref := strings.TrimSpace(r.URL.Query().Get("scope"))
		if ref == "" {
			return nil, body, nil
		}
		if domain.ValidID(ref) {
			return []string{ref}, body, nil
		}
		if resolve == nil {
			return nil, body, nil
		}
		id, err := resolve(r.Context(), ref)
		if err != nil || id == "" {
			return nil, body, nil // answered here: the MCP server says what is wrong with the name
		}
		return []string{id}, body, nil
	case strings.HasPrefix(path, "/export/") && r.Method == http.MethodGet:
		file := strings.TrimPrefix(path, "/export/")
		if id, _, ok := strings.Cut(file, "."); ok && domain.ValidID(id) && !strings.Contains(file, "/") {
			return []string{id}, body, nil
		}
	}
	return nil, body, nil
}

// readBody reads r's body (the edge has bounded it) and gives r a reader of the same bytes.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "reading the request body: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, nil
}

// graphqlScopes returns the scope ids the operation to run names (none for a subscription, a
// query that does not parse, or an operation it cannot pick).
func graphqlScopes(query, operationName string, vars map[string]any) []string {
	if strings.TrimSpace(query) == "" {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, maxQueryTokens)
	if err != nil || doc == nil {
		return nil
	}
	op := doc.Operations.ForName(operationName)
	if op == nil || op.Operation == ast.Subscription {
		return nil
	}
	w := scopeWalker{doc: doc, op: op, vars: vars, seen: map[string]bool{}, frags: map[string]bool{}}
	w.selections(op.SelectionSet)
	out := make([]string, 0, len(w.seen))
	for id := range w.seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

type scopeWalker struct {
	doc   *ast.QueryDocument
	op    *ast.OperationDefinition
	vars  map[string]any
	seen  map[string]bool
	frags map[string]bool // fragments walked already (a cycle is the handler's error to report)
}

func (w *scopeWalker) selections(set ast.SelectionSet) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, a := range s.Arguments {
				w.value(a.Value, a.Name == "scopeId")
			}
			w.selections(s.SelectionSet)
		case *ast.InlineFragment:
			w.selections(s.SelectionSet)
		case *ast.FragmentSpread:
			if w.frags[s.Name] {
				continue
			}
			w.frags[s.Name] = true
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				w.selections(f.SelectionSet)
			}
		}
	}
}

// value walks an argument's value; scope says the value is a scopeId's.
func (w *scopeWalker) value(v *ast.Value, scope bool) {
	if v == nil {
		return
	}
	switch v.Kind {
	case ast.Variable:
		x, ok := w.vars[v.Raw]
		if !ok {
			if d := w.op.VariableDefinitions.ForName(v.Raw); d != nil && d.DefaultValue != nil {
				w.value(d.DefaultValue, scope)
			}
			return
		}
		w.json(x, scope)
	case ast.StringValue, ast.BlockValue:
		if scope {
			w.add(v.Raw)
		}
	case ast.ObjectValue:
		for _, c := range v.Children {
			w.value(c.Value, c.Name == "scopeId")
		}
	case ast.ListValue:
		for _, c := range v.Children {
			w.value(c.Value, scope)
		}
	}
}

// json walks a variable's value.
func (w *scopeWalker) json(x any, scope bool) {
	switch t := x.(type) {
	case string:
		if scope {
			w.add(t)
		}
	case map[string]any:
		for k, v := range t {
			w.json(v, k == "scopeId")
		}
	case []any:
		for _, v := range t {
			w.json(v, scope)
		}
	}
}

// add keeps an id that can be a scope's: anything else is refused by the handler wherever it is
// answered.
func (w *scopeWalker) add(id string) {
	if domain.ValidID(id) {
		w.seen[id] = true
	}
}
