package graph

import (
	"math"
	"strconv"
	"strings"
	"sync"
)

// interner makes the read cache's records share the strings and values that many of them hold
// the same: metadata keys ("speaker", "session", …), short metadata values that repeat (a
// channel, a conversation, a thread's id) and session ids. What it saves is less the bytes than
// the objects: each is one more for the garbage collector to mark on every cycle, and a cache of
// a hundred thousand records with the importer's metadata held about fifty of them a record.
//
// It remembers at most internMax entries of each table and forgets a whole table when it is
// full, so values seen once (ids) cannot grow it without bound; records keep what they share.
// Only strings of at most internLen bytes are shared.
type interner struct {
	mu   sync.Mutex
	strs map[string]string
	vals map[any]any // boxed strings, numbers and booleans, and lists of them by listKey
}

const (
	internMax = 1 << 16
	internLen = 64
)

// cacheStrings is the interner of every read cache of the process: records of different stores
// share nothing but strings, which are immutable.
var cacheStrings = &interner{}

// str returns the shared copy of s.
func (in *interner) str(s string) string {
	if len(s) > internLen || s == "" {
		return s
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.strLocked(s)
}

func (in *interner) strLocked(s string) string {
	if v, ok := in.strs[s]; ok {
		return v
	}
	if len(in.strs) >= internMax || in.strs == nil {
		in.strs = make(map[string]string, 1024)
	}
	s = strings.Clone(s) // s may be a slice of a larger decoded buffer
	in.strs[s] = s
	return s
}

// metadata returns a copy of a decoded metadata map that shares its keys and repeated values;
// nil stays nil. The copy must never be modified, as every cached record (Memory.Clone copies
// maps and lists deeply before anyone may change them).
func (in *interner) metadata(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.object(m)
}

func (in *interner) object(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if len(k) <= internLen {
			k = in.strLocked(k)
		}
		out[k] = in.value(v)
	}
	return out
}

// value shares a decoded JSON value: scalars and lists of scalars through the table, objects
// and other lists rebuilt with their members shared.
func (in *interner) value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return in.object(x)
	case []any:
		if key, ok := listKey(x); ok {
			return in.shared(key, func() any {
				c := make([]any, len(x))
				for i, e := range x {
					c[i] = in.value(e)
				}
				return c
			})
		}
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = in.value(e)
		}
		return c
	case string:
		if len(x) > internLen {
			return v
		}
		return in.shared(v, func() any { return strings.Clone(x) })
	case float64:
		if x == 0 && math.Signbit(x) {
			return v // -0 equals 0 as a key, but is written back as "-0"
		}
		return in.shared(v, func() any { return x })
	case bool:
		return in.shared(v, func() any { return x })
	}
	return v
}

// shared returns the value the table holds under key, storing mk()'s when there is none.
func (in *interner) shared(key any, mk func() any) any {
	if v, ok := in.vals[key]; ok {
		return v
	}
	if len(in.vals) >= internMax || in.vals == nil {
		in.vals = map[any]any{}
	}
	v := mk()
	if s, ok := v.(string); ok {
		key = s // the key must not hold on to a decoded buffer either
	}
	in.vals[key] = v
	return v
}

// listKey is the table's key of a short list of short strings, numbers and booleans, each
// written with its type and length so that no two lists share one; false for any other list.
func listKey(x []any) (listKeyT, bool) {
	if len(x) == 0 || len(x) > 8 {
		return "", false
	}
	b := make([]byte, 0, 64)
	for _, e := range x {
		switch y := e.(type) {
		case string:
			if len(y) > internLen {
				return "", false
			}
			b = append(b, 's')
			b = strconv.AppendInt(b, int64(len(y)), 10)
			b = append(b, ':')
			b = append(b, y...)
		case float64:
			if y == 0 && math.Signbit(y) {
				return "", false
			}
			b = append(b, 'f')
			b = strconv.AppendFloat(b, y, 'g', -1, 64)
			b = append(b, ';')
		case bool:
			b = strconv.AppendBool(append(b, 'b'), y)
			b = append(b, ';')
		default:
			return "", false
		}
	}
	return listKeyT(b), true
}

// listKeyT keeps the keys of lists apart from those of string values in the same table.
type listKeyT string
