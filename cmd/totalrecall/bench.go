package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/edge"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/search"
)

// benchOpts are the sizes of one bench run.
type benchOpts struct {
	n, corpus, queries, clients int
	// warmup searches run untimed before the timed ones, as a serving process has run others.
	warmup int
	// searchProfile, when set, is where a CPU profile of the search phase alone is written.
	searchProfile string
	// storeProfile, when set, is where a CPU profile of the one-client store phase alone is written.
	storeProfile string
	// concurrentProfile and bulkProfile are the same for the concurrent clients' store phase
	// and for the bulk until the consumers caught up.
	concurrentProfile, bulkProfile string
	// auth serves as serve --auth does: every request carries an API key, the stores and
	// searches a WRITE key of the bench's scope.
	auth bool
}

// figures are one store's measurements, each with the raw baseline of the same store.
type figures struct {
	name                     string
	single, concurrent, bulk float64 // memories/s through GraphQL over HTTP
	// singleOff and concurrentOff are the same store calls with the Synapse off, in blocks
	// alternating with those above (storeBlocks).
	singleOff, concurrentOff float64
	// singleRatio and concurrentRatio are the median, over adjacent off/on block pairs, of the
	// speed with the Synapse over the speed without.
	singleRatio, concurrentRatio  float64
	loadP50, searchP50, searchP99 time.Duration
	settle                        time.Duration // until the consumers caught up with the bulk
	quiet, rawQuiet               time.Duration // until the process idled before each search phase
	corpus                        uint64
	rawCommits                    float64 // single-mutation commits/s on the same store
	rawPointP50                   time.Duration
	rawBleveSingle, rawBleveBatch float64
	// engineBulk is the graph write alone of bare memory nodes (every predicate a stored memory
	// has, no event, no index, no HTTP), 1,000 per commit: the bulk's ceiling on this engine.
	engineBulk                           float64
	cpuEngineBulk                        time.Duration
	rawBleveSearchP50, rawBleveSearchP99 time.Duration
	// CPU time of this process per memory: one client's stores, the bulk until the consumers
	// caught up, and the raw baselines' commits and batch-indexed documents.
	cpuSingle, cpuConcurrent, cpuBulk, cpuRawCommit, cpuRawBatch time.Duration
	cpuSingleOff, cpuConcurrentOff                               time.Duration
}

// bench measures the server end to end over HTTP and prints each figure beside a raw baseline
// measured in the same run on the same machine: on the embedded engine, and on a Dgraph cluster
// as well when --cluster names one.
func bench(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "digest" {
		return benchDigest(args[1:], stdout)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cluster := fs.String("cluster", "", "also measure on this Dgraph cluster (dgraph://HOST:PORT)")
	var o benchOpts
	fs.IntVar(&o.n, "n", 3000, "storeMemory calls per store measurement")
	fs.IntVar(&o.corpus, "corpus", 100000, "memories in the search corpus (one scope)")
	fs.IntVar(&o.queries, "queries", 2000, "searches for the latency figures")
	fs.IntVar(&o.clients, "clients", 8, "concurrent clients of the concurrent measurement")
	fs.IntVar(&o.warmup, "warmup", 1000, "untimed searches before the timed ones (a bulk leaves the graph's caches cold)")
	fs.BoolVar(&o.auth, "auth", false, "serve with API keys, as serve --auth: stores and searches carry a WRITE key of the bench's scope (compare with a run without)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	fs.StringVar(&o.storeProfile, "storeprofile", "", "write a CPU profile of the one-client storeMemory phase alone to this file (not with -cpuprofile)")
	fs.StringVar(&o.concurrentProfile, "concurrentprofile", "", "write a CPU profile of the concurrent clients' storeMemory phase alone to this file (not with -cpuprofile)")
	fs.StringVar(&o.bulkProfile, "bulkprofile", "", "write a CPU profile of the storeMemories bulk, until the consumers caught up, to this file (not with -cpuprofile)")
	fs.StringVar(&o.searchProfile, "searchprofile", "", "write a CPU profile of the search latency phase alone to this file (not with -cpuprofile: one profile at a time)")
	var cache cacheFlag
	fs.Var(&cache, "cache-mb", "read cache of the embedded store in MiB (0 turns it off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stop, err := startProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	tmp, err := os.MkdirTemp("", "totalrecall-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	keys := "off"
	if o.auth {
		keys = "on (--auth: a WRITE key on every store and search)"
	}
	fmt.Fprintf(stdout, "totalrecall bench — %d cores, %d store calls, %d clients, corpus %d, %d queries after %d untimed, API keys %s\n\n",
		runtimeCPUs(), o.n, o.clients, o.corpus, o.queries, o.warmup, keys)
	runs := []storeFlags{{store: "file://" + filepath.Join(tmp, "embedded"), cache: cache}}
	names := []string{"embedded"}
	if *cluster != "" {
		runs = append(runs, storeFlags{store: *cluster, index: filepath.Join(tmp, "cluster-index")})
		names = append(names, "cluster")
	}
	var all []*figures
	for i, sf := range runs {
		f, err := measure(sf, o, filepath.Join(tmp, names[i]+"-raw"))
		if err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
		f.name = names[i]
		all = append(all, f)
	}
	printFigures(stdout, all)
	return nil
}

func printFigures(w io.Writer, all []*figures) {
	row := func(label string, val func(*figures) string, raw func(*figures) string) {
		fmt.Fprintf(w, "%-44s", label)
		for _, f := range all {
			fmt.Fprintf(w, " %14s", val(f))
		}
		fmt.Fprintf(w, "   ")
		for i, f := range all {
			if i > 0 {
				fmt.Fprint(w, "; ")
			}
			fmt.Fprintf(w, "%s %s", f.name, raw(f))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-44s", "figure")
	for _, f := range all {
		fmt.Fprintf(w, " %14s", f.name)
	}
	fmt.Fprintln(w, "   raw baseline, same run")
	rate := func(x float64) string { return fmt.Sprintf("%.0f/s", x) }
	dur := func(d time.Duration) string { return fmt.Sprintf("%.2fms", ms(d)) }
	row("storeMemory over HTTP, 1 client", func(f *figures) string { return rate(f.single) },
		func(f *figures) string { return rate(f.rawCommits) + " single-mutation commits" })
	row("  the same with the Synapse off", func(f *figures) string { return rate(f.singleOff) },
		func(f *figures) string {
			return fmt.Sprintf("%+.1f%% with the Synapse (median of block pairs; %+.1f%% in total)", 100*(f.singleRatio-1), 100*(f.single/f.singleOff-1))
		})
	row("storeMemory over HTTP, concurrent clients", func(f *figures) string { return rate(f.concurrent) },
		func(f *figures) string { return rate(f.rawBleveSingle) + " raw Bleve single-doc index" })
	row("  the same with the Synapse off", func(f *figures) string { return rate(f.concurrentOff) },
		func(f *figures) string {
			return fmt.Sprintf("%+.1f%% with the Synapse (median of block pairs; %+.1f%% in total)", 100*(f.concurrentRatio-1), 100*(f.concurrent/f.concurrentOff-1))
		})
	// With -n at or past -corpus the stores alone fill the corpus, and no bulk runs.
	bulked := func(f *figures, s string) string {
		if f.bulk == 0 {
			return "—"
		}
		return s
	}
	row("storeMemories bulk (batches of 1000)", func(f *figures) string { return bulked(f, rate(f.bulk)) },
		func(f *figures) string {
			note := ""
			if f.bulk == 0 {
				note = " (no bulk ran: the store calls filled the corpus)"
			}
			return rate(f.rawBleveBatch) + " raw Bleve batches of 1000" + note
		})
	perMemory := func(d time.Duration) string { return fmt.Sprintf("%.2fms", ms(d)) }
	row("graph write alone, bare memory nodes", func(f *figures) string { return rate(f.engineBulk) },
		func(f *figures) string {
			return perMemory(f.cpuEngineBulk) + " CPU per node; 1000 per commit, no events, index or HTTP"
		})
	row("CPU per storeMemory, 1 client (this process)", func(f *figures) string { return perMemory(f.cpuSingle) },
		func(f *figures) string {
			return perMemory(f.cpuRawCommit) + " per single-mutation commit; " + perMemory(f.cpuSingleOff) + " with the Synapse off"
		})
	row("CPU per storeMemory, concurrent clients", func(f *figures) string { return perMemory(f.cpuConcurrent) },
		func(f *figures) string {
			return "(this process, clients and consumers included); " + perMemory(f.cpuConcurrentOff) + " with the Synapse off"
		})
	row("CPU per memory, bulk until consumers caught up", func(f *figures) string { return bulked(f, perMemory(f.cpuBulk)) },
		func(f *figures) string { return perMemory(f.cpuRawBatch) + " per document, raw Bleve batches" })
	row("memory(id) load over HTTP p50", func(f *figures) string { return dur(f.loadP50) },
		func(f *figures) string { return dur(f.rawPointP50) + " raw DQL point query" })
	row("consumers caught up after the bulk", func(f *figures) string { return bulked(f, fmt.Sprintf("%.1fs", f.settle.Seconds())) },
		func(f *figures) string { return "(salience, subconscious, synapse)" })
	row("then the process idled (merges, compactions)", func(f *figures) string { return fmt.Sprintf("%.1fs", f.quiet.Seconds()) },
		func(f *figures) string {
			return fmt.Sprintf("%.1fs for the raw index; each search phase starts idle", f.rawQuiet.Seconds())
		})
	row("searchMemory over HTTP p50", func(f *figures) string { return dur(f.searchP50) + fmt.Sprintf(" @%d", f.corpus) },
		func(f *figures) string { return dur(f.rawBleveSearchP50) + " raw Bleve top-10" })
	row("searchMemory over HTTP p99", func(f *figures) string { return dur(f.searchP99) },
		func(f *figures) string { return dur(f.rawBleveSearchP99) + " raw Bleve top-10" })
}

// measure runs the whole set of measurements on one store.
func measure(sf storeFlags, o benchOpts, rawDir string) (*figures, error) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// The handler chain of serve (the edge, the routes), with API keys or without; no access
	// log. With keys, the rate limit is set high enough never to refuse, but still runs.
	xf := exposeFlags{auth: o.auth, maxComplexity: defaultMaxComplexity, maxDepth: defaultMaxDepth, maxBodyBytes: edge.DefaultMaxBodyBytes,
		rateLimit: 1e9, rateBurst: 1 << 30}
	gate, gql := xf.buildEdge(cx, logger, nil)
	srv := &http.Server{Handler: gate.Handler(routes(cx, nil, gql, nil))}
	go srv.Serve(ln)
	defer srv.Close()
	c := &benchClient{url: "http://" + ln.Addr().String() + "/query",
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if o.auth {
		nk, err := cx.CreateAPIKey(ctx, cortex.APIKeyInput{Name: "bench admin", Role: domain.RoleAdmin})
		if err != nil {
			return nil, err
		}
		c.adminKey, c.key = nk.Secret, nk.Secret
	}
	f := &figures{}

	var sc struct {
		CreateScope struct{ ID string }
	}
	if err := c.admin().do(`mutation { createScope(name: "bench") { id } }`, nil, &sc); err != nil {
		return nil, err
	}
	scope := sc.CreateScope.ID
	if o.auth {
		nk, err := cx.CreateAPIKey(ctx, cortex.APIKeyInput{Name: "bench writer", Role: domain.RoleWrite, ScopeID: scope})
		if err != nil {
			return nil, err
		}
		c.key = nk.Secret
	}
	words := vocabulary()
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string // every text stored, for the raw search baseline
	var textsMu sync.Mutex
	var ids []string

	// store, one client and concurrent clients: each in alternating blocks without and with the
	// Synapse (the store path as it was before the Synapse connected stored memories, and as it
	// is), each block followed by the consumers catching up — their CPU counted in the block's,
	// their time not.
	stopProfile, err := startProfile(o.storeProfile)
	if err != nil {
		return nil, err
	}
	one := func(r *rand.Rand) error {
		t := sentence(r, words)
		var out struct{ StoreMemory struct{ ID string } }
		if err := c.do(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
			map[string]any{"in": map[string]any{"scopeId": scope, "content": t}}, &out); err != nil {
			return err
		}
		textsMu.Lock()
		texts = append(texts, t)
		ids = append(ids, out.StoreMemory.ID)
		textsMu.Unlock()
		return nil
	}
	if f.single, f.singleOff, f.cpuSingle, f.cpuSingleOff, f.singleRatio, err = storeBlocks(os.Stderr, "1 client", cx, o.n, 1, func(int) error { return one(rng) }); err != nil {
		return nil, err
	}
	stopProfile()
	if stopProfile, err = startProfile(o.concurrentProfile); err != nil {
		return nil, err
	}
	rngs := make([]*rand.Rand, o.clients)
	for w := range rngs {
		rngs[w] = rand.New(rand.NewPCG(uint64(w), 7))
	}
	if f.concurrent, f.concurrentOff, f.cpuConcurrent, f.cpuConcurrentOff, f.concurrentRatio, err = storeBlocks(os.Stderr, fmt.Sprintf("%d clients", o.clients), cx, o.n, o.clients, func(w int) error { return one(rngs[w]) }); err != nil {
		return nil, err
	}
	stopProfile()

	// raw baselines on the same store: single-mutation commits, point queries
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < o.n; i++ {
		if err := st.RawSet(ctx, map[string]any{"uid": "_:x", "tr.kind": "Baseline", "tr.scope": "bench-baseline", "mem.content": sentence(rng, words)}); err != nil {
			return nil, err
		}
	}
	f.rawCommits = float64(o.n) / time.Since(start).Seconds()
	f.cpuRawCommit = (cpuTime() - cpu0) / time.Duration(o.n)
	var raw, load []time.Duration
	for i := 0; i < min(o.queries, len(ids)); i++ {
		id := ids[rng.IntN(len(ids))]
		t0 := time.Now()
		if _, err := st.RawQuery(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) { uid mem.content mem.tier mem.doc } }`, map[string]string{"$id": id}); err != nil {
			return nil, err
		}
		raw = append(raw, time.Since(t0))
		t0 = time.Now()
		if err := c.do(`query($id: ID!) { memory(id: $id) { id content tier } }`, map[string]any{"id": id}, nil); err != nil {
			return nil, err
		}
		load = append(load, time.Since(t0))
	}
	f.rawPointP50, f.loadP50 = pct(raw, 50), pct(load, 50)
	if f.engineBulk, f.cpuEngineBulk, err = engineBulk(ctx, st, c, rng, words); err != nil {
		return nil, err
	}
	if f.rawBleveSingle, f.rawBleveBatch, f.cpuRawBatch, err = rawBleveIndexing(filepath.Join(rawDir, "indexing"), rng, words, o.n); err != nil {
		return nil, err
	}

	// bulk: the search corpus through storeMemories
	const batch = 1000
	have := 2 * o.n
	if stopProfile, err = startProfile(o.bulkProfile); err != nil {
		return nil, err
	}
	start, cpu0 = time.Now(), cpuTime()
	stored := 0
	for have+stored < o.corpus {
		k := min(batch, o.corpus-have-stored)
		ins := make([]map[string]any, k)
		for i := range ins {
			t := sentence(rng, words)
			texts = append(texts, t)
			ins[i] = map[string]any{"scopeId": scope, "content": t}
		}
		if err := c.do(`mutation($in: [StoreMemoryInput!]!) { storeMemories(inputs: $in) { id } }`, map[string]any{"in": ins}, nil); err != nil {
			return nil, err
		}
		stored += k
	}
	if stored > 0 {
		f.bulk = float64(stored) / time.Since(start).Seconds()
	}

	// The living memory re-scores every stored memory after the fact: searches are measured
	// once it has caught up, as raw Bleve's are on an idle index.
	settleStart := time.Now()
	f.settle = waitConsumers(cx).Sub(settleStart)
	if stored > 0 {
		// waitConsumers idles a second after they caught up: that second is not the bulk's.
		f.cpuBulk = (cpuTime() - cpu0) / time.Duration(stored)
	}
	stopProfile()

	// search latency at the corpus size, beside raw Bleve over the same texts; each on a process
	// that has finished the merges and compactions the bulk left behind
	f.quiet = waitIdle(idleLimit)
	qs := make([]string, o.queries)
	for i := range qs {
		qs[i] = words[rng.IntN(len(words)/4)] + " " + words[rng.IntN(len(words))]
	}
	for i := 0; i < o.warmup; i++ {
		q := words[rng.IntN(len(words)/4)] + " " + words[rng.IntN(len(words))]
		if err := c.do(`query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { score memory { id content } } }`,
			map[string]any{"s": scope, "q": q}, nil); err != nil {
			return nil, err
		}
	}
	f.quiet += waitIdle(idleLimit)
	lat := make([]time.Duration, 0, len(qs))
	stop, err := startProfile(o.searchProfile)
	if err != nil {
		return nil, err
	}
	defer stop() // on an early return; stopping twice is harmless
	for _, q := range qs {
		t0 := time.Now()
		if err := c.do(`query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { score memory { id content } } }`,
			map[string]any{"s": scope, "q": q}, nil); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	stop()
	rawLat, rawQuiet, err := rawBleveSearch(filepath.Join(rawDir, "search"), scope, texts, qs)
	if err != nil {
		return nil, err
	}
	f.rawQuiet = rawQuiet
	f.corpus, _ = idx.Count()
	f.searchP50, f.searchP99 = pct(lat, 50), pct(lat, 99)
	f.rawBleveSearchP50, f.rawBleveSearchP99 = pct(rawLat, 50), pct(rawLat, 99)
	return f, nil
}

// synapseBlocks is how many blocks of each mode a store phase alternates.
const synapseBlocks = 4

// blockIdleLimit bounds the wait for the process to rest after a block.
const blockIdleLimit = 30 * time.Second

// storeBlocks makes n calls of store by clients concurrent clients (store is given the client's
// number) in 2·synapseBlocks blocks that alternate the Synapse off and on, and returns the calls
// per second and the CPU per call with the Synapse on and off. The blocks go off, on, on, off,
// off, on, …: stores slow down as the graph and the index grow, and in that order each mode has
// as many early blocks as late ones. After each block the consumers catch up and the process comes
// to rest: their CPU is the block's, their time is not. Each block's speed goes to log, to show how much they vary; ratio
// is the median over the adjacent pairs of blocks (one off, one on) of the speed with the Synapse
// over the speed without, which a burst of other work on the machine sways less than the totals.
func storeBlocks(log io.Writer, name string, cx *cortex.Cortex, n, clients int, store func(w int) error) (on, off float64, cpuOn, cpuOff time.Duration, ratio float64, err error) {
	defer cx.SetSynapseOff(false)
	per := max(1, n/(2*synapseBlocks))
	var took [2]time.Duration
	var cpu [2]time.Duration
	var calls [2]int
	blocks := make([]time.Duration, 2*synapseBlocks)
	for b := 0; b < 2*synapseBlocks; b++ {
		mode := (b + 1) / 2 % 2 // 0: off, 1: on
		cx.SetSynapseOff(mode == 0)
		start, cpu0 := time.Now(), cpuTime()
		if err := concurrently(clients, per, func(w, _ int) error { return store(w) }); err != nil {
			return 0, 0, 0, 0, 0, err
		}
		d := time.Since(start)
		took[mode] += d
		blocks[b] = d
		fmt.Fprintf(log, "storeMemory, %s, block %d, Synapse %s: %.0f/s\n", name, b+1, map[int]string{0: "off", 1: "on"}[mode], float64(per)/d.Seconds())
		// Every block starts from a process at rest: a block after a long catch-up would
		// otherwise start with less of the previous block's work (index writes, compactions)
		// still running than one after a short catch-up.
		waitConsumers(cx)
		waitIdle(blockIdleLimit)
		cpu[mode] += cpuTime() - cpu0
		calls[mode] += per
	}
	rate := func(m int) float64 { return float64(calls[m]) / took[m].Seconds() }
	var ratios []float64
	for b := 0; b+1 < len(blocks); b += 2 {
		offD, onD := blocks[b], blocks[b+1]
		if (b+1)/2%2 == 1 { // the pair is on, off
			offD, onD = blocks[b+1], blocks[b]
		}
		ratios = append(ratios, offD.Seconds()/onD.Seconds())
	}
	slices.Sort(ratios)
	ratio = (ratios[(len(ratios)-1)/2] + ratios[len(ratios)/2]) / 2
	return rate(1), rate(0), cpu[1] / time.Duration(calls[1]), cpu[0] / time.Duration(calls[0]), ratio, nil
}

// concurrently makes n calls of call from clients goroutines at once, each taking the next call
// (call is given its goroutine's number and the call's), and returns the first error once all
// have stopped; a goroutine stops at its first error.
func concurrently(clients, n int, call func(w, i int) error) error {
	var next atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if err := call(w, int(i)); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := first.Load().(error); ok {
		return err
	}
	return nil
}

// idleLimit bounds waitIdle.
const idleLimit = 2 * time.Minute

// waitIdle waits until this process has used under a fifth of a core over a whole second (the
// engine's compactions and the index's merges after a bulk run on after the writes returned),
// at most limit, and returns how long it waited.
func waitIdle(limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		c0 := cpuTime()
		time.Sleep(time.Second)
		if cpuTime()-c0 < 200*time.Millisecond {
			break
		}
	}
	return time.Since(start)
}

func runtimeCPUs() int { return runtime.NumCPU() }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, len(s)*p/100)]
}

type benchClient struct {
	url  string
	http *http.Client
	// key is sent as a bearer token when set; adminKey is the one for creating scopes.
	key, adminKey string
}

// admin is the client acting with the ADMIN key.
func (c *benchClient) admin() *benchClient {
	cp := *c
	cp.key = c.adminKey
	return &cp
}

func (c *benchClient) do(q string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return err
	}
	if len(r.Errors) > 0 {
		return fmt.Errorf("graphql: %s", r.Errors[0].Message)
	}
	if out != nil {
		return json.Unmarshal(r.Data, out)
	}
	return nil
}

func (c *benchClient) store(scope, content string) error {
	return c.do(`mutation($in: StoreMemoryInput!) { storeMemory(input: $in) { id } }`,
		map[string]any{"in": map[string]any{"scopeId": scope, "content": content}}, nil)
}

// vocabulary is a deterministic word list; sentence draws from it with a skew towards the
// first words, as natural text does.
func vocabulary() []string {
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "te", "vi", "zo", "pa", "qui", "dre", "fu", "gha", "jo", "wen"}
	var out []string
	for _, a := range syll {
		for _, b := range syll {
			for _, c := range syll[:8] {
				out = append(out, a+b+c)
			}
		}
	}
	return out
}

// engineBulk writes 10,000 bare memory nodes into a scope of their own, 1,000 per commit,
// through the store's own insert without events: what the engine alone costs for the nodes a
// storeMemories bulk writes, before its events, its index documents and the HTTP round trip.
func engineBulk(ctx context.Context, st *graph.Store, c *benchClient, rng *rand.Rand, words []string) (float64, time.Duration, error) {
	var sc struct {
		CreateScope struct{ ID string }
	}
	if err := c.admin().do(`mutation { createScope(name: "bench-engine") { id } }`, nil, &sc); err != nil {
		return 0, 0, err
	}
	const batches, per = 10, 1000
	start, cpu0 := time.Now(), cpuTime()
	for b := 0; b < batches; b++ {
		ms := make([]*domain.Memory, per)
		now := time.Now().UTC()
		for i := range ms {
			ms[i] = &domain.Memory{ID: domain.NewID(), ScopeID: sc.CreateScope.ID, Content: sentence(rng, words),
				Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, SuggestedTier: domain.TierActiveContext,
				OccurredAt: now, CreatedAt: now, UpdatedAt: now, Salience: 0.5, State: domain.StateActive, Version: 1}
		}
		if _, err := st.InsertMemories(ctx, domain.Request{FreshIDs: true}, ms, nil); err != nil {
			return 0, 0, err
		}
	}
	n := batches * per
	return float64(n) / time.Since(start).Seconds(), (cpuTime() - cpu0) / time.Duration(n), nil
}

func sentence(r *rand.Rand, words []string) string {
	n := 8 + r.IntN(12)
	parts := make([]string, n)
	for i := range parts {
		// Squaring skews the draw towards frequent words.
		f := r.Float64()
		parts[i] = words[int(f*f*float64(len(words)))]
	}
	return strings.Join(parts, " ")
}

func rawBleveIndexing(dir string, r *rand.Rand, words []string, n int) (single, batched float64, cpuPerDoc time.Duration, err error) {
	ix, err := bleve.New(dir, search.Mapping())
	if err != nil {
		return 0, 0, 0, err
	}
	defer ix.Close()
	now := time.Now()
	doc := func() any {
		return search.BleveDoc(domain.IndexDoc{ID: domain.NewID(), ScopeID: "s", Content: sentence(r, words),
			Kind: domain.KindEpisodic, Tier: domain.TierActiveContext, State: domain.StateActive, OccurredAt: now, CreatedAt: now})
	}
	k := min(n, 1000)
	start := time.Now()
	for i := 0; i < k; i++ {
		if err := ix.Index(domain.NewID(), doc()); err != nil {
			return 0, 0, 0, err
		}
	}
	single = float64(k) / time.Since(start).Seconds()
	start, cpu0 := time.Now(), cpuTime()
	total := 0
	for total < 10*k {
		b := ix.NewBatch()
		for i := 0; i < 1000; i++ {
			if err := b.Index(domain.NewID(), doc()); err != nil {
				return 0, 0, 0, err
			}
		}
		if err := ix.Batch(b); err != nil {
			return 0, 0, 0, err
		}
		total += 1000
	}
	batched = float64(total) / time.Since(start).Seconds()
	return single, batched, (cpuTime() - cpu0) / time.Duration(total), nil
}

// rawBleveSearch indexes texts into a raw Bleve index (same mapping, batches of 1000) and
// times the same top-10 queries on it, built by the same query builder as the server's.
func rawBleveSearch(dir, scope string, texts, qs []string) ([]time.Duration, time.Duration, error) {
	ix, err := bleve.New(dir, search.Mapping())
	if err != nil {
		return nil, 0, err
	}
	defer ix.Close()
	now := time.Now()
	for i := 0; i < len(texts); i += 1000 {
		b := ix.NewBatch()
		for _, t := range texts[i:min(len(texts), i+1000)] {
			id := domain.NewID()
			if err := b.Index(id, search.BleveDoc(domain.IndexDoc{ID: id, ScopeID: scope, Content: t, Kind: domain.KindEpisodic,
				Tier: domain.TierActiveContext, State: domain.StateActive, OccurredAt: now, CreatedAt: now})); err != nil {
				return nil, 0, err
			}
		}
		if err := ix.Batch(b); err != nil {
			return nil, 0, err
		}
	}
	quiet := waitIdle(idleLimit)
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		t0 := time.Now()
		bq, err := search.BleveQuery(ix, domain.IndexQuery{ScopeID: scope, Text: q, Limit: 10,
			Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
		if err != nil {
			return nil, 0, err
		}
		req := bleve.NewSearchRequestOptions(bq, 10, 0, false)
		if _, err := ix.Search(req); err != nil {
			return nil, 0, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, quiet, nil
}
