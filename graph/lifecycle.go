package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/totalrecall/totalrecall/domain"
)

// Digest runs one digest pass inside one write.
func (s *Store) Digest(ctx context.Context, req domain.Request, scopeID string, ids []string, fn domain.DigestDecide) (*domain.DigestReport, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.DigestReport, error) {
		scopeUID, err := t.scopeUID(scopeID)
		if err != nil {
			return nil, err
		}
		t.inScope(scopeID)
		nodes, heads, err := t.nodes(ids)
		if err != nil {
			return nil, err
		}
		plan, err := fn(nodes)
		if err != nil {
			return nil, err
		}
		if plan.Report == nil || !domain.ValidID(plan.Report.ID) {
			return nil, domain.Errorf(domain.EINTERNAL, "a digest pass needs a report")
		}
		archive := make([]string, 0, len(plan.Archive))
		for id := range plan.Archive {
			archive = append(archive, id)
		}
		sort.Strings(archive)
		// The plan is checked against the nodes as read here, whoever made it: archive and
		// remove are separate passes, and a pass removes only what an earlier pass archived.
		for _, id := range plan.Remove {
			if _, ok := plan.Archive[id]; ok {
				return nil, domain.Errorf(domain.ESAMEPASS, "%s is archived and removed in the same pass", id)
			}
		}
		for _, id := range archive {
			h, n := heads[id], nodes[id]
			if h == nil || !n.Family.Digestible() || n.ScopeID != scopeID || n.State == domain.EndRemoved {
				return nil, domain.Errorf(domain.EINTERNAL, "digest plan archives %s, which it may not", id)
			}
			if n.State != domain.EndActive {
				return nil, domain.Errorf(domain.ECONFLICT, "%s is already archived", id)
			}
			life, err := json.Marshal(plan.Archive[id])
			if err != nil {
				return nil, err
			}
			obj := stateJSON(h, domain.StateArchived, string(life))
			obj["life.archivedBy"] = plan.Report.ID
			t.set(obj)
		}
		for _, id := range plan.Remove {
			h, n := heads[id], nodes[id]
			if h == nil || !n.Family.Digestible() || n.ScopeID != scopeID || n.State == domain.EndRemoved {
				return nil, domain.Errorf(domain.EINTERNAL, "digest plan removes %s, which it may not", id)
			}
			if n.State != domain.EndArchived || n.ArchivedBy == "" || n.ArchivedBy == plan.Report.ID {
				return nil, domain.Errorf(domain.ENOTARCHIVED, "%s was not archived by an earlier digest pass", id)
			}
			if err := t.removeNode(h, n); err != nil {
				return nil, err
			}
		}
		// The proposals were written ahead, but for their last pages.
		var pages []string
		if plan.Proposals != nil {
			w, ok := plan.Proposals.(*proposalWriter)
			if !ok || w.s != s || w.reportID != plan.Report.ID || w.scopeID != scopeID {
				return nil, domain.Errorf(domain.EINTERNAL, "a digest plan's proposals come from another writer")
			}
			if err := w.finish(t.ctx); err != nil {
				return nil, err
			}
			if w.count != plan.Report.ProposalCount {
				return nil, domain.Errorf(domain.EINTERNAL, "a digest report counts %d proposals of %d", plan.Report.ProposalCount, w.count)
			}
			pages = w.pages
			if w.event != "" {
				n := 0
				for _, ev := range plan.Events {
					if ev.Type == domain.EvDigestProposed {
						t.eventNode(ev, w.event)
						n++
					}
				}
				if n != 1 {
					return nil, domain.Errorf(domain.EINTERNAL, "a digest plan with proposals has %d proposed events", n)
				}
			}
		} else if plan.Report.ProposalCount != 0 {
			return nil, domain.Errorf(domain.EINTERNAL, "a digest report counts %d proposals it has not", plan.Report.ProposalCount)
		}
		doc, err := packJSON(reportDocument{DigestReport: *plan.Report, Pages: pages})
		if err != nil {
			return nil, err
		}
		t.set(map[string]any{"uid": "_:report", "tr.kind": kindDigestReport, "tr.id": plan.Report.ID, "tr.scope": scopeID,
			"digest.at": ts(plan.Report.At), "digest.doc": doc})
		if plan.Proposed {
			t.set(map[string]any{"uid": scopeUID, "digest.lastProposal": plan.Report.ID})
		}
		t.emit(plan.Events...)
		return plan.Report, nil
	})
}

// stateJSON sets the lifecycle state and archive record of a memory, knowledge page or skill.
func stateJSON(h *headNode, st domain.LifecycleState, life string) map[string]any {
	obj := map[string]any{"uid": h.UID, "life.doc": life}
	if h.Kind == kindMemory {
		obj["mem.state"], obj["mem.version"] = string(st), h.MemVersion+1
	} else {
		obj["art.state"], obj["art.version"] = string(st), h.ArtVersion+1
	}
	return obj
}

func (t *tx) scopeExists(scopeID string) error {
	_, err := t.scopeUID(scopeID)
	return err
}

// scopeUID reads the uid of the scope's node inside the unit. Errors: NOT_FOUND.
func (t *tx) scopeUID(scopeID string) (string, error) {
	var r struct {
		Q []struct {
			UID string `json:"uid"`
		} `json:"q"`
	}
	if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Scope")) { uid } }`,
		map[string]string{"$id": scopeID}, &r); err != nil {
		return "", err
	}
	if len(r.Q) == 0 {
		return "", domain.Errorf(domain.ENOTFOUND, "scope %s not found", scopeID)
	}
	return r.Q[0].UID, nil
}

// removeNode deletes an artifact destructively: its own predicates, its outgoing references,
// and (for a memory) its associations in both directions. References other artifacts hold to
// it stay: the node becomes a tombstone keeping only its id, scope and family, so they read as
// broken (target REMOVED) instead of vanishing.
func (t *tx) removeNode(h *headNode, n *domain.RefNode) error {
	var preds []string
	switch {
	case h.Kind == kindMemory:
		var r struct {
			Q []map[string][]struct {
				UID string `json:"uid"`
			} `json:"q"`
		}
		if err := t.query(`{ q(func: uid(`+h.UID+`)) { `+reverseAssocFields()+` } }`, nil, &r); err != nil {
			return err
		}
		for _, row := range r.Q {
			for key, peers := range row {
				pred := strings.TrimPrefix(key, "~")
				for _, p := range peers {
					t.del(map[string]any{"uid": p.UID, pred: map[string]any{"uid": h.UID}})
				}
			}
		}
		preds = append(preds, memPredicates...)
		for _, at := range domain.AssociationTypes {
			preds = append(preds, assocPred(at))
		}
	case isArtifactKind(h.Kind):
		preds = append(preds, artPredicates...)
	default:
		return domain.Errorf(domain.EFORBIDDEN, "%s is a %s and cannot be removed", h.ID, h.Kind)
	}
	preds = append(preds, refPredicates()...)
	preds = append(preds, "life.doc", "life.archivedBy")
	tomb := len(n.In) > 0
	del := map[string]any{"uid": h.UID}
	for _, p := range preds {
		if tomb && (p == "tr.kind" || p == "tr.id" || p == "tr.scope") {
			continue
		}
		del[p] = nil
	}
	t.del(del)
	if tomb {
		t.set(map[string]any{"uid": h.UID, "tr.kind": kindRemoved, "life.family": string(n.Family)})
	}
	return nil
}

// DigestReport loads a pass's report.
func (s *Store) DigestReport(ctx context.Context, id string) (*domain.DigestReport, error) {
	doc, err := s.reportDocument(ctx, id)
	if err != nil {
		return nil, err
	}
	return &doc.DigestReport, nil
}

// reportDoc reads the document of report id, unpacked as it is read.
func (s *Store) reportDoc(ctx context.Context, id string) (io.Reader, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "digest report %q not found", id)
	}
	var r struct {
		Q []struct {
			Doc string `json:"digest.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "DigestReport")) { digest.doc } }`,
		map[string]string{"$id": id}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "digest report %s not found", id)
	}
	doc, err := docReader(r.Q[0].Doc)
	if err != nil {
		return nil, fmt.Errorf("digest report %s: %w", id, err)
	}
	return doc, nil
}

// lastProposalID is the id of the report of the scope's latest propose pass, "" when none.
func (s *Store) lastProposalID(ctx context.Context, scopeID string) (string, error) {
	if !domain.ValidID(scopeID) {
		return "", domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	var r struct {
		Q []struct {
			Last string `json:"digest.lastProposal"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Scope")) { uid digest.lastProposal } }`,
		map[string]string{"$id": scopeID}, &r); err != nil {
		return "", err
	}
	if len(r.Q) == 0 {
		return "", domain.Errorf(domain.ENOTFOUND, "scope %s not found", scopeID)
	}
	return r.Q[0].Last, nil
}

// ReplayedDigest returns the report of the pass a request ran, as the report reads now (a
// replayed result of a build before pages holds its proposals, not their count); nil if the
// request was not applied.
func (s *Store) ReplayedDigest(ctx context.Context, req domain.Request) (*domain.DigestReport, error) {
	r := reqPtr(req)
	if r == nil {
		return nil, nil
	}
	var rep domain.DigestReport
	ok, err := s.replayed(ctx, r, &rep)
	if err != nil || !ok {
		return nil, err
	}
	return s.DigestReport(ctx, rep.ID)
}

// LastProposal loads the report of the scope's latest propose pass, nil when there is none.
func (s *Store) LastProposal(ctx context.Context, scopeID string) (*domain.DigestReport, error) {
	last, err := s.lastProposalID(ctx, scopeID)
	if err != nil || last == "" {
		return nil, err
	}
	rep, err := s.DigestReport(ctx, last)
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return nil, nil
	}
	return rep, err
}

// Restore puts an archived artifact back in service; its archive record stays, with RestoredAt,
// and the pass that archived it is forgotten (a later pass must archive it again to remove it).
func (s *Store) Restore(ctx context.Context, req domain.Request, id string, fn domain.NodeChange) (*domain.RefNode, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "artifact %q not found", id)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.RefNode, error) {
		nodes, heads, err := t.nodes([]string{id})
		if err != nil {
			return nil, err
		}
		n := nodes[id]
		if n == nil || n.State == domain.EndRemoved {
			return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
		}
		t.inScope(n.ScopeID)
		evs, err := fn(n)
		if err != nil {
			return nil, err
		}
		if !n.Family.Digestible() {
			return nil, domain.Errorf(domain.EFORBIDDEN, "%s is a %s: only memories, knowledge and skills are archived and restored", id, n.Family)
		}
		life := ""
		if n.Archive != nil {
			raw, err := json.Marshal(n.Archive)
			if err != nil {
				return nil, err
			}
			life = string(raw)
		}
		obj := stateJSON(heads[id], domain.StateActive, life)
		if life == "" {
			delete(obj, "life.doc")
		}
		// A restore is a use: the digest's staleness counts from it.
		if n.Archive != nil && n.Archive.RestoredAt != nil {
			at := ts(*n.Archive.RestoredAt)
			if heads[id].Kind == kindMemory {
				obj["mem.lastAccessedAt"] = at
			} else {
				obj["art.updatedAt"] = at
			}
		}
		t.set(obj)
		t.del(map[string]any{"uid": heads[id].UID, "life.archivedBy": nil})
		t.emit(evs...)
		n.State, n.ArchivedBy = domain.EndActive, ""
		return n, nil
	})
}

// DeleteArtifact removes one memory, knowledge page, skill or working state destructively.
func (s *Store) DeleteArtifact(ctx context.Context, req domain.Request, id string, fn domain.NodeChange) (*domain.RefNode, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "artifact %q not found", id)
	}
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.RefNode, error) {
		nodes, heads, err := t.nodes([]string{id})
		if err != nil {
			return nil, err
		}
		n := nodes[id]
		if n == nil || n.State == domain.EndRemoved {
			return nil, domain.Errorf(domain.ENOTFOUND, "artifact %s not found", id)
		}
		t.inScope(n.ScopeID)
		if err := t.record(heads[id], n); err != nil {
			return nil, err
		}
		evs, err := fn(n)
		if err != nil {
			return nil, err
		}
		if err := t.removeNode(heads[id], n); err != nil {
			return nil, err
		}
		t.emit(evs...)
		return n, nil
	})
}

// deleteMemory is the explicit delete of one memory (DeleteMemory): fn sees the record first.
func (s *Store) deleteMemory(ctx context.Context, req domain.Request, id string, fn domain.MemoryUpdate) (*domain.Memory, error) {
	n, err := s.DeleteArtifact(ctx, req, id, func(n *domain.RefNode) ([]*domain.Event, error) {
		if n.Memory == nil {
			return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found", id)
		}
		return fn(n.Memory)
	})
	if err != nil {
		return nil, err
	}
	return n.Memory, nil
}

// record loads the record behind a node head: a memory or an artifact.
func (t *tx) record(h *headNode, n *domain.RefNode) error {
	switch {
	case h.Kind == kindMemory:
		mn, err := t.memoryByID(h.ID)
		if err != nil {
			return err
		}
		n.Memory, err = mn.memory()
		return err
	case isArtifactKind(h.Kind):
		var r struct {
			Q []artNode `json:"q"`
		}
		if err := t.query(`{ q(func: uid(`+h.UID+`)) { `+artFields+` } }`, nil, &r); err != nil {
			return err
		}
		if len(r.Q) == 0 {
			return domain.Errorf(domain.ENOTFOUND, "artifact %s not found", h.ID)
		}
		a, err := r.Q[0].artifact()
		n.Artifact = a
		return err
	}
	return nil
}

// scopeChunk is how many nodes one write of a scope deletion removes.
const scopeChunk = 5000

var schemaPredicate = regexp.MustCompile(`(?m)^([A-Za-z0-9_.]+):`)

// schemaPredicates lists every predicate of the schema, whoever registered it.
func schemaPredicates() []string {
	out := []string{"dgraph.type"}
	for _, m := range schemaPredicate.FindAllStringSubmatch(fullSchema(), -1) {
		out = append(out, m[1])
	}
	return out
}

// DeleteScope removes every node carrying the scope, a chunk per write, and erases its events.
// The scope node goes in the first write, so nothing can be added to the scope meanwhile; the
// last write records the request and commits the deletion's events.
func (s *Store) DeleteScope(ctx context.Context, req domain.Request, scopeID string, events func(*domain.ScopeDeletion) []*domain.Event) (*domain.ScopeDeletion, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	// The deletion's own request record outlives the scope: it answers a retry with the counts.
	req.ScopeID = ""
	if r := reqPtr(req); r != nil {
		var out domain.ScopeDeletion
		if ok, err := s.replayed(ctx, r, &out); err != nil || ok {
			return &out, err
		}
	}
	total := &domain.ScopeDeletion{ScopeID: scopeID, Artifacts: map[string]int{}}
	preds := schemaPredicates()
	first := true
	for {
		var chunk *domain.ScopeDeletion
		var err error
		chunk, err = write(ctx, s, nil, func(t *tx) (*domain.ScopeDeletion, error) {
			if first {
				if err := t.scopeExists(scopeID); err != nil {
					return nil, err
				}
			}
			return t.deleteScopeChunk(scopeID, preds)
		})
		if err != nil {
			return nil, err
		}
		first = false
		total.Nodes += chunk.Nodes
		total.Events += chunk.Events
		for k, v := range chunk.Artifacts {
			total.Artifacts[k] += v
		}
		if chunk.Nodes+chunk.Events < scopeChunk {
			break
		}
	}
	// The last write: anything added meanwhile goes too; the deletion is recorded.
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.ScopeDeletion, error) {
		chunk, err := t.deleteScopeChunk(scopeID, preds)
		if err != nil {
			return nil, err
		}
		total.Nodes += chunk.Nodes
		total.Events += chunk.Events
		for k, v := range chunk.Artifacts {
			total.Artifacts[k] += v
		}
		t.emit(events(total)...)
		return total, nil
	})
}

// eventPredicates are the predicates of an event node (see eventJSON) that erasing it deletes:
// an erased event keeps ev.seq and ev.type (set to Erased), and tr.kind where it has one; an
// erased pack (see pack.go) its ev.count too, so each of its Seqs reads as an Erased event.
var eventPredicates = []string{"tr.scope", "ev.memory", "ev.requestId", "ev.messageId", "ev.body", "ev.touches", "ev.pack", "ev.memories"}

// deleteScopeChunk removes up to scopeChunk nodes carrying the scope (and up to scopeChunk
// records of requests over several scopes, this one among them). Events (the nodes with a Seq) are
// erased: they keep their Seq, with type Erased, so the log has no gap. Every other node loses every
// predicate it has — found with has(), so predicates registered by any part of the store are
// covered.
func (t *tx) deleteScopeChunk(scopeID string, preds []string) (*domain.ScopeDeletion, error) {
	// Once a chunk commits the scope may be gone: it is no longer a known scope. A later write
	// finds it only while its node is still there (every write holds the lock in turn).
	t.onCommit(func(map[string]string) { delete(t.s.knownScopes, scopeID) })
	var b strings.Builder
	fmt.Fprintf(&b, `query q($s: string) { c as var(func: eq(tr.scope, $s), first: %d)
	rq as var(func: eq(req.scopes, $s), first: %d)
	nodes(func: uid(c, rq)) { uid tr.kind kernel.family life.family ev.seq ev.count }
	ne as var(func: uid(c, rq)) @filter(NOT has(ev.seq))
	`, scopeChunk, scopeChunk)
	for i, p := range preds {
		fmt.Fprintf(&b, "p%d(func: uid(ne)) @filter(has(<%s>)) { uid }\n", i, p)
	}
	b.WriteString("}")
	var r map[string][]struct {
		UID     string `json:"uid"`
		Kind    string `json:"tr.kind"`
		KFamily string `json:"kernel.family"`
		TFamily string `json:"life.family"`
		Seq     *int64 `json:"ev.seq"`
		Count   int    `json:"ev.count"`
	}
	if err := t.query(b.String(), map[string]string{"$s": scopeID}, &r); err != nil {
		return nil, err
	}
	out := &domain.ScopeDeletion{ScopeID: scopeID, Artifacts: map[string]int{}}
	for _, n := range r["nodes"] {
		if n.Seq != nil || n.Kind == kindEvent {
			out.Events += max(1, n.Count)
			del := map[string]any{"uid": n.UID}
			for _, p := range eventPredicates {
				del[p] = nil
			}
			t.del(del)
			t.set(map[string]any{"uid": n.UID, "ev.type": string(domain.EvErased)})
			continue
		}
		out.Nodes++
		if f := familyOfKind(n.Kind, n.KFamily); f != "" {
			out.Artifacts[string(f)]++
		}
	}
	dels := map[string]map[string]any{}
	for i, p := range preds {
		for _, n := range r[fmt.Sprintf("p%d", i)] {
			d := dels[n.UID]
			if d == nil {
				d = map[string]any{"uid": n.UID}
				dels[n.UID] = d
			}
			d[p] = nil
		}
	}
	uids := make([]string, 0, len(dels))
	for uid := range dels {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		t.del(dels[uid])
	}
	return out, nil
}

// replayed decodes the recorded result of req into out, if the request was applied.
func (s *Store) replayed(ctx context.Context, req *domain.Request, out any) (bool, error) {
	var r struct {
		Q []requestNode `json:"q"`
	}
	if err := s.read(ctx, `query q($k: string) { q(func: eq(req.key, $k)) { uid req.fingerprint req.result } }`,
		map[string]string{"$k": requestKey(req)}, &r); err != nil {
		return false, err
	}
	if len(r.Q) == 0 {
		return false, nil
	}
	if r.Q[0].Fingerprint != req.Fingerprint {
		return false, domain.Errorf(domain.ECONFLICT, "requestId %q was already used for a different %s request", req.RequestID, req.Op)
	}
	if err := json.Unmarshal([]byte(r.Q[0].Result), out); err != nil {
		return false, fmt.Errorf("decode replayed result: %w", err)
	}
	return true, nil
}
