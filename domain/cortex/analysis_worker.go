package cortex

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/analysis"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// The analysis worker: runs of an asynchronous Analyze wait in the graph as PENDING; the worker
// takes them in order, a group at a time, re-reads each (a run completed, failed or removed
// since — by an import, a re-chunking, a scope deletion or another server — is left alone),
// marks the group RUNNING, analyses and records each run COMPLETED or FAILED with its facets
// and its event. On start it takes up the runs a stopped or crashed server left PENDING or
// RUNNING. Cortex.Close stops it between two analyses: the runs it had not finished stay
// PENDING or RUNNING in the graph and are taken up on the next start.
//
// Within one Cortex a run is claimed while it waits or runs, so no two requests execute it at
// once. Servers sharing a cluster do not claim across processes: two of them may execute the
// same run, which is harmless — the run's id and its facets' ids derive from the analysis type
// and the episode, so the second execution writes the same records again.

// runTask is a run to execute: the run as recorded, its episode (loaded when the run is taken
// up) and the TransactionContext of the AnalyzeCommand its events follow from.
type runTask struct {
	run *domain.AnalysisRun
	ep  *domain.Episode
	tc  domain.TransactionContext
}

// analysisWorker holds the queue of pending runs and the claims of this Cortex.
type analysisWorker struct {
	mu      sync.Mutex
	claimed map[string]bool
	queue   []*runTask
	wake    chan struct{}
}

// workerGroup is how many runs the worker marks running, and records, together.
const workerGroup = 50

func newAnalysisWorker() *analysisWorker {
	return &analysisWorker{claimed: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// claim reserves a run for one execution; false when it waits or runs already.
func (w *analysisWorker) claim(runID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.claimed[runID] {
		return false
	}
	w.claimed[runID] = true
	return true
}

func (w *analysisWorker) release(tasks []*runTask) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, t := range tasks {
		delete(w.claimed, t.run.ID)
	}
}

// enqueue hands claimed runs to the worker.
func (w *analysisWorker) enqueue(tasks []*runTask) {
	if len(tasks) == 0 {
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, tasks...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// next takes up to n queued runs of the first queued run's scope and analysis, in order.
func (w *analysisWorker) next(n int) []*runTask {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return nil
	}
	scope, typ := w.queue[0].run.ScopeID, w.queue[0].run.TypeName
	var out []*runTask
	rest := w.queue[:0]
	for _, t := range w.queue {
		if len(out) < n && t.run.ScopeID == scope && t.run.TypeName == typ {
			out = append(out, t)
		} else {
			rest = append(rest, t)
		}
	}
	for i := len(rest); i < len(w.queue); i++ {
		w.queue[i] = nil
	}
	w.queue = rest
	return out
}

// startAnalysisWorker starts the worker on the Cortex's background context: it ends when Close
// cancels that context, and Close waits for it.
func (c *Cortex) startAnalysisWorker(ctx context.Context) {
	if _, err := c.facetStore(); err != nil {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.runAnalysisWorker(ctx)
	}()
}

func (c *Cortex) runAnalysisWorker(ctx context.Context) {
	w := c.mnemonic.worker
	if err := c.resumeRuns(ctx); err != nil && ctx.Err() == nil {
		c.logger.Error("analysis worker: reading the runs left pending failed; they wait for the next start or a new request", "err", err)
	}
	for {
		tasks := w.next(workerGroup)
		if len(tasks) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-w.wake:
				continue
			}
		}
		err := c.processRuns(ctx, tasks)
		w.release(tasks)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			// The runs stay as the graph has them; a new request for them, or the next start,
			// takes them up again.
			c.logger.Error("analysis worker: runs not executed", "scope", tasks[0].run.ScopeID, "type", tasks[0].run.TypeName,
				"runs", len(tasks), "err", err)
		}
	}
}

// resumeRuns queues the runs of every scope that are pending, or running with no one to finish
// them (a server stopped or crashed while they ran), oldest first. It reads them by their
// status, a page at a time: a start costs the runs left unfinished, not the size of the graph.
func (c *Cortex) resumeRuns(ctx context.Context) error {
	fs, err := c.facetStore()
	if err != nil {
		return err
	}
	var runs []*domain.AnalysisRun
	for cursor := ""; ; {
		page, next, err := fs.UnfinishedRuns(ctx, cursor, resumePage)
		if err != nil {
			return err
		}
		runs = append(runs, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.Before(runs[j].CreatedAt)
		}
		return runs[i].ID < runs[j].ID
	})
	w := c.mnemonic.worker
	var tasks []*runTask
	scopes := map[string]bool{}
	for _, r := range runs {
		if !w.claim(r.ID) {
			continue
		}
		tc, err := c.runContext(r)
		if err != nil {
			w.release(append(tasks, &runTask{run: r}))
			return err
		}
		tasks = append(tasks, &runTask{run: r, tc: tc})
		scopes[r.ScopeID] = true
	}
	if len(tasks) > 0 {
		c.logger.Info("analysis worker: taking up runs left pending", "runs", len(tasks), "scopes", len(scopes))
	}
	w.enqueue(tasks)
	return nil
}

// resumePage is how many unfinished runs resumeRuns reads at a time.
const resumePage = 5000

// runContext is the TransactionContext of the AnalyzeCommand a recorded run follows from; a run
// recorded without one (by an older server) gets a request of its own.
func (c *Cortex) runContext(r *domain.AnalysisRun) (domain.TransactionContext, error) {
	if r.RequestID == "" || r.SessionID == "" || r.CommandID == "" {
		return c.open(Meta{})
	}
	return domain.TransactionContext{SessionID: r.SessionID, RequestID: r.RequestID, MessageID: r.CommandID,
		CausationID: r.RequestID, Timestamp: c.now().UTC(), SourceContext: domain.CtxCortex}, nil
}

// processRuns executes claimed runs of one scope and analysis: those still waiting are marked
// running, then executed and recorded.
func (c *Cortex) processRuns(ctx context.Context, tasks []*runTask) error {
	fs, err := c.facetStore()
	if err != nil {
		return err
	}
	es, err := c.episodeStore()
	if err != nil {
		return err
	}
	is, err := c.ingestStore()
	if err != nil {
		return err
	}
	scopeID, typeName := tasks[0].run.ScopeID, tasks[0].run.TypeName
	// What the graph holds now: a run completed, failed or removed since it was queued is done.
	var live []*runTask
	var epIDs []string
	for _, t := range tasks {
		cur, err := fs.AnalysisRuns(ctx, scopeID, domain.RunFilter{EpisodeID: t.run.EpisodeID, TypeID: t.run.TypeID})
		if err != nil {
			return err
		}
		if len(cur) != 1 || cur[0].ID != t.run.ID || (cur[0].Status != domain.RunPending && cur[0].Status != domain.RunRunning) {
			continue
		}
		live = append(live, &runTask{run: cur[0], tc: t.tc})
		epIDs = append(epIDs, t.run.EpisodeID)
	}
	if len(live) == 0 {
		return nil
	}
	eps, err := es.Episodes(ctx, scopeID, domain.EpisodeFilter{IDs: epIDs, WithItems: true})
	if err != nil {
		return err
	}
	byID := map[string]*domain.Episode{}
	for _, e := range eps {
		byID[e.ID] = e
	}
	kept := live[:0]
	for _, t := range live {
		if t.ep = byID[t.run.EpisodeID]; t.ep != nil {
			kept = append(kept, t)
		}
	}
	live = kept
	if len(live) == 0 {
		return nil
	}
	a, ok := c.mnemonic.analysers[typeName]
	if !ok {
		// Asked for on a server that had the analysis (an llm run, say, left pending by a server
		// with a chat model): it fails, and says why; asking again re-runs it.
		return c.failRuns(ctx, is, scopeID, live, domain.Errorf(domain.EUNAVAILABLE,
			"analysis %q is not available on this server (known: %s)", typeName, strings.Join(c.AnalysisNames(), ", ")))
	}
	b := &domain.IngestBatch{}
	for _, t := range live {
		started := c.now().UTC()
		t.run.Status, t.run.StartedAt, t.run.CompletedAt, t.run.ErrorMessage, t.run.OutputText = domain.RunRunning, &started, nil, "", ""
		b.Runs = append(b.Runs, t.run)
	}
	if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, nil); err != nil {
		return err
	}
	_, err = c.executeRuns(ctx, a, scopeID, live)
	return err
}

// failRuns records runs as failed with err.
func (c *Cortex) failRuns(ctx context.Context, is domain.IngestStore, scopeID string, tasks []*runTask, err error) error {
	b := &domain.IngestBatch{}
	var evs []*domain.Event
	for _, t := range tasks {
		done := c.now().UTC()
		t.run.Status, t.run.CompletedAt, t.run.ErrorMessage = domain.RunFailed, &done, domain.ErrorMessage(err)
		b.Runs = append(b.Runs, t.run)
		evs = append(evs, runFailedEvent(scopeID, t.run, t.tc, done))
	}
	if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) { return evs, nil }); err != nil {
		return err
	}
	c.log.Kick()
	return nil
}

func runFailedEvent(scopeID string, run *domain.AnalysisRun, tc domain.TransactionContext, done time.Time) *domain.Event {
	return &domain.Event{Type: domain.EvAnalysisRunFailed, ScopeID: scopeID, Context: tc.Derive(domain.CtxHippocampus, done),
		Payload: map[string]any{"runId": run.ID, "type": run.TypeName, "episodeId": run.EpisodeID, "error": run.ErrorMessage}}
}

// finishRun records the outcome of one analysis of run's episode, finished at done: the run
// COMPLETED with the facets of its valid findings, or FAILED with the error; and the event that
// announces it. Both the synchronous path (Analyze while chunking) and the worker use it.
func finishRun(scopeID string, run *domain.AnalysisRun, res *analysis.Output, aerr error, tc domain.TransactionContext, done time.Time) ([]*domain.Facet, *domain.Event) {
	run.CompletedAt = &done
	if aerr != nil {
		run.Status, run.ErrorMessage = domain.RunFailed, domain.ErrorMessage(aerr)
		if domain.ErrorCode(aerr) == domain.EINTERNAL {
			run.ErrorMessage = aerr.Error()
		}
		return nil, runFailedEvent(scopeID, run, tc, done)
	}
	run.Status, run.OutputText = domain.RunCompleted, res.Text
	var facets []*domain.Facet
	for _, f := range res.Findings {
		if strings.TrimSpace(f.Value) == "" || hippocampus.CheckText("value", f.Value) != nil {
			continue
		}
		facets = append(facets, &domain.Facet{ID: domain.DeriveID(scopeID, "facet", run.ID, f.Type, f.Value), ScopeID: scopeID,
			RunID: run.ID, EpisodeID: run.EpisodeID, MemoryID: f.MemoryID, Type: f.Type, Value: f.Value, Confidence: f.Confidence,
			Metadata: f.Metadata, CreatedAt: done})
	}
	return facets, &domain.Event{Type: domain.EvAnalysisRunCompleted, ScopeID: scopeID, Context: tc.Derive(domain.CtxHippocampus, done),
		Payload: map[string]any{"runId": run.ID, "type": run.TypeName, "episodeId": run.EpisodeID, "facets": len(facets)}}
}

// executeRuns analyses the episodes of runs recorded as running, in groups; each group's runs,
// facets and events are written together. When ctx ends (the request is cancelled or the
// Cortex closes) it stops and returns ctx's error: the runs not yet recorded stay running in
// the graph and are taken up again on the next start.
func (c *Cortex) executeRuns(ctx context.Context, a analysis.Analyser, scopeID string, tasks []*runTask) ([]*RunResult, error) {
	is, err := c.ingestStore()
	if err != nil {
		return nil, err
	}
	var out []*RunResult
	for start := 0; start < len(tasks); start += workerGroup {
		part := tasks[start:min(len(tasks), start+workerGroup)]
		eps := make([]*domain.Episode, len(part))
		for i, t := range part {
			eps[i] = t.ep
		}
		inputs, err := c.analysisInputs(ctx, eps)
		if err != nil {
			return nil, err
		}
		b := &domain.IngestBatch{}
		var evs []*domain.Event
		for i, t := range part {
			run := t.run
			res, aerr := a.Analyse(ctx, inputs[i])
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			facets, ev := finishRun(scopeID, run, res, aerr, t.tc, c.now().UTC())
			b.Facets = append(b.Facets, facets...)
			evs = append(evs, ev)
			rr := &RunResult{AnalysisRun: run, FacetCount: len(facets)}
			b.Runs = append(b.Runs, run)
			out = append(out, rr)
		}
		if _, err := is.Ingest(ctx, domain.Request{}, scopeID, b, func(*domain.IngestWritten) ([]*domain.Event, error) { return evs, nil }); err != nil {
			return nil, err
		}
		c.log.Kick()
	}
	return out, nil
}
