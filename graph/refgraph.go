package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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

// scanKinds runs phase one: the uids of the scope's refgraph nodes, by kind.
func scanKinds(ctx context.Context, query func(ctx context.Context, q string, vars map[string]string) ([]byte, error), scopeID string) (map[string][]string, int, error) {
	byKind := map[string][]string{}
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
			if _, ok := scanFields[row.Kind]; ok {
				byKind[row.Kind] = append(byKind[row.Kind], row.UID)
			}
		}
		if len(r.Q) < scanKindPage {
			return byKind, bytes, nil
		}
		after = r.Q[len(r.Q)-1].UID
	}
}

// scanKindOrder is the order phase two reads the kinds in.
var scanKindOrder = []string{kindMemory, kindKnowledge, kindSkill, kindWorkingState, kindKernel, kindRemoved}

// scanJob is one query of phase two: a page of uids of one kind.
type scanJob struct {
	kind string
	uids []string
}

func scanJobs(byKind map[string][]string) []scanJob {
	var jobs []scanJob
	for _, k := range scanKindOrder {
		uids := byKind[k]
		for i := 0; i < len(uids); i += scanPage {
			jobs = append(jobs, scanJob{k, uids[i:min(len(uids), i+scanPage)]})
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
	byKind, bytes, err := scanKinds(ctx, s.b.query, scopeID)
	if err != nil {
		return 0, 0, err
	}
	var answered atomic.Int64
	if err := eachJob(ctx, scanJobs(byKind), workers, func(ctx context.Context, _ int, j scanJob) error {
		raw, err := s.b.query(ctx, ScanNodesQuery(j.kind, j.uids), nil)
		if err != nil {
			return wrapErr(err)
		}
		answered.Add(int64(len(raw)))
		return nil
	}); err != nil {
		return 0, 0, err
	}
	for _, uids := range byKind {
		nodes += len(uids)
	}
	return nodes, bytes + int(answered.Load()), nil
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
// a compact graph — each node's head and its references as indexes of their other ends — then
// joins the incoming side in memory (every reference lies within the scope, so the outgoing
// references of all its nodes are all its references) and hands the artifacts (kernels and
// tombstones left out) to fn in pages, in artifact id order, each page's nodes and references
// made as it is handed out. The compact graph takes about a fifth of the nodes made whole: a
// pass over a million artifacts holds it, and one page.
func (s *Store) ScanRefgraph(ctx context.Context, scopeID string, fn func(page []*domain.RefNode) error) error {
	if !domain.ValidID(scopeID) {
		return domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	byKind, _, err := scanKinds(ctx, s.b.query, scopeID)
	if err != nil {
		return err
	}
	// Phase one fixes each node's index: jobs in order, each a run of indexes.
	jobs := scanJobs(byKind)
	starts := make([]int, len(jobs)+1)
	index := map[string]int32{}
	for i, j := range jobs {
		starts[i+1] = starts[i] + len(j.uids)
		for k, uid := range j.uids {
			index[uid] = int32(starts[i] + k)
		}
	}
	recs := make([]scanRec, starts[len(jobs)])
	// The pages are read ScanWorkers at a time, each made compact by the worker that read it.
	if err := eachJob(ctx, jobs, ScanWorkers, func(ctx context.Context, i int, j scanJob) error {
		var r struct {
			Q []*scanNode `json:"q"`
		}
		if err := s.read(ctx, ScanNodesQuery(j.kind, j.uids), nil, &r); err != nil {
			return err
		}
		for _, sn := range r.Q {
			at, ok := index[sn.UID]
			if !ok || at < int32(starts[i]) || at >= int32(starts[i+1]) {
				continue // not asked for in this page
			}
			h := headNode{UID: sn.UID, ID: sn.ID, Kind: j.kind, Scope: scopeID, KFamily: sn.KFamily, MemState: sn.MemState,
				Occurred: sn.Occurred, Accessed: sn.Accessed, Claimed: sn.Claimed, ArtType: sn.ArtType, ArtState: sn.ArtState, Updated: sn.Updated,
				TombFamily: sn.TombFamily}
			n, err := h.refNode()
			if err != nil {
				return err
			}
			rec := &recs[at]
			*rec = scanRec{id: n.ID, family: n.Family, state: n.State, claimed: n.Claimed, lastUsed: n.LastUsed, read: true,
				handed: n.State != domain.EndRemoved && !n.Family.Kernel()}
			out := 0
			for _, ends := range sn.edges() {
				out += len(ends)
			}
			rec.out = make([]scanEdge, 0, out)
			for k, ends := range sn.edges() {
				for _, e := range ends {
					to, ok := index[e.UID]
					if !ok {
						to = -1
					}
					rec.out = append(rec.out, scanEdge{to: to, typ: uint8(k)})
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	// The incoming side, one slab for every node's list.
	in := make([]int32, len(recs))
	edges := 0
	for i := range recs {
		for _, e := range recs[i].out {
			if e.to >= 0 {
				in[e.to]++
				edges++
			}
		}
	}
	slab := make([]scanEdge, 0, edges)
	for i := range recs {
		recs[i].in = slab[len(slab) : len(slab) : len(slab)+int(in[i])]
		slab = slab[:len(slab)+int(in[i])]
	}
	for i := range recs {
		for _, e := range recs[i].out {
			if e.to >= 0 {
				recs[e.to].in = append(recs[e.to].in, scanEdge{to: int32(i), typ: e.typ})
			}
		}
	}
	var order []int32
	for i := range recs {
		if recs[i].read && recs[i].handed {
			order = append(order, int32(i))
		}
	}
	sort.Slice(order, func(a, b int) bool { return recs[order[a]].id < recs[order[b]].id })
	for lo := 0; lo < len(order); lo += handPage {
		if err := fn(refPage(scopeID, recs, order[lo:min(len(order), lo+handPage)])); err != nil {
			return err
		}
	}
	return nil
}

// handPage is how many artifacts a page handed out by ScanRefgraph holds.
var handPage = scanPage

// scanRec is a node of the compact graph a scan holds.
type scanRec struct {
	id       string
	family   domain.ArtifactFamily
	state    domain.EndState
	lastUsed time.Time
	claimed  bool
	read     bool // phase two answered it (a node deleted between the phases is not)
	handed   bool // an artifact handed to the scan's caller: not a kernel nor a tombstone
	out, in  []scanEdge
}

// scanEdge is a reference of the compact graph: its type (an index of domain.RefTypes) and its
// other end (an index of the graph; -1: an end outside it, removed).
type scanEdge struct {
	to  int32
	typ uint8
}

// refPage makes the nodes at indexes of the compact graph whole, with their references.
func refPage(scopeID string, recs []scanRec, indexes []int32) []*domain.RefNode {
	refs := 0
	for _, i := range indexes {
		refs += len(recs[i].out) + len(recs[i].in)
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
	for k, i := range indexes {
		rec := &recs[i]
		n := &nodes[k]
		*n = domain.RefNode{ID: rec.id, ScopeID: scopeID, Family: rec.family, State: rec.state, LastUsed: rec.lastUsed, Claimed: rec.claimed}
		from := next
		for _, e := range rec.out {
			r := ref()
			*r = domain.Reference{ScopeID: scopeID, Type: domain.RefTypes[e.typ], SourceID: rec.id, SourceFamily: rec.family,
				SourceState: rec.state, TargetState: domain.EndRemoved}
			if e.to >= 0 {
				if dst := &recs[e.to]; dst.read {
					r.TargetID, r.TargetFamily, r.TargetState = dst.id, dst.family, dst.state
				}
			}
		}
		n.Out = lists[from:next:next]
		from = next
		for _, e := range rec.in {
			src := &recs[e.to]
			r := ref()
			*r = domain.Reference{ScopeID: scopeID, Type: domain.RefTypes[e.typ], SourceID: src.id, SourceFamily: src.family,
				SourceState: src.state, TargetID: rec.id, TargetFamily: rec.family, TargetState: rec.state}
		}
		n.In = lists[from:next:next]
		page[k] = n
	}
	return page
}
