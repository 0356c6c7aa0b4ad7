package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/recall"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/lexicon"
	"github.com/totalrecall/totalrecall/search"
)

// scaleFigures are the measurements at one size of the corpus, each with its raw baseline.
type scaleFigures struct {
	Size int
	// The load up to this size: LoCoMo-like conversations through importData over HTTP.
	LoadTurns   int
	LoadRate    float64       // turns/s
	LoadCPU     time.Duration // the server's CPU per turn, until it idled
	LoadSettled time.Duration // from the last import's answer until the server idled
	// The server's resident memory: peak while loading, measuring and restarting; settled after
	// the load; after a restart once its read cache was warm.
	PeakLoad, PeakMeasure, PeakRestart procMemory
	// PeakSweep and PeakDigest are the peaks of those two calls alone (part of PeakMeasure).
	PeakSweep, PeakDigest procMemory
	Settled, Restarted    procMemory
	DiskGraph, DiskIndex  int64
	TextBytes             int64 // the memories' content alone
	Ready                 time.Duration
	WarmTook              string
	Stores                float64 // storeMemory over HTTP, one client, /s
	// StoresSettled is how long the server worked on after the stores (the Synapse, the index)
	// before it idled: the searches are timed after it.
	StoresSettled time.Duration
	// Clients and StoresConcurrent are the same number of storeMemory calls again from Clients
	// clients at once (/s).
	Clients              int
	StoresConcurrent     float64
	SearchP50, SearchP99 time.Duration
	// SearchCPU and SearchWrites are the server's CPU time and the bytes it wrote to disk per
	// search, over every search of the phase until the server idled after them: the retrievals'
	// writes and the compactions they set off included. SearchSettled is that idle wait.
	SearchCPU                time.Duration
	SearchWrites             int64
	SearchSettled            time.Duration
	ResonateP50, ResonateP99 time.Duration
	RecallP50, RecallP99     time.Duration
	SweepRate                float64 // memories/s
	SweepEvaluated           int
	DigestRate               float64 // artifacts/s
	DigestEvaluated          int
	Stopped                  string // how the server ended on SIGTERM
	Raw                      rawScale
	sources                  []string // the total recalls' sources, for the raw traversals
}

// rawScale are the raw baselines of one size, measured by a process of their own on the same data
// folder while the server is stopped.
type rawScale struct {
	Open                   time.Duration // the engine and the Bleve index opened, nothing else
	SearchP50, SearchP99   time.Duration // raw Bleve top-10 of the same queries
	IndexP50, IndexP99     time.Duration // the index's query alone, as resonate asks it
	RecurseP50, RecurseP99 time.Duration // raw DQL @recurse depth 3 from the same sources
	RecurseNodes           int
	// searchMemory's ranking run in this process with the server's read cache, today's and the
	// previous method's (eval's), alternating on the same queries.
	RankP50, RankP99, PrevP50, PrevP99 time.Duration
	SweepRate                          float64 // the sweep's reads alone, memories/s
	DigestRate                         float64 // the digest's refgraph reads alone, nodes/s
	Commits                            float64 // raw single-mutation commits/s
	EngineBulk                         float64 // bare memory nodes, 1,000 per commit, /s
	Peak                               procMemory
}

// rawJob is what the raw process measures.
type rawJob struct {
	Dir, Scope, Limit string
	Queries, Messages []string
	Sources           []string
	// Rank: time the rankings in process (rankScale) instead of the raw baselines.
	Rank bool
}

// benchScale loads a LoCoMo-like corpus into a server run as a process of its own and measures
// it at each size asked for, each figure beside a raw baseline measured on the same data.
func benchScale(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench scale", flag.ContinueOnError)
	n := fs.Int("n", 1000000, "memories to load (one scope)")
	at := fs.String("at", "100000", "also measure at these sizes (comma separated)")
	limit := fs.String("memory-limit", "1GiB", "the server's --memory-limit")
	data := fs.String("data", "", "data folder (default: a temp folder, removed at the end)")
	locomo := fs.String("locomo", "../shared/data/locomo", "LoCoMo conversations to draw the vocabulary from")
	turnsPer := fs.Int("turns", 500, "turns per conversation")
	queries := fs.Int("queries", 1000, "timed searches per size")
	warmup := fs.Int("warmup", 200, "untimed searches before them")
	stores := fs.Int("stores", 1000, "storeMemory calls per size, from one client and again from -clients")
	clients := fs.Int("clients", 8, "concurrent clients of the second storeMemory measurement (1: none)")
	resonates := fs.Int("resonates", 100, "paced resonate calls per size")
	pace := fs.Duration("pace", 100*time.Millisecond, "the interval of the paced resonate calls")
	recalls := fs.Int("recalls", 100, "total recalls per size (advisory over HTTP → websocket notification)")
	rawChild := fs.String("raw-child", "", "(internal) measure the raw baselines of this job file")
	adminAddr := fs.String("admin-addr", "", "the server's --admin-addr: its /metrics and /debug/pprof while it is measured")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rawChild != "" {
		return rawScaleChild(*rawChild, stdout)
	}
	if _, err := parseSize(*limit); err != nil {
		return fmt.Errorf("-memory-limit: %v", err)
	}
	sizes := []int{*n}
	for _, s := range strings.Split(*at, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && v > 0 && v < *n {
			sizes = append(sizes, v)
		}
	}
	sort.Ints(sizes)
	dir, cleanup, err := benchDir(*data, "totalrecall-bench-scale-")
	if err != nil {
		return err
	}
	defer cleanup()
	v, vocabFrom := loadVocab(*locomo)
	host, _ := os.Hostname()
	fmt.Fprintf(stdout, "totalrecall bench scale — %s, %d cores, %s of memory, %s; serve --memory-limit %s; vocabulary: %s\n",
		host, runtimeCPUs(), formatSize(memTotal()), time.Now().UTC().Format("2006-01-02 15:04 MST"), *limit, vocabFrom)
	fmt.Fprintf(stdout, "data in %s; the server's log in %s\n\n", dir, filepath.Join(dir, "server.log"))
	logPath := filepath.Join(dir, "server.log")
	serverFlags := []string{"--decay-interval", "0", "--session-check", "0", "--recall-burst", "1000000", "--recall-refill", "1ns"}
	if *adminAddr != "" {
		serverFlags = append(serverFlags, "--admin-addr", *adminAddr)
	}
	srv, err := startServeProc(dir, *limit, logPath, serverFlags...)
	if err != nil {
		return err
	}
	defer func() {
		if srv != nil {
			srv.kill()
		}
	}()
	client := func(addr string) *benchClient {
		return &benchClient{url: "http://" + addr + "/query", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	}
	c := client(srv.addr)
	var sc struct{ CreateScope struct{ ID string } }
	if err := c.do(`mutation { createScope(name: "bench scale") { id } }`, nil, &sc); err != nil {
		return err
	}
	scope := sc.CreateScope.ID
	rng := rand.New(rand.NewPCG(5, 6))
	loaded, conv := 0, 0
	var textBytes int64
	var all []*scaleFigures
	for _, size := range sizes {
		f := &scaleFigures{Size: size}
		all = append(all, f)
		// --- load up to size ---
		srv.rss.Reset()
		cpu0, _ := procCPU(srv.cmd.Process.Pid)
		t0 := time.Now()
		from := loaded
		for loaded < size {
			k := min(*turnsPer, size-loaded)
			doc := conversation(v, conv, k)
			textBytes += int64(len(doc))
			var out struct{ ImportData struct{ Imported int } }
			if err := c.do(`mutation($s: ID!, $d: String!, $src: String!) { importData(scopeId: $s, format: LOCOMO, data: $d, source: $src) { imported } }`,
				map[string]any{"s": scope, "d": string(doc), "src": fmt.Sprintf("conv-%06d", conv)}, &out); err != nil {
				return fmt.Errorf("import of conversation %d (at %d memories): %w", conv, loaded, err)
			}
			loaded += k
			conv++
			if conv%20 == 0 {
				fmt.Fprintf(os.Stderr, "\rloaded %d of %d (%.0f/s, RssAnon %s)   ", loaded, size,
					float64(loaded-from)/time.Since(t0).Seconds(), formatSize(srv.rss.Now().Anon))
			}
		}
		fmt.Fprintln(os.Stderr)
		f.LoadTurns = loaded - from
		f.LoadRate = float64(f.LoadTurns) / time.Since(t0).Seconds()
		// The server warms its read cache again once the imports have been quiet a while
		// (rewarm): that is part of what the load set off, so it is waited for too.
		quiet := RewarmQuiet + 2*time.Second
		time.Sleep(quiet)
		f.LoadSettled = quiet + waitProcIdle(srv.cmd.Process.Pid, 15*time.Minute)
		cpu1, _ := procCPU(srv.cmd.Process.Pid)
		f.LoadCPU = (cpu1 - cpu0) / time.Duration(max(f.LoadTurns, 1))
		f.PeakLoad, f.Settled = srv.rss.Peak(), srv.rss.Now()
		f.TextBytes = textBytes
		if err := srv.alive(); err != nil {
			return err
		}
		// --- measure over HTTP ---
		srv.rss.Reset()
		settle := func() time.Duration { return waitProcIdle(srv.cmd.Process.Pid, 10*time.Minute) }
		if err := measureScale(c, srv.addr, scope, v, rng, f, srv.rss, settle, *stores, *clients, *warmup, *queries, *resonates, *recalls, *pace); err != nil {
			return err
		}
		f.PeakMeasure = maxMemory(f.PeakMeasure, srv.rss.Peak())
		if err := srv.alive(); err != nil {
			return err
		}
		job := rawJob{Dir: dir, Scope: scope, Limit: *limit, Sources: f.sources}
		for range *queries {
			job.Queries = append(job.Queries, v.query(rng))
		}
		for range *resonates {
			job.Messages = append(job.Messages, v.message(rng))
		}
		// --- stop, the raw baselines on the same folder, restart ---
		fmt.Fprintf(os.Stderr, "%s stop, raw baselines, restart at %d\n", time.Now().Format("15:04:05"), size)
		if err := srv.stop(); err != nil {
			f.Stopped = err.Error()
		} else {
			f.Stopped = "exited cleanly"
		}
		srv = nil
		f.DiskGraph, f.DiskIndex = diskUsage(filepath.Join(dir, "graph")), diskUsage(filepath.Join(dir, "index"))
		if f.Raw, err = runRawChild(dir, job); err != nil {
			return fmt.Errorf("raw baselines at %d: %w", size, err)
		}
		job.Rank = true
		rk, err := runRawChild(dir, job)
		if err != nil {
			return fmt.Errorf("the rankings in process at %d: %w", size, err)
		}
		f.Raw.RankP50, f.Raw.RankP99, f.Raw.PrevP50, f.Raw.PrevP99 = rk.RankP50, rk.RankP99, rk.PrevP50, rk.PrevP99
		if srv, err = startServeProc(dir, *limit, logPath, serverFlags...); err != nil {
			return fmt.Errorf("restart at %d: %w", size, err)
		}
		c = client(srv.addr)
		f.Ready = srv.ready
		for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
			// One warm-up a start: the first start's, and one after each size's restart.
			if strings.Count(readFile(logPath), "read cache warm") >= 1+len(all) {
				break
			}
		}
		f.WarmTook = warmTook(logPath)
		waitProcIdle(srv.cmd.Process.Pid, 5*time.Minute)
		f.PeakRestart, f.Restarted = srv.rss.Peak(), srv.rss.Now()
		printScale(stdout, all)
	}
	if err := srv.stop(); err != nil {
		fmt.Fprintf(stdout, "\nthe server's last stop: %v\n", err)
	}
	srv = nil
	return nil
}

// benchDir is the folder a bench works in: dir, made if missing and kept, or a temporary one
// (named from pattern) that cleanup removes.
func benchDir(dir, pattern string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	tmp, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

func readFile(path string) string {
	raw, _ := os.ReadFile(path)
	return string(raw)
}

// measureScale times the server's calls over HTTP at its current size. The searches are timed
// once settle has waited for the server to idle after the stores: what the stores set off (the
// Synapse's associations, the index's merges) is theirs, not the searches'.
// rss samples the server: the sweep's and the digest's own peaks are taken apart (f.PeakSweep,
// f.PeakDigest), and f.PeakMeasure holds the peak before them.
func measureScale(c *benchClient, addr, scope string, v *vocab, rng *rand.Rand, f *scaleFigures, rss *rssSampler, settle func() time.Duration,
	stores, clients, warmup, queries, resonates, recalls int, pace time.Duration) error {
	phase := func(name string) {
		fmt.Fprintf(os.Stderr, "%s %s at %d\n", time.Now().Format("15:04:05"), name, f.Size)
	}
	phase("storeMemory")
	t0 := time.Now()
	for range stores {
		if err := c.store(scope, v.sentence(rng)); err != nil {
			return err
		}
	}
	f.Stores = float64(stores) / time.Since(t0).Seconds()
	f.StoresSettled = settle()
	if clients > 1 {
		phase(fmt.Sprintf("storeMemory from %d clients", clients))
		texts := make([]string, stores)
		for i := range texts {
			texts[i] = v.sentence(rng)
		}
		t0 := time.Now()
		if err := concurrently(clients, len(texts), func(_, i int) error { return c.store(scope, texts[i]) }); err != nil {
			return err
		}
		f.Clients, f.StoresConcurrent = clients, float64(len(texts))/time.Since(t0).Seconds()
		settle()
	}
	search := func(q string) ([]string, error) {
		var out struct {
			SearchMemory []struct{ Memory struct{ ID string } }
		}
		err := c.do(`query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { score memory { id content } } }`,
			map[string]any{"s": scope, "q": q}, &out)
		var ids []string
		for _, r := range out.SearchMemory {
			ids = append(ids, r.Memory.ID)
		}
		return ids, err
	}
	var pool []string
	phase("searchMemory")
	cpu0, _ := procCPU(rss.pid)
	io0, _ := procWrites(rss.pid)
	for range warmup {
		ids, err := search(v.query(rng))
		if err != nil {
			return err
		}
		pool = append(pool, ids...)
	}
	var lat []time.Duration
	for range queries {
		q := v.query(rng)
		t0 := time.Now()
		if _, err := search(q); err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
	}
	f.SearchP50, f.SearchP99 = pct(lat, 50), pct(lat, 99)
	f.SearchSettled = settle()
	cpu1, _ := procCPU(rss.pid)
	io1, _ := procWrites(rss.pid)
	searches := max(warmup+queries, 1)
	f.SearchCPU = (cpu1 - cpu0) / time.Duration(searches)
	f.SearchWrites = (io1 - io0) / int64(searches)
	lat = lat[:0]
	phase("resonate")
	for range resonates {
		t0 := time.Now()
		if err := c.do(`query($s: ID!, $m: String!) { resonate(scopeId: $s, message: $m) { score memory { id content tier } } }`,
			map[string]any{"s": scope, "m": v.message(rng)}, nil); err != nil {
			return err
		}
		el := time.Since(t0)
		lat = append(lat, el)
		time.Sleep(pace - min(el, pace))
	}
	f.ResonateP50, f.ResonateP99 = pct(lat, 50), pct(lat, 99)
	if len(pool) == 0 {
		return fmt.Errorf("no search found a memory at %d", f.Size)
	}
	for range recalls {
		f.sources = append(f.sources, pool[rng.IntN(len(pool))])
	}
	phase("total recall")
	loop, err := benchRecallLoopFrom(c, addr, scope, f.sources)
	if err != nil {
		return err
	}
	f.RecallP50, f.RecallP99 = pct(loop, 50), pct(loop, 99)
	phase("decay sweep")
	f.PeakMeasure = rss.Peak()
	rss.Reset()
	var sw struct {
		DecaySweep struct{ MemoriesEvaluated int }
	}
	t0 = time.Now()
	if err := c.do(`mutation($s: ID!) { decaySweep(scopeId: $s) { memoriesEvaluated demotions rescored } }`, map[string]any{"s": scope}, &sw); err != nil {
		return err
	}
	f.SweepEvaluated = sw.DecaySweep.MemoriesEvaluated
	f.SweepRate = float64(f.SweepEvaluated) / time.Since(t0).Seconds()
	f.PeakSweep = rss.Peak()
	rss.Reset()
	phase("digest")
	var dg struct {
		RunDigest struct{ Evaluated int }
	}
	t0 = time.Now()
	if err := c.do(`mutation($s: ID!) { runDigest(input: { scopeId: $s, propose: true }) { evaluated } }`, map[string]any{"s": scope}, &dg); err != nil {
		return err
	}
	f.DigestEvaluated = dg.RunDigest.Evaluated
	f.DigestRate = float64(f.DigestEvaluated) / time.Since(t0).Seconds()
	f.PeakDigest = rss.Peak()
	f.PeakMeasure = maxMemory(f.PeakMeasure, f.PeakSweep, f.PeakDigest)
	rss.Reset()
	return nil
}

// maxMemory is the larger of each kind of memory among ms.
func maxMemory(ms ...procMemory) procMemory {
	var out procMemory
	for _, m := range ms {
		out.Anon, out.File = max(out.Anon, m.Anon), max(out.File, m.File)
	}
	return out
}

// runRawChild runs the raw baselines in a process of its own and samples its memory.
func runRawChild(dir string, job rawJob) (rawScale, error) {
	path := filepath.Join(dir, "raw-job.json")
	raw, _ := json.Marshal(job)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return rawScale{}, err
	}
	defer os.Remove(path)
	bin, err := os.Executable()
	if err != nil {
		return rawScale{}, err
	}
	cmd := exec.Command(bin, "bench", "scale", "-raw-child", path)
	cmd.Env = slicesWithout(os.Environ(), "GOGC=", "GOMEMLIMIT=")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Start(); err != nil {
		return rawScale{}, err
	}
	rss := sampleRSS(cmd.Process.Pid)
	err = cmd.Wait()
	rss.Stop()
	if err != nil {
		return rawScale{}, fmt.Errorf("%v: %s", err, out.String())
	}
	var r rawScale
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		return rawScale{}, fmt.Errorf("raw child's answer %q: %v", out.String(), err)
	}
	r.Peak = rss.Peak()
	return r, nil
}

// rawScaleChild measures the raw baselines of a job: the engine and the index opened bare on the
// server's data, their own queries.
func rawScaleChild(path string, stdout io.Writer) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var job rawJob
	if err := json.Unmarshal(raw, &job); err != nil {
		return err
	}
	lim, err := parseSize(job.Limit)
	if err != nil {
		return err
	}
	b := budgetFor(lim)
	b.applyGoLimit()
	ctx := context.Background()
	var r rawScale
	if job.Rank {
		// A process of its own: its read cache is not the raw baselines' memory.
		if err := rankScale(ctx, job, b, &r); err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	t0 := time.Now()
	st, err := graph.Open(ctx, "file://"+filepath.Join(job.Dir, "graph"), graph.WithEngineMemory(b.Engine), graph.WithReadCache(0))
	if err != nil {
		return err
	}
	defer st.Close()
	ix, err := bleve.Open(filepath.Join(job.Dir, "index"))
	if err != nil {
		return err
	}
	r.Open = time.Since(t0)
	var lat []time.Duration
	for _, q := range job.Queries {
		t0 := time.Now()
		bq, err := search.BleveQuery(ix, domain.IndexQuery{ScopeID: job.Scope, Text: q, Limit: 10,
			Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
		if err != nil {
			return err
		}
		// A query of stop words alone matches nothing (nil), as the server's does.
		if bq != nil {
			if _, err := ix.Search(bleve.NewSearchRequestOptions(bq, 10, 0, false)); err != nil {
				return err
			}
		}
		lat = append(lat, time.Since(t0))
	}
	r.SearchP50, r.SearchP99 = pct(lat, 50), pct(lat, 99)
	if err := ix.Close(); err != nil {
		return err
	}
	idx, err := search.Open(filepath.Join(job.Dir, "index"))
	if err != nil {
		return err
	}
	lat = lat[:0]
	for _, m := range job.Messages {
		t0 := time.Now()
		if _, err := idx.Search(ctx, domain.IndexQuery{ScopeID: job.Scope, Text: m, Limit: 9, WordsOnly: true,
			Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}}); err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
	}
	r.IndexP50, r.IndexP99 = pct(lat, 50), pct(lat, 99)
	idx.Close()
	lat = lat[:0]
	nodes := 0
	for _, src := range job.Sources {
		t0 := time.Now()
		k, err := st.RawRecurse(ctx, []string{src}, 3, recall.DefaultRecallFloor)
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
		nodes += k
	}
	r.RecurseP50, r.RecurseP99 = pct(lat, 50), pct(lat, 99)
	if len(job.Sources) > 0 {
		r.RecurseNodes = nodes / len(job.Sources)
	}
	if r.SweepRate, err = rawSweepRate(ctx, st, job.Scope); err != nil {
		return err
	}
	t0 = time.Now()
	scanned, _, err := st.RawScanRefgraph(ctx, job.Scope, 2)
	if err != nil {
		return err
	}
	r.DigestRate = float64(scanned) / time.Since(t0).Seconds()
	// The writes last: they add to the data (a scope of their own), which the next size keeps.
	words := vocabulary()
	wr := rand.New(rand.NewPCG(7, 8))
	t0 = time.Now()
	const commits = 1000
	for range commits {
		if err := st.RawSet(ctx, map[string]any{"uid": "_:x", "tr.kind": "Baseline", "tr.scope": "bench-baseline", "mem.content": sentence(wr, words)}); err != nil {
			return err
		}
	}
	r.Commits = commits / time.Since(t0).Seconds()
	if r.EngineBulk, err = bareNodes(ctx, st, wr, words); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(r)
}

// rankQueries is how many of a size's queries rankScale asks of each ranking, after asking them
// once untimed.
const rankQueries = 500

// rankScale times searchMemory's ranking in process — today's, with the lexicon, and the previous
// method's — on the same queries, alternating query by query, after a round of each that fills
// the read cache as a running server's would be.
func rankScale(ctx context.Context, job rawJob, b memoryBudget, r *rawScale) error {
	st, err := graph.Open(ctx, "file://"+filepath.Join(job.Dir, "graph"), graph.WithEngineMemory(b.Engine),
		graph.WithReadCacheParts(b.ReadCache, b.ReadWalks))
	if err != nil {
		return err
	}
	defer st.Close()
	idx, err := search.Open(filepath.Join(job.Dir, "index"), search.WithIDCache(b.IndexIDs))
	if err != nil {
		return err
	}
	defer idx.Close()
	lex, err := lexicon.New()
	if err != nil {
		return err
	}
	prev := previousWeights()
	rankings := []*recall.Recall{{Store: st, Index: idx, Lexicon: lex}, {Store: st, Index: idx, Weights: &prev}}
	qs := job.Queries[:min(rankQueries, len(job.Queries))]
	lat := make([][]time.Duration, len(rankings))
	for round := range 2 {
		for _, q := range qs {
			for i, rc := range rankings {
				t0 := time.Now()
				if _, err := rc.Search(ctx, recall.Query{ScopeID: job.Scope, Text: q, MaxResults: 10}); err != nil {
					return err
				}
				if round == 1 {
					lat[i] = append(lat[i], time.Since(t0))
				}
			}
		}
	}
	r.RankP50, r.RankP99 = pct(lat[0], 50), pct(lat[0], 99)
	r.PrevP50, r.PrevP99 = pct(lat[1], 50), pct(lat[1], 99)
	return nil
}

// rawSweepRate reads every tier of the scope as the sweep lists it, raw: memories/s.
func rawSweepRate(ctx context.Context, st *graph.Store, scope string) (float64, error) {
	t0 := time.Now()
	read := 0
	for _, tier := range domain.Tiers {
		raw, err := st.RawQuery(ctx, graph.SweepListQuery, map[string]string{"$st": graph.ScopeTier(scope, tier)})
		if err != nil {
			return 0, err
		}
		var r struct {
			Q []json.RawMessage `json:"q"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return 0, err
		}
		read += len(r.Q)
	}
	return float64(read) / time.Since(t0).Seconds(), nil
}

// bareNodes writes 5,000 bare memory nodes, 1,000 per commit, through the store's own insert
// without events: the graph write alone of a bulk.
func bareNodes(ctx context.Context, st *graph.Store, rng *rand.Rand, words []string) (float64, error) {
	scope := &domain.Scope{ID: domain.NewID(), Name: "bench-engine", CreatedAt: time.Now().UTC()}
	scope.AgentKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyAgentKernel, UpdatedAt: scope.CreatedAt}
	scope.WorldKernel = &domain.Kernel{ID: domain.NewID(), ScopeID: scope.ID, Family: domain.FamilyWorldKernel, UpdatedAt: scope.CreatedAt}
	if _, err := st.CreateScope(ctx, domain.Request{}, scope, nil); err != nil {
		return 0, err
	}
	const batches, per = 5, 1000
	t0 := time.Now()
	for range batches {
		ms := make([]*domain.Memory, per)
		now := time.Now().UTC()
		for i := range ms {
			ms[i] = &domain.Memory{ID: domain.NewID(), ScopeID: scope.ID, Content: sentence(rng, words),
				Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext,
				OccurredAt: now, CreatedAt: now, UpdatedAt: now, Salience: 0.5, State: domain.StateActive, Version: 1}
		}
		if _, err := st.InsertMemories(ctx, domain.Request{FreshIDs: true}, ms, nil); err != nil {
			return 0, err
		}
	}
	return batches * per / time.Since(t0).Seconds(), nil
}

// printScale prints the figures of every size measured so far, each beside its raw baseline.
func printScale(w io.Writer, all []*scaleFigures) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-46s", "figure")
	for _, f := range all {
		fmt.Fprintf(w, " %22s", fmt.Sprintf("@%d", f.Size))
	}
	fmt.Fprintln(w, "   raw baseline (same run, same data), by size")
	mib := func(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
	row := func(label string, val, raw func(*scaleFigures) string) {
		fmt.Fprintf(w, "%-46s", label)
		for _, f := range all {
			fmt.Fprintf(w, " %22s", val(f))
		}
		fmt.Fprint(w, "   ")
		for i, f := range all {
			if i > 0 {
				fmt.Fprint(w, "; ")
			}
			fmt.Fprint(w, raw(f))
		}
		fmt.Fprintln(w)
	}
	dur := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", ms(d)) }
	kib := func(n int64) string { return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10)) }
	row("RssAnon peak (load, measure, restart)", func(f *scaleFigures) string {
		return mib(max(f.PeakLoad.Anon, f.PeakMeasure.Anon, f.PeakRestart.Anon))
	}, func(f *scaleFigures) string { return mib(f.Raw.Peak.Anon) + " raw engine + index" })
	row("  loading / measuring / restarted, MiB", func(f *scaleFigures) string {
		return fmt.Sprintf("%d/%d/%d", f.PeakLoad.Anon>>20, f.PeakMeasure.Anon>>20, f.PeakRestart.Anon>>20)
	}, func(*scaleFigures) string { return "" })
	row("  in the decay sweep / the digest pass, MiB", func(f *scaleFigures) string {
		return fmt.Sprintf("%d/%d", f.PeakSweep.Anon>>20, f.PeakDigest.Anon>>20)
	}, func(*scaleFigures) string { return "" })
	row("RssAnon settled after the load", func(f *scaleFigures) string { return mib(f.Settled.Anon) },
		func(f *scaleFigures) string { return "" })
	row("RssAnon after a restart, cache warm", func(f *scaleFigures) string { return mib(f.Restarted.Anon) },
		func(f *scaleFigures) string { return "" })
	row("RssFile (mapped files) peak / settled", func(f *scaleFigures) string {
		return fmt.Sprintf("%s / %s", mib(max(f.PeakLoad.File, f.PeakMeasure.File, f.PeakRestart.File)), mib(f.Settled.File))
	}, func(f *scaleFigures) string { return mib(f.Raw.Peak.File) + " raw" })
	row("data on disk, graph + index", func(f *scaleFigures) string {
		return fmt.Sprintf("%s + %s", mib(f.DiskGraph), mib(f.DiskIndex))
	}, func(f *scaleFigures) string { return mib(f.TextBytes) + " of conversations imported (JSON)" })
	row("start-up to ready after a restart", func(f *scaleFigures) string { return fmt.Sprintf("%.1f s", f.Ready.Seconds()) },
		func(f *scaleFigures) string {
			return fmt.Sprintf("%.1f s raw open (read cache warm after %s)", f.Raw.Open.Seconds(), f.WarmTook)
		})
	row("import (storeMemories in bulk), turns/s", func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s", f.LoadRate) },
		func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s bare memory nodes", f.Raw.EngineBulk) })
	row("  server CPU per turn, until idle", func(f *scaleFigures) string { return fmt.Sprintf("%.2f ms", ms(f.LoadCPU)) },
		func(f *scaleFigures) string { return fmt.Sprintf("idle %.0f s after", f.LoadSettled.Seconds()) })
	row("storeMemory over HTTP, 1 client", func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s", f.Stores) },
		func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s raw commits", f.Raw.Commits) })
	row("storeMemory over HTTP, concurrent clients", func(f *scaleFigures) string {
		if f.Clients == 0 {
			return "—"
		}
		return fmt.Sprintf("%.0f/s", f.StoresConcurrent)
	}, func(f *scaleFigures) string {
		if f.Clients == 0 || f.Stores == 0 {
			return ""
		}
		return fmt.Sprintf("%d clients: %.2f× one client", f.Clients, f.StoresConcurrent/f.Stores)
	})
	row("  the server idle after the stores", func(f *scaleFigures) string { return fmt.Sprintf("%.0f s", f.StoresSettled.Seconds()) },
		func(f *scaleFigures) string { return "the searches are timed after it" })
	row("searchMemory over HTTP p50", func(f *scaleFigures) string { return dur(f.SearchP50) },
		func(f *scaleFigures) string { return dur(f.Raw.SearchP50) + " raw Bleve top-10" })
	row("searchMemory over HTTP p99", func(f *scaleFigures) string { return dur(f.SearchP99) },
		func(f *scaleFigures) string { return dur(f.Raw.SearchP99) + " raw Bleve top-10" })
	row("  the ranking in process, p50", func(f *scaleFigures) string { return dur(f.Raw.RankP50) },
		func(f *scaleFigures) string { return dur(f.Raw.PrevP50) + " the previous method's, same queries" })
	row("  the ranking in process, p99", func(f *scaleFigures) string { return dur(f.Raw.RankP99) },
		func(f *scaleFigures) string { return dur(f.Raw.PrevP99) + " the previous method's, same queries" })
	row("  server CPU per search, until idle", func(f *scaleFigures) string { return dur(f.SearchCPU) },
		func(f *scaleFigures) string { return fmt.Sprintf("idle %.0f s after", f.SearchSettled.Seconds()) })
	row("  bytes written per search, until idle", func(f *scaleFigures) string { return kib(f.SearchWrites) },
		func(f *scaleFigures) string {
			return kib(f.DiskGraph/int64(max(f.Size, 1))) + " of graph on disk per memory"
		})
	row("resonate over HTTP, one per pace, p99", func(f *scaleFigures) string { return dur(f.ResonateP99) },
		func(f *scaleFigures) string { return dur(f.Raw.IndexP99) + " index query alone" })
	row("total recall d3, advisory → websocket, p50", func(f *scaleFigures) string { return dur(f.RecallP50) },
		func(f *scaleFigures) string { return dur(f.Raw.RecurseP50) + " raw @recurse" })
	row("total recall d3, advisory → websocket, p99", func(f *scaleFigures) string { return dur(f.RecallP99) },
		func(f *scaleFigures) string {
			return fmt.Sprintf("%s raw @recurse (%d nodes)", dur(f.Raw.RecurseP99), f.Raw.RecurseNodes)
		})
	row("decay sweep, memories/s", func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s", f.SweepRate) },
		func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s the sweep's reads alone", f.Raw.SweepRate) })
	row("digest propose pass, artifacts/s", func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s", f.DigestRate) },
		func(f *scaleFigures) string { return fmt.Sprintf("%.0f/s the pass's reads alone", f.Raw.DigestRate) })
	row("  memories the sweep evaluated", func(f *scaleFigures) string { return strconv.Itoa(f.SweepEvaluated) },
		func(*scaleFigures) string { return "" })
	row("  artifacts the digest evaluated", func(f *scaleFigures) string { return strconv.Itoa(f.DigestEvaluated) },
		func(*scaleFigures) string { return "" })
	row("server on SIGTERM", func(f *scaleFigures) string { return f.Stopped },
		func(f *scaleFigures) string { return "" })
}
