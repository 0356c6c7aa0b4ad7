package cortex

import (
	"context"
	"errors"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/analysis"
	"github.com/totalrecall/totalrecall/domain/synapse"
)

// The Synapse's consumer (MSG-0001, MSG-0003): it connects every memory storeMemory stores — a
// TEMPORAL association to the memory stored before it in its session, PERSON and THEMATIC ones to
// the memories of its scope it resembles (synapse.Params.Connect) — grows the episode of its
// session (or, without one, of its scope's time gap) and the person facets of that episode, and
// strengthens a claimed memory's associations. Like the other living consumers it commits each
// batch with its watermark (LivingStore.Consume): exactly once across servers, resumed after a
// restart. Docs: docs/synapse.md.
const consumerSynapse = "synapse"

// Names of the episode definitions the Synapse forms episodes by.
const (
	SynapseSessionDefinition = "synapse_session"
	SynapseTimeGapDefinition = "synapse_time_gap"
)

// synapseSimilarWords is how many of a new memory's rarest words the index is asked for its
// resemblances: the words found in few memories say what it is about; the frequent ones cost the
// most to search and say the least.
const synapseSimilarWords = 8

// synapseGather is how long the Synapse waits for more stored memories before it connects what
// arrived: each batch costs reads and a write whatever its size, and the index writes what is
// queued about as often (search.DefaultLinger), so under a stream of single stores it connects
// them by the dozen, about a second after they were stored.
const synapseGather = time.Second

// synapseIndexWait bounds how long a batch waits for the search index to apply its events (on a
// server other than the one that stored them, the index follows the log).
const synapseIndexWait = 5 * time.Second

// errReplan: another server moved the watermark since the batch was planned.
var errReplan = errors.New("synapse: the watermark moved; plan again")

func synapseTodo(e *domain.Event) bool {
	return e.Type == domain.EvMemoryStored || e.Type == domain.EvMemoryClaimed
}

// SynapseParams returns the Synapse's rules in force.
func (c *Cortex) SynapseParams() synapse.Params {
	if c.living == nil {
		return synapse.DefaultParams()
	}
	return c.living.synapse
}

// SynapsePosition returns the Seq up to which the Synapse consumer has handled the log.
func (c *Cortex) SynapsePosition() uint64 {
	if c.living == nil || c.living.pos[consumerSynapse] == nil {
		return c.log.Head()
	}
	return c.living.pos[consumerSynapse].handled.Load()
}

// SetSynapseOff turns the Synapse off (true) or on again. While it is off the Synapse passes by
// what is stored and claimed: those memories stay unconnected for good. It is there to measure
// the store path without the Synapse beside it (`totalrecall bench`).
func (c *Cortex) SetSynapseOff(off bool) {
	if c.living != nil {
		c.living.synapseOff.Store(off)
	}
}

// synapseChunk is the most memories the Synapse connects in one write. Its writes hold the
// store's write lock like every other: a write of hundreds of memories would keep the minds'
// stores waiting for it, a write of a few dozen lets them in between.
const synapseChunk = 32

// synapseBatch connects the memories stored and strengthens the associations of the memories
// claimed among evs, in writes of at most synapseChunk stored memories, each committing the
// watermark up to its last event.
func (c *Cortex) synapseBatch(ctx context.Context, evs []*domain.Event) error {
	l := c.living
	if l.synapseOff.Load() || len(fresh(evs, 0, synapseTodo)) == 0 {
		return nil
	}
	last := evs[len(evs)-1].Seq
	noWait := false
	if slices.ContainsFunc(evs, func(e *domain.Event) bool { return e.Type == domain.EvMemoryStored }) {
		noWait = c.waitIndexed(ctx, last)
	}
	for {
		w, _, err := l.store.ConsumerWatermark(ctx, c.consumerName(consumerSynapse))
		if err != nil {
			return err
		}
		todo := fresh(evs, w, synapseTodo)
		if len(todo) == 0 {
			return nil
		}
		if err := c.synapseYield(ctx, todo[0]); err != nil {
			return err
		}
		// The chunk: up to synapseChunk stored memories, and the claims among them.
		n, stored := 0, 0
		for n < len(todo) && (stored < synapseChunk || todo[n].Type != domain.EvMemoryStored) {
			if todo[n].Type == domain.EvMemoryStored {
				stored++
			}
			n++
		}
		chunk, upTo := todo[:n], last
		if n < len(todo) {
			upTo = todo[n].Seq - 1
		}
		ch, err := c.planSynapse(ctx, chunk, noWait)
		if err != nil {
			return err
		}
		_, err = l.store.Consume(ctx, c.consumerName(consumerSynapse), upTo, func(now uint64) (*domain.Changes, error) {
			switch {
			case now >= upTo:
				chunk = nil
				return nil, nil // another server connected them
			case now != w:
				return nil, errReplan
			}
			return ch, nil
		})
		if errors.Is(err, errReplan) {
			continue
		}
		if err != nil {
			return err
		}
		l.pos[consumerSynapse].committed.Store(upTo)
		for _, e := range chunk {
			c.touches.add(e.ID(), domain.CtxSynapse)
		}
		c.log.Kick()
		if upTo >= last {
			return nil
		}
	}
}

// synapseYield waits while minds are storing memories — one was stored within the Quiet time —
// unless the oldest message the Synapse has to handle (first) is older than MaxDefer. A stream of
// stores is connected once it pauses, or MaxDefer after it began: the Synapse's reads and writes,
// and its writes' turns at the store's write lock, then do not slow the stores down.
func (c *Cortex) synapseYield(ctx context.Context, first *domain.Event) error {
	p := c.living.synapse
	if p.Quiet <= 0 {
		return nil
	}
	for {
		last := time.Unix(0, c.lastStore.Load())
		now := time.Now()
		if now.Sub(last) >= p.Quiet || now.Sub(first.Context.Timestamp) >= p.MaxDefer {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.Quiet - now.Sub(last)):
		}
	}
}

// pairKey is the key of the association of type t between a and b, whichever end is named first.
func pairKey(a, b string, t domain.AssociationType) [3]string {
	if b < a {
		a, b = b, a
	}
	return [3]string{a, b, string(t)}
}

// synapseMemory is a stored memory as the Synapse plans with it.
type synapseMemory struct {
	ev      *domain.Event
	m       *domain.Memory
	key     string
	persons []string
	// hits are the index's resemblances (text similarity by id) and vecs the vectors'.
	hits map[string]float64
	vecs map[string]float64
}

// planSynapse returns the changes of todo (events of one or more scopes, in log order). noWait
// says the index holds their memories (waitIndexed).
func (c *Cortex) planSynapse(ctx context.Context, todo []*domain.Event, noWait bool) (*domain.Changes, error) {
	l := c.living
	p := l.synapse
	now := c.now().UTC()
	ch := &domain.Changes{Growth: &domain.Growth{}}

	var storedIDs []string
	for _, e := range todo {
		if e.Type == domain.EvMemoryStored {
			storedIDs = append(storedIDs, e.MemoryID)
		}
	}
	mems := map[string]*domain.Memory{}
	if len(storedIDs) > 0 {
		ms, err := c.store.Memories(ctx, storedIDs)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			mems[m.ID] = m
		}
	}

	// The stored memories by scope, in log order.
	var scopes []string
	byScope := map[string][]*synapseMemory{}
	for _, e := range todo {
		m := mems[e.MemoryID]
		if e.Type != domain.EvMemoryStored || m == nil || m.State != domain.StateActive {
			continue // deleted (or archived) before the Synapse came to it
		}
		key := "scope"
		if sid, _ := e.Payload["sessionId"].(string); sid != "" {
			key = "session:" + sid
		}
		if _, ok := byScope[m.ScopeID]; !ok {
			scopes = append(scopes, m.ScopeID)
		}
		byScope[m.ScopeID] = append(byScope[m.ScopeID], &synapseMemory{ev: e, m: m, key: key})
	}

	// planned are this batch's associations by pair and type, so a claim later in the batch
	// strengthens what the batch creates.
	planned := map[[3]string]*domain.AssociationSet{}
	for _, scope := range scopes {
		if err := c.connectScope(ctx, scope, byScope[scope], ch, planned, noWait, now); err != nil {
			return nil, err
		}
	}

	// Claims strengthen the claimed memory's associations, those of the graph and this batch's.
	for _, e := range todo {
		if e.Type != domain.EvMemoryClaimed {
			continue
		}
		as, err := c.store.Associations(ctx, e.MemoryID, nil, 0)
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				continue
			}
			return nil, err
		}
		byKey := map[[3]string]*domain.Association{}
		for _, a := range as {
			byKey[pairKey(a.SourceID, a.TargetID, a.Type)] = a
		}
		for k, set := range planned {
			if k[0] != e.MemoryID && k[1] != e.MemoryID {
				continue
			}
			other := k[0]
			if other == e.MemoryID {
				other = k[1]
			}
			byKey[k] = &domain.Association{SourceID: e.MemoryID, TargetID: other, ScopeID: e.ScopeID, Type: set.Type, Strength: set.Strength}
		}
		keys := make([][3]string, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, b := byKey[keys[i]], byKey[keys[j]]
			if a.Strength != b.Strength {
				return a.Strength > b.Strength
			}
			return keys[i][0]+keys[i][1]+keys[i][2] < keys[j][0]+keys[j][1]+keys[j][2]
		})
		list := make([]*domain.Association, len(keys))
		for i, k := range keys {
			list[i] = byKey[k]
		}
		sets, ev := p.Strengthen(e, list, now)
		for i := range sets {
			k := pairKey(sets[i].SourceID, sets[i].TargetID, sets[i].Type)
			if cur, ok := planned[k]; ok {
				cur.Strength = sets[i].Strength
				continue
			}
			s := sets[i]
			planned[k] = &s
			ch.Associations = append(ch.Associations, s)
		}
		if ev != nil {
			ch.Events = append(ch.Events, ev)
		}
	}
	// A claim raises the batch's own associations in place: the changes carry the planned values.
	for i := range ch.Associations {
		a := &ch.Associations[i]
		if cur := planned[pairKey(a.SourceID, a.TargetID, a.Type)]; cur != nil {
			a.Strength = cur.Strength
		}
	}
	return ch, nil
}

// connectScope plans the associations, episodes and person facets of the memories one scope
// stored (in log order), adding them to ch.
func (c *Cortex) connectScope(ctx context.Context, scope string, sms []*synapseMemory, ch *domain.Changes,
	planned map[[3]string]*domain.AssociationSet, noWait bool, now time.Time) error {
	l := c.living
	p := l.synapse
	ss := l.syn

	// The persons the scope knows: its person facets, and the speakers met on the way.
	var known []string
	if cr, ok := c.store.(domain.RecallContextReader); ok {
		names, err := cr.ScopePersons(ctx, scope)
		if err != nil {
			return err
		}
		known = names
	}
	isKnown := map[string]bool{}
	for _, n := range known {
		isKnown[n] = true
	}
	entries := make([]analysis.Entry, len(sms))
	for i, sm := range sms {
		entries[i] = analysis.TranscriptEntry(sm.m)
		if sp := entries[i].Speaker; sp != "" && !isKnown[sp] {
			isKnown[sp] = true
			known = append(known, sp)
		}
	}
	personsOf := func(e analysis.Entry) []string {
		var out []string
		for _, f := range analysis.PersonsOf(e, known) {
			if !slices.Contains(out, f.Value) {
				out = append(out, f.Value)
			}
		}
		return out
	}

	// Resemblances: the index's, and the vectors' where the scope has them.
	vecs, err := c.synapseVectors(ctx, scope, sms, entries, ch)
	if err != nil {
		return err
	}
	// Only a resemblance that reaches a threshold can make an association: the others are not
	// loaded nor counted.
	floor := min(p.PersonThreshold, p.ThematicThreshold)
	var candIDs []string
	isCand := map[string]bool{}
	for i, sm := range sms {
		sm.hits = c.resemblances(ctx, scope, sm.m.ID, entries[i].Text, noWait)
		sm.vecs = vecs[sm.m.ID]
		for id := range isCandOf(sm) {
			if !isCand[id] && (sm.hits[id] >= floor || sm.vecs[id] >= p.VectorThreshold) {
				isCand[id] = true
				candIDs = append(candIDs, id)
			}
		}
	}
	sort.Strings(candIDs)
	candMems := map[string]*domain.Memory{}
	candPersons := map[string][]string{}
	if len(candIDs) > 0 {
		ms, err := c.store.Memories(ctx, candIDs)
		if err != nil {
			return err
		}
		for _, m := range ms {
			candMems[m.ID] = m
			candPersons[m.ID] = personsOf(analysis.TranscriptEntry(m))
		}
	}
	newIDs := make([]string, len(sms))
	for i, sm := range sms {
		newIDs[i] = sm.m.ID
	}
	// The new memories' links (a mind may have associated one already), the candidates' counts.
	links, err := ss.MemoryLinks(ctx, newIDs, true)
	if err != nil {
		return err
	}
	var countIDs []string
	for _, id := range candIDs {
		if links[id] == nil {
			countIDs = append(countIDs, id)
		}
	}
	counted, err := ss.MemoryLinks(ctx, countIDs, false)
	if err != nil {
		return err
	}
	for id, l := range counted {
		links[id] = l
	}
	linked := func(id string) int {
		if x := links[id]; x != nil {
			return x.Linked
		}
		return 0
	}
	counts := map[string]int{}
	with := func(a, b string) bool {
		if x := links[a]; x != nil && len(x.With[b]) > 0 {
			return true
		}
		if x := links[b]; x != nil && len(x.With[a]) > 0 {
			return true
		}
		for _, t := range domain.AssociationTypes {
			if planned[pairKey(a, b, t)] != nil {
				return true
			}
		}
		return false
	}

	// The streams the memories belong to.
	streamID := func(key string) string { return domain.DeriveID(scope, "synapse-stream", key) }
	var sids []string
	for _, sm := range sms {
		sids = append(sids, streamID(sm.key))
	}
	streams, err := ss.SynapseStreams(ctx, sids)
	if err != nil {
		return err
	}
	touched := map[string]*domain.SynapseStream{}
	var touchedOrder []string
	growths := map[string]*domain.EpisodeGrowth{}
	var growthOrder []string
	dirty := map[string]*domain.SynapseStream{} // episodes whose persons changed, with their stream
	var dirtyOrder []string
	defs := map[string]*domain.EpisodeDefinition{}
	g := ch.Growth

	for i, sm := range sms {
		m := sm.m
		id := streamID(sm.key)
		st := touched[id]
		if st == nil {
			st = streams[id].Clone()
			if st == nil {
				st = &domain.SynapseStream{ID: id, ScopeID: scope, Key: sm.key, Part: -1}
			}
			touched[id] = st
			touchedOrder = append(touchedOrder, id)
		}
		gap := m.OccurredAt.Sub(st.LastAt)
		if gap < 0 {
			gap = -gap
		}
		session := sm.key != "scope"
		split := st.Episode == "" || st.EpisodeCount >= p.EpisodeMax || (!session && gap > p.SessionGap)
		var links []synapse.Link
		// TEMPORAL: to the memory stored before it in its session (or in its scope's episode).
		if st.Last != "" && st.Last != m.ID && (session || !split) && !with(m.ID, st.Last) {
			links = append(links, synapse.Link{TargetID: st.Last, Type: domain.AssocTemporal, Strength: p.TemporalStrength(m.OccurredAt.Sub(st.LastAt))})
		}
		if split {
			def := c.synapseDefinition(scope, session, now)
			defs[def.ID] = def
			st.Part++
			st.Episode = domain.DeriveID(scope, "episode", def.ID, sm.key, itoa(st.Part))
			st.EpisodeStart, st.EpisodeEnd, st.EpisodeFirst, st.EpisodeCount, st.EpisodeCreated = m.OccurredAt, m.OccurredAt, m.ID, 0, now
			st.Persons = map[string]*domain.StreamPerson{}
		}
		eg := growths[st.Episode]
		if eg == nil {
			def := c.synapseDefinition(scope, session, now)
			eg = &domain.EpisodeGrowth{FirstPos: st.EpisodeCount, Episode: &domain.Episode{ID: st.Episode, ScopeID: scope, DefinitionID: def.ID, CreatedAt: st.EpisodeCreated}}
			growths[st.Episode] = eg
			growthOrder = append(growthOrder, st.Episode)
		}
		eg.Items = append(eg.Items, m.ID)
		st.EpisodeCount++
		if m.OccurredAt.Before(st.EpisodeStart) {
			st.EpisodeStart = m.OccurredAt
		}
		if m.OccurredAt.After(st.EpisodeEnd) {
			st.EpisodeEnd = m.OccurredAt
		}
		st.Last, st.LastAt = m.ID, m.OccurredAt
		e := *eg.Episode
		e.StartTime, e.EndTime, e.EventCount, e.FirstEventID, e.LastEventID = st.EpisodeStart, st.EpisodeEnd, st.EpisodeCount, st.EpisodeFirst, m.ID
		eg.Episode = &e

		// The persons it names become the episode's person facets.
		found := analysis.PersonsOf(entries[i], known)
		for _, f := range found {
			sp := st.Persons[f.Value]
			if sp == nil {
				sp = &domain.StreamPerson{First: m.ID, Role: f.Metadata["role"].(string)}
				st.Persons[f.Value] = sp
			}
			sp.Count++
			if f.Confidence > sp.Confidence {
				sp.Confidence, sp.Role = f.Confidence, f.Metadata["role"].(string)
			}
		}
		if len(found) > 0 {
			if dirty[st.Episode] == nil {
				dirtyOrder = append(dirtyOrder, st.Episode)
			}
			dirty[st.Episode] = st.Clone()
		}
		sm.persons = personsOf(entries[i])

		// PERSON and THEMATIC: to memories of the scope stored before it that it resembles.
		var cands []synapse.Candidate
		for cid := range isCandOf(sm) {
			cm := candMems[cid]
			if cm == nil || cm.ID == m.ID || cm.ScopeID != scope || cm.State != domain.StateActive || !before(cm, m) ||
				cm.ID == st.Last || with(m.ID, cm.ID) || containsLink(links, cm.ID) {
				continue
			}
			cands = append(cands, synapse.Candidate{ID: cid, Text: sm.hits[cid], Vector: sm.vecs[cid], Persons: candPersons[cid],
				Linked: linked(cid) + counts[cid]})
		}
		sort.Slice(cands, func(a, b int) bool { return cands[a].ID < cands[b].ID })
		for _, lk := range p.Connect(sm.persons, linked(m.ID)+counts[m.ID], cands) {
			links = append(links, lk)
			counts[m.ID]++
			counts[lk.TargetID]++
		}
		if len(links) == 0 {
			continue
		}
		for _, lk := range links {
			set := domain.AssociationSet{SourceID: m.ID, TargetID: lk.TargetID, Type: lk.Type, Strength: lk.Strength, UpdatedAt: now}
			planned[pairKey(m.ID, lk.TargetID, lk.Type)] = &set
			ch.Associations = append(ch.Associations, set)
		}
		ch.Events = append(ch.Events, synapse.Created(sm.ev, links, now))
	}

	for _, id := range touchedOrder {
		g.Streams = append(g.Streams, touched[id])
	}
	for _, d := range sortedDefs(defs) {
		g.Definitions = append(g.Definitions, d)
	}
	for _, id := range growthOrder {
		g.Episodes = append(g.Episodes, *growths[id])
	}
	if len(dirtyOrder) > 0 {
		desc := analysis.Persons{}.Type()
		at := &domain.AnalysisType{ID: domain.DeriveID(scope, "analysis-type", desc.Name), ScopeID: scope, Name: desc.Name,
			Version: desc.Version, OutputType: desc.OutputType, CreatedAt: now, UpdatedAt: now}
		g.AnalysisTypes = append(g.AnalysisTypes, at)
		for _, epID := range dirtyOrder {
			st := dirty[epID]
			run := &domain.AnalysisRun{ID: domain.DeriveID(scope, "analysis-run", at.ID, epID), ScopeID: scope, TypeID: at.ID,
				TypeName: at.Name, EpisodeID: epID, Status: domain.RunCompleted, StartedAt: &now, CompletedAt: &now, CreatedAt: now}
			g.Runs = append(g.Runs, run)
			names := make([]string, 0, len(st.Persons))
			for n := range st.Persons {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				sp := st.Persons[n]
				g.Facets = append(g.Facets, &domain.Facet{ID: domain.DeriveID(scope, "facet", run.ID, domain.FacetPerson, n), ScopeID: scope,
					RunID: run.ID, EpisodeID: epID, MemoryID: sp.First, Type: domain.FacetPerson, Value: n, Confidence: sp.Confidence,
					Metadata: map[string]any{"role": sp.Role, "count": sp.Count}, CreatedAt: now})
			}
		}
	}
	return nil
}

func isCandOf(sm *synapseMemory) map[string]bool {
	out := make(map[string]bool, len(sm.hits)+len(sm.vecs))
	for id := range sm.hits {
		out[id] = true
	}
	for id := range sm.vecs {
		out[id] = true
	}
	return out
}

func containsLink(ls []synapse.Link, id string) bool {
	for _, l := range ls {
		if l.TargetID == id {
			return true
		}
	}
	return false
}

// before reports whether a was stored before b: the Synapse associates a new memory only with
// memories stored before it, so each pair is weighed once, by its later memory.
func before(a, b *domain.Memory) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

func sortedDefs(m map[string]*domain.EpisodeDefinition) []*domain.EpisodeDefinition {
	out := make([]*domain.EpisodeDefinition, 0, len(m))
	for _, d := range m {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// synapseDefinition is the definition of the episodes the Synapse forms in a scope: one per
// session (a thread of the memories stored with one sessionId), or by time gap for the memories
// stored without a session.
func (c *Cortex) synapseDefinition(scope string, session bool, now time.Time) *domain.EpisodeDefinition {
	p := c.living.synapse
	if session {
		return &domain.EpisodeDefinition{ID: domain.DeriveID(scope, "episode-definition", SynapseSessionDefinition), ScopeID: scope,
			Name: SynapseSessionDefinition, Strategy: domain.StrategyThread, Config: map[string]any{},
			Description: "the memories stored with one sessionId, as they are stored (formed by the Synapse)", CreatedAt: now, UpdatedAt: now}
	}
	return &domain.EpisodeDefinition{ID: domain.DeriveID(scope, "episode-definition", SynapseTimeGapDefinition), ScopeID: scope,
		Name: SynapseTimeGapDefinition, Strategy: domain.StrategyTimeGap,
		Config:      map[string]any{"gap_seconds": p.SessionGap.Seconds(), "scope": "all"},
		Description: "the memories stored without a sessionId, split where they lie more than the gap apart (formed by the Synapse)",
		CreatedAt:   now, UpdatedAt: now}
}

// resemblances asks the index for the memories of scope whose text resembles text (the text of
// memory id), searching its rarest words, and measures each hit by the memory itself: the
// similarity is √(score of the hit / score of the memory), 1 for a memory that says the same. The
// index's score grows with the share of the words a hit matches times the weight of those words,
// so the square root is on the scale of the share of what the memory says that the hit says
// too. Without the memory itself among the hits (its text has no word to search, or it is not
// indexed) there is nothing to measure by.
func (c *Cortex) resemblances(ctx context.Context, scope, id, text string, noWait bool) map[string]float64 {
	p := c.living.synapse
	hits, err := c.index.Search(ctx, domain.IndexQuery{ScopeID: scope, Text: queryText(text), Limit: p.Candidates + 1,
		WordsOnly: true, MaxWords: synapseSimilarWords, NoWait: noWait, Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
	if err != nil || len(hits) == 0 {
		return nil
	}
	self := 0.0
	for _, h := range hits {
		if h.ID == id {
			self = h.Score
		}
	}
	if self <= 0 {
		return nil
	}
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		if h.ID != id {
			out[h.ID] = min(1, math.Sqrt(h.Score/self))
		}
	}
	return out
}

// synapseVectors gives the new memories vectors when an embedder is configured and the scope has
// vectors (search over it is hybrid), and returns the cosine similarities of their nearest
// memories. A failing model only costs the vectors: the text rules still connect.
func (c *Cortex) synapseVectors(ctx context.Context, scope string, sms []*synapseMemory, entries []analysis.Entry, ch *domain.Changes) (map[string]map[string]float64, error) {
	emb := c.mnemonic.cfg.Embedder
	vs, ok := c.store.(domain.VectorStore)
	if emb == nil || !ok || len(sms) == 0 {
		return nil, nil
	}
	has, err := vs.HasEmbeddings(ctx, scope)
	if err != nil || !has {
		return nil, err
	}
	texts := make([]string, len(sms))
	for i, sm := range sms {
		texts[i] = sm.m.Content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil || len(vecs) != len(sms) {
		c.logger.Warn("the Synapse could not embed stored memories; connecting them by their text alone", "err", err)
		return nil, nil
	}
	p := c.living.synapse
	out := map[string]map[string]float64{}
	for i, sm := range sms {
		if len(vecs[i]) == 0 || !finiteVec(vecs[i]) {
			continue
		}
		ch.Growth.Embeddings = append(ch.Growth.Embeddings, &domain.Embedding{ScopeID: scope, MemoryID: sm.m.ID, Vector: vecs[i], CreatedAt: c.now().UTC()})
		hits, err := vs.SimilarMemories(ctx, scope, vecs[i], p.Candidates)
		if err != nil {
			return nil, err
		}
		m := map[string]float64{}
		for _, h := range hits {
			if h.MemoryID != sm.m.ID {
				m[h.MemoryID] = h.Similarity
			}
		}
		out[sm.m.ID] = m
	}
	return out, nil
}

func finiteVec(v []float32) bool {
	for _, x := range v {
		if x != x || x > 3.4e38 || x < -3.4e38 {
			return false
		}
	}
	return true
}

// appliedIndex is the optional index capability of telling what it has written without writing
// what is queued (search.Index).
type appliedIndex interface{ Applied() uint64 }

// waitIndexed waits until the search index has written the documents of the log up to seq, and
// reports whether the Synapse may search without making it write what is queued (NoWait). It does
// not hurry the index: a search that makes the writer flush its queue at once, as the Synapse's
// would for every batch, cuts a stream of stores into small segments that the index then merges
// again and again. After synapseIndexWait it gives up waiting; the searches then wait for the
// queue themselves.
func (c *Cortex) waitIndexed(ctx context.Context, seq uint64) bool {
	ai, ok := c.index.(appliedIndex)
	if !ok {
		return false
	}
	deadline := time.Now().Add(synapseIndexWait)
	for ai.Applied() < seq {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
