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

// ScanRefgraph reads the whole refgraph of a scope (see ScanKindsQuery and ScanNodesQuery), then
// joins the incoming side in memory — every reference lies within the scope, so the outgoing
// references of all its nodes are all its references — and hands the artifacts (kernels and
// tombstones left out) to fn in pages.
func (s *Store) ScanRefgraph(ctx context.Context, scopeID string, fn func(page []*domain.RefNode) error) error {
	if !domain.ValidID(scopeID) {
		return domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	byKind, _, err := scanKinds(ctx, s.b.query, scopeID)
	if err != nil {
		return err
	}
	total := 0
	for _, uids := range byKind {
		total += len(uids)
	}
	// The pages are read ScanWorkers at a time, each decoded by the worker that read it; the
	// nodes are then taken in page order.
	jobs := scanJobs(byKind)
	pages := make([][]*scanNode, len(jobs))
	if err := eachJob(ctx, jobs, ScanWorkers, func(ctx context.Context, i int, j scanJob) error {
		var r struct {
			Q []*scanNode `json:"q"`
		}
		if err := s.read(ctx, ScanNodesQuery(j.kind, j.uids), nil, &r); err != nil {
			return err
		}
		pages[i] = r.Q
		return nil
	}); err != nil {
		return err
	}
	nodes := make([]*domain.RefNode, 0, total)
	scans := make([]*scanNode, 0, total)
	byUID := make(map[string]int, total)
	for i, j := range jobs {
		for _, sn := range pages[i] {
			h := headNode{UID: sn.UID, ID: sn.ID, Kind: j.kind, Scope: scopeID, KFamily: sn.KFamily, MemState: sn.MemState,
				Occurred: sn.Occurred, Accessed: sn.Accessed, Claimed: sn.Claimed, ArtType: sn.ArtType, ArtState: sn.ArtState, Updated: sn.Updated,
				TombFamily: sn.TombFamily}
			n, err := h.refNode()
			if err != nil {
				return err
			}
			byUID[sn.UID] = len(nodes)
			nodes = append(nodes, n)
			scans = append(scans, sn)
		}
		pages[i] = nil
	}
	// References are allocated in one slab and each node's lists sliced from one more: a scope
	// of 100,000 artifacts has half a million of them. Their ids are left for RefID to compute
	// when a reason names them.
	edges, in := 0, make([]int, len(nodes))
	for _, sn := range scans {
		for _, ends := range sn.edges() {
			edges += len(ends)
			for _, e := range ends {
				if j, ok := byUID[e.UID]; ok {
					in[j]++
				}
			}
		}
	}
	slab := make([]domain.Reference, edges)
	lists := make([]*domain.Reference, 0, 2*edges)
	for i, sn := range scans {
		out := 0
		for _, ends := range sn.edges() {
			out += len(ends)
		}
		nodes[i].Out = lists[len(lists) : len(lists) : len(lists)+out]
		lists = lists[:len(lists)+out]
		nodes[i].In = lists[len(lists) : len(lists) : len(lists)+in[i]]
		lists = lists[:len(lists)+in[i]]
	}
	next := 0
	for i, sn := range scans {
		src := nodes[i]
		for k, ends := range sn.edges() {
			rt := domain.RefTypes[k]
			for _, e := range ends {
				ref := &slab[next]
				next++
				*ref = domain.Reference{ScopeID: scopeID, Type: rt, SourceID: src.ID, SourceFamily: src.Family, SourceState: src.State,
					TargetState: domain.EndRemoved}
				if j, ok := byUID[e.UID]; ok {
					dst := nodes[j]
					ref.TargetID, ref.TargetFamily, ref.TargetState = dst.ID, dst.Family, dst.State
					dst.In = append(dst.In, ref)
				}
				src.Out = append(src.Out, ref)
			}
		}
	}
	page := make([]*domain.RefNode, 0, scanPage)
	for _, n := range nodes {
		if n.State == domain.EndRemoved || n.Family.Kernel() {
			continue
		}
		page = append(page, n)
		if len(page) == scanPage {
			if err := fn(page); err != nil {
				return err
			}
			page = make([]*domain.RefNode, 0, scanPage)
		}
	}
	if len(page) > 0 {
		return fn(page)
	}
	return nil
}
