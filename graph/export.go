package graph

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The dump format is JSON Lines, generic over the schema so every kind of node travels:
//
//	{"node":"0x1a","set":{"tr.id":"…","mem.content":"…",…}}      scalar and list predicates
//	{"node":"0x1a","edge":"assoc.CAUSAL","to":"0x2b","facets":{…}} uid edges with their facets
//
// Node ids are the source store's uids, used only to connect the lines; ids the domain knows
// (tr.id, event seq, request keys) are predicates and so are preserved exactly. Nodes come
// before edges, so an import creates every node before it links them.

type dumpLine struct {
	Node   string         `json:"node"`
	Set    map[string]any `json:"set,omitempty"`
	Edge   string         `json:"edge,omitempty"`
	To     string         `json:"to,omitempty"`
	Facets map[string]any `json:"facets,omitempty"`
}

type predInfo struct {
	Predicate string `json:"predicate"`
	Type      string `json:"type"`
	List      bool   `json:"list"`
}

// predicates lists the store's own predicates, read from the schema it applies (the embedded
// engine's `schema {}` query answers types only, so the schema text is the one source).
func (s *Store) predicates(ctx context.Context) ([]predInfo, error) {
	var out []predInfo
	for _, line := range strings.Split(fullSchema(), "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "type ") || strings.ContainsAny(name, " {}") {
			continue
		}
		typ := strings.Fields(rest)[0]
		list := strings.HasPrefix(typ, "[")
		out = append(out, predInfo{Predicate: name, Type: strings.Trim(typ, "[]"), List: list})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Predicate < out[j].Predicate })
	return out, nil
}

const exportPage = 5000

// Export writes every node and edge of the store to w, and returns the number of lines.
func (s *Store) Export(ctx context.Context, w io.Writer) (int, error) {
	preds, err := s.predicates(ctx)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	n := 0
	var scalars, edges []predInfo
	for _, p := range preds {
		if p.Type == "uid" {
			edges = append(edges, p)
		} else {
			scalars = append(scalars, p)
		}
	}
	// Nodes: every node that has a tr.kind, with all its scalar predicates.
	var fields strings.Builder
	for _, p := range scalars {
		fields.WriteString("<" + p.Predicate + "> ")
	}
	after := "0x0"
	for {
		var r struct {
			Q []map[string]any `json:"q"`
		}
		q := fmt.Sprintf(`{ q(func: has(tr.kind), first: %d, after: %s) { uid %s } }`, exportPage, after, fields.String())
		if err := s.read(ctx, q, nil, &r); err != nil {
			return n, err
		}
		for _, row := range r.Q {
			uid, _ := row["uid"].(string)
			delete(row, "uid")
			if err := enc.Encode(dumpLine{Node: uid, Set: row}); err != nil {
				return n, err
			}
			n++
			after = uid
		}
		if len(r.Q) < exportPage {
			break
		}
	}
	// Edges with their facets.
	for _, p := range edges {
		after := "0x0"
		for {
			var r struct {
				Q []map[string]any `json:"q"`
			}
			q := fmt.Sprintf(`{ q(func: has(<%s>), first: %d, after: %s) { uid <%s> @facets { uid } } }`, p.Predicate, exportPage, after, p.Predicate)
			if err := s.read(ctx, q, nil, &r); err != nil {
				return n, err
			}
			for _, row := range r.Q {
				uid, _ := row["uid"].(string)
				after = uid
				var targets []any
				switch v := row[p.Predicate].(type) {
				case []any:
					targets = v
				case map[string]any:
					targets = []any{v}
				}
				for _, t := range targets {
					tm, _ := t.(map[string]any)
					to, _ := tm["uid"].(string)
					facets := map[string]any{}
					for k, v := range tm {
						if f, ok := strings.CutPrefix(k, p.Predicate+"|"); ok {
							facets[f] = v
						}
					}
					if len(facets) == 0 {
						facets = nil
					}
					if err := enc.Encode(dumpLine{Node: uid, Edge: p.Predicate, To: to, Facets: facets}); err != nil {
						return n, err
					}
					n++
				}
			}
			if len(r.Q) < exportPage {
				break
			}
		}
	}
	return n, bw.Flush()
}

// Import reads a dump written by Export into this store, creating new nodes with the same
// predicates and edges. The store should be empty: importing twice duplicates nodes.
func (s *Store) Import(ctx context.Context, r io.Reader) (int, error) {
	var probe struct {
		Q []struct {
			UID string `json:"uid"`
		} `json:"q"`
	}
	if err := s.read(ctx, `{ q(func: has(tr.kind), first: 1) { uid } }`, nil, &probe); err != nil {
		return 0, err
	}
	if len(probe.Q) > 0 {
		return 0, fmt.Errorf("import needs an empty store: this one already holds data")
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	uids := map[string]string{} // source node → new uid
	var batch []map[string]any
	var batchKeys []string
	n := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		got, err := s.rawCommit(ctx, batch)
		if err != nil {
			return err
		}
		for _, k := range batchKeys {
			if u, ok := got["n"+k]; ok {
				uids[k] = u
			}
		}
		batch, batchKeys = batch[:0], batchKeys[:0]
		return nil
	}
	line := 0
	inEdges := false
	for sc.Scan() {
		line++
		var d dumpLine
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return n, fmt.Errorf("line %d: %w", line, err)
		}
		switch {
		case d.Set != nil:
			obj := map[string]any{"uid": "_:n" + d.Node}
			for k, v := range d.Set {
				obj[k] = v
			}
			batch = append(batch, obj)
			batchKeys = append(batchKeys, d.Node)
		case d.Edge != "":
			if !inEdges { // every node exists before the first edge
				if err := flush(); err != nil {
					return n, err
				}
				inEdges = true
			}
			from, ok1 := uids[d.Node]
			to, ok2 := uids[d.To]
			if !ok1 || !ok2 {
				return n, fmt.Errorf("line %d: edge between nodes not in the dump", line)
			}
			target := map[string]any{"uid": to}
			for f, v := range d.Facets {
				target[d.Edge+"|"+f] = v
			}
			batch = append(batch, map[string]any{"uid": from, d.Edge: target})
		default:
			return n, fmt.Errorf("line %d: neither node nor edge", line)
		}
		n++
		if len(batch) >= 1000 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if err := flush(); err != nil {
		return n, err
	}
	if s.embedded {
		s.mu.Lock()
		defer s.mu.Unlock()
		seq, uid, err := s.counter(ctx)
		if err != nil {
			return n, err
		}
		s.seq, s.counterUID = seq, uid
	}
	return n, nil
}

// rawCommit commits set-objects in one request and returns the uids of their blank nodes.
func (s *Store) rawCommit(ctx context.Context, objs []map[string]any) (map[string]string, error) {
	raw, err := json.Marshal(objs)
	if err != nil {
		return nil, err
	}
	if s.embedded {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	u := s.b.begin(ctx)
	defer u.discard(ctx)
	return u.commit(ctx, apiMutation(raw))
}
