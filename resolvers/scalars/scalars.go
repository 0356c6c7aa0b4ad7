// Package scalars holds the GraphQL scalars whose input is checked with the domain's errors: a
// bad value is INVALID_ARGUMENT naming its field (gqlgen's own scalars answer with errors that
// would surface as INTERNAL).
package scalars

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/totalrecall/totalrecall/domain"
)

// Field names the input value of ctx the way the domain names fields: the argument's path below
// the operation's field, an `input` argument left out (storeMemory(input: {occurredAt}) is
// "occurredAt"; storeMemories(inputs: [{…}, {occurredAt}]) is "inputs[1].occurredAt").
func Field(ctx context.Context) string {
	path := graphql.GetPath(ctx)
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		// Drop the response path of the field whose arguments these are.
		fp := fc.Path()
		if len(fp) <= len(path) && fp.String() == path[:len(fp)].String() {
			path = path[len(fp):]
		}
	}
	var b strings.Builder
	for i, el := range path {
		switch x := el.(type) {
		case ast.PathName:
			if i == 0 && x == "input" && len(path) > 1 {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(x))
		case ast.PathIndex:
			b.WriteString("[" + strconv.Itoa(int(x)) + "]")
		}
	}
	if b.Len() == 0 {
		return "value"
	}
	return b.String()
}

// MarshalTime writes a time as RFC 3339 with nanoseconds (null for the zero time).
func MarshalTime(t time.Time) graphql.ContextMarshaler {
	return graphql.ContextWriterFunc(func(ctx context.Context, w io.Writer) error {
		if t.IsZero() {
			_, err := io.WriteString(w, "null")
			return err
		}
		_, err := io.WriteString(w, strconv.Quote(t.Format(time.RFC3339Nano)))
		return err
	})
}

// UnmarshalTime reads an RFC 3339 time (fractional seconds optional). Errors: INVALID_ARGUMENT
// naming the field.
func UnmarshalTime(ctx context.Context, v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, domain.FieldErrorf(Field(ctx), "must be an RFC 3339 time such as \"2024-05-01T12:00:00Z\"")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		shown := s
		if len(shown) > 64 {
			shown = shown[:64] + "…"
		}
		return time.Time{}, domain.FieldErrorf(Field(ctx), "%q is not an RFC 3339 time such as \"2024-05-01T12:00:00Z\"", shown)
	}
	return t, nil
}

// MarshalJSON writes a JSON object.
func MarshalJSON(m map[string]any) graphql.ContextMarshaler {
	return graphql.ContextWriterFunc(func(ctx context.Context, w io.Writer) error {
		return json.NewEncoder(w).Encode(m)
	})
}

// UnmarshalJSON reads a JSON object. Errors: INVALID_ARGUMENT naming the field.
func UnmarshalJSON(ctx context.Context, v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return nil, domain.FieldErrorf(Field(ctx), "must be a JSON object")
}
