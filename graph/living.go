package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
)

// The living memory's predicates: the Salience context's checkpoint on memory nodes (packed into
// one string, mem.score: a sweep reads it for every memory and each predicate read costs), the
// last reinforcement, consolidation lineage, session nodes, log consumers' watermarks, instance
// locks and working memories.
func init() {
	schemaParts = append(schemaParts, `
mem.score: string .
mem.scopeTier: string @index(exact) .
mem.reinforcedAt: datetime @index(hour) .
mem.consolidatedInto: uid @reverse .
sess.instance: string @index(exact) .
sess.state: string @index(exact) .
sess.lastBeat: datetime @index(hour) .
sess.endedAt: datetime @index(hour) .
sess.doc: string .
sess.memories: [string] .
consumer.seq: int .
inst.version: int .
wm.doc: string .
`)
	memPredicates = append(memPredicates, "mem.score", "mem.scopeTier", "mem.reinforcedAt", "mem.consolidatedInto")
}

// Node kinds of the living memory.
const (
	kindSession       = "Session"
	kindConsumer      = "Consumer"
	kindInstance      = "Instance"
	kindWorkingMemory = "WorkingMemory"
)

var _ domain.LivingStore = (*Store)(nil)

// scoreFields are what scoring reads of a memory node.
const scoreFields = `uid tr.id tr.scope mem.tier mem.state mem.claimed mem.accessCount mem.lastAccessedAt mem.salience
mem.version mem.score`

// mem.score is "2|potential|recency|scoredAt (Unix ms)|claimed (0/1)|version|salience": the
// checkpoint and the score last written with it, so a sweep reads one predicate per memory.
func packScore(potential, recency float64, at time.Time, claimed bool, version int64, salience float64) string {
	c := 0
	if claimed {
		c = 1
	}
	return fmt.Sprintf("2|%s|%s|%d|%d|%d|%s", strconv.FormatFloat(potential, 'g', 10, 64), strconv.FormatFloat(recency, 'g', 10, 64),
		at.UnixMilli(), c, version, strconv.FormatFloat(salience, 'g', 10, 64))
}

// unpackScore fills r's checkpoint from a mem.score value and returns the score written with
// it; a value it cannot read leaves r unscored (the sweep then scores it from its features).
func unpackScore(v string, r *domain.ScoreRow) (salience float64, ok bool) {
	parts := strings.Split(v, "|")
	if len(parts) != 7 || parts[0] != "2" {
		return 0, false
	}
	p, err1 := strconv.ParseFloat(parts[1], 64)
	rec, err2 := strconv.ParseFloat(parts[2], 64)
	at, err3 := strconv.ParseInt(parts[3], 10, 64)
	ver, err4 := strconv.ParseInt(parts[5], 10, 64)
	sal, err5 := strconv.ParseFloat(parts[6], 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
		return 0, false
	}
	r.Scored, r.Potential, r.Recency, r.ScoredAt = true, p, rec, time.UnixMilli(at).UTC()
	r.ScoredClaimed, r.ScoredVersion = parts[4] == "1", ver
	return sal, true
}

// restampScore returns a mem.score value with another salience, "" if v is unreadable.
func restampScore(v string, salience float64) string {
	var r domain.ScoreRow
	if _, ok := unpackScore(v, &r); !ok {
		return ""
	}
	return packScore(r.Potential, r.Recency, r.ScoredAt, r.ScoredClaimed, r.ScoredVersion, salience)
}

type scoreNode struct {
	UID            string     `json:"uid"`
	NodeKind       string     `json:"tr.kind"`
	ID             string     `json:"tr.id"`
	Scope          string     `json:"tr.scope"`
	Tier           string     `json:"mem.tier"`
	State          string     `json:"mem.state"`
	Claimed        bool       `json:"mem.claimed"`
	AccessCount    int        `json:"mem.accessCount"`
	LastAccessedAt *time.Time `json:"mem.lastAccessedAt"`
	Salience       float64    `json:"mem.salience"`
	Version        int64      `json:"mem.version"`
	Score          string     `json:"mem.score"`
	Doc            string     `json:"mem.doc"`
}

func (n *scoreNode) row() (*domain.ScoreRow, error) {
	r := &domain.ScoreRow{Ref: n.UID, Full: true, ID: n.ID, ScopeID: n.Scope, Tier: domain.Tier(n.Tier), State: domain.LifecycleState(n.State),
		Claimed: n.Claimed, AccessCount: n.AccessCount, LastAccessedAt: utcPtr(n.LastAccessedAt), Salience: n.Salience,
		Version: n.Version}
	unpackScore(n.Score, r)
	if n.Doc != "" {
		var d memDoc
		if err := json.Unmarshal([]byte(n.Doc), &d); err != nil {
			return nil, fmt.Errorf("memory %s: bad document: %w", n.ID, err)
		}
		r.Importance, r.CreatedAt, r.ClaimedAt = d.Importance, d.CreatedAt.UTC(), utcPtr(d.ClaimedAt)
	}
	return r, nil
}

// assocFacetFields asks for every association of a node, both directions, with strengths.
func assocFacetFields(extra string) string {
	var b strings.Builder
	for _, at := range domain.AssociationTypes {
		p := assocPred(at)
		fmt.Fprintf(&b, "%s @facets(strength) { uid %s } ~%s @facets(strength) { uid %s } ", p, extra, p, extra)
	}
	return b.String()
}

// eachEdge calls fn with every association of types in a decoded node, forward before reverse
// for each type, with its strength and the far node as decoded.
func eachEdge(row map[string]any, types []domain.AssociationType, fn func(at domain.AssociationType, key string, strength float64, far map[string]any)) {
	for _, at := range types {
		p := assocPred(at)
		for _, key := range []string{p, "~" + p} {
			edges, _ := row[key].([]any)
			for _, e := range edges {
				em, _ := e.(map[string]any)
				fn(at, key, num(em[key+"|strength"]), em)
			}
		}
	}
}

// edgeStrengths returns the strengths of a decoded node's associations.
func edgeStrengths(row map[string]any) []float64 {
	var out []float64
	eachEdge(row, domain.AssociationTypes, func(_ domain.AssociationType, _ string, st float64, _ map[string]any) {
		out = append(out, st)
	})
	return out
}

// ScoreRows loads what scoring needs for the memories among ids that exist. On the embedded
// engine the read cache gives the rows of the memories whose record and associations it holds
// (every search's retrievals are scored: reading them from the engine was a tenth of the CPU
// of a server searching back to back).
func (s *Store) ScoreRows(ctx context.Context, ids []string) ([]*domain.ScoreRow, error) {
	var rows []*domain.ScoreRow
	if s.cache != nil {
		rows, ids = s.cache.scoreRows(validIDs(ids))
		if len(ids) == 0 {
			return rows, nil
		}
	}
	read, err := s.scoreRows(ctx, ids, func(chunk []string) string { return "eq(tr.id, " + idList(chunk) + ")" })
	return append(rows, read...), err
}

// ScoreRowsByRef loads what scoring needs (all of it, or the light part) for the memory nodes
// among refs that exist.
func (s *Store) ScoreRowsByRef(ctx context.Context, refs []string, full bool) ([]*domain.ScoreRow, error) {
	var valid []string
	for _, r := range refs {
		if uidRE.MatchString(r) {
			valid = append(valid, r)
		}
	}
	root := func(chunk []string) string { return "uid(" + strings.Join(chunk, ",") + ")" }
	if full {
		return s.scoreRows(ctx, valid, root)
	}
	var out []*domain.ScoreRow
	for start := 0; start < len(valid); start += 5000 {
		var r struct {
			Q []scoreNode `json:"q"`
		}
		q := `{ q(func: ` + root(valid[start:min(len(valid), start+5000)]) + `) { uid tr.kind tr.id tr.scope mem.tier mem.claimed mem.salience mem.version mem.score } }`
		if err := s.read(ctx, q, nil, &r); err != nil {
			return nil, err
		}
		for i := range r.Q {
			n := &r.Q[i]
			if n.NodeKind != kindMemory {
				continue // the kind is checked here: an eq filter would read its whole posting list
			}
			row := &domain.ScoreRow{Ref: n.UID, ID: n.ID, ScopeID: n.Scope, Tier: domain.Tier(n.Tier), Claimed: n.Claimed,
				Salience: n.Salience, Version: n.Version}
			unpackScore(n.Score, row)
			out = append(out, row)
		}
	}
	return out, nil
}

func (s *Store) scoreRows(ctx context.Context, keys []string, root func([]string) string) ([]*domain.ScoreRow, error) {
	var out []*domain.ScoreRow
	for start := 0; start < len(keys); start += 2000 {
		chunk := keys[start:min(len(keys), start+2000)]
		var r struct {
			Q []json.RawMessage `json:"q"`
		}
		q := `{ q(func: ` + root(chunk) + `) { tr.kind ` + scoreFields + ` mem.doc ` + assocFacetFields("") + ` } }`
		if err := s.read(ctx, q, nil, &r); err != nil {
			return nil, err
		}
		for _, raw := range r.Q {
			var n scoreNode
			if err := decode(raw, &n); err != nil {
				return nil, err
			}
			if n.NodeKind != kindMemory {
				continue // checked here: an eq filter would read the kind's whole posting list
			}
			var edges map[string]any
			if err := decode(raw, &edges); err != nil {
				return nil, err
			}
			row, err := n.row()
			if err != nil {
				return nil, err
			}
			for _, st := range edgeStrengths(edges) {
				row.Connectivity += st
			}
			out = append(out, row)
		}
	}
	return out, nil
}

var uidRE = regexp.MustCompile(`^0x[0-9a-f]{1,16}$`)

// SweepPage returns a page of a scope's memories in one tier, in uid order, with their stored
// scores: one lookup of the scope-and-tier key (mem.scopeTier) lists exactly the page's nodes.
func (s *Store) SweepPage(ctx context.Context, scopeID string, tier domain.Tier, cursor string, limit int) ([]*domain.ScoreRow, string, error) {
	if !domain.ValidID(scopeID) {
		return nil, "", domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	if !tier.Valid() {
		return nil, "", domain.FieldErrorf("tier", "unknown tier %q", tier)
	}
	after, err := afterCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = 50000
	}
	var r struct {
		Q []struct {
			UID   string `json:"uid"`
			Score string `json:"mem.score"`
		} `json:"q"`
	}
	q := fmt.Sprintf(`query q($st: string) { q(func: eq(mem.scopeTier, $st), first: %d%s) { uid mem.score } }`, limit, after)
	if err := s.read(ctx, q, map[string]string{"$st": scopeTier(scopeID, tier)}, &r); err != nil {
		return nil, "", err
	}
	out := make([]*domain.ScoreRow, 0, len(r.Q))
	for _, n := range r.Q {
		row := &domain.ScoreRow{Ref: n.UID, ScopeID: scopeID, Tier: tier}
		row.Salience, _ = unpackScore(n.Score, row)
		out = append(out, row)
	}
	next := ""
	if len(r.Q) == limit {
		next = r.Q[len(r.Q)-1].UID
	}
	return out, next, nil
}

// SweepListQuery is the DQL a sweep runs to list one tier of a scope with its stored scores, for
// raw baselines; $st is ScopeTier's value.
const SweepListQuery = `query q($st: string) { q(func: eq(mem.scopeTier, $st)) { uid mem.score } }`

// ScopeTier is the value of mem.scopeTier for a scope and tier.
func ScopeTier(scopeID string, t domain.Tier) string { return scopeTier(scopeID, t) }

// recorded is what an at-most-once living operation keeps for replays.
type recorded struct {
	Apply  domain.ApplyResult `json:"apply"`
	Result json.RawMessage    `json:"result,omitempty"`
}

// Apply commits ch in one write.
func (s *Store) Apply(ctx context.Context, req *domain.Request, ch *domain.Changes, result any) (domain.ApplyResult, error) {
	var rq *domain.Request
	if req != nil && req.RequestID != "" {
		rq = req
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return domain.ApplyResult{}, fmt.Errorf("encode result: %w", err)
	}
	rec, err := write(ctx, s, rq, func(t *tx) (recorded, error) {
		res, err := t.applyChanges(ch)
		return recorded{Apply: res, Result: raw}, err
	})
	return rec.Apply, err
}

// Replay decodes the recorded result of req into out.
func (s *Store) Replay(ctx context.Context, req domain.Request, out any) (bool, error) {
	if req.RequestID == "" {
		return false, nil
	}
	var r struct {
		Q []requestNode `json:"q"`
	}
	if err := s.read(ctx, `query q($k: string) { q(func: eq(req.key, $k)) { uid req.fingerprint req.result } }`,
		map[string]string{"$k": requestKey(&req)}, &r); err != nil {
		return false, err
	}
	if len(r.Q) == 0 {
		return false, nil
	}
	if r.Q[0].Fingerprint != req.Fingerprint {
		return false, domain.Errorf(domain.ECONFLICT, "requestId %q was already used for a different %s request", req.RequestID, req.Op)
	}
	var rec recorded
	if err := json.Unmarshal([]byte(r.Q[0].Result), &rec); err != nil {
		return false, fmt.Errorf("decode replayed result: %w", err)
	}
	if out != nil && len(rec.Result) > 0 {
		if err := json.Unmarshal(rec.Result, out); err != nil {
			return false, fmt.Errorf("decode replayed result: %w", err)
		}
	}
	return true, nil
}

var consumerRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

func consumerKey(name string) string { return "consumer:" + name }

// ConsumerWatermark is the Seq a log consumer has committed up to.
func (s *Store) ConsumerWatermark(ctx context.Context, consumer string) (uint64, bool, error) {
	if !consumerRE.MatchString(consumer) {
		return 0, false, domain.FieldErrorf("consumer", "is not a consumer name")
	}
	var r struct {
		Q []struct {
			Seq uint64 `json:"consumer.seq"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) { consumer.seq } }`,
		map[string]string{"$id": consumerKey(consumer)}, &r); err != nil {
		return 0, false, err
	}
	if len(r.Q) == 0 {
		return 0, false, nil
	}
	return r.Q[0].Seq, true, nil
}

// Consume commits one consumer batch exactly once.
func (s *Store) Consume(ctx context.Context, consumer string, upTo uint64, fn func(watermark uint64) (*domain.Changes, error)) (domain.ApplyResult, error) {
	if !consumerRE.MatchString(consumer) {
		return domain.ApplyResult{}, domain.FieldErrorf("consumer", "is not a consumer name")
	}
	return write(ctx, s, nil, func(t *tx) (domain.ApplyResult, error) {
		var r struct {
			Q []struct {
				UID string `json:"uid"`
				Seq uint64 `json:"consumer.seq"`
			} `json:"q"`
		}
		if err := t.query(`query q($id: string) { q(func: eq(tr.id, $id)) { uid consumer.seq } }`,
			map[string]string{"$id": consumerKey(consumer)}, &r); err != nil {
			return domain.ApplyResult{}, err
		}
		var w uint64
		uid := "_:consumer"
		if len(r.Q) > 0 {
			w, uid = r.Q[0].Seq, r.Q[0].UID
		}
		ch, err := fn(w)
		if err != nil {
			return domain.ApplyResult{}, err
		}
		res, err := t.applyChanges(ch)
		if err != nil {
			return res, err
		}
		// A consumer's first commit records its watermark even at 0: a restart then resumes
		// from it rather than taking the consumer for new.
		if upTo > w || uid == "_:consumer" {
			obj := map[string]any{"uid": uid, "consumer.seq": max(upTo, w)}
			if uid == "_:consumer" {
				obj["dgraph.type"], obj["tr.kind"], obj["tr.id"] = kindConsumer, kindConsumer, consumerKey(consumer)
			}
			t.set(obj)
		}
		return res, nil
	})
}

// memRef is a memory node as applyChanges sees it.
type memRef struct {
	UID     string     `json:"uid"`
	Kind    string     `json:"tr.kind"`
	ID      string     `json:"tr.id"`
	Scope   string     `json:"tr.scope"`
	Version int64      `json:"mem.version"`
	Claimed bool       `json:"mem.claimed"`
	Count   int        `json:"mem.accessCount"`
	Last    *time.Time `json:"mem.lastAccessedAt"`
	Score   string     `json:"mem.score"`
}

const memRefFields = `uid tr.id tr.scope mem.version mem.claimed mem.accessCount mem.lastAccessedAt mem.score`

// checkScore refuses a score outside 0..1 or a partial or out-of-range checkpoint, and reports
// whether u carries a checkpoint.
func checkScore(u domain.ScoreUpdate) (checkpoint bool, err error) {
	if !(u.Salience >= 0 && u.Salience <= 1) {
		return false, domain.FieldErrorf("salience", "must be within 0..1")
	}
	checkpoint = u.Potential != nil || u.Recency != nil || u.ScoredAt != nil
	if checkpoint && (u.Potential == nil || u.Recency == nil || u.ScoredAt == nil ||
		!(*u.Potential >= 0 && *u.Potential <= 1) || !(*u.Recency >= 0 && *u.Recency <= 1)) {
		return false, domain.FieldErrorf("checkpoint", "give potential and recency within 0..1 and the time, or none")
	}
	return checkpoint, nil
}

// light reports whether a score update only rewrites the stored score of a node known by ref: a
// sweep's refresh, for which the write only checks that the memory still exists.
func light(u domain.ScoreUpdate) bool {
	return u.Ref != "" && u.Potential == nil && u.Recency == nil && u.ScoredAt == nil && u.ReinforcedAt == nil &&
		u.Tier == "" && u.ExpectVersion == 0 && len(u.Events) == 0
}

// applyChanges turns ch into the unit's mutations. Memories are read inside the unit: updates of
// deleted memories (or of memories past their expected version) are skipped with their events.
func (t *tx) applyChanges(ch *domain.Changes) (domain.ApplyResult, error) {
	var res domain.ApplyResult
	if ch.Empty() {
		return res, nil
	}
	// The memories the changes touch: by id, or by ref (a node reference read before).
	var ids, refs, lightRefs []string
	seen := map[string]bool{}
	add := func(id string) {
		if domain.ValidID(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, u := range ch.Scores {
		switch {
		case u.Ref == "":
			add(u.MemoryID)
		case !uidRE.MatchString(u.Ref):
			return res, domain.FieldErrorf("ref", "is not a reference of this store")
		case light(u):
			lightRefs = append(lightRefs, u.Ref)
		default:
			refs = append(refs, u.Ref)
		}
	}
	for _, a := range ch.Accesses {
		add(a.MemoryID)
	}
	for _, e := range ch.Events {
		if e.Type == domain.EvMemoryAccessed {
			add(e.MemoryID)
		}
	}
	for _, a := range ch.Associations {
		add(a.SourceID)
		add(a.TargetID)
	}
	mems := map[string]*memRef{}  // by id
	byRef := map[string]*memRef{} // by uid
	read := func(root string, fields string) error {
		var r struct {
			Q []memRef `json:"q"`
		}
		// The kind is checked here: an eq filter would read the kind's whole posting list.
		if err := t.query(`{ q(func: `+root+`) { tr.kind `+fields+` } }`, nil, &r); err != nil {
			return err
		}
		for i := range r.Q {
			n := &r.Q[i]
			if n.Kind != kindMemory {
				continue
			}
			if n.ID != "" {
				mems[n.ID] = n
			}
			byRef[n.UID] = n
		}
		return nil
	}
	for start := 0; start < len(ids); start += 5000 {
		if err := read("eq(tr.id, "+idList(ids[start:min(len(ids), start+5000)])+")", memRefFields); err != nil {
			return res, err
		}
	}
	for start := 0; start < len(refs); start += 5000 {
		if err := read("uid("+strings.Join(refs[start:min(len(refs), start+5000)], ",")+")", memRefFields); err != nil {
			return res, err
		}
	}
	for start := 0; start < len(lightRefs); start += 10000 {
		if err := read("uid("+strings.Join(lightRefs[start:min(len(lightRefs), start+10000)], ",")+")", "uid mem.score"); err != nil {
			return res, err
		}
	}
	// One object per node: several changes of one memory merge into it.
	objs := map[string]map[string]any{}
	var order []string
	obj := func(uid string) map[string]any {
		o, ok := objs[uid]
		if !ok {
			o = map[string]any{"uid": uid}
			objs[uid] = o
			order = append(order, uid)
		}
		return o
	}
	// Retrievals first: a score planned with them (Scorer.PlanAccesses) checkpoints the version
	// they leave.
	counts, last := domain.TallyAccesses(ch.Accesses)
	for id, c := range counts {
		n := mems[id]
		if n == nil {
			continue
		}
		at := last[id]
		if n.Last != nil && n.Last.After(at) {
			at = *n.Last
		}
		n.Version++
		o := obj(n.UID)
		o["mem.accessCount"], o["mem.lastAccessedAt"], o["mem.version"] = n.Count+c, ts(at), n.Version
	}
	// The scores' events follow the changes' own: a score may be caused by one of those.
	var scored []*domain.Event
	for _, u := range ch.Scores {
		n := mems[u.MemoryID]
		if u.Ref != "" {
			n = byRef[u.Ref]
		}
		if n == nil || (u.ExpectVersion > 0 && n.Version != u.ExpectVersion) {
			res.Skipped++
			continue
		}
		checkpoint, err := checkScore(u)
		if err != nil {
			return res, err
		}
		o := obj(n.UID)
		o["mem.salience"] = u.Salience
		if u.ReinforcedAt != nil {
			o["mem.reinforcedAt"] = ts(*u.ReinforcedAt)
		}
		if u.Tier != "" {
			if !u.Tier.Valid() {
				return res, domain.FieldErrorf("tier", "unknown tier %q", u.Tier)
			}
			n.Version++
			o["mem.tier"], o["mem.version"] = string(u.Tier), n.Version
			o["mem.scopeTier"] = scopeTier(n.Scope, u.Tier)
			res.Moved++
		}
		if checkpoint {
			o["mem.score"] = packScore(*u.Potential, *u.Recency, *u.ScoredAt, n.Claimed, n.Version, u.Salience)
		} else if v := restampScore(n.Score, u.Salience); v != "" {
			o["mem.score"] = v
		}
		res.Applied++
		scored = append(scored, u.Events...)
	}
	for _, a := range ch.Associations {
		src, dst := mems[a.SourceID], mems[a.TargetID]
		if src == nil || dst == nil || a.SourceID == a.TargetID {
			continue
		}
		if src.Scope != dst.Scope {
			return res, domain.Errorf(domain.ECROSSSCOPE, "memory %s and memory %s belong to different scopes", a.SourceID, a.TargetID)
		}
		if !a.Type.Valid() || !(a.Strength > 0 && a.Strength <= 1) {
			return res, domain.FieldErrorf("associations", "an association needs a known type and a strength in (0, 1]")
		}
		lo, hi := src, dst
		if hi.ID < lo.ID {
			lo, hi = hi, lo
		}
		p := assocPred(a.Type)
		t.set(map[string]any{"uid": lo.UID, p: map[string]any{"uid": hi.UID, p + "|strength": a.Strength,
			p + "|cost": 1 - a.Strength, p + "|updatedAt": ts(a.UpdatedAt)}})
	}
	if err := t.applyGrowth(ch.Growth); err != nil {
		return res, err
	}
	if err := t.applySessions(ch, obj); err != nil {
		return res, err
	}
	if err := t.applyWorkingMemory(ch.WorkingMemory); err != nil {
		return res, err
	}
	if err := t.applyPending(ch.Pending); err != nil {
		return res, err
	}
	for _, uid := range order {
		t.set(objs[uid])
	}
	for _, e := range ch.Events {
		// A retrieval recorded after the memory was deleted is no event of its history.
		if e.Type == domain.EvMemoryAccessed && mems[e.MemoryID] == nil {
			continue
		}
		t.emit(e)
	}
	t.emit(scored...)
	return res, nil
}
