package cortex

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/analysis"
	"github.com/totalrecall/totalrecall/domain/episodes"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/ledger"
)

// MnemonicConfig configures seed 001's pipeline: the models it may call. Both are optional:
// without them ingest, episodes, the built-in analysers and search all work.
type MnemonicConfig struct {
	// Embedder makes vectors of memories; search becomes hybrid where vectors exist.
	Embedder domain.Embedder
	// Chat is the model of the "llm" analysis.
	Chat domain.ChatModel
	// LLMPrompt overrides the llm analysis's prompt template ({{transcript}} is replaced).
	LLMPrompt string
}

// mnemonic holds the pipeline's parts.
type mnemonic struct {
	cfg       MnemonicConfig
	analysers map[string]analysis.Analyser
	// embedMu serialises embedding passes of one scope.
	embedMu sync.Mutex
	// worker runs the pending analysis runs (analysis_worker.go).
	worker *analysisWorker
}

func (c *Cortex) newMnemonic(cfg MnemonicConfig) *mnemonic {
	mn := &mnemonic{cfg: cfg, analysers: analysis.Builtins(), worker: newAnalysisWorker()}
	if cfg.Chat != nil {
		a := analysis.LLM{Model: cfg.Chat, Prompt: cfg.LLMPrompt}
		mn.analysers[a.Type().Name] = a
	}
	c.recall.Embedder = cfg.Embedder
	return mn
}

// stores returns the pipeline's store ports; the graph store implements all of them.
func (c *Cortex) ingestStore() (domain.IngestStore, error) {
	if s, ok := c.store.(domain.IngestStore); ok {
		return s, nil
	}
	return nil, domain.Errorf(domain.EUNAVAILABLE, "this store cannot ingest")
}

func (c *Cortex) episodeStore() (domain.EpisodeStore, error) {
	if s, ok := c.store.(domain.EpisodeStore); ok {
		return s, nil
	}
	return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no episodes")
}

func (c *Cortex) facetStore() (domain.FacetStore, error) {
	if s, ok := c.store.(domain.FacetStore); ok {
		return s, nil
	}
	return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no facets")
}

func (c *Cortex) agentStore() (domain.AgentStore, error) {
	if s, ok := c.store.(domain.AgentStore); ok {
		return s, nil
	}
	return nil, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no agents ledger")
}

// ---- Ingest ----

// ImportProgress is reported after every write of an import.
type ImportProgress struct {
	Events, Imported, Skipped, Records int
	Elapsed                            time.Duration
}

// ImportResult sums up an import.
type ImportResult struct {
	ScopeID  string `json:"scopeId"`
	Adapter  string `json:"adapter"`
	Events   int    `json:"events"`
	Imported int    `json:"imported"`
	// Skipped counts events imported before (an import is idempotent and resumable).
	Skipped      int `json:"skipped"`
	Threads      int `json:"threads"`
	Associations int `json:"associations"`
	Sessions     int `json:"sessions"`
	Messages     int `json:"messages"`
	Turns        int `json:"turns"`
	ToolCalls    int `json:"toolCalls"`
	Episodes     int `json:"episodes"`
	Facets       int `json:"facets"`
	// Embedded counts the memories given a vector (when an embedder is configured).
	Embedded int                    `json:"embedded"`
	Problems []domain.SourceProblem `json:"problems"`
	Took     time.Duration          `json:"took"`
}

// Importer imports the records of one source into a scope, in writes of at most
// domain.MaxImportRecords records, each atomic and idempotent: an import that stops half-way
// is resumed by running it again. Not safe for concurrent use.
type Importer struct {
	c       *Cortex
	store   domain.IngestStore
	scope   string
	adapter string
	meta    Meta
	former  *ledger.Former
	res     *ImportResult
	start   time.Time
	writes  int
	// Progress, when set, is called after every write.
	Progress func(ImportProgress)

	// What the import read, for chunking and analysis at Finish.
	items      []episodes.Item
	agentItems []episodes.Item
	entries    map[string]analysis.Entry

	// The index puts of one write run while the next write is made.
	putWG  sync.WaitGroup
	putErr error
	putMu  sync.Mutex
}

// NewImport starts an import of records of adapter into scopeID. Errors: INVALID_ARGUMENT,
// NOT_FOUND.
func (c *Cortex) NewImport(ctx context.Context, scopeID, adapter string, m Meta) (*Importer, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	if err := ledger.CheckAdapter("adapter", adapter); err != nil {
		return nil, err
	}
	if m.RequestID != "" {
		if err := checkToken("requestId", m.RequestID); err != nil {
			return nil, err
		}
	}
	if m.SessionID != "" {
		if err := checkToken("sessionId", m.SessionID); err != nil {
			return nil, err
		}
	}
	st, err := c.ingestStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	former := ledger.NewFormer(scopeID, adapter, c.now)
	// Consecutive events are chained by the rule that chains the memories of a session.
	former.Temporal = c.SynapseParams().TemporalStrength
	return &Importer{c: c, store: st, scope: scopeID, adapter: adapter, meta: m,
		former: former, start: time.Now(), entries: map[string]analysis.Entry{},
		res: &ImportResult{ScopeID: scopeID, Adapter: adapter, Problems: []domain.SourceProblem{}}}, nil
}

// Problems adds problems an adapter found, so the result reports them with the Cortex's own.
func (im *Importer) Problems(ps []domain.SourceProblem) {
	im.res.Problems = append(im.res.Problems, ps...)
}

// Add imports a batch of source records. Malformed records are reported in the result and
// skipped; the rest is imported. Errors: those of the store (a write failed; the writes before it
// stay, and running the import again resumes it).
func (im *Importer) Add(ctx context.Context, sb *domain.SourceBatch) error {
	if sb.Adapter == "" {
		sb.Adapter = im.adapter
	}
	agents, threads, trimmed := im.former.Agents(sb)
	im.res.Problems = append(im.res.Problems, agents.Problems...)
	sessions := map[string]*domain.AgentSession{}
	for _, s := range agents.Batch.Sessions {
		sessions[s.ID] = s
	}
	im.agentItems = append(im.agentItems, episodes.MessageItems(agents.Batch.Messages, agents.Batch.Turns, sessions)...)
	for _, m := range agents.Batch.Messages {
		e := analysis.Entry{Speaker: m.Role, Text: m.Content}
		if m.Timestamp != nil {
			e.Time = *m.Timestamp
		}
		im.entries[m.ID] = e
	}
	if err := im.writeAgents(ctx, agents.Batch); err != nil {
		return err
	}
	threads = append(append([]*domain.SourceThread(nil), sb.Threads...), threads...)
	events := append(append([]*domain.SourceEvent(nil), sb.Events...), trimmed...)
	max := domain.MaxImportRecords
	for start := 0; start < len(events) || (start == 0 && len(threads) > 0); start += max {
		part := events[start:min(len(events), start+max)]
		var th []*domain.SourceThread
		if start == 0 {
			th = threads
		}
		if err := im.writeEvents(ctx, sb.Adapter, th, part); err != nil {
			return err
		}
		if len(events) == 0 {
			break
		}
	}
	return nil
}

func (im *Importer) request(ids []string) domain.Request {
	im.writes++
	if im.meta.RequestID == "" {
		return domain.Request{}
	}
	return domain.Request{Op: "import", RequestID: im.meta.RequestID + "#" + strconv.Itoa(im.writes), Fingerprint: fingerprint(ids), ScopeID: im.scope}
}

func (im *Importer) writeEvents(ctx context.Context, adapter string, threads []*domain.SourceThread, events []*domain.SourceEvent) error {
	c := im.c
	tc, err := c.open(im.meta)
	if err != nil {
		return err
	}
	// The write's one fact: the memories it ingested (bulk ingest emits no event per memory).
	ingested := tc.Derive(domain.CtxHippocampus, tc.Timestamp)
	formed := im.former.Events(adapter, threads, events, ingested)
	im.res.Problems = append(im.res.Problems, formed.Problems...)
	b := formed.Batch
	im.items = append(im.items, episodes.EventItems(b.Events)...)
	for _, e := range b.Events {
		im.entries[e.Memory.ID] = analysis.TranscriptEntry(e.Memory)
	}
	if b.Empty() {
		return nil
	}
	ids := make([]string, 0, len(b.Events))
	for _, e := range b.Events {
		ids = append(ids, e.Memory.ID)
	}
	cmd := command(domain.MsgImportCommand, im.scope, "", tc, domain.CtxHippocampus, map[string]any{
		"adapter": adapter, "events": len(b.Events), "threads": len(b.Threads)})
	// The index feed sees the write's MemoriesIngested as soon as it commits, before the put
	// below: the ids are marked as about to be put, so that it does not read them back. The
	// mark goes once the put has recorded their versions, or with this call when nothing is put.
	if c.living != nil {
		// The Salience context scores the new memories in the write that stores them.
		b.Scores = c.living.scorer.PlanIngested(memoriesOf(b.Events), connectivity(b.Associations))
	}
	c.versions.expect(ids)
	putting := false
	defer func() {
		if !putting {
			c.versions.done(ids)
		}
	}()
	w, err := im.store.Ingest(ctx, im.request(ids), im.scope, b, func(w *domain.IngestWritten) ([]*domain.Event, error) {
		evs := []*domain.Event{cmd}
		if len(w.NewEvents) > 0 {
			created := make([]string, len(w.NewEvents))
			for i, e := range w.NewEvents {
				created[i] = e.Memory.ID
			}
			evs = append(evs, &domain.Event{Type: domain.EvMemoriesIngested, ScopeID: im.scope, Context: ingested,
				Payload: map[string]any{"memoryIds": created, "count": len(created), "adapter": adapter}})
		}
		if n := len(w.NewAssociations); n > 0 {
			evs = append(evs, &domain.Event{Type: domain.EvAssociationsFormed, ScopeID: im.scope,
				Context: tc.Derive(domain.CtxSynapse, tc.Timestamp),
				Payload: map[string]any{"type": string(domain.AssocTemporal), "count": n}})
		}
		return evs, nil
	})
	if err != nil {
		return err
	}
	c.log.Kick()
	im.res.Events += len(b.Events)
	im.res.Imported += len(w.NewEvents)
	im.res.Skipped += w.Skipped
	im.res.Threads += len(b.Threads)
	im.res.Associations += len(w.NewAssociations)
	if len(w.NewEvents) > 0 {
		docs := make([]domain.IndexDoc, len(w.NewEvents))
		for i, e := range w.NewEvents {
			docs[i] = docOf(e.Memory)
		}
		im.putWG.Wait() // one put in flight at a time
		if err := im.putError(); err != nil {
			return err
		}
		im.putWG.Add(1)
		putting = true
		go func() {
			defer im.putWG.Done()
			defer c.versions.done(ids) // after the put has recorded the versions
			if err := c.putDocs(context.WithoutCancel(ctx), docs); err != nil {
				im.putMu.Lock()
				im.putErr = err
				im.putMu.Unlock()
			}
		}()
	}
	im.progress()
	return nil
}

func (im *Importer) putError() error {
	im.putMu.Lock()
	defer im.putMu.Unlock()
	return im.putErr
}

func (im *Importer) progress() {
	if im.Progress != nil {
		im.Progress(ImportProgress{Events: im.res.Events, Imported: im.res.Imported, Skipped: im.res.Skipped,
			Records: im.res.Events + im.res.Messages + im.res.ToolCalls, Elapsed: time.Since(im.start)})
	}
}

// writeAgents writes the agents-ledger records in writes of at most MaxImportRecords records.
func (im *Importer) writeAgents(ctx context.Context, b *domain.IngestBatch) error {
	c := im.c
	type rec struct {
		apply func(*domain.IngestBatch)
		id    string
	}
	var recs []rec
	for _, x := range b.Sessions {
		x := x
		recs = append(recs, rec{func(o *domain.IngestBatch) { o.Sessions = append(o.Sessions, x) }, x.ID})
	}
	for _, x := range b.Messages {
		x := x
		recs = append(recs, rec{func(o *domain.IngestBatch) { o.Messages = append(o.Messages, x) }, x.ID})
	}
	for _, x := range b.Turns {
		x := x
		recs = append(recs, rec{func(o *domain.IngestBatch) { o.Turns = append(o.Turns, x) }, x.ID})
	}
	for _, x := range b.ToolCalls {
		x := x
		recs = append(recs, rec{func(o *domain.IngestBatch) { o.ToolCalls = append(o.ToolCalls, x) }, x.ID})
	}
	for start := 0; start < len(recs); start += domain.MaxImportRecords {
		part := &domain.IngestBatch{}
		ids := []string{}
		for _, r := range recs[start:min(len(recs), start+domain.MaxImportRecords)] {
			r.apply(part)
			ids = append(ids, r.id)
		}
		tc, err := c.open(im.meta)
		if err != nil {
			return err
		}
		counts := map[string]any{"sessions": len(part.Sessions), "messages": len(part.Messages), "turns": len(part.Turns),
			"toolCalls": len(part.ToolCalls)}
		cmd := command(domain.MsgImportCommand, im.scope, "", tc, domain.CtxHippocampus, map[string]any{"adapter": im.adapter, "agents": counts})
		if _, err := im.store.Ingest(ctx, im.request(ids), im.scope, part, func(*domain.IngestWritten) ([]*domain.Event, error) {
			return []*domain.Event{cmd, {Type: domain.EvLedgerIngested, ScopeID: im.scope,
				Context: tc.Derive(domain.CtxHippocampus, tc.Timestamp), Payload: counts}}, nil
		}); err != nil {
			return err
		}
		c.log.Kick()
		im.res.Sessions += len(part.Sessions)
		im.res.Messages += len(part.Messages)
		im.res.Turns += len(part.Turns)
		im.res.ToolCalls += len(part.ToolCalls)
		im.progress()
	}
	return nil
}

// FinishOptions says what an import does once its records are in.
type FinishOptions struct {
	// Definitions are ensured and chunked (idempotently) after the records are in.
	Definitions []DefinitionInput
	// Analyses are run on the episodes of those definitions (e.g. "persons").
	Analyses []string
}

// Finish waits for the import's index updates, then chunks what the import read by the
// definitions and runs the analyses on the episodes — from the records in hand, in writes of
// their own: re-running an import makes the same episodes and facets, so it changes nothing.
func (im *Importer) Finish(ctx context.Context, opts FinishOptions) (*ImportResult, error) {
	im.putWG.Wait()
	if err := im.putError(); err != nil {
		return nil, err
	}
	c := im.c
	var as []analysis.Analyser
	for _, name := range opts.Analyses {
		a, ok := c.mnemonic.analysers[name]
		if !ok {
			return nil, domain.FieldErrorf("analyses", "unknown analysis %q (known: %s)", name, strings.Join(c.AnalysisNames(), ", "))
		}
		as = append(as, a)
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	for _, d := range opts.Definitions {
		def, err := c.DefineEpisodes(ctx, im.scope, d, im.meta)
		if err != nil {
			return nil, err
		}
		items := im.items
		if def.Strategy.OverAgents() {
			items = im.agentItems
		}
		tc, err := c.open(im.meta)
		if err != nil {
			return nil, err
		}
		eps, err := episodes.Chunk(def, items, tc.Timestamp)
		if err != nil {
			return nil, err
		}
		// Episodes of this definition over the threads read that a re-chunking no longer makes.
		// Only those threads' episodes are read: the definition's are every import's before.
		threads := map[string]bool{}
		var threadIDs []string
		for _, it := range items {
			if !threads[it.Thread] {
				threads[it.Thread] = true
				threadIDs = append(threadIDs, it.Thread)
			}
		}
		var old []*domain.Episode
		for i := 0; i < len(threadIDs); i += 1000 {
			some, err := es.Episodes(ctx, im.scope, domain.EpisodeFilter{DefinitionID: def.ID, ThreadIDs: threadIDs[i:min(i+1000, len(threadIDs))]})
			if err != nil {
				return nil, err
			}
			old = append(old, some...)
		}
		made := map[string]bool{}
		for _, e := range eps {
			made[e.ID] = true
		}
		var removed []string
		for _, e := range old {
			if !made[e.ID] && threads[e.ThreadID] {
				removed = append(removed, e.ID)
			}
		}
		facets, err := c.writeEpisodes(ctx, im.scope, def, eps, removed, as, im.entries, tc, im.meta)
		if err != nil {
			return nil, err
		}
		im.res.Episodes += len(eps)
		im.res.Facets += facets
	}
	if c.mnemonic.cfg.Embedder != nil {
		n, err := c.EmbedMemories(ctx, im.scope, im.meta)
		if err != nil {
			return nil, err
		}
		im.res.Embedded = n
	}
	im.res.Took = time.Since(im.start)
	if h := im.c.importHook.Load(); h != nil && im.res.Imported > 0 {
		(*h)(im.res.Imported)
	}
	return im.res, nil
}

// writeEpisodes writes episodes (and removes stale ones) with, for every analyser, a completed
// run per episode and its facets — in writes of bounded size.
func (c *Cortex) writeEpisodes(ctx context.Context, scopeID string, def *domain.EpisodeDefinition, eps []*domain.Episode, removed []string,
	as []analysis.Analyser, entries map[string]analysis.Entry, tc domain.TransactionContext, m Meta) (int, error) {
	is, err := c.ingestStore()
	if err != nil {
		return 0, err
	}
	now := tc.Timestamp
	types := make([]*domain.AnalysisType, len(as))
	for i, a := range as {
		d := a.Type()
		types[i] = &domain.AnalysisType{ID: domain.DeriveID(scopeID, "analysis-type", d.Name), ScopeID: scopeID, Name: d.Name,
			Version: d.Version, OutputType: d.OutputType, FacetsConfig: d.FacetsConfig, PromptTemplate: d.PromptTemplate,
			Model: d.Model, CreatedAt: now, UpdatedAt: now}
	}
	facets := 0
	var batches []*domain.IngestBatch
	var batchEvents [][]*domain.Event
	cur := &domain.IngestBatch{RemoveEpisodes: removed, AnalysisTypes: types}
	var curEvents []*domain.Event
	size := 0
	flush := func() {
		if !cur.Empty() {
			batches = append(batches, cur)
			batchEvents = append(batchEvents, curEvents)
		}
		cur, curEvents, size = &domain.IngestBatch{}, nil, 0
	}
	for _, e := range eps {
		if size > 0 && size+len(e.Items) > domain.MaxImportRecords*4 {
			flush()
		}
		cur.Episodes = append(cur.Episodes, e)
		size += len(e.Items) + 1
		if len(as) == 0 {
			continue
		}
		in := &analysis.Input{Episode: e}
		for _, id := range e.Items {
			if en, ok := entries[id]; ok {
				in.Entries = append(in.Entries, en)
			}
		}
		for i, a := range as {
			run := &domain.AnalysisRun{ID: domain.DeriveID(scopeID, "analysis-run", types[i].ID, e.ID), ScopeID: scopeID,
				TypeID: types[i].ID, TypeName: types[i].Name, EpisodeID: e.ID, CreatedAt: now}
			started := c.now().UTC()
			res, aerr := a.Analyse(ctx, in)
			run.StartedAt = &started
			fs, ev := finishRun(scopeID, run, res, aerr, tc, c.now().UTC())
			cur.Facets = append(cur.Facets, fs...)
			curEvents = append(curEvents, ev)
			facets += len(fs)
			size += len(fs)
			cur.Runs = append(cur.Runs, run)
		}
	}
	flush()
	for i, b := range batches {
		btc := tc
		if i > 0 {
			if btc, err = c.open(m); err != nil {
				return 0, err
			}
		}
		cmd := command(domain.MsgChunkCommand, scopeID, "", btc, domain.CtxHippocampus, map[string]any{"definition": def.Name})
		evs := append([]*domain.Event{cmd, {Type: domain.EvEpisodesChunked, ScopeID: scopeID, Context: btc.Derive(domain.CtxHippocampus, btc.Timestamp),
			Payload: map[string]any{"definitionId": def.ID, "definition": def.Name, "episodes": len(b.Episodes), "removed": len(b.RemoveEpisodes)}}},
			batchEvents[i]...)
		if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) { return evs, nil }); err != nil {
			return 0, err
		}
		c.log.Kick()
	}
	return facets, nil
}

// withIngestEvents adds, to the history of a memory ingested in bulk, the events of the write
// that created it: the import command and its MemoriesIngested.
func (c *Cortex) withIngestEvents(ctx context.Context, memoryID string, evs []*domain.Event) ([]*domain.Event, error) {
	m, err := c.store.Memory(ctx, memoryID)
	if err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			return evs, nil // deleted: its own events tell the rest
		}
		return nil, err
	}
	req, _ := m.Metadata[domain.MetaIngestRequest].(string)
	msg, _ := m.Metadata[domain.MetaIngestMessage].(string)
	if req == "" || msg == "" {
		return evs, nil
	}
	all, err := c.store.RequestEvents(ctx, req)
	if err != nil {
		return nil, err
	}
	var ingest *domain.Event
	for _, e := range all {
		if e.ID() == msg {
			ingest = e
		}
	}
	if ingest == nil {
		return evs, nil
	}
	var add []*domain.Event
	for _, e := range all {
		if e == ingest || (e.ID() == ingest.Context.CausationID && e.Type == domain.MsgImportCommand) {
			add = append(add, e)
		}
	}
	out := append(add, evs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// ---- Episodes ----

// DefinitionInput defines how to chunk events into episodes.
type DefinitionInput struct {
	Name        string
	Channel     string
	Strategy    domain.EpisodeStrategy
	Config      map[string]any
	Description string
}

// DefineEpisodes creates or updates the episode definition of that name (its id is derived from
// the name). Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) DefineEpisodes(ctx context.Context, scopeID string, in DefinitionInput, m Meta) (*domain.EpisodeDefinition, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	if in.Config == nil {
		in.Config = map[string]any{}
	}
	// Config travels as JSON; numbers are float64 on both paths.
	raw, err := json.Marshal(in.Config)
	if err != nil || len(raw) > domain.MaxMetadataBytes {
		return nil, domain.FieldErrorf("config", "must be a JSON object of at most %d bytes", domain.MaxMetadataBytes)
	}
	cfg := map[string]any{}
	_ = json.Unmarshal(raw, &cfg)
	for field, v := range map[string]string{"name": in.Name, "channel": in.Channel, "description": in.Description} {
		if err := hippocampus.CheckText(field, v); err != nil {
			return nil, err
		}
	}
	if len(in.Channel) > ledger.MaxLabelBytes || len(in.Description) > domain.MaxMetadataBytes {
		return nil, domain.FieldErrorf("channel", "channel or description too long")
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	is, err := c.ingestStore()
	if err != nil {
		return nil, err
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	if synapseFormed(in.Name) {
		return nil, domain.FieldErrorf("name", "%q names the episodes the Synapse forms as memories are stored; choose another name", in.Name)
	}
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(scopeID, "episode-definition", in.Name), ScopeID: scopeID, Name: in.Name,
		Channel: in.Channel, Strategy: in.Strategy, Config: cfg, Description: in.Description, CreatedAt: now, UpdatedAt: now}
	if err := episodes.CheckDefinition(def); err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	defs, err := es.EpisodeDefinitions(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if d.ID == def.ID {
			def.CreatedAt = d.CreatedAt
			if d.Channel == def.Channel && d.Strategy == def.Strategy && d.Description == def.Description && fingerprint(d.Config) == fingerprint(def.Config) {
				return d, nil // unchanged: nothing to write
			}
		}
	}
	cmd := command(domain.MsgDefineEpisodeCommand, scopeID, "", tc, domain.CtxHippocampus, map[string]any{"name": in.Name, "strategy": string(in.Strategy)})
	_, err = is.Ingest(ctx, domain.Request{}, scopeID, &domain.IngestBatch{Definitions: []*domain.EpisodeDefinition{def}},
		func(*domain.IngestWritten) ([]*domain.Event, error) {
			return []*domain.Event{cmd, {Type: domain.EvEpisodeDefined, ScopeID: scopeID, Context: tc.Derive(domain.CtxHippocampus, now),
				Payload: map[string]any{"definitionId": def.ID, "name": def.Name, "strategy": string(def.Strategy), "channel": def.Channel}}}, nil
		})
	c.log.Kick()
	if err != nil {
		return nil, err
	}
	return def, nil
}

// ChunkResult sums up a chunking.
type ChunkResult struct {
	Definition *domain.EpisodeDefinition
	Episodes   int
	Removed    int
	Items      int
}

// ChunkEpisodes chunks the scope's records by the named definition. Running it again over the
// same records changes nothing; episodes no longer made are removed with their facets.
// Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) ChunkEpisodes(ctx context.Context, scopeID, definition string, m Meta) (*ChunkResult, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return nil, err
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	is, err := c.ingestStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	defs, err := es.EpisodeDefinitions(ctx, scopeID)
	if err != nil {
		return nil, err
	}
	var def *domain.EpisodeDefinition
	for _, d := range defs {
		if d.Name == definition {
			def = d
		}
	}
	if def == nil {
		return nil, domain.Errorf(domain.ENOTFOUND, "no episode definition named %q", definition)
	}
	if synapseFormed(def.Name) {
		return nil, domain.FieldErrorf("definition", "the Synapse forms the episodes of %q as memories are stored: there is nothing to chunk", def.Name)
	}
	var items []episodes.Item
	if def.Strategy.OverAgents() {
		as, err := c.agentStore()
		if err != nil {
			return nil, err
		}
		sessions, err := as.ScopeAgentSessions(ctx, scopeID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(sessions))
		byID := make(map[string]*domain.AgentSession, len(sessions))
		for i, s := range sessions {
			ids[i] = s.ID
			byID[s.ID] = s
		}
		msgs, err := as.SessionMessages(ctx, ids)
		if err != nil {
			return nil, err
		}
		turns, err := as.SessionTurns(ctx, ids)
		if err != nil {
			return nil, err
		}
		items = episodes.MessageItems(msgs, turns, byID)
	} else {
		evs, err := es.LedgerEvents(ctx, scopeID)
		if err != nil {
			return nil, err
		}
		items = episodes.EventItems(evs)
	}
	tc, err := c.open(m)
	if err != nil {
		return nil, err
	}
	eps, err := episodes.Chunk(def, items, tc.Timestamp)
	if err != nil {
		return nil, err
	}
	old, err := es.Episodes(ctx, scopeID, domain.EpisodeFilter{DefinitionID: def.ID, WithItems: true})
	if err != nil {
		return nil, err
	}
	oldByID := make(map[string]*domain.Episode, len(old))
	for _, e := range old {
		oldByID[e.ID] = e
	}
	made := map[string]bool{}
	var changed []*domain.Episode
	for _, e := range eps {
		made[e.ID] = true
		if o, ok := oldByID[e.ID]; ok && sameEpisode(o, e) {
			continue // idempotent: an unchanged episode is not written again
		}
		if o, ok := oldByID[e.ID]; ok {
			e.CreatedAt = o.CreatedAt
		}
		changed = append(changed, e)
	}
	var removed []string
	for _, e := range old {
		if !made[e.ID] {
			removed = append(removed, e.ID)
		}
	}
	res := &ChunkResult{Definition: def, Episodes: len(eps), Removed: len(removed), Items: len(items)}
	// Writes of at most MaxImportRecords items each.
	var batches []*domain.IngestBatch
	cur, n := &domain.IngestBatch{RemoveEpisodes: removed}, 0
	for _, e := range changed {
		if n > 0 && n+len(e.Items) > domain.MaxImportRecords*4 {
			batches = append(batches, cur)
			cur, n = &domain.IngestBatch{}, 0
		}
		cur.Episodes = append(cur.Episodes, e)
		n += len(e.Items) + 1
	}
	if !cur.Empty() {
		batches = append(batches, cur)
	}
	for i, b := range batches {
		btc := tc
		if i > 0 {
			if btc, err = c.open(m); err != nil {
				return nil, err
			}
		}
		cmd := command(domain.MsgChunkCommand, scopeID, "", btc, domain.CtxHippocampus, map[string]any{"definition": def.Name})
		payload := map[string]any{"definitionId": def.ID, "definition": def.Name, "episodes": len(b.Episodes), "removed": len(b.RemoveEpisodes)}
		if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) {
			return []*domain.Event{cmd, {Type: domain.EvEpisodesChunked, ScopeID: scopeID,
				Context: btc.Derive(domain.CtxHippocampus, btc.Timestamp), Payload: payload}}, nil
		}); err != nil {
			return nil, err
		}
		c.log.Kick()
	}
	return res, nil
}

func sameEpisode(a, b *domain.Episode) bool {
	if len(a.Items) != len(b.Items) || a.ThreadID != b.ThreadID || !a.StartTime.Equal(b.StartTime) || !a.EndTime.Equal(b.EndTime) ||
		a.EventCount != b.EventCount || a.FirstEventID != b.FirstEventID || a.LastEventID != b.LastEventID || a.Channel != b.Channel {
		return false
	}
	for i := range a.Items {
		if a.Items[i] != b.Items[i] {
			return false
		}
	}
	return true
}

// EpisodeDefinitions lists a scope's definitions. Errors: INVALID_ARGUMENT.
func (c *Cortex) EpisodeDefinitions(ctx context.Context, scopeID string) ([]*domain.EpisodeDefinition, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	return es.EpisodeDefinitions(ctx, scopeID)
}

// Episodes lists a scope's episodes. Errors: INVALID_ARGUMENT.
func (c *Cortex) Episodes(ctx context.Context, scopeID string, f domain.EpisodeFilter) ([]*domain.Episode, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	for field, id := range map[string]string{"definitionId": f.DefinitionID, "threadId": f.ThreadID, "memoryId": f.MemoryID} {
		if id != "" {
			if err := domain.CheckID(field, id); err != nil {
				return nil, err
			}
		}
	}
	if f.First < 0 || f.First > 10000 {
		return nil, domain.FieldErrorf("first", "must be within 1..10000")
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	return es.Episodes(ctx, scopeID, f)
}

// Episode loads an episode with its items. Errors: INVALID_ARGUMENT, NOT_FOUND.
func (c *Cortex) Episode(ctx context.Context, id string) (*domain.Episode, error) {
	if err := domain.CheckID("id", id); err != nil {
		return nil, err
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	e, err := es.Episode(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := reach(ctx, e.ScopeID, false, notFoundf("episode %s not found", id)); err != nil {
		return nil, err
	}
	return e, nil
}

// ---- Analysis ----

// AnalyzeInput asks for an analysis of episodes.
type AnalyzeInput struct {
	ScopeID string
	// Type names the analysis: a built-in ("persons", "entities", "topics", "file_references",
	// "dates") or "llm" when a chat model is configured.
	Type string
	// EpisodeIDs to analyse; empty means every episode of DefinitionID, or of the scope.
	EpisodeIDs   []string
	DefinitionID string
	// Force re-runs completed runs.
	Force bool
	// Async records the runs as pending and returns at once; the analysis worker runs them.
	Async bool
	Meta
}

// RunResult is an analysis run with the number of facets it produced.
type RunResult struct {
	*domain.AnalysisRun
	FacetCount int
}

// AnalysisNames lists the analyses this Cortex can run.
func (c *Cortex) AnalysisNames() []string {
	out := make([]string, 0, len(c.mnemonic.analysers))
	for n := range c.mnemonic.analysers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Analyze runs an analysis on episodes: one run per episode, unique per (type, episode), moving
// from pending to running to completed or failed; a completed run is not repeated unless
// forced, and a run already waiting or running in this Cortex is not started a second time
// (it is returned as it stands). Facets of a re-run replace the run's earlier ones.
//
// Without Async the runs are executed before Analyze returns, as completed or failed. With
// Async they are recorded as pending and returned at once; the Cortex's analysis worker then
// runs them in the background, and each ends with an AnalysisRunCompleted or AnalysisRunFailed
// event caused by the request's AnalyzeCommand. Errors: INVALID_ARGUMENT, NOT_FOUND; bad input
// writes nothing.
func (c *Cortex) Analyze(ctx context.Context, in AnalyzeInput) ([]*RunResult, error) {
	if err := domain.CheckID("scopeId", in.ScopeID); err != nil {
		return nil, err
	}
	if err := mayWrite(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	a, ok := c.mnemonic.analysers[in.Type]
	if !ok {
		return nil, domain.FieldErrorf("type", "unknown analysis %q (known: %s)", in.Type, strings.Join(c.AnalysisNames(), ", "))
	}
	for _, id := range in.EpisodeIDs {
		if err := domain.CheckID("episodeIds", id); err != nil {
			return nil, err
		}
	}
	if in.DefinitionID != "" {
		if err := domain.CheckID("definitionId", in.DefinitionID); err != nil {
			return nil, err
		}
	}
	es, err := c.episodeStore()
	if err != nil {
		return nil, err
	}
	fs, err := c.facetStore()
	if err != nil {
		return nil, err
	}
	is, err := c.ingestStore()
	if err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, in.ScopeID); err != nil {
		return nil, err
	}
	eps, err := es.Episodes(ctx, in.ScopeID, domain.EpisodeFilter{DefinitionID: in.DefinitionID, IDs: in.EpisodeIDs, WithItems: true})
	if err != nil {
		return nil, err
	}
	if len(in.EpisodeIDs) > 0 && len(eps) != len(uniq(in.EpisodeIDs)) {
		return nil, domain.Errorf(domain.ENOTFOUND, "%d of the episodes asked for are not episodes of this scope", len(uniq(in.EpisodeIDs))-len(eps))
	}
	tc, err := c.open(in.Meta)
	if err != nil {
		return nil, err
	}
	now := tc.Timestamp
	desc := a.Type()
	at := &domain.AnalysisType{ID: domain.DeriveID(in.ScopeID, "analysis-type", desc.Name), ScopeID: in.ScopeID, Name: desc.Name,
		Version: desc.Version, OutputType: desc.OutputType, FacetsConfig: desc.FacetsConfig, PromptTemplate: desc.PromptTemplate,
		Model: desc.Model, CreatedAt: now, UpdatedAt: now}
	prior, err := fs.AnalysisRuns(ctx, in.ScopeID, domain.RunFilter{TypeID: at.ID})
	if err != nil {
		return nil, err
	}
	priorBy := map[string]*domain.AnalysisRun{}
	for _, r := range prior {
		priorBy[r.EpisodeID] = r
	}
	w := c.mnemonic.worker
	var tasks []*runTask
	var out []*RunResult
	for _, e := range eps {
		p := priorBy[e.ID]
		if p != nil && p.Status == domain.RunCompleted && !in.Force {
			out = append(out, &RunResult{AnalysisRun: p})
			continue
		}
		id := domain.DeriveID(in.ScopeID, "analysis-run", at.ID, e.ID)
		if !w.claim(id) {
			// Waiting or running in this Cortex already (an earlier request): not run twice.
			if p == nil {
				p = &domain.AnalysisRun{ID: id, ScopeID: in.ScopeID, TypeID: at.ID, TypeName: at.Name, EpisodeID: e.ID,
					Status: domain.RunPending, CreatedAt: now}
			}
			out = append(out, &RunResult{AnalysisRun: p})
			continue
		}
		run := &domain.AnalysisRun{ID: id, ScopeID: in.ScopeID, TypeID: at.ID, TypeName: at.Name, EpisodeID: e.ID,
			Status: domain.RunPending, CreatedAt: now, RequestID: tc.RequestID, SessionID: tc.SessionID, CommandID: tc.MessageID}
		if p != nil {
			run.CreatedAt = p.CreatedAt
		}
		if !in.Async {
			started := c.now().UTC()
			run.Status, run.StartedAt = domain.RunRunning, &started
		}
		tasks = append(tasks, &runTask{run: run, ep: e, tc: tc})
	}
	if len(tasks) == 0 {
		return out, nil
	}
	handed := false
	defer func() {
		if !handed {
			w.release(tasks)
		}
	}()
	// The runs are recorded, pending or running, before any analysis starts.
	cmd := command(domain.MsgAnalyzeCommand, in.ScopeID, "", tc, domain.CtxHippocampus,
		map[string]any{"type": at.Name, "episodes": len(tasks), "async": in.Async})
	for start := 0; start < len(tasks); start += domain.MaxImportRecords {
		b := &domain.IngestBatch{AnalysisTypes: []*domain.AnalysisType{at}}
		for _, t := range tasks[start:min(len(tasks), start+domain.MaxImportRecords)] {
			b.Runs = append(b.Runs, t.run)
		}
		first := start == 0
		if _, err := is.Ingest(ctx, domain.Request{}, in.ScopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) {
			if first {
				return []*domain.Event{cmd}, nil
			}
			return nil, nil
		}); err != nil {
			return nil, err
		}
	}
	c.log.Kick()
	if in.Async {
		for _, t := range tasks {
			cp := *t.run
			out = append(out, &RunResult{AnalysisRun: &cp})
		}
		w.enqueue(tasks)
		handed = true
		return out, nil
	}
	done, err := c.executeRuns(ctx, a, in.ScopeID, tasks)
	if err != nil {
		return nil, err
	}
	return append(out, done...), nil
}

func uniq(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// analysisInputs loads the transcripts of episodes: their memories, or their agent messages.
func (c *Cortex) analysisInputs(ctx context.Context, eps []*domain.Episode) ([]*analysis.Input, error) {
	var ids []string
	for _, e := range eps {
		ids = append(ids, e.Items...)
	}
	entries := map[string]analysis.Entry{}
	ms, err := c.store.Memories(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		entries[m.ID] = analysis.TranscriptEntry(m)
	}
	if len(ms) < len(ids) {
		if as, ok := c.store.(domain.AgentStore); ok {
			msgs, err := as.AgentMessages(ctx, ids)
			if err != nil {
				return nil, err
			}
			for _, m := range msgs {
				e := analysis.Entry{MemoryID: "", Speaker: m.Role, Text: m.Content}
				if m.Timestamp != nil {
					e.Time = *m.Timestamp
				}
				entries[m.ID] = e
			}
		}
	}
	out := make([]*analysis.Input, len(eps))
	for i, e := range eps {
		in := &analysis.Input{Episode: e}
		for _, id := range e.Items {
			if en, ok := entries[id]; ok {
				in.Entries = append(in.Entries, en)
			}
		}
		out[i] = in
	}
	return out, nil
}

// AnalysisRuns lists a scope's runs. Errors: INVALID_ARGUMENT.
func (c *Cortex) AnalysisRuns(ctx context.Context, scopeID string, f domain.RunFilter) ([]*domain.AnalysisRun, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	if f.EpisodeID != "" {
		if err := domain.CheckID("episodeId", f.EpisodeID); err != nil {
			return nil, err
		}
	}
	if f.Status != "" && !f.Status.Valid() {
		return nil, domain.FieldErrorf("status", "unknown status %q", f.Status)
	}
	fs, err := c.facetStore()
	if err != nil {
		return nil, err
	}
	return fs.AnalysisRuns(ctx, scopeID, f)
}

// AnalysisTypes lists a scope's analysis types. Errors: INVALID_ARGUMENT.
func (c *Cortex) AnalysisTypes(ctx context.Context, scopeID string) ([]*domain.AnalysisType, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	fs, err := c.facetStore()
	if err != nil {
		return nil, err
	}
	return fs.AnalysisTypes(ctx, scopeID)
}

// Facets lists a scope's facets. Errors: INVALID_ARGUMENT.
func (c *Cortex) Facets(ctx context.Context, scopeID string, f domain.FacetFilter) ([]*domain.Facet, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	for field, id := range map[string]string{"episodeId": f.EpisodeID, "runId": f.RunID, "memoryId": f.MemoryID} {
		if id != "" {
			if err := domain.CheckID(field, id); err != nil {
				return nil, err
			}
		}
	}
	for field, v := range map[string]string{"type": f.Type, "value": f.Value} {
		if len(v) > domain.MaxFacetValue {
			return nil, domain.FieldErrorf(field, "is longer than %d bytes", domain.MaxFacetValue)
		}
		if err := hippocampus.CheckText(field, v); err != nil {
			return nil, err
		}
	}
	if f.First < 0 || f.First > 10000 {
		return nil, domain.FieldErrorf("first", "must be within 1..10000")
	}
	fs, err := c.facetStore()
	if err != nil {
		return nil, err
	}
	return fs.Facets(ctx, scopeID, f)
}

// ---- Agents ledger ----

// AgentSessions lists a scope's agent sessions. Errors: INVALID_ARGUMENT.
func (c *Cortex) AgentSessions(ctx context.Context, scopeID string) ([]*domain.AgentSession, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return nil, err
	}
	if err := mayRead(ctx, scopeID); err != nil {
		return nil, err
	}
	as, err := c.agentStore()
	if err != nil {
		return nil, err
	}
	return as.ScopeAgentSessions(ctx, scopeID)
}

// AgentMessages loads agent messages, in session and sequence order.
func (c *Cortex) AgentMessages(ctx context.Context, ids []string) ([]*domain.AgentMessage, error) {
	as, err := c.agentStore()
	if err != nil {
		return nil, err
	}
	ms, err := as.AgentMessages(ctx, ids)
	if err != nil {
		return nil, err
	}
	return visible(ctx, ms, func(m *domain.AgentMessage) string { return m.ScopeID }), nil
}

// EpisodeMemories loads the memories an episode groups, in the episode's order (without
// recording a retrieval: it is a listing).
func (c *Cortex) EpisodeMemories(ctx context.Context, e *domain.Episode) ([]*domain.Memory, error) {
	ms, err := c.store.Memories(ctx, e.Items)
	if err != nil {
		return nil, err
	}
	return visible(ctx, ms, memoryScope), nil
}

// ---- Embeddings ----

// EmbedBatch is how many memories are embedded per request and written per write.
const EmbedBatch = 256

// EmbedMemories gives every memory of the scope that has no vector one, with the configured
// embedder; search over the scope is hybrid from then on. It returns how many memories it
// embedded. Errors: INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE (no embedder, or the model server).
func (c *Cortex) EmbedMemories(ctx context.Context, scopeID string, m Meta) (int, error) {
	if err := domain.CheckID("scopeId", scopeID); err != nil {
		return 0, err
	}
	if err := mayWrite(ctx, scopeID); err != nil {
		return 0, err
	}
	emb := c.mnemonic.cfg.Embedder
	if emb == nil {
		return 0, domain.Errorf(domain.EUNAVAILABLE, "no embedding model is configured")
	}
	vs, ok := c.store.(domain.VectorStore)
	if !ok {
		return 0, domain.Errorf(domain.EUNAVAILABLE, "this store keeps no vectors")
	}
	is, err := c.ingestStore()
	if err != nil {
		return 0, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return 0, err
	}
	c.mnemonic.embedMu.Lock()
	defer c.mnemonic.embedMu.Unlock()
	total := 0
	for {
		ms, err := vs.MissingEmbeddings(ctx, scopeID, EmbedBatch)
		if err != nil {
			return total, err
		}
		if len(ms) == 0 {
			return total, nil
		}
		n, err := c.embed(ctx, is, scopeID, ms, m)
		if err != nil {
			return total, err
		}
		total += n
		if len(ms) < EmbedBatch {
			return total, nil
		}
	}
}

// embed makes and writes the vectors of ms.
func (c *Cortex) embed(ctx context.Context, is domain.IngestStore, scopeID string, ms []*domain.Memory, m Meta) (int, error) {
	emb := c.mnemonic.cfg.Embedder
	texts := make([]string, len(ms))
	for i, mem := range ms {
		texts[i] = mem.Content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(ms) {
		return 0, domain.Errorf(domain.EUNAVAILABLE, "the embedder returned %d vectors for %d texts", len(vecs), len(ms))
	}
	tc, err := c.open(m)
	if err != nil {
		return 0, err
	}
	b := &domain.IngestBatch{}
	dims := 0
	for i, mem := range ms {
		if len(vecs[i]) == 0 {
			return 0, domain.Errorf(domain.EUNAVAILABLE, "the embedder returned an empty vector")
		}
		dims = len(vecs[i])
		b.Embeddings = append(b.Embeddings, &domain.Embedding{ScopeID: scopeID, MemoryID: mem.ID, Vector: vecs[i], CreatedAt: tc.Timestamp})
	}
	cmd := command(domain.MsgEmbedCommand, scopeID, "", tc, domain.CtxHippocampus, map[string]any{"model": emb.Model(), "memories": len(ms)})
	if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) {
		return []*domain.Event{cmd, {Type: domain.EvMemoriesEmbedded, ScopeID: scopeID, Context: tc.Derive(domain.CtxHippocampus, tc.Timestamp),
			Payload: map[string]any{"model": emb.Model(), "dimensions": dims, "count": len(ms)}}}, nil
	}); err != nil {
		return 0, err
	}
	c.log.Kick()
	return len(ms), nil
}

// synapseFormed reports whether name is a definition the Synapse forms its episodes by.
func synapseFormed(name string) bool {
	return name == SynapseSessionDefinition || name == SynapseTimeGapDefinition
}

// memoriesOf returns the memories of ledger events.
func memoriesOf(evs []*domain.LedgerEvent) []*domain.Memory {
	out := make([]*domain.Memory, len(evs))
	for i, e := range evs {
		out[i] = e.Memory
	}
	return out
}

// connectivity sums the strengths of associations by the memory at either end; a pair named
// twice is one edge, with the strength written last.
func connectivity(as []*domain.Association) map[string]float64 {
	edges := map[[3]string]float64{}
	for _, a := range as {
		edges[pairKey(a.SourceID, a.TargetID, a.Type)] = a.Strength
	}
	out := map[string]float64{}
	for _, a := range as { // in the batch's order: the sums do not depend on a map's
		k := pairKey(a.SourceID, a.TargetID, a.Type)
		if st, ok := edges[k]; ok {
			out[k[0]] += st
			out[k[1]] += st
			delete(edges, k)
		}
	}
	return out
}
