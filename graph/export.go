package graph

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/dgo/v250"
	"github.com/dgraph-io/dgo/v250/protos/api"
)

// The dump format is JSON Lines, generic over the schema so every kind of node travels:
//
//	{"node":"0x1a","set":{"tr.id":"…","mem.content":"…",…}}      scalar and list predicates
//	{"node":"0x1a","edge":"assoc.CAUSAL","to":"0x2b","facets":{…}} uid edges with their facets
//
// Node ids are the source store's uids, used only to connect the lines; ids the domain knows
// (tr.id, event seq, request keys) are predicates and so are preserved exactly. Numbers travel
// as written (no float rounding of large integers). Nodes come before edges.
//
// An import may go into a store that holds other data (a cluster already serving other scopes):
// it refuses a dump whose records the store already holds (an import done twice), keeps the
// store's own process-wide nodes (log consumers, instance locks) where it has them, and appends
// the dump's events after the store's last one, in their order, each batch together with the
// event counter — into a store without events the sequence numbers stay exactly as they were.

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
// engine's `schema {}` query answers types only, so the schema text is the one source), and
// dgraph.type, which some nodes carry beside tr.kind.
func (s *Store) predicates(ctx context.Context) ([]predInfo, error) {
	out := []predInfo{{Predicate: "dgraph.type", Type: "string", List: true}}
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

// Schema returns the DQL schema the store applies on Open: every predicate it writes, with its
// type and indexes.
func Schema() string { return fullSchema() }

const exportPage = 5000

// decodeNumbers decodes a query's answer keeping numbers as they are written.
func decodeNumbers(raw []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decode query result: %w", err)
	}
	return nil
}

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
	// Nodes: every node that has a tr.kind, then every event without one (events carry no
	// tr.kind; see eventJSON), with all their scalar predicates. In the dump every event is of
	// kind Event, as it is to the import.
	var fields strings.Builder
	for _, p := range scalars {
		fields.WriteString("<" + p.Predicate + "> ")
	}
	for _, pass := range []struct{ pred, kind string }{{"tr.kind", ""}, {"ev.seq", kindEvent}} {
		err := pagesOf(ctx, s, pass.pred, "uid "+fields.String(), exportPage, decodeNumbers, rowUID,
			func(row *map[string]any) (bool, error) {
				uid := rowUID(row)
				delete(*row, "uid")
				if pass.kind != "" {
					if _, done := (*row)["tr.kind"]; done {
						return true, nil // an event with a tr.kind: the first pass wrote it
					}
					(*row)["tr.kind"] = pass.kind
				}
				if err := enc.Encode(dumpLine{Node: uid, Set: *row}); err != nil {
					return false, err
				}
				n++
				return true, nil
			})
		if err != nil {
			return n, err
		}
	}
	// Edges with their facets.
	for _, p := range edges {
		err := pagesOf(ctx, s, p.Predicate, "uid <"+p.Predicate+"> @facets { uid }", exportPage, decodeNumbers, rowUID,
			func(row *map[string]any) (bool, error) {
				uid := rowUID(row)
				var targets []any
				switch v := (*row)[p.Predicate].(type) {
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
						return false, err
					}
					n++
				}
				return true, nil
			})
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// What an import does with one line of the dump.
const (
	lineNode      = iota // a record, written as it is
	lineEvent            // an event: written in Seq order with the event counter
	lineDeferred         // a node that refers to event Seqs (a log consumer): after the events
	lineEdge             // an edge between nodes written before the events
	lineEventEdge        // an edge from or to an event
	lineSkip             // the event counter, or a process-wide node the store has already
)

type importLine struct {
	off  int64
	size int
	what int
	seq  uint64 // of an event
	node string // the source node of a node line
}

// importBatch is how many objects one import request commits; importEventBatch how many events,
// fewer, as each such request conflicts with every concurrent writer of events on a cluster and
// a short one is retried sooner.
const (
	importBatch      = 1000
	importEventBatch = 250
)

// Import reads a dump written by Export into this store, creating new nodes with the same
// predicates and edges (see the dump format above), and returns the number of lines read.
// Nothing is written when the store already holds a record of the dump.
func (s *Store) Import(ctx context.Context, r io.Reader) (int, error) {
	preds, err := s.predicates(ctx)
	if err != nil {
		return 0, err
	}
	vectors := map[string]bool{}
	for _, p := range preds {
		if p.Type == "float32vector" {
			vectors[p.Predicate] = true
		}
	}
	// First pass: spool the dump to a file (it may come from standard input) and note what each
	// line is, the ids it brings and the events' Seqs.
	spool, err := os.CreateTemp("", "totalrecall-import-*.jsonl")
	if err != nil {
		return 0, err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var lines []importLine
	var off int64
	scoped, global := map[string]string{}, map[string]string{} // tr.id → source node
	reqKeys, messages := map[string]bool{}, map[string]bool{}
	isEvent := map[string]bool{}
	for sc.Scan() {
		raw := sc.Bytes()
		d, err := decodeLine(raw)
		if err != nil {
			return 0, fmt.Errorf("line %d: %w", len(lines)+1, err)
		}
		l := importLine{off: off, size: len(raw)}
		switch {
		case d.Set != nil:
			l.node = d.Node
			kind, _ := d.Set["tr.kind"].(string)
			id, _ := d.Set["tr.id"].(string)
			_, inScope := d.Set["tr.scope"]
			switch {
			case kind == kindCounter || id == eventCounterID:
				l.what = lineSkip // the store's own counter counts the imported events
			case kind == kindEvent:
				seq, err := numberOf(d.Set["ev.seq"])
				if err != nil {
					return 0, fmt.Errorf("line %d: event without a Seq: %w", len(lines)+1, err)
				}
				l.what, l.seq = lineEvent, seq
				isEvent[d.Node] = true
			case d.Set["consumer.seq"] != nil || d.Set["notice.seq"] != nil:
				l.what = lineDeferred
			default:
				l.what = lineNode
			}
			switch {
			case id == "" || l.what == lineSkip:
			case inScope:
				scoped[id] = d.Node
			default:
				global[id] = d.Node
			}
			if k, _ := d.Set["req.key"].(string); k != "" {
				reqKeys[k] = true
			}
			if m, _ := d.Set["ev.messageId"].(string); m != "" {
				messages[m] = true
			}
		case d.Edge != "":
			l.what = lineEdge
			if isEvent[d.Node] || isEvent[d.To] {
				l.what = lineEventEdge
			}
		default:
			return 0, fmt.Errorf("line %d: neither node nor edge", len(lines)+1)
		}
		if _, err := spool.Write(append(raw, '\n')); err != nil {
			return 0, err
		}
		off += int64(len(raw)) + 1
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}

	// The store must hold none of the dump's records; process-wide nodes it has are kept.
	if err := s.refuseHeld(ctx, "tr.id", keysOf(scoped)); err != nil {
		return 0, err
	}
	if err := s.refuseHeld(ctx, "req.key", keysOf(reqKeys)); err != nil {
		return 0, err
	}
	if err := s.refuseHeld(ctx, "ev.messageId", keysOf(messages)); err != nil {
		return 0, err
	}
	uids := map[string]string{} // source node → uid in this store
	held, err := s.held(ctx, "tr.id", keysOf(global))
	if err != nil {
		return 0, err
	}
	for id, uid := range held {
		uids[global[id]] = uid
	}
	skip := func(l importLine) bool { return l.what == lineSkip || (l.node != "" && uids[l.node] != "") }

	read := func(l importLine) (dumpLine, error) {
		buf := make([]byte, l.size)
		if _, err := spool.ReadAt(buf, l.off); err != nil {
			return dumpLine{}, err
		}
		return decodeLine(buf)
	}
	// Records first, then the edges between them, then the events in Seq order (a server
	// following the log finds what an event is about), then the rest.
	var batch []map[string]any
	var batchKeys []string
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
	node := func(d dumpLine) map[string]any {
		obj := map[string]any{"uid": "_:n" + d.Node}
		for k, v := range d.Set {
			if vectors[k] {
				v = vectorValue(v)
			}
			obj[k] = v
		}
		return obj
	}
	edge := func(d dumpLine, line int) (map[string]any, error) {
		from, ok1 := uids[d.Node]
		to, ok2 := uids[d.To]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("line %d: edge between nodes not in the dump", line)
		}
		target := map[string]any{"uid": to}
		for f, v := range d.Facets {
			target[d.Edge+"|"+f] = facetNumber(v)
		}
		return map[string]any{"uid": from, d.Edge: target}, nil
	}
	pass := func(what int) error {
		for i, l := range lines {
			if l.what != what || skip(l) {
				continue
			}
			d, err := read(l)
			if err != nil {
				return err
			}
			if d.Set != nil {
				batch, batchKeys = append(batch, node(d)), append(batchKeys, d.Node)
			} else {
				obj, err := edge(d, i+1)
				if err != nil {
					return err
				}
				batch = append(batch, obj)
			}
			if len(batch) >= importBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	}
	if err := pass(lineNode); err != nil {
		return 0, err
	}
	if err := pass(lineEdge); err != nil {
		return 0, err
	}

	var events []importLine
	for _, l := range lines {
		if l.what == lineEvent {
			events = append(events, l)
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].seq < events[j].seq })
	var seqs seqMap
	for start := 0; start < len(events); start += importEventBatch {
		part := events[start:min(len(events), start+importEventBatch)]
		objs := make([]map[string]any, len(part))
		for i, l := range part {
			d, err := read(l)
			if err != nil {
				return 0, err
			}
			objs[i] = node(d)
			delete(objs[i], "tr.kind") // written as the store writes events (eventJSON)
		}
		got, err := s.appendImportedEvents(ctx, objs, part, &seqs)
		if err != nil {
			return 0, err
		}
		for _, l := range part {
			uids[l.node] = got["n"+l.node]
		}
	}

	// Log consumers: their watermarks move with the events they had consumed; queued notices
	// with the notifications they name.
	for _, l := range lines {
		if l.what != lineDeferred || skip(l) {
			continue
		}
		d, err := read(l)
		if err != nil {
			return 0, err
		}
		obj := node(d)
		if w, err := numberOf(d.Set["consumer.seq"]); err == nil {
			obj["consumer.seq"] = seqs.moved(w)
		}
		if w, err := numberOf(d.Set["notice.seq"]); err == nil {
			obj["notice.seq"] = seqs.moved(w) // the Seq of the notification it queues
		}
		batch, batchKeys = append(batch, obj), append(batchKeys, d.Node)
	}
	if err := flush(); err != nil {
		return 0, err
	}
	if err := pass(lineEventEdge); err != nil {
		return 0, err
	}
	if s.embedded {
		s.mu.Lock()
		defer s.mu.Unlock()
		seq, uid, err := s.counter(ctx)
		if err != nil {
			return len(lines), err
		}
		s.seq, s.counterUID = seq, uid
		s.published.Store(seq)
	}
	return len(lines), nil
}

func decodeLine(raw []byte) (dumpLine, error) {
	var d dumpLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&d)
	return d, err
}

func numberOf(v any) (uint64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseUint(x.String(), 10, 64)
	case float64:
		return uint64(x), nil
	}
	return 0, fmt.Errorf("%v is no number", v)
}

// facetNumber gives a facet number of the dump the Go type the mutation writer takes.
func facetNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	if f, err := n.Float64(); err == nil {
		return f
	}
	return v
}

// vectorValue turns a vector as a query returns it (a list of numbers) into the literal a
// mutation takes.
func vectorValue(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	parts := make([]string, len(list))
	for i, x := range list {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// held returns which of the values of pred the store holds, with their nodes' uids.
func (s *Store) held(ctx context.Context, pred string, values []string) (map[string]string, error) {
	out := map[string]string{}
	const chunk = 500
	for start := 0; start < len(values); start += chunk {
		part := values[start:min(len(values), start+chunk)]
		vars := make(map[string]string, len(part))
		decl, list := make([]string, len(part)), make([]string, len(part))
		for i, v := range part {
			name := "$v" + strconv.Itoa(i)
			vars[name] = v
			decl[i], list[i] = name+": string", name
		}
		var r struct {
			Q []map[string]any `json:"q"`
		}
		q := fmt.Sprintf(`query q(%s) { q(func: eq(<%s>, [%s])) { uid <%s> } }`, strings.Join(decl, ", "), pred, strings.Join(list, ", "), pred)
		if err := s.read(ctx, q, vars, &r); err != nil {
			return nil, err
		}
		for _, row := range r.Q {
			v, _ := row[pred].(string)
			uid, _ := row["uid"].(string)
			out[v] = uid
		}
	}
	return out, nil
}

// refuseHeld fails when the store holds any of the values of pred.
func (s *Store) refuseHeld(ctx context.Context, pred string, values []string) error {
	got, err := s.held(ctx, pred, values)
	if err != nil {
		return err
	}
	if len(got) == 0 {
		return nil
	}
	return fmt.Errorf("import: the store already holds %d records of this dump (%s %q, …): it was imported already, "+
		"or the dump's records exist here; nothing was written", len(got), pred, keysOf(got)[0])
}

// seqMap records how an import moved event Seqs: from each batch's first source Seq on, by its
// offset.
type seqMap struct {
	from   []uint64
	offset []int64
}

func (m *seqMap) add(from uint64, offset int64) {
	m.from, m.offset = append(m.from, from), append(m.offset, offset)
}

// moved is where Seq seq of the source went (a watermark between events moves with the event
// before it).
func (m *seqMap) moved(seq uint64) uint64 {
	i := sort.Search(len(m.from), func(i int) bool { return m.from[i] > seq }) - 1
	if i < 0 {
		if len(m.offset) == 0 {
			return seq
		}
		i = 0
	}
	return uint64(int64(seq) + m.offset[i])
}

// appendImportedEvents writes one batch of imported events after the store's last event, in one
// request with the event counter, as every write of events does: concurrent writers on a
// cluster conflict on the counter and the batch is retried, so the log stays gap-free in the
// order its readers see it. Seqs keep their distances; they move only past events the store
// had (the first batch) or got meanwhile.
func (s *Store) appendImportedEvents(ctx context.Context, objs []map[string]any, lines []importLine, seqs *seqMap) (map[string]string, error) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		uids, err := s.appendImportedOnce(ctx, objs, lines, seqs)
		if err == nil {
			return uids, nil
		}
		if !errors.Is(err, dgo.ErrAborted) {
			return nil, err
		}
		if time.Since(start) > retryBudget || ctx.Err() != nil {
			return nil, fmt.Errorf("import: writing events kept conflicting with concurrent writes: %w", err)
		}
		d := time.Duration(1+rand.IntN(2<<min(attempt, 5))) * time.Millisecond
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *Store) appendImportedOnce(ctx context.Context, objs []map[string]any, lines []importLine, seqs *seqMap) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cache.clear() // imported nodes are written outside the rules the cache follows
	u := s.begin(ctx)
	committed := false
	defer func() {
		if !committed {
			u.discard(ctx)
		}
	}()
	head, counterUID := s.seq, s.counterUID
	if !s.embedded {
		raw, err := u.query(ctx, `query q($c: string) { c(func: eq(tr.id, $c)) { uid counter.value } }`, map[string]string{"$c": eventCounterID})
		if err != nil {
			return nil, wrapErr(err)
		}
		var r struct {
			C []struct {
				UID   string `json:"uid"`
				Value uint64 `json:"counter.value"`
			} `json:"c"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decode query result: %w", err)
		}
		head, counterUID = 0, ""
		if len(r.C) > 0 {
			head, counterUID = r.C[0].Value, r.C[0].UID
		}
	}
	first := lines[0].seq
	var offset int64
	if n := len(seqs.offset); n > 0 {
		offset = seqs.offset[n-1]
	}
	offset = max(offset, int64(head)-int64(first)+1)
	last := uint64(0)
	out := make([]map[string]any, 0, len(objs)+1)
	for i, obj := range objs {
		seq := uint64(int64(lines[i].seq) + offset)
		obj["ev.seq"] = seq
		last = seq
		if c, err := numberOf(obj["ev.count"]); err == nil && c > 1 {
			last = seq + c - 1 // a pack's last event (see pack.go)
		}
		out = append(out, obj)
	}
	counter := map[string]any{"uid": counterUID, "counter.value": last}
	if counterUID == "" {
		counter = map[string]any{"uid": "_:counter", "dgraph.type": kindCounter, "tr.kind": kindCounter,
			"tr.id": eventCounterID, "counter.value": last}
	}
	out = append(out, counter)
	nq, err := toNQuads(out, false)
	if err != nil {
		return nil, err
	}
	uids, err := u.commit(ctx, &api.Mutation{Set: nq, CommitNow: true})
	if err != nil {
		if errors.Is(err, dgo.ErrAborted) {
			return nil, err
		}
		return nil, wrapErr(err)
	}
	committed = true
	if s.embedded {
		s.seq = last
		s.published.Store(last)
		if s.counterUID == "" {
			s.counterUID = uids["counter"]
		}
	}
	seqs.add(first, offset)
	return uids, nil
}

// rawCommit commits set-objects in one request (as N-Quads, like every write of the store) and
// returns the uids of their blank nodes.
func (s *Store) rawCommit(ctx context.Context, objs []map[string]any) (map[string]string, error) {
	nq, err := toNQuads(objs, false)
	if err != nil {
		return nil, err
	}
	return s.commitRaw(ctx, &api.Mutation{Set: nq, CommitNow: true})
}
