package graph

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/totalrecall/totalrecall/domain"
)

var (
	_ domain.IngestStore         = (*Store)(nil)
	_ domain.EpisodeStore        = (*Store)(nil)
	_ domain.FacetStore          = (*Store)(nil)
	_ domain.AgentStore          = (*Store)(nil)
	_ domain.RecallContextReader = (*Store)(nil)
	_ domain.VectorStore         = (*Store)(nil)
)

// nodeRef is what an ingest write reads about a node it refers to.
type nodeRef struct {
	UID   string `json:"uid"`
	ID    string `json:"tr.id"`
	Scope string `json:"tr.scope"`
	Kind  string `json:"tr.kind"`
}

// ExistingIDs reports which of ids name a node of any kind.
func (s *Store) ExistingIDs(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for start := 0; start < len(ids); start += 5000 {
		part := ids[start:min(len(ids), start+5000)]
		var r struct {
			Q []nodeRef `json:"q"`
		}
		if err := s.read(ctx, `{ q(func: eq(tr.id, `+idList(part)+`)) { tr.id } }`, nil, &r); err != nil {
			return nil, err
		}
		for _, n := range r.Q {
			out[n.ID] = true
		}
	}
	return out, nil
}

// checkBatch validates what the store itself must: ids are UUIDs and every record names the
// batch's scope.
func checkBatch(scopeID string, b *domain.IngestBatch) error {
	if !domain.ValidID(scopeID) {
		return domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	check := func(what, id, scope string) error {
		if !domain.ValidID(id) {
			return domain.Errorf(domain.EINVALID, "%s id %q is not a UUID", what, id)
		}
		if scope != scopeID {
			return domain.Errorf(domain.ECROSSSCOPE, "%s %s belongs to scope %s, not %s", what, id, scope, scopeID)
		}
		return nil
	}
	for _, x := range b.Threads {
		if err := check("thread", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, e := range b.Events {
		if e.Memory == nil {
			return domain.Errorf(domain.EINVALID, "ledger event without a memory")
		}
		if err := check("memory", e.Memory.ID, e.Memory.ScopeID); err != nil {
			return err
		}
		if e.ThreadID != "" && !domain.ValidID(e.ThreadID) {
			return domain.Errorf(domain.EINVALID, "thread id %q is not a UUID", e.ThreadID)
		}
	}
	for _, a := range b.Associations {
		if !a.Type.Valid() {
			return domain.FieldErrorf("type", "unknown association type %q", a.Type)
		}
		if !domain.ValidID(a.SourceID) || !domain.ValidID(a.TargetID) || a.SourceID == a.TargetID {
			return domain.Errorf(domain.EINVALID, "association %s–%s: two distinct memory ids", a.SourceID, a.TargetID)
		}
		if !(a.Strength > 0 && a.Strength <= 1) {
			return domain.FieldErrorf("strength", "must be within (0, 1]")
		}
	}
	for _, x := range b.Definitions {
		if err := check("episode definition", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Episodes {
		if err := check("episode", x.ID, x.ScopeID); err != nil {
			return err
		}
		if len(x.Items) > domain.MaxEpisodeItems {
			return domain.Errorf(domain.EINVALID, "episode %s has more than %d items", x.ID, domain.MaxEpisodeItems)
		}
	}
	for _, x := range b.AnalysisTypes {
		if err := check("analysis type", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Runs {
		if err := check("analysis run", x.ID, x.ScopeID); err != nil {
			return err
		}
		if !domain.ValidID(x.EpisodeID) || !domain.ValidID(x.TypeID) {
			return domain.Errorf(domain.EINVALID, "analysis run %s: episode and type ids must be UUIDs", x.ID)
		}
	}
	for _, x := range b.Facets {
		if err := check("facet", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Sessions {
		if err := check("agent session", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Messages {
		if err := check("agent message", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Turns {
		if err := check("agent turn", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.ToolCalls {
		if err := check("agent tool call", x.ID, x.ScopeID); err != nil {
			return err
		}
	}
	for _, x := range b.Embeddings {
		if err := check("embedding", x.MemoryID, x.ScopeID); err != nil {
			return err
		}
		if len(x.Vector) == 0 {
			return domain.Errorf(domain.EINVALID, "embedding of %s has no vector", x.MemoryID)
		}
	}
	return nil
}

// referencedIDs lists every id the batch writes or refers to.
func referencedIDs(scopeID string, b *domain.IngestBatch) []string {
	seen := map[string]bool{scopeID: true}
	out := []string{scopeID}
	add := func(id string) {
		if id != "" && !seen[id] && domain.ValidID(id) {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, x := range b.Threads {
		add(x.ID)
	}
	for _, e := range b.Events {
		add(e.Memory.ID)
	}
	for _, a := range b.Associations {
		add(a.SourceID)
		add(a.TargetID)
	}
	for _, x := range b.Definitions {
		add(x.ID)
	}
	for _, x := range b.Episodes {
		add(x.ID)
		for _, it := range x.Items {
			add(it)
		}
	}
	for _, id := range b.RemoveEpisodes {
		add(id)
	}
	for _, x := range b.AnalysisTypes {
		add(x.ID)
	}
	for _, x := range b.Runs {
		add(x.ID)
	}
	for _, x := range b.Facets {
		add(x.ID)
	}
	for _, x := range b.Sessions {
		add(x.ID)
	}
	for _, x := range b.Messages {
		add(x.ID)
	}
	for _, x := range b.Turns {
		add(x.ID)
	}
	for _, x := range b.ToolCalls {
		add(x.ID)
	}
	for _, x := range b.Embeddings {
		add(x.MemoryID)
	}
	return out
}

func docJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", domain.Errorf(domain.EINVALID, "record is not JSON-encodable: %v", err)
	}
	return string(raw), nil
}

// Ingest commits an ingest batch in one atomic write.
func (s *Store) Ingest(ctx context.Context, req domain.Request, scopeID string, b *domain.IngestBatch, fn domain.IngestEvents) (*domain.IngestWritten, error) {
	if err := checkBatch(scopeID, b); err != nil {
		return nil, err
	}
	ids := referencedIDs(scopeID, b)
	return write(ctx, s, reqPtr(req), func(t *tx) (*domain.IngestWritten, error) {
		nodes := make(map[string]nodeRef, len(ids))
		for start := 0; start < len(ids); start += 5000 {
			var r struct {
				Q []nodeRef `json:"q"`
			}
			if err := t.query(`{ q(func: eq(tr.id, `+idList(ids[start:min(len(ids), start+5000)])+`)) { uid tr.id tr.scope tr.kind } }`, nil, &r); err != nil {
				return nil, err
			}
			for _, n := range r.Q {
				if n.Kind == kindEvent || n.Kind == kindRequest || n.Kind == kindCounter {
					continue // not a record: an id collision with a message is impossible for UUIDs
				}
				nodes[n.ID] = n
			}
		}
		if sc, ok := nodes[scopeID]; !ok || sc.Kind != kindScope {
			return nil, domain.Errorf(domain.ENOTFOUND, "scope %s not found", scopeID)
		}
		for id, n := range nodes {
			if id != scopeID && n.Scope != scopeID {
				return nil, domain.Errorf(domain.ECROSSSCOPE, "%s %s belongs to another scope", strings.ToLower(n.Kind), id)
			}
		}
		t.inScope(scopeID)
		w := &ingestWrite{t: t, nodes: nodes, scope: scopeID, blank: map[string]string{}, kinds: map[string]string{}}
		out, err := w.apply(b)
		if err != nil {
			return nil, err
		}
		if fn != nil {
			evs, err := fn(out)
			if err != nil {
				return nil, err
			}
			t.emit(evs...)
		}
		return out, nil
	})
}

// ingestWrite collects the mutations of one Ingest.
type ingestWrite struct {
	t     *tx
	nodes map[string]nodeRef // existing nodes by id
	scope string             //
	blank map[string]string  // new nodes by id → blank node name
	kinds map[string]string  // kind of new nodes by id
	n     int                //
}

// ref returns the uid of id (existing or new in this write), or "" when it is unknown.
func (w *ingestWrite) ref(id string) (string, string) {
	if n, ok := w.nodes[id]; ok {
		return n.UID, n.Kind
	}
	if b, ok := w.blank[id]; ok {
		return b, w.kinds[id]
	}
	return "", ""
}

// node returns the uid to write record id of kind at, creating a blank node for a new record;
// isNew tells whether the record's identity predicates must be written.
func (w *ingestWrite) node(id, kind string) (uid string, isNew bool, err error) {
	if n, ok := w.nodes[id]; ok {
		if n.Kind != kind {
			return "", false, domain.Errorf(domain.ECONFLICT, "id %s names a %s, not a %s", id, n.Kind, kind)
		}
		return n.UID, false, nil
	}
	if b, ok := w.blank[id]; ok {
		if w.kinds[id] != kind {
			return "", false, domain.Errorf(domain.ECONFLICT, "id %s appears as %s and %s", id, w.kinds[id], kind)
		}
		return b, false, nil
	}
	w.n++
	b := "_:i" + strconv.Itoa(w.n)
	w.blank[id], w.kinds[id] = b, kind
	return b, true, nil
}

func (w *ingestWrite) identity(obj map[string]any, id, kind string) map[string]any {
	obj["tr.kind"], obj["tr.id"], obj["tr.scope"] = kind, id, w.scope
	return obj
}

func (w *ingestWrite) apply(b *domain.IngestBatch) (*domain.IngestWritten, error) {
	out := &domain.IngestWritten{}
	newMem := map[string]bool{}
	for _, e := range b.Events {
		m := e.Memory
		if _, ok := w.nodes[m.ID]; ok {
			out.Skipped++
			continue
		}
		if _, dup := w.blank[m.ID]; dup {
			out.Skipped++
			continue
		}
		uid, _, err := w.node(m.ID, kindMemory)
		if err != nil {
			return nil, err
		}
		u, scored := b.Scores[m.ID]
		scored = scored && u.Potential != nil && u.Recency != nil && u.ScoredAt != nil
		if scored {
			// The memory is written, and returned, with the score of its checkpoint.
			m.Salience = u.Salience
		}
		obj, err := memoryJSON(uid, m, true)
		if err != nil {
			return nil, err
		}
		if scored {
			obj["mem.score"] = packScore(*u.Potential, *u.Recency, *u.ScoredAt, m.Claimed, m.Version, u.Salience)
		}
		if e.ThreadID != "" {
			obj["ing.thread"] = e.ThreadID
		}
		w.t.set(obj)
		newMem[m.ID] = true
		out.NewEvents = append(out.NewEvents, e)
	}
	for _, th := range b.Threads {
		uid, isNew, err := w.node(th.ID, kindThread)
		if err != nil {
			return nil, err
		}
		doc, err := docJSON(th)
		if err != nil {
			return nil, err
		}
		obj := map[string]any{"uid": uid, "th.doc": doc}
		if isNew {
			w.identity(obj, th.ID, kindThread)
		}
		w.t.set(obj)
	}
	for _, a := range b.Associations {
		if !newMem[a.SourceID] && !newMem[a.TargetID] {
			continue // both ends were written before, and their association with them
		}
		su, sk := w.ref(a.SourceID)
		tu, tk := w.ref(a.TargetID)
		if su == "" || tu == "" {
			return nil, domain.Errorf(domain.ENOTFOUND, "association %s–%s: memory not found", a.SourceID, a.TargetID)
		}
		if sk != kindMemory || tk != kindMemory {
			return nil, domain.Errorf(domain.EINVALID, "associations join memories")
		}
		lo, hi := su, tu
		if a.TargetID < a.SourceID {
			lo, hi = tu, su
		}
		pred := assocPred(a.Type)
		w.t.set(map[string]any{"uid": lo, pred: map[string]any{
			"uid": hi, pred + "|strength": a.Strength, pred + "|cost": 1 - a.Strength, pred + "|updatedAt": ts(a.UpdatedAt)}})
		out.NewAssociations = append(out.NewAssociations, a)
	}
	for _, d := range b.Definitions {
		uid, isNew, err := w.node(d.ID, kindEpisodeDef)
		if err != nil {
			return nil, err
		}
		doc, err := docJSON(d)
		if err != nil {
			return nil, err
		}
		obj := map[string]any{"uid": uid, "epd.doc": doc}
		if isNew {
			w.identity(obj, d.ID, kindEpisodeDef)
			obj["epd.name"] = d.Name
		}
		w.t.set(obj)
	}
	for _, x := range b.AnalysisTypes {
		uid, isNew, err := w.node(x.ID, kindAnalysisType)
		if err != nil {
			return nil, err
		}
		doc, err := docJSON(x)
		if err != nil {
			return nil, err
		}
		obj := map[string]any{"uid": uid, "at.doc": doc}
		if isNew {
			w.identity(obj, x.ID, kindAnalysisType)
			obj["at.name"] = x.Name
		}
		w.t.set(obj)
	}
	if err := w.episodes(b.Episodes); err != nil {
		return nil, err
	}
	if err := w.removeEpisodes(b.RemoveEpisodes); err != nil {
		return nil, err
	}
	for _, x := range b.Runs {
		uid, isNew, err := w.node(x.ID, kindAnalysisRun)
		if err != nil {
			return nil, err
		}
		doc, err := docJSON(x)
		if err != nil {
			return nil, err
		}
		obj := map[string]any{"uid": uid, "ar.status": string(x.Status), "ar.doc": doc}
		if isNew {
			w.identity(obj, x.ID, kindAnalysisRun)
			obj["ar.type"], obj["ar.episode"] = x.TypeID, x.EpisodeID
		}
		w.t.set(obj)
	}
	if err := w.facets(b.Runs, b.Facets); err != nil {
		return nil, err
	}
	if err := w.agents(b); err != nil {
		return nil, err
	}
	for _, e := range b.Embeddings {
		uid, kind := w.ref(e.MemoryID)
		if uid == "" || kind != kindMemory {
			return nil, domain.Errorf(domain.ENOTFOUND, "memory %s not found for its embedding", e.MemoryID)
		}
		w.t.set(map[string]any{"uid": uid, "emb.vector": vectorLiteral(e.Vector)})
	}
	return out, nil
}

func vectorLiteral(v []float32) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	sb.WriteByte(']')
	return sb.String()
}

// episodeDoc is the part of an episode kept in ep.doc.
type episodeDoc struct {
	Channel    string    `json:"channel,omitempty"`
	EndTime    time.Time `json:"endTime"`
	EventCount int       `json:"eventCount"`
	First      string    `json:"first,omitempty"`
	Last       string    `json:"last,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
}

func (w *ingestWrite) episodes(eps []*domain.Episode) error {
	if len(eps) == 0 {
		return nil
	}
	// Items of episodes that exist already: the ones no longer grouped are unlinked.
	var existing []string
	for _, e := range eps {
		if n, ok := w.nodes[e.ID]; ok {
			existing = append(existing, n.UID)
		}
	}
	old := map[string]map[string]bool{} // episode uid → item uids
	if len(existing) > 0 {
		var r struct {
			Q []struct {
				UID   string `json:"uid"`
				Items []struct {
					UID string `json:"uid"`
				} `json:"ep.items"`
			} `json:"q"`
		}
		if err := w.t.query(`{ q(func: uid(`+strings.Join(existing, ",")+`)) { uid ep.items { uid } } }`, nil, &r); err != nil {
			return err
		}
		for _, n := range r.Q {
			m := map[string]bool{}
			for _, it := range n.Items {
				m[it.UID] = true
			}
			old[n.UID] = m
		}
	}
	for _, e := range eps {
		uid, isNew, err := w.node(e.ID, kindEpisode)
		if err != nil {
			return err
		}
		doc, err := docJSON(episodeDoc{Channel: e.Channel, EndTime: e.EndTime.UTC(), EventCount: e.EventCount,
			First: e.FirstEventID, Last: e.LastEventID, CreatedAt: e.CreatedAt.UTC()})
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "ep.start": ts(e.StartTime), "ep.doc": doc}
		if isNew {
			w.identity(obj, e.ID, kindEpisode)
			obj["ep.def"] = e.DefinitionID
			if e.ThreadID != "" {
				obj["ep.thread"] = e.ThreadID
			}
		}
		items := make([]map[string]any, 0, len(e.Items))
		keep := map[string]bool{}
		for pos, id := range e.Items {
			iu, kind := w.ref(id)
			if iu == "" {
				return domain.Errorf(domain.ENOTFOUND, "episode %s: item %s not found", e.ID, id)
			}
			if kind != kindMemory && kind != kindAgentMessage {
				return domain.Errorf(domain.EINVALID, "episode %s: item %s is a %s, not an event or agent message", e.ID, id, kind)
			}
			keep[iu] = true
			items = append(items, map[string]any{"uid": iu, "ep.items|pos": pos})
		}
		if len(items) > 0 {
			obj["ep.items"] = items
		}
		w.t.set(obj)
		for iu := range old[uid] {
			if !keep[iu] {
				w.t.del(map[string]any{"uid": uid, "ep.items": map[string]any{"uid": iu}})
			}
		}
	}
	return nil
}

var episodePredicates = []string{"tr.kind", "tr.id", "tr.scope", "ep.def", "ep.thread", "ep.start", "ep.doc", "ep.items"}

var runPredicates = []string{"tr.kind", "tr.id", "tr.scope", "ar.type", "ar.episode", "ar.status", "ar.doc"}

// removeEpisodes deletes episodes with their analysis runs and facets.
func (w *ingestWrite) removeEpisodes(ids []string) error {
	var gone []string
	for _, id := range ids {
		n, ok := w.nodes[id]
		if !ok {
			continue // already gone
		}
		if n.Kind != kindEpisode {
			return domain.Errorf(domain.EINVALID, "%s is a %s, not an episode", id, n.Kind)
		}
		if _, rewritten := w.blank[id]; rewritten {
			continue
		}
		gone = append(gone, id)
		w.t.del(delAll(n.UID, episodePredicates))
	}
	if len(gone) == 0 {
		return nil
	}
	var r struct {
		Runs   []nodeRef `json:"runs"`
		Facets []nodeRef `json:"facets"`
	}
	list := idList(gone)
	if err := w.t.query(`{ runs(func: eq(ar.episode, `+list+`)) @filter(eq(tr.kind, "AnalysisRun")) { uid }
		facets(func: eq(fc.episode, `+list+`)) @filter(eq(tr.kind, "Facet")) { uid } }`, nil, &r); err != nil {
		return err
	}
	for _, n := range r.Runs {
		w.t.del(delAll(n.UID, runPredicates))
	}
	for _, n := range r.Facets {
		w.t.del(delAll(n.UID, facetPredicates))
	}
	return nil
}

func delAll(uid string, preds []string) map[string]any {
	del := map[string]any{"uid": uid}
	for _, p := range preds {
		del[p] = nil
	}
	return del
}

// facetDoc is the part of a facet kept in fc.doc.
type facetDoc struct {
	PersonID  string         `json:"personId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
}

func (w *ingestWrite) facets(runs []*domain.AnalysisRun, facets []*domain.Facet) error {
	runIDs := map[string]bool{}
	for _, r := range runs {
		runIDs[r.ID] = true
	}
	for _, f := range facets {
		if !runIDs[f.RunID] {
			if _, ok := w.nodes[f.RunID]; !ok {
				return domain.Errorf(domain.ENOTFOUND, "facet %s: analysis run %s not found", f.ID, f.RunID)
			}
			runIDs[f.RunID] = true
		}
	}
	// The facets the runs had: those not written again are removed.
	stale := map[string]string{} // facet id → uid
	if len(runIDs) > 0 {
		list := make([]string, 0, len(runIDs))
		for id := range runIDs {
			list = append(list, id)
		}
		sort.Strings(list)
		var r struct {
			Q []nodeRef `json:"q"`
		}
		if err := w.t.query(`{ q(func: eq(fc.run, `+idList(list)+`)) @filter(eq(tr.kind, "Facet") AND eq(tr.scope, "`+w.scope+`")) { uid tr.id } }`, nil, &r); err != nil {
			return err
		}
		for _, n := range r.Q {
			stale[n.ID] = n.UID
			n.Kind, n.Scope = kindFacet, w.scope
			w.nodes[n.ID] = n
		}
	}
	for _, f := range facets {
		delete(stale, f.ID)
		value := f.Value
		if len(value) > domain.MaxFacetValue {
			cut := domain.MaxFacetValue
			for cut > 0 && !utf8.RuneStart(value[cut]) {
				cut--
			}
			value = value[:cut]
		}
		uid, isNew, err := w.node(f.ID, kindFacet)
		if err != nil {
			return err
		}
		doc, err := docJSON(facetDoc{PersonID: f.PersonID, Metadata: f.Metadata, CreatedAt: f.CreatedAt.UTC()})
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "fc.type": f.Type, "fc.value": value, "fc.confidence": f.Confidence, "fc.doc": doc}
		if isNew {
			w.identity(obj, f.ID, kindFacet)
			obj["fc.run"], obj["fc.episode"] = f.RunID, f.EpisodeID
			if f.MemoryID != "" {
				obj["fc.memory"] = f.MemoryID
			}
		}
		w.t.set(obj)
	}
	for _, uid := range stale {
		w.t.del(delAll(uid, facetPredicates))
	}
	return nil
}

func (w *ingestWrite) agents(b *domain.IngestBatch) error {
	put := func(id, kind, session, parent string, seq int, v any) error {
		uid, isNew, err := w.node(id, kind)
		if err != nil {
			return err
		}
		doc, err := docJSON(v)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": uid, "ag.doc": doc}
		if isNew {
			w.identity(obj, id, kind)
			if session != "" {
				obj["ag.session"] = session
			}
			if parent != "" {
				obj["ag.parent"] = parent
			}
			if seq != 0 {
				obj["ag.seq"] = seq
			}
		}
		w.t.set(obj)
		return nil
	}
	for _, x := range b.Sessions {
		if err := put(x.ID, kindAgentSession, "", x.ParentSessionID, 0, x); err != nil {
			return err
		}
	}
	for _, x := range b.Messages {
		if err := put(x.ID, kindAgentMessage, x.SessionID, "", x.Sequence, x); err != nil {
			return err
		}
	}
	for _, x := range b.Turns {
		if err := put(x.ID, kindAgentTurn, x.SessionID, "", x.Sequence, x); err != nil {
			return err
		}
	}
	for _, x := range b.ToolCalls {
		if err := put(x.ID, kindAgentToolCall, x.SessionID, x.MessageID, x.ToolNumber, x); err != nil {
			return err
		}
	}
	return nil
}
