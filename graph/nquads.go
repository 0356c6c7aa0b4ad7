package graph

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dgraph-io/dgo/v250/protos/api"
	"github.com/hypermodeinc/dgraph/v25/types"
	"github.com/hypermodeinc/dgraph/v25/types/facets"
	"github.com/hypermodeinc/dgraph/v25/x"
)

// The store builds its mutations as JSON-shaped objects (the shape Dgraph's JSON mutations take)
// and sends them as N-Quads: api.NQuad values, typed as Dgraph's RDF parser types the text
// <s> <p> "v"^^<type> (TestToNQuads checks them against that parser). Dgraph's JSON parser tries
// every string value as a vector first: a memory whose content reads "[1, 2]" was stored as the
// vector [1,2] and came back rewritten, and every other string paid a failed parse with a stack
// trace (a third of the engine's time in an import). In N-Quads a string is a string, and only
// the vector predicates are typed so. Sent as values rather than as RDF text, nothing renders,
// lexes and unquotes them again (the embedded engine parsed the text under its write lock).

// vectorPredicates are the float32vector predicates: their values are written as vectors.
var vectorPredicates = map[string]bool{"emb.vector": true}

// star is the value of a deletion of every value (the * of <s> <p> * .), a new one each time:
// the engine owns the N-Quads it is given.
func star() *api.Value { return &api.Value{Val: &api.Value_DefaultVal{DefaultVal: x.Star}} }

// nquadWriter renders mutation objects as N-Quads.
type nquadWriter struct {
	out  []*api.NQuad
	auto int // blank nodes made up for nested objects without a uid
}

// toNQuads renders objs (set mutations, or delete mutations when del is true) as N-Quads.
func toNQuads(objs []map[string]any, del bool) ([]*api.NQuad, error) {
	w := nquadWriter{out: make([]*api.NQuad, 0, 16*len(objs))}
	for _, o := range objs {
		if _, err := w.node(o, del, ""); err != nil {
			return nil, err
		}
	}
	return w.out, nil
}

// subject renders a node reference: a blank node (_:name) or a uid (0x…).
func subject(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("mutation: uid %v is not a string", v)
	}
	if name, ok := strings.CutPrefix(s, "_:"); ok {
		if name == "" {
			return "", fmt.Errorf("mutation: empty blank node")
		}
		alnum := false
		for _, r := range name {
			if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return "", fmt.Errorf("mutation: blank node %q", s)
			}
			alnum = alnum || r != '_' && r != '-' && r != '.'
		}
		if !alnum { // Dgraph refuses a name of punctuation alone
			return "", fmt.Errorf("mutation: blank node %q", s)
		}
		return s, nil
	}
	if !uidRE.MatchString(s) {
		return "", fmt.Errorf("mutation: uid %q", s)
	}
	return s, nil
}

// node writes the N-Quads of one object and returns its subject. A nested object is the object
// of an edge from its parent: its keys edge|facet are that edge's facets, not its own.
func (w *nquadWriter) node(o map[string]any, del bool, edge string) (string, error) {
	var subj string
	if u, ok := o["uid"]; ok {
		s, err := subject(u)
		if err != nil {
			return "", err
		}
		subj = s
	} else {
		if del {
			return "", fmt.Errorf("mutation: a deletion needs a uid")
		}
		w.auto++
		subj = "_:auto." + strconv.Itoa(w.auto)
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		switch {
		case k == "uid":
		case !strings.Contains(k, "|"):
			keys = append(keys, k)
		case edge != "" && strings.HasPrefix(k, edge+"|"):
		default:
			// Facets of scalar values are not used by the store.
			return "", fmt.Errorf("mutation: facet %q on a scalar predicate", k)
		}
	}
	sort.Strings(keys) // the same N-Quads, in the same order, for the same mutation
	if del && len(keys) == 0 {
		w.out = append(w.out, &api.NQuad{Subject: subj, Predicate: x.Star, ObjectValue: star()})
		return subj, nil
	}
	for _, p := range keys {
		if err := checkPredicate(p); err != nil {
			return "", err
		}
		if err := w.value(subj, p, o[p], del); err != nil {
			return "", err
		}
	}
	return subj, nil
}

func checkPredicate(p string) error {
	if p == "" || p == "*" || p == x.Star || strings.HasPrefix(p, "~") || !utf8.ValidString(p) || strings.ContainsAny(p, "<> \t\n\r\"{}|^`\\@") ||
		strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError }) ||
		!strings.ContainsFunc(p, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return fmt.Errorf("mutation: predicate %q", p)
	}
	return nil
}

// value writes the N-Quads of predicate p of subj.
func (w *nquadWriter) value(subj, p string, v any, del bool) error {
	switch x := v.(type) {
	case nil:
		if !del {
			return fmt.Errorf("mutation: %s is null in a set", p)
		}
		w.out = append(w.out, &api.NQuad{Subject: subj, Predicate: p, ObjectValue: star()})
		return nil
	case map[string]any:
		return w.edge(subj, p, x, del)
	case []map[string]any:
		for _, e := range x {
			if err := w.edge(subj, p, e, del); err != nil {
				return err
			}
		}
		return nil
	case []string:
		for _, s := range x {
			if err := w.value(subj, p, s, del); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, e := range x {
			if err := w.value(subj, p, e, del); err != nil {
				return err
			}
		}
		return nil
	}
	val, err := literal(p, v)
	if err != nil {
		return err
	}
	w.out = append(w.out, &api.NQuad{Subject: subj, Predicate: p, ObjectValue: val})
	return nil
}

// edge writes an edge from subj to the object o (a reference, or a nested node), with facets.
func (w *nquadWriter) edge(subj, p string, o map[string]any, del bool) error {
	var obj string
	nested := false
	for k := range o {
		if k != "uid" && !strings.HasPrefix(k, p+"|") {
			nested = true
		}
	}
	if nested {
		s, err := w.node(o, del, p)
		if err != nil {
			return err
		}
		obj = s
	} else {
		u, ok := o["uid"]
		if !ok {
			return fmt.Errorf("mutation: edge %s without a uid", p)
		}
		s, err := subject(u)
		if err != nil {
			return err
		}
		obj = s
	}
	nq := &api.NQuad{Subject: subj, Predicate: p, ObjectId: obj}
	var fs []string
	for k := range o {
		if f, ok := strings.CutPrefix(k, p+"|"); ok {
			fs = append(fs, f)
		}
	}
	if len(fs) > 0 && !del {
		sort.Strings(fs)
		for _, f := range fs {
			if err := checkPredicate(f); err != nil || strings.ContainsAny(f, ",=()") {
				return fmt.Errorf("mutation: facet %q", f)
			}
			v, err := facetValue(o[p+"|"+f])
			if err != nil {
				return fmt.Errorf("mutation: facet %s of %s: %w", f, p, err)
			}
			fc, err := facets.FacetFor(f, v)
			if err != nil {
				return fmt.Errorf("mutation: facet %s of %s: %w", f, p, err)
			}
			nq.Facets = append(nq.Facets, fc)
		}
	}
	w.out = append(w.out, nq)
	return nil
}

// literal renders a scalar value: strings untyped (the schema decides their type, as it does for
// JSON strings), numbers and booleans typed as Dgraph's JSON parser would type them.
func literal(p string, v any) (*api.Value, error) {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			x = strings.ToValidUTF8(x, "\uFFFD") // as encoding/json makes it
		}
		if vectorPredicates[p] {
			return typed(p, x, types.VFloatID)
		}
		return &api.Value{Val: &api.Value_DefaultVal{DefaultVal: x}}, nil
	case bool:
		return &api.Value{Val: &api.Value_BoolVal{BoolVal: x}}, nil
	case int:
		return intValue(int64(x)), nil
	case int64:
		return intValue(x), nil
	case int32:
		return intValue(int64(x)), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("mutation: %s: %d is out of range", p, x)
		}
		return intValue(int64(x)), nil
	case uint32:
		return intValue(int64(x)), nil
	case float32:
		return floatLiteral(p, float64(x))
	case float64:
		return floatLiteral(p, x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return intValue(n), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("mutation: %s: %w", p, err)
		}
		return floatLiteral(p, f)
	case time.Time:
		return typed(p, x.UTC().Format(time.RFC3339Nano), types.DateTimeID)
	}
	return nil, fmt.Errorf("mutation: %s: unsupported value %T", p, v)
}

func intValue(n int64) *api.Value { return &api.Value{Val: &api.Value_IntVal{IntVal: n}} }

// typed converts text to a value of type t as Dgraph's RDF parser converts "text"^^<t>.
func typed(p, text string, t types.TypeID) (*api.Value, error) {
	v, err := types.Convert(types.Val{Tid: types.StringID, Value: []byte(text)}, t)
	if err != nil {
		return nil, fmt.Errorf("mutation: %s: %w", p, err)
	}
	out, err := types.ObjectValue(t, v.Value)
	if err != nil {
		return nil, fmt.Errorf("mutation: %s: %w", p, err)
	}
	return out, nil
}

// floatLiteral types a number as Dgraph's JSON parser does: a whole number is an int (JSON
// writes 1.0 as 1), anything else a float; the schema converts either to the predicate's type.
func floatLiteral(p string, f float64) (*api.Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("mutation: %s: %v is not a number JSON can carry", p, f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return intValue(int64(f)), nil
	}
	return &api.Value{Val: &api.Value_DoubleVal{DoubleVal: f}}, nil
}

// facetValue renders a facet value: numbers and booleans bare, date-times bare (Dgraph reads
// them as datetime facets, as it does JSON strings that parse as times), other strings quoted.
func facetValue(v any) (string, error) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("%v is not a number", x)
		}
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano), nil
	case string:
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.Format(time.RFC3339Nano), nil
		}
		return quote(x), nil
	}
	return "", fmt.Errorf("unsupported facet value %T", v)
}

// quote renders s as an N-Quad string literal that Dgraph's lexer accepts and unquotes (with Go's
// rules) back to s: quotes, backslashes and control characters escaped, the rest as UTF-8.
// Invalid UTF-8 becomes U+FFFD, as encoding/json makes it.
func quote(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	// Only ASCII bytes are escaped: the bytes of a multi-byte rune are all ≥ 0x80, so runs of
	// other bytes are copied as they are (a large document is not rebuilt rune by rune).
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20 || c == 0x7f:
			esc = fmt.Sprintf(`\u%04x`, c)
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
	b.WriteByte('"')
	return b.String()
}
