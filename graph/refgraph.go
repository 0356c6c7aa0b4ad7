package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The refgraph: a reference of type T from artifact A to artifact B is the edge A ref.T B (with
// facet at, its creation time); its reverse ~ref.T reads it from B. Both ends are in one scope:
// Reference refuses anything else inside the write.

// headFields are what the refgraph needs of a node to judge it (no content).
const headFields = `uid tr.id tr.kind tr.scope kernel.family mem.state mem.occurredAt mem.lastAccessedAt mem.claimed mem.version art.type art.state art.updatedAt art.version life.doc life.archivedBy life.family`

// headNode is a node's head: identity, family, state and last use.
type headNode struct {
	UID        string     `json:"uid"`
	ID         string     `json:"tr.id"`
	Kind       string     `json:"tr.kind"`
	Scope      string     `json:"tr.scope"`
	KFamily    string     `json:"kernel.family"`
	MemState   string     `json:"mem.state"`
	Occurred   *time.Time `json:"mem.occurredAt"`
	Accessed   *time.Time `json:"mem.lastAccessedAt"`
	Claimed    bool       `json:"mem.claimed"`
	MemVersion int64      `json:"mem.version"`
	ArtType    string     `json:"art.type"`
	ArtState   string     `json:"art.state"`
	Updated    *time.Time `json:"art.updatedAt"`
	ArtVersion int64      `json:"art.version"`
	Life       string     `json:"life.doc"`
	ArchivedBy string     `json:"life.archivedBy"`
	TombFamily string     `json:"life.family"`
}

// isRefKind reports whether nodes of kind k take part in the refgraph.
func isRefKind(k string) bool {
	return k == kindMemory || isArtifactKind(k) || k == kindKernel || k == kindRemoved
}

func (h *headNode) family() domain.ArtifactFamily {
	if h.Kind == kindRemoved {
		return domain.ArtifactFamily(h.TombFamily)
	}
	return familyOfKind(h.Kind, h.KFamily)
}

func (h *headNode) state() domain.EndState {
	switch h.Kind {
	case kindRemoved:
		return domain.EndRemoved
	case kindKernel:
		return domain.EndActive
	case kindWorkingState:
		return domain.EndTransient
	case kindMemory:
		if h.MemState == string(domain.StateArchived) {
			return domain.EndArchived
		}
		return domain.EndActive
	}
	if h.ArtState == string(domain.StateArchived) {
		return domain.EndArchived
	}
	return domain.EndActive
}

// kept reports whether the node is a page of the story or the journal: the mind's own writing,
// read at every session start or mirrored from its files, never stale (as claimed memories).
func (h *headNode) kept() bool {
	return h.Kind == kindKnowledge && domain.KnowledgeType(h.ArtType).Written()
}

// refNode turns a head into a RefNode without references. A bad archive record is an error.
func (h *headNode) refNode() (*domain.RefNode, error) {
	n := &domain.RefNode{ID: h.ID, ScopeID: h.Scope, Family: h.family(), State: h.state(), Claimed: h.Claimed || h.kept()}
	rec, err := lifeRecord(h.Life)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %w", h.ID, err)
	}
	n.Archive = rec
	if n.State == domain.EndArchived {
		n.ArchivedBy = h.ArchivedBy
	}
	latest := func(ts ...*time.Time) {
		for _, t := range ts {
			if t != nil && t.After(n.LastUsed) {
				n.LastUsed = t.UTC()
			}
		}
	}
	latest(h.Occurred, h.Accessed, h.Updated)
	if rec != nil {
		latest(rec.RestoredAt)
	}
	return n, nil
}

// nodesByID reads the full refgraph nodes (both directions, with the other ends' heads) of ids
// inside a unit or against committed data.
func nodesByID(query func(q string, vars map[string]string, out any) error, ids []string) (map[string]*domain.RefNode, map[string]*headNode, error) {
	out := map[string]*domain.RefNode{}
	heads := map[string]*headNode{}
	if len(ids) == 0 {
		return out, heads, nil
	}
	var b strings.Builder
	other := `@facets(at) { ` + headFields + ` }`
	for _, t := range domain.RefTypes {
		p := refPred(t)
		fmt.Fprintf(&b, "%s %s ~%s %s ", p, other, p, other)
	}
	var r struct {
		Q []map[string]json.RawMessage `json:"q"`
	}
	q := `{ q(func: eq(tr.id, ` + idList(ids) + `)) { ` + headFields + ` ` + b.String() + ` } }`
	if err := query(q, nil, &r); err != nil {
		return nil, nil, err
	}
	for _, row := range r.Q {
		var h headNode
		if err := decodeRow(row, &h); err != nil {
			return nil, nil, err
		}
		if !isRefKind(h.Kind) {
			continue
		}
		n, err := h.refNode()
		if err != nil {
			return nil, nil, err
		}
		for _, t := range domain.RefTypes {
			p := refPred(t)
			for _, key := range []string{p, "~" + p} {
				raw, ok := row[key]
				if !ok {
					continue
				}
				var ends []map[string]json.RawMessage
				if err := json.Unmarshal(raw, &ends); err != nil {
					return nil, nil, err
				}
				for _, e := range ends {
					var oh headNode
					if err := decodeRow(e, &oh); err != nil {
						return nil, nil, err
					}
					var at time.Time
					if v, ok := e[key+"|at"]; ok {
						_ = json.Unmarshal(v, &at)
					}
					ref := &domain.Reference{ScopeID: n.ScopeID, Type: t, CreatedAt: at.UTC()}
					if key == p {
						ref.SourceID, ref.SourceFamily, ref.SourceState = n.ID, n.Family, n.State
						ref.TargetID, ref.TargetFamily, ref.TargetState = oh.ID, oh.family(), oh.state()
						if oh.ID == "" {
							ref.TargetState = domain.EndRemoved
						}
						n.Out = append(n.Out, ref)
					} else {
						ref.SourceID, ref.SourceFamily, ref.SourceState = oh.ID, oh.family(), oh.state()
						ref.TargetID, ref.TargetFamily, ref.TargetState = n.ID, n.Family, n.State
						n.In = append(n.In, ref)
					}
					ref.ID = domain.ReferenceID(ref.SourceID, t, ref.TargetID)
				}
			}
		}
		sortRefs(n.Out)
		sortRefs(n.In)
		out[n.ID] = n
		hc := h
		heads[n.ID] = &hc
	}
	return out, heads, nil
}

// decodeRow decodes the scalar fields of a JSON row held as raw values.
func decodeRow(row map[string]json.RawMessage, h *headNode) error {
	flat := make(map[string]json.RawMessage, 16)
	for k, v := range row {
		if !strings.HasPrefix(k, "ref.") && !strings.HasPrefix(k, "~ref.") {
			flat[k] = v
		}
	}
	raw, err := json.Marshal(flat)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, h)
}

func sortRefs(rs []*domain.Reference) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Type != rs[j].Type {
			return rs[i].Type < rs[j].Type
		}
		if rs[i].SourceID != rs[j].SourceID {
			return rs[i].SourceID < rs[j].SourceID
		}
		return rs[i].TargetID < rs[j].TargetID
	})
}

// Node reads one artifact of any family with its references in both directions.
func (s *Store) Node(ctx context.Context, id string) (*domain.RefNode, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "artifact %q not found", id)
	}
	nodes, _, err := nodesByID(func(q string, vars map[string]string, out any) error { return s.read(ctx, q, vars, out) }, []string{id})
	if err != nil {
		return nil, err
	}
	n, ok := nodes[id]
	if !ok {
		return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
	}
	return n, nil
}

func (t *tx) nodes(ids []string) (map[string]*domain.RefNode, map[string]*headNode, error) {
	return nodesByID(t.query, ids)
}

// Reference adds or removes the reference of type rt from source to target.
func (s *Store) Reference(ctx context.Context, req domain.Request, sourceID string, rt domain.RefType, targetID string, add bool, at time.Time, fn domain.ReferenceChange) (*domain.Reference, error) {
	if !rt.Valid() {
		return nil, domain.FieldErrorf("type", "unknown reference type %q", rt)
	}
	if sourceID == targetID {
		return nil, domain.FieldErrorf("targetId", "an artifact cannot reference itself")
	}
	for _, id := range []string{sourceID, targetID} {
		if !domain.ValidID(id) {
			return nil, domain.Errorf(domain.ENOTFOUND, "artifact %q not found", id)
		}
	}
	pred := refPred(rt)
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.Reference, error) {
		nodes, heads, err := t.nodes([]string{sourceID, targetID})
		if err != nil {
			return nil, err
		}
		src, dst := nodes[sourceID], nodes[targetID]
		for id, n := range map[string]*domain.RefNode{sourceID: src, targetID: dst} {
			if n == nil || n.State == domain.EndRemoved {
				return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
			}
		}
		// The cross-scope reference ban, enforced inside the write: nothing is written.
		if src.ScopeID != dst.ScopeID {
			return nil, domain.Errorf(domain.ECROSSSCOPE, "artifact %s and artifact %s belong to different scopes", sourceID, targetID)
		}
		t.inScope(src.ScopeID)
		var cur *domain.Reference
		for _, r := range src.Out {
			if r.Type == rt && r.TargetID == targetID {
				cur = r
			}
		}
		evs, err := fn(src, dst, cur)
		if err != nil {
			return nil, err
		}
		srcUID, dstUID := heads[sourceID].UID, heads[targetID].UID
		edge := map[string]any{"uid": srcUID, pred: map[string]any{"uid": dstUID}}
		out := cur
		if add {
			if cur != nil {
				return nil, domain.Errorf(domain.ECONFLICT, "%s already %s %s", sourceID, strings.ToLower(string(rt)), targetID)
			}
			now := at.UTC()
			edge[pred] = map[string]any{"uid": dstUID, pred + "|at": ts(now)}
			t.set(edge)
			out = &domain.Reference{ID: domain.ReferenceID(sourceID, rt, targetID), ScopeID: src.ScopeID, Type: rt,
				SourceID: sourceID, SourceFamily: src.Family, SourceState: src.State,
				TargetID: targetID, TargetFamily: dst.Family, TargetState: dst.State, CreatedAt: now}
		} else {
			if cur == nil {
				return nil, domain.Errorf(domain.ENOTFOUND, "%s has no %s reference to %s", sourceID, rt, targetID)
			}
			t.del(edge)
		}
		// Rewriting both ends' versions makes a concurrent removal or archival of either end
		// conflict with this write (the cluster retries one of them) instead of both committing.
		for _, h := range []*headNode{heads[sourceID], heads[targetID]} {
			if v := versionJSON(h); v != nil {
				t.set(v)
			}
		}
		t.emit(evs...)
		return out, nil
	})
}

// versionJSON rewrites a node's version as it is, or returns nil for nodes without one.
func versionJSON(h *headNode) map[string]any {
	switch {
	case h.Kind == kindMemory:
		return map[string]any{"uid": h.UID, "mem.version": h.MemVersion}
	case isArtifactKind(h.Kind):
		return map[string]any{"uid": h.UID, "art.version": h.ArtVersion}
	}
	return nil
}

// The refgraph scan reads a scope in two phases, both linear in the scope's size. Phase one
// pages through every node carrying the scope (events too) by uid, reading only its kind: no
// filter, since a filter would be evaluated over every remaining node on every page. Phase two
// reads, per kind and a page of uids at a time, just the predicates that kind carries and the
// uids its references point at: the engine's cost is per node and predicate looked up.
const (
	scanKindPage = 20000
	scanPage     = 5000
)

// ScanKindsQuery is phase one: a page of the scope's nodes after a uid, with their kind.
func ScanKindsQuery(after string) string {
	return fmt.Sprintf(`query q($s: string) { q(func: eq(tr.scope, $s), first: %d, after: %s) { uid tr.kind } }`, scanKindPage, after)
}

// scanFields are the predicates phase two reads of each kind.
var scanFields = map[string]string{
	kindMemory:       "tr.id mem.state mem.occurredAt mem.lastAccessedAt mem.claimed",
	kindKnowledge:    "tr.id art.type art.state art.updatedAt",
	kindSkill:        "tr.id art.state art.updatedAt",
	kindWorkingState: "tr.id",
	kindKernel:       "tr.id kernel.family",
	kindRemoved:      "tr.id life.family",
}

// ScanNodesQuery is phase two: the nodes of one kind among uids, with their references. uids
// come from phase one (the engine's own uids, never caller input).
func ScanNodesQuery(kind string, uids []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ q(func: uid(%s)) { uid %s ", strings.Join(uids, ","), scanFields[kind])
	if kind != kindKernel && kind != kindRemoved {
		for _, t := range domain.RefTypes {
			fmt.Fprintf(&b, "%s { uid } ", refPred(t))
		}
	}
	b.WriteString("} }")
	return b.String()
}

type kindRow struct {
	UID  string `json:"uid"`
	Kind string `json:"tr.kind"`
}

// scanSet is what phase one found: the uids of the scope's refgraph nodes, ascending, and the
// kind of each (an index of scanKindOrder). A node's place in it is its index in the compact
// graph; 9 bytes a node, where a map from uid strings took about 70.
type scanSet struct {
	uids  []uint64
	kinds []uint8
}

// index is the compact graph's index of the node uid, or -1 when phase one did not find it.
func (ss *scanSet) index(uid string) int32 {
	u, err := parseUID(uid)
	if err != nil {
		return -1
	}
	i, found := slices.BinarySearch(ss.uids, u)
	if !found {
		return -1
	}
	return int32(i)
}

// scanKinds runs phase one: the uids of the scope's refgraph nodes, with their kinds.
func scanKinds(ctx context.Context, query func(ctx context.Context, q string, vars map[string]string) ([]byte, error), scopeID string) (*scanSet, int, error) {
	kindOf := make(map[string]uint8, len(scanKindOrder))
	for i, k := range scanKindOrder {
		kindOf[k] = uint8(i)
	}
	ss := &scanSet{}
	bytes := 0
	after := "0x0"
	for {
		raw, err := query(ctx, ScanKindsQuery(after), map[string]string{"$s": scopeID})
		if err != nil {
			return nil, 0, wrapErr(err)
		}
		bytes += len(raw)
		var r struct {
			Q []kindRow `json:"q"`
		}
		if err := decode(raw, &r); err != nil {
			return nil, 0, fmt.Errorf("decode query result: %w", err)
		}
		for _, row := range r.Q {
			k, ok := kindOf[row.Kind]
			if !ok {
				continue
			}
			u, err := parseUID(row.UID)
			if err != nil {
				return nil, 0, err
			}
			// Paging after the last uid needs the engine's answers in uid order; the index
			// (a binary search) needs them too.
			if n := len(ss.uids); n > 0 && u <= ss.uids[n-1] {
				return nil, 0, fmt.Errorf("the refgraph scan: the engine answered %s after 0x%x, out of uid order", row.UID, ss.uids[n-1])
			}
			ss.uids = append(ss.uids, u)
			ss.kinds = append(ss.kinds, k)
		}
		if len(r.Q) < scanKindPage {
			break
		}
		after = r.Q[len(r.Q)-1].UID
	}
	return ss, bytes, nil
}

// scanKindOrder is the order phase two reads the kinds in.
var scanKindOrder = []string{kindMemory, kindKnowledge, kindSkill, kindWorkingState, kindKernel, kindRemoved}

// scanJob is one query of phase two: a page of nodes of one kind, by their indexes (ascending).
type scanJob struct {
	kind string
	at   []int32
}

// uids are the job's nodes' uids, for its query.
func (j scanJob) uids(ss *scanSet) []string {
	out := make([]string, len(j.at))
	for i, at := range j.at {
		out[i] = uidOf(ss.uids[at])
	}
	return out
}

// has reports whether the node at index at is one of the job's.
func (j scanJob) has(at int32) bool {
	_, ok := slices.BinarySearch(j.at, at)
	return ok
}

func scanJobs(ss *scanSet) []scanJob {
	byKind := make([][]int32, len(scanKindOrder))
	for i, k := range ss.kinds {
		byKind[k] = append(byKind[k], int32(i))
	}
	var jobs []scanJob
	for k, at := range byKind {
		for i := 0; i < len(at); i += scanPage {
			jobs = append(jobs, scanJob{scanKindOrder[k], at[i:min(len(at), i+scanPage)]})
		}
	}
	return jobs
}

// ScanWorkers is how many phase-two queries a scan keeps in flight: while the engine answers
// one page, the previous answer is decoded.
const ScanWorkers = 2

// eachJob runs fn for every job with up to workers of them at once, and returns the first error.
func eachJob(ctx context.Context, jobs []scanJob, workers int, fn func(ctx context.Context, i int, j scanJob) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					errs <- ctx.Err()
					return
				}
				if err := fn(ctx, i, jobs[i]); err != nil {
					cancel()
					errs <- err
					return
				}
			}
		}()
	}
	var first error
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	return first
}

// RawScanRefgraph runs exactly the queries of ScanRefgraph, workers at a time, and only counts
// the nodes and bytes answered, decoding nothing but what paging needs: the raw baseline of the
// digest benchmark.
func (s *Store) RawScanRefgraph(ctx context.Context, scopeID string, workers int) (nodes, bytes int, err error) {
	ss, bytes, err := scanKinds(ctx, s.b.query, scopeID)
	if err != nil {
		return 0, 0, err
	}
	var answered atomic.Int64
	if err := eachJob(ctx, scanJobs(ss), workers, func(ctx context.Context, _ int, j scanJob) error {
		raw, err := s.b.query(ctx, ScanNodesQuery(j.kind, j.uids(ss)), nil)
		if err != nil {
			return wrapErr(err)
		}
		answered.Add(int64(len(raw)))
		return nil
	}); err != nil {
		return 0, 0, err
	}
	return len(ss.uids), bytes + int(answered.Load()), nil
}

// scanNode is a node of phase two: its head and the uids its references point at.
type scanNode struct {
	UID         string     `json:"uid"`
	ID          string     `json:"tr.id"`
	MemState    string     `json:"mem.state"`
	Occurred    *time.Time `json:"mem.occurredAt"`
	Accessed    *time.Time `json:"mem.lastAccessedAt"`
	Claimed     bool       `json:"mem.claimed"`
	ArtType     string     `json:"art.type"`
	ArtState    string     `json:"art.state"`
	Updated     *time.Time `json:"art.updatedAt"`
	KFamily     string     `json:"kernel.family"`
	TombFamily  string     `json:"life.family"`
	Supports    []uidOnly  `json:"ref.SUPPORTS"`
	DerivedFrom []uidOnly  `json:"ref.DERIVED_FROM"`
	DependsOn   []uidOnly  `json:"ref.DEPENDS_ON"`
	Cites       []uidOnly  `json:"ref.CITES"`
	Contradicts []uidOnly  `json:"ref.CONTRADICTS"`
}

type uidOnly struct {
	UID string `json:"uid"`
}

func (n *scanNode) edges() [][]uidOnly {
	return [][]uidOnly{n.Supports, n.DerivedFrom, n.DependsOn, n.Cites, n.Contradicts}
}

// ScanRefgraph reads the whole refgraph of a scope (see ScanKindsQuery and ScanNodesQuery) into
// a compact graph — each node's id, state and last use in a few bytes, its references as
// indexes of their other ends — then joins the incoming side in memory (every reference lies
// within the scope, so the outgoing references of all its nodes are all its references) and
// hands the artifacts (kernels and tombstones left out) to fn in pages, in artifact id order,
// each page's nodes and references made as it is handed out. The compact graph takes about
// 120 bytes a node and 16 a reference: a pass over a million artifacts holds it, and one page.
func (s *Store) ScanRefgraph(ctx context.Context, scopeID string, fn func(page []*domain.RefNode) error) error {
	if !domain.ValidID(scopeID) {
		return domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	ss, _, err := scanKinds(ctx, s.b.query, scopeID)
	if err != nil {
		return err
	}
	g := &scanGraph{scopeID: scopeID, recs: make([]scanRec, len(ss.uids))}
	// The pages are read ScanWorkers at a time, each made compact by the worker that read it:
	// its ids in one string, its references in one slice.
	if err := eachJob(ctx, scanJobs(ss), ScanWorkers, func(ctx context.Context, _ int, j scanJob) error {
		var r struct {
			Q []*scanNode `json:"q"`
		}
		if err := s.read(ctx, ScanNodesQuery(j.kind, j.uids(ss)), nil, &r); err != nil {
			return err
		}
		refs := 0
		for _, sn := range r.Q {
			for _, ends := range sn.edges() {
				refs += len(ends)
			}
		}
		slab := make([]scanEdge, 0, refs)
		type placed struct {
			at       int32
			from, to int
		}
		var ids strings.Builder
		var got []placed
		for _, sn := range r.Q {
			at := ss.index(sn.UID)
			if at < 0 || !j.has(at) || g.recs[at].flags&scanRead != 0 {
				continue // not asked for in this page, or answered twice
			}
			h := headNode{UID: sn.UID, ID: sn.ID, Kind: j.kind, Scope: scopeID, KFamily: sn.KFamily, MemState: sn.MemState,
				Occurred: sn.Occurred, Accessed: sn.Accessed, Claimed: sn.Claimed, ArtType: sn.ArtType, ArtState: sn.ArtState, Updated: sn.Updated,
				TombFamily: sn.TombFamily}
			n, err := h.refNode()
			if err != nil {
				return err
			}
			rec := &g.recs[at]
			if rec.family, err = g.families.of(string(n.Family)); err != nil {
				return err
			}
			if rec.state, err = g.states.of(string(n.State)); err != nil {
				return err
			}
			rec.flags = scanRead
			if n.Claimed {
				rec.flags |= scanClaimed
			}
			if n.State != domain.EndRemoved && !n.Family.Kernel() {
				rec.flags |= scanHanded
			}
			if !n.LastUsed.IsZero() {
				rec.flags |= scanUsed
				rec.sec, rec.nsec = n.LastUsed.Unix(), int32(n.LastUsed.Nanosecond())
			}
			from := len(slab)
			for k, ends := range sn.edges() {
				for _, e := range ends {
					slab = append(slab, scanEdge{to: ss.index(e.UID), typ: uint8(k)})
				}
			}
			rec.out = slab[from:len(slab):len(slab)]
			got = append(got, placed{at, ids.Len(), ids.Len() + len(n.ID)})
			ids.WriteString(n.ID)
		}
		all := ids.String()
		for _, p := range got {
			g.recs[p.at].id = all[p.from:p.to]
		}
		return nil
	}); err != nil {
		return err
	}
	ss = nil // phase one's uids are not needed any more
	g.joinIncoming()
	var order []int32
	for i := range g.recs {
		if f := g.recs[i].flags; f&scanRead != 0 && f&scanHanded != 0 {
			order = append(order, int32(i))
		}
	}
	sort.Slice(order, func(a, b int) bool { return g.recs[order[a]].id < g.recs[order[b]].id })
	for lo := 0; lo < len(order); lo += handPage {
		if err := fn(g.page(order[lo:min(len(order), lo+handPage)])); err != nil {
			return err
		}
	}
	return nil
}

// handPage is how many artifacts a page handed out by ScanRefgraph holds.
var handPage = scanPage

// scanGraph is the compact graph a scan holds: its nodes, and their incoming references, node
// i's being ins[inAt[i]:inAt[i+1]].
type scanGraph struct {
	scopeID          string
	recs             []scanRec
	inAt             []int32
	ins              []scanEdge
	families, states scanNames
}

// scanRec is a node of the compact graph.
type scanRec struct {
	id     string     // a substring of its page's ids
	out    []scanEdge // a part of its page's references
	sec    int64      // its last use (with scanUsed)
	nsec   int32
	family uint8 // an index of the graph's families
	state  uint8 // an index of the graph's states
	flags  uint8
}

const (
	scanRead    = 1 << iota // phase two answered it (a node deleted between the phases is not)
	scanHanded              // an artifact handed to the scan's caller: not a kernel nor a tombstone
	scanClaimed             // claimed, or kept
	scanUsed                // sec and nsec hold its last use
)

func (r *scanRec) lastUsed() time.Time {
	if r.flags&scanUsed == 0 {
		return time.Time{}
	}
	return time.Unix(r.sec, int64(r.nsec)).UTC()
}

// scanEdge is a reference of the compact graph: its type (an index of domain.RefTypes) and its
// other end (an index of the graph; -1: an end outside it, removed).
type scanEdge struct {
	to  int32
	typ uint8
}

// scanNames numbers the few names a scan's nodes share (families, states).
type scanNames struct {
	mu    sync.Mutex
	names []string
}

func (sn *scanNames) of(name string) (uint8, error) {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	if i := slices.Index(sn.names, name); i >= 0 {
		return uint8(i), nil
	}
	if len(sn.names) == 256 {
		return 0, fmt.Errorf("the refgraph scan met more than 256 families or states (%q)", name)
	}
	sn.names = append(sn.names, name)
	return uint8(len(sn.names) - 1), nil
}

// name is the name numbered i (the names are complete once the scan has read the scope).
func (sn *scanNames) name(i uint8) string { return sn.names[i] }

// joinIncoming lists each node's incoming references, in one slice for all.
func (g *scanGraph) joinIncoming() {
	g.inAt = make([]int32, len(g.recs)+1)
	for i := range g.recs {
		for _, e := range g.recs[i].out {
			if e.to >= 0 {
				g.inAt[e.to+1]++
			}
		}
	}
	for i := range g.recs {
		g.inAt[i+1] += g.inAt[i]
	}
	g.ins = make([]scanEdge, g.inAt[len(g.recs)])
	next := slices.Clone(g.inAt[:len(g.recs)])
	for i := range g.recs {
		for _, e := range g.recs[i].out {
			if e.to >= 0 {
				g.ins[next[e.to]] = scanEdge{to: int32(i), typ: e.typ}
				next[e.to]++
			}
		}
	}
}

// page makes the nodes at indexes of the compact graph whole, with their references.
func (g *scanGraph) page(indexes []int32) []*domain.RefNode {
	refs := 0
	for _, i := range indexes {
		refs += len(g.recs[i].out) + int(g.inAt[i+1]-g.inAt[i])
	}
	slab := make([]domain.Reference, refs)
	lists := make([]*domain.Reference, refs)
	nodes := make([]domain.RefNode, len(indexes))
	page := make([]*domain.RefNode, len(indexes))
	next := 0
	ref := func() *domain.Reference {
		r := &slab[next]
		lists[next] = r
		next++
		return r
	}
	family := func(r *scanRec) domain.ArtifactFamily { return domain.ArtifactFamily(g.families.name(r.family)) }
	state := func(r *scanRec) domain.EndState { return domain.EndState(g.states.name(r.state)) }
	for k, i := range indexes {
		rec := &g.recs[i]
		n := &nodes[k]
		fam, st := family(rec), state(rec)
		*n = domain.RefNode{ID: rec.id, ScopeID: g.scopeID, Family: fam, State: st, LastUsed: rec.lastUsed(), Claimed: rec.flags&scanClaimed != 0}
		from := next
		for _, e := range rec.out {
			r := ref()
			*r = domain.Reference{ScopeID: g.scopeID, Type: domain.RefTypes[e.typ], SourceID: rec.id, SourceFamily: fam,
				SourceState: st, TargetState: domain.EndRemoved}
			if e.to >= 0 {
				if dst := &g.recs[e.to]; dst.flags&scanRead != 0 {
					r.TargetID, r.TargetFamily, r.TargetState = dst.id, family(dst), state(dst)
				}
			}
		}
		n.Out = lists[from:next:next]
		from = next
		for _, e := range g.ins[g.inAt[i]:g.inAt[i+1]] {
			src := &g.recs[e.to]
			r := ref()
			*r = domain.Reference{ScopeID: g.scopeID, Type: domain.RefTypes[e.typ], SourceID: src.id, SourceFamily: family(src),
				SourceState: state(src), TargetID: rec.id, TargetFamily: fam, TargetState: st}
		}
		n.In = lists[from:next:next]
		page[k] = n
	}
	return page
}
