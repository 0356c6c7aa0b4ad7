// Command totalrecall is the memory server and its operations CLI. main only parses flags and
// wires the parts together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/totalrecall/totalrecall/cli"
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/edge"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/lexicon"
	"github.com/totalrecall/totalrecall/search"
)

const usage = `totalrecall — a graph-native memory server for minds

Usage:
  totalrecall serve   [--addr 127.0.0.1:8080] [--store file://./data | dgraph://host:9080] [--index DIR]
                      [--max-content-bytes 1048576]   refuse content larger than this (1 byte..64 MiB)
                      [--memory-limit 1GiB]           memory budget (at least 256MiB): the engine's caches,
                                                      the read cache, the index's id cache, the event log's
                                                      window and the Go heap's soft limit are sized from it
                      [--cache-mb N]                  read cache, embedded store: MiB for records and as
                                                      many for total recall's walk (0: off; default: a
                                                      sixteenth of --memory-limit each)
                      [--no-warm]                     do not fill the read cache from the graph at start
                                                      or after large imports
                      [--no-expand]                   search queries' words as written (no WordNet expansion)
                      [--auth] [--insecure]           require API keys; serve off loopback without them
                      [--admin-addr HOST:PORT]        /metrics, /debug/pprof, /livez, /readyz (off unless set)
                      [--shutdown-timeout 30s]        limits and timeouts: see serve --help, docs/security.md
                      [--synapse-… ]                  the rules connecting stored memories (docs/synapse.md)
                      [--llm-url URL --llm-model M]   a chat model: story chapters, the llm analysis
                      [--story-threshold-tokens 5000] write a scope's next chapter at this many pending
                                                      tokens (0: only when asked); see docs/story.md
                      [--serve-scopes I/N|ID,ID,…]    serve only these scopes (a cluster): shard I of N of the
                                                      scope ids' hash, or a list; default every scope
                      [--peers URL,URL,…]             the other servers: requests for their scopes go there
  totalrecall keys create --role admin|write|read [--scope ID] --name NAME [--expires-in 720h]
  totalrecall keys list|revoke [ID]                   API keys, through --server URL (key in $TOTALRECALL_KEY)
                                                      or on --store URI with the server stopped (the first key)
  totalrecall reindex [--store URI] [--index DIR]     rebuild the search index from the event log
  totalrecall export  [--store URI | --server URL] [--out FILE]   dump the whole graph as JSON Lines (ids preserved)
  totalrecall export  --scope ID --format graphml|gexf|cyjs [--server URL | --store URI] [--out FILE]
                                                      one scope's graph for graph tools (Gephi, yEd, Cytoscape)
  totalrecall import dump [--store URI | --server URL] FILE|-     load an export (once; the store may hold other scopes)
  totalrecall import journal [--server URL | --store URI] --scope ID DIR
                                                      MEMORY.md and memory/*.md as knowledge pages (idempotent)
  totalrecall story   consolidate|show [--server URL | --store URI] --scope ID
                                                      write the next chapter now / print the story
  totalrecall import locomo|events|agents [--store URI | --server URL] [--scope ID] FILE|-
                                                      ingest a LoCoMo conversation, JSON Lines events or
                                                      agent transcripts (idempotent; run again to resume)
  totalrecall analyze [--server URL] --scope ID --type NAME   run an analysis on episodes (persons, entities, topics,
                                                      file_references, dates; llm with --llm-url)
  totalrecall fork    [--server URL] [--scope ID] --query TEXT   the past agent turns most relevant to a new session
                                                      (without --scope: of every scope with agent sessions)
  totalrecall embed   --scope ID (--embed-url URL --embed-model M | --server URL)   give memories vectors
  totalrecall eval locomo [--via store] DIR           evidence recall@k on LoCoMo conversations (--via store:
                                                      also every turn through storeMemory, beside the import)
  totalrecall bench   [flags]                         measure store and search speed (see --help)
  totalrecall bench living [flags]                    measure total recall, decay sweeps and resonate
  totalrecall bench hook [flags]                      measure the user-prompt-submit hook, process start to answer
  totalrecall bench explore [flags]                   measure the explorer's neighborhood query beside raw @recurse
  totalrecall bench digest [flags]                    measure the digest's propose pass
  totalrecall bench scale [-n 1000000] [-at 100000] [-memory-limit 1GiB]
                                                      load a LoCoMo-like corpus into a serve process and
                                                      measure memory, disk, restart and latency at each size
  totalrecall bench shard --cluster dgraph://HOST:PORT [-n 2000] [-queries 200] [-warmup 50]
                                                      two servers each serving half the scopes beside one
                                                      serving all: index, memory, search direct and routed
  totalrecall digest  [--store URI | --server URL] [--scope ID] [--archive IDS|proposed] [--remove IDS]
                      [--stale-after 720h] [--every DURATION]   run digest passes (propose / archive / remove)
  totalrecall version

Clients of a running server (they never open a data folder):
` + cli.Usage + `
The store URI: file://PATH runs the embedded Dgraph engine on PATH (created if missing; the
graph lives in PATH/graph, the search index in PATH/index); dgraph://HOST:PORT connects to a
Dgraph cluster (options: ?sslmode=disable|require|verify-ca, apikey=... or bearertoken=...,
user:pass@ for ACL, namespace=N with user:pass@), and the search index lives in --index
(default ./data/index).
`

var version = "dev"

func main() {
	tuneGC()
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "totalrecall:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	if cli.IsCommand(args[0]) {
		return cli.Run(args, os.Stdin, stdout, stderr)
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "reindex":
		return reindex(args[1:], stdout)
	case "bench":
		if len(args) > 1 && args[1] == "living" {
			return benchLiving(args[2:], stdout)
		}
		if len(args) > 1 && args[1] == "scale" {
			return benchScale(args[2:], stdout)
		}
		if len(args) > 1 && args[1] == "hook" {
			return benchHook(args[2:], stdout)
		}
		if len(args) > 1 && args[1] == "explore" {
			return benchExplore(args[2:], stdout)
		}
		if len(args) > 1 && args[1] == "shard" {
			return benchShard(args[2:], stdout)
		}
		return bench(args[1:], stdout)
	case "digest":
		return digestCmd(args[1:], stdout)
	case "story":
		return storyCmd(args[1:], stdout)
	case "export":
		return exportCmd(args[1:], stdout)
	case "import":
		if len(args) < 2 {
			return errors.New("import: say what to import (dump)")
		}
		switch args[1] {
		case "dump":
			return importDump(args[2:], stdout)
		case "journal":
			return importJournal(args[2:], stdout)
		case "locomo", "events", "agents":
			return importSource(args[1], args[2:], stdout, stderr)
		}
		return fmt.Errorf("import: unknown kind %q", args[1])
	case "eval":
		return evalCmd(args[1:], stdout, stderr)
	case "analyze":
		return analyzeCmd(args[1:], stdout)
	case "fork":
		return forkCmd(args[1:], stdout)
	case "embed":
		return embedCmd(args[1:], stdout)
	case "keys":
		return keysCmd(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "totalrecall", version)
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// storeFlags are the flags every command that opens the data shares.
type storeFlags struct {
	store string
	index string
	// living configures the living memory (timers off unless set; see living.go).
	living cortex.LivingConfig
	// retention is how long the log keeps read events (serve's flags; none elsewhere).
	retention cortex.Retention
	now       func() time.Time
	// digest is serve's optional scheduled digest (digest.go).
	digest digestSchedule
	// mnemonic names the models of ingest, analysis and hybrid search (mnemonic.go).
	mnemonic cortex.MnemonicConfig
	// cache is the embedded engine's read cache budget (when set, it overrides the memory budget's).
	cache cacheFlag
	// memory is --memory-limit: the budget the caches are sized from (budget.go).
	memory memoryLimitFlag
	// noWarm leaves the read cache to fill as reads come (serve warms it at start).
	noWarm bool
	// recorder, when set, records the store's commits (eval's graph-writes-alone baseline).
	recorder *graph.Recorder
	// noExpand searches queries' words as written, without the WordNet lexicon.
	noExpand bool
	// sensitivity makes eval ask every question with each weight halved and doubled.
	sensitivity bool
	// expose holds serve's flags for a server on a network (exposure.go).
	expose exposeFlags
	// commitHooks, when set, see (and may fail) the store's commits: tests attribute writes to
	// requests and inject faults.
	commitHooks graph.CommitHooks
	// shard is serve's --serve-scopes and --peers (shard.go).
	shard shardFlags
}

// cacheFlag is --cache-mb: each part of the read cache of the embedded engine in MiB; 0 turns
// it off, and left unset the parts are sized from the memory budget (budgetFor).
type cacheFlag struct{ bytes int }

func (c *cacheFlag) String() string {
	if c.bytes == 0 {
		return ""
	}
	return strconv.Itoa(max(c.bytes, 0) >> 20)
}

func (c *cacheFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return fmt.Errorf("--cache-mb %q: want a whole number of MiB, 0..1048576 (0 turns the cache off)", s)
	}
	c.bytes = n << 20
	if n == 0 {
		c.bytes = -1
	}
	return nil
}

func (f *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.store, "store", "file://./data", "graph store: file://PATH (embedded) or dgraph://HOST:PORT (cluster)")
	fs.StringVar(&f.index, "index", "", "search index folder (default: PATH/index for file://PATH, ./data/index for a cluster)")
	fs.Var(&f.cache, "cache-mb", "read cache of the embedded store: MiB for memories and their contexts, and as many for total recall's associations and states (0 turns it off; default: sized from --memory-limit, a quarter and a sixteenth of it)")
	fs.Var(&f.memory, "memory-limit", "memory budget of the process, e.g. 512MiB or 2GiB: the engine's caches, the read cache, the index's id cache, the event log's window and the Go heap's soft limit are sized from it")
}

// budget is the memory budget the flags ask for; --cache-mb, when given, sets the read cache's.
func (f *storeFlags) budget() memoryBudget {
	b := budgetFor(f.memory.limit())
	if f.cache.bytes != 0 {
		b.ReadCache = max(f.cache.bytes, 0)
		b.ReadWalks = b.ReadCache
	}
	return b
}

// paths returns the store URI to open and the index folder.
func (f *storeFlags) paths() (string, string, error) {
	switch {
	case strings.HasPrefix(f.store, "file://"):
		root := strings.TrimPrefix(f.store, "file://")
		if root == "" {
			return "", "", errors.New("--store file:// needs a path")
		}
		idx := f.index
		if idx == "" {
			idx = filepath.Join(root, "index")
		}
		return "file://" + filepath.Join(root, "graph"), idx, nil
	case strings.HasPrefix(f.store, "dgraph://"):
		idx := f.index
		if idx == "" {
			idx = filepath.Join("data", "index")
		}
		return f.store, idx, nil
	}
	return "", "", fmt.Errorf("--store %q: use file://PATH or dgraph://HOST:PORT", f.store)
}

// open opens the store, the index and the Cortex over them.
func (f *storeFlags) open(ctx context.Context, logger *slog.Logger) (*graph.Store, *search.Index, *cortex.Cortex, error) {
	uri, idxDir, err := f.paths()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := f.lockData(); err != nil {
		return nil, nil, nil, err
	}
	b := f.budget()
	opts := []graph.Option{graph.WithEngineMemory(b.Engine), graph.WithReadCacheParts(b.ReadCache, b.ReadWalks)}
	if f.recorder != nil {
		opts = append(opts, graph.WithRecorder(f.recorder))
	}
	if f.commitHooks.Before != nil || f.commitHooks.After != nil {
		opts = append(opts, graph.WithCommitHooks(f.commitHooks))
	}
	st, err := graph.Open(ctx, uri, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	idx, err := search.Open(idxDir, search.WithIDCache(b.IndexIDs))
	if err != nil {
		st.Close()
		return nil, nil, nil, err
	}
	var lex domain.Lexicon
	if !f.noExpand {
		l, err := lexicon.New()
		if err != nil {
			idx.Close()
			st.Close()
			return nil, nil, nil, err
		}
		lex = l
	}
	cx, err := cortex.New(ctx, cortex.Config{Store: st, Index: idx, Logger: logger, Living: f.living, Now: f.now, Mnemonic: f.mnemonic,
		Lexicon: lex, EventWindow: b.EventWindow, MaxSubscriptionsPerKey: f.expose.subscriptionCap(), Shard: f.shard.spec, Retention: f.retention})
	if err != nil {
		idx.Close()
		st.Close()
		return nil, nil, nil, err
	}
	return st, idx, cx, nil
}

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	registerLivingFlags(fs, &sf.living)
	registerRetentionFlags(fs, &sf.retention)
	registerSynapseFlags(fs, &sf.living.Synapse)
	registerStoryFlags(fs, &sf.living.Subconscious.Story)
	registerDigestFlags(fs, &sf.digest)
	sf.expose.register(fs)
	sf.shard.register(fs)
	var mf modelFlags
	mf.register(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address HOST:PORT")
	fs.BoolVar(&sf.noWarm, "no-warm", false, "do not fill the read cache from the graph at start or after large imports (embedded store)")
	fs.BoolVar(&sf.noExpand, "no-expand", false, "search the words of queries as written: no expansion with WordNet's synonyms and categories")
	maxContent := fs.Int("max-content-bytes", domain.DefaultMaxContentBytes, "largest content a memory, artifact or kernel may carry, in bytes (1..67108864)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := sf.shard.parse(sf.store); err != nil {
		return fmt.Errorf("serve %w", err)
	}
	if sf.retention.Keep < 0 || sf.retention.Interval < 0 {
		return fmt.Errorf("serve --keep-read-events and --prune-interval must not be negative (0 keeps read events for good)")
	}
	// Set once, before the store opens or a request arrives; every content check reads it.
	if err := domain.SetMaxContentBytes(*maxContent); err != nil {
		return fmt.Errorf("serve --max-content-bytes: %w", err)
	}
	mc, err := mf.config()
	if err != nil {
		return fmt.Errorf("serve %w", err)
	}
	sf.mnemonic = mc
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	sf.budget().applyGoLimit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// A second signal ends the process at once, without the graceful shutdown.
		<-ctx.Done()
		stop()
	}()
	return serveOn(ctx, sf, *addr, stdout, logger, nil)
}

// serveOn runs the server until ctx ends, then shuts down gracefully. The listener answers 503
// until the store and index are ready; started, if given, receives the bound address once they
// are.
func serveOn(ctx context.Context, sf storeFlags, addr string, stdout io.Writer, logger *slog.Logger, started chan<- string) error {
	xf := &sf.expose
	if err := xf.checkExposure(addr); err != nil {
		return err
	}
	if xf.adminAddr != "" && xf.adminAddr == addr && !strings.HasSuffix(addr, ":0") {
		return fmt.Errorf("--admin-addr must differ from --addr: metrics and profiles are never served on the public address")
	}
	readHeader, idle, shutdownTimeout := xf.timeouts()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	var ready atomic.Bool
	var h atomic.Pointer[http.Handler]
	var starting http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "starting", http.StatusServiceUnavailable)
	})
	h.Store(&starting)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*h.Load()).ServeHTTP(w, r)
	}), ReadHeaderTimeout: readHeader, IdleTimeout: idle}
	go srv.Serve(ln)

	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		srv.Close()
		return err
	}
	// Logged once the data is ours: a refused start prints its refusal alone.
	b := sf.budget()
	b.log(logger)
	if !sf.noWarm {
		imports := make(chan int, 64)
		cx.SetImportHook(func(n int) {
			select {
			case imports <- n:
			default: // the rewarmer is behind: it will see the next
			}
		})
		go rewarm(ctx, st, logger, imports, rewarmPolicy{})
	}
	if b.ReadCache > 0 {
		go newCacheGovernor(b.ReadCache, b.ReadWalks).run(ctx, st, logger)
	}
	waitDigest := startDigestSchedule(ctx, cx, sf.digest, logger)
	var metrics *edge.Metrics
	if xf.adminAddr != "" {
		metrics = edge.NewMetrics()
	}
	xf.shardPublic = sf.shard.spec != nil
	gate, gql := xf.buildEdge(cx, logger, metrics)
	var admin *http.Server
	if metrics != nil {
		registerMetrics(metrics, st, idx, cx, gate)
		registerDiskMetrics(metrics, &sf)
		aln, err := net.Listen("tcp", xf.adminAddr)
		if err != nil {
			srv.Close()
			cx.Close()
			idx.Close()
			st.Close()
			return fmt.Errorf("--admin-addr: %w", err)
		}
		admin = &http.Server{Handler: adminHandler(cx, ready.Load, metrics), ReadHeaderTimeout: readHeader, IdleTimeout: idle}
		go admin.Serve(aln)
		fmt.Fprintf(stdout, "totalrecall admin on http://%s/ (/metrics, /debug/pprof/, /livez, /readyz)\n", aln.Addr())
	}
	api := gate.Handler(routes(cx, ready.Load, gql, sf.shard.serving(ctx, cx, logger)))
	h.Store(&api)
	ready.Store(true)
	auth := "off: every caller reaches every scope"
	if xf.auth {
		auth = "on"
	}
	scopes := ""
	if sp := sf.shard.spec; sp != nil {
		scopes = fmt.Sprintf(", scopes %s, %d peers", truncate(sp.String(), 80), len(sf.shard.peers))
	}
	fmt.Fprintf(stdout, "totalrecall serving on http://%s/ (playground; GraphQL at http://%s/query, store %s, API keys %s%s)\n", ln.Addr(), ln.Addr(), sf.store, auth, scopes)
	if started != nil {
		started <- ln.Addr().String()
	}

	<-ctx.Done()
	return shutdown(srv, admin, gate, cx, idx, st, sf.unlockData, waitDigest, &ready, shutdownTimeout, logger)
}

// shutdown stops the server gracefully within timeout: it stops accepting, records the
// ShutdownCommand, completes the subscriptions, lets the requests in flight finish, closes the
// websockets, flushes the index and the consumers, records the outcome and closes the store. It
// fails when the deadline passed before all of that was done.
func shutdown(srv, admin *http.Server, gate *edge.Edge, cx *cortex.Cortex, idx *search.Index, st *graph.Store,
	unlock, waitDigest func(), ready *atomic.Bool, timeout time.Duration, logger *slog.Logger) error {
	start := time.Now()
	logger.Info("shutting down", "timeout", timeout)
	ready.Store(false)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cx.BeginShutdown(sctx, timeout)
	// Subscriptions complete (their clients see it) before their websockets close.
	for cx.OpenSubscriptions() > 0 && time.Since(start) < min(2*time.Second, timeout/4) {
		time.Sleep(10 * time.Millisecond)
	}
	httpErr := srv.Shutdown(sctx)
	gate.CloseWebsockets()
	srv.Close() // what did not finish in time
	waitDigest()
	out := cx.FinishShutdown(sctx)
	cx.Close()
	idx.Close()
	st.Close()
	unlock() // the data folders' locks, once their stores are closed
	if admin != nil {
		admin.Close()
	}
	logger.Info("shut down", "flushed", out.Flushed, "head", out.Head, "index", out.IndexWatermark, "consumers", out.Consumers,
		"took", time.Since(start).Round(time.Millisecond))
	switch {
	case httpErr != nil:
		return fmt.Errorf("shutdown: requests still in flight after %s: %w", timeout, httpErr)
	case out.Err != nil:
		return fmt.Errorf("shutdown: %w", out.Err)
	}
	return nil
}

// warm fills the embedded store's read cache in the background (graph.Store.Warm): requests are
// served meanwhile, reading the graph for what is not cached yet.
func warm(ctx context.Context, st *graph.Store, logger *slog.Logger) {
	if !st.Embedded() {
		return
	}
	ws, err := st.Warm(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		logger.Warn("read cache warm-up failed", "err", err)
	case err == nil:
		logger.Info("read cache warm", "memories", ws.Memories, "contexts", ws.Contexts, "episodes", ws.Episodes, "walks", ws.Adjacencies, "associations", ws.Edges,
			"states", ws.States, "MiB", ws.Bytes>>20, "budgetSpent", ws.Full, "walksAfter", ws.WalksAfter.Round(time.Millisecond),
			"took", ws.Duration.Round(time.Millisecond))
	}
}

// rewarmPolicy says when the read cache is warmed again after imports: once RewarmAfter
// memories were imported since the last warm-up and no import finished for Quiet, and not
// sooner than twice the last warm-up's duration after it ended. Zero fields take the defaults.
type rewarmPolicy struct {
	After int
	Quiet time.Duration
	check time.Duration // how often the quiet is checked (tests shorten it)
}

// RewarmAfter is how many imported memories make the read cache warm itself again: an import
// writes its memories' edges, which drops their recall contexts from the cache, so the searches
// after a large import would each read a hundred contexts from the graph until a restart warmed
// them.
const RewarmAfter = 1000

// RewarmQuiet is how long no import may finish before the read cache is warmed again.
const RewarmQuiet = 10 * time.Second

// rewarm warms the read cache at start, then again after large imports (policy), in the
// background.
func rewarm(ctx context.Context, st *graph.Store, logger *slog.Logger, imports <-chan int, policy rewarmPolicy) {
	if policy.After <= 0 {
		policy.After = RewarmAfter
	}
	if policy.Quiet <= 0 {
		policy.Quiet = RewarmQuiet
	}
	if policy.check <= 0 {
		policy.check = time.Second
	}
	t0 := time.Now()
	warm(ctx, st, logger)
	next := time.Now().Add(2 * time.Since(t0))
	pending, last := 0, time.Time{}
	tick := time.NewTicker(policy.check)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-imports:
			pending, last = pending+n, time.Now()
		case <-tick.C:
			if pending < policy.After || time.Since(last) < policy.Quiet || time.Now().Before(next) {
				continue
			}
			logger.Info("warming the read cache again after imports", "memories", pending)
			pending = 0
			t0 := time.Now()
			warm(ctx, st, logger)
			next = time.Now().Add(2 * time.Since(t0))
		}
	}
}

func reindex(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("reindex", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	_, idxDir, err := sf.paths()
	if err != nil {
		return err
	}
	// Never the index of a server that runs: the folders are locked before anything is removed.
	if err := sf.lockData(); err != nil {
		return err
	}
	// Rebuilding is dropping the derived index and letting the Cortex catch up from the log.
	if err := os.RemoveAll(idxDir); err != nil {
		return err
	}
	start := time.Now()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(context.Background(), logger)
	if err != nil {
		return err
	}
	n, _ := idx.Count()
	cx.Close()
	idx.Close()
	st.Close()
	fmt.Fprintf(stdout, "reindexed %d memories in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}

func exportCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	out := fs.String("out", "-", "file to write (- for standard output)")
	g := registerGraphExport(fs) // export_graph.go
	if err := fs.Parse(args); err != nil {
		return err
	}
	if g.asked(fs) {
		return exportGraph(fs, sf, g, out, stdout)
	}
	if *g.server != "" {
		return exportOverServer(*g.server, *out, stdout)
	}
	uri, _, err := sf.paths()
	if err != nil {
		return err
	}
	if err := sf.lockGraph(); err != nil {
		return err
	}
	ctx := context.Background()
	st, err := graph.Open(ctx, uri)
	if err != nil {
		return err
	}
	defer st.Close()
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := st.Export(ctx, w)
	if err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(stdout, "exported %d lines to %s\n", n, *out)
	}
	return nil
}

func importDump(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("import dump", flag.ContinueOnError)
	var sf storeFlags
	sf.register(fs)
	server := fs.String("server", "", "load the dump into this running server (http://HOST:PORT) instead of opening the store")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("import dump: give the dump file (or - for standard input)")
	}
	in := fs.Arg(0)
	var r io.Reader = os.Stdin
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	ctx := context.Background()
	if *server != "" {
		return importDumpOverServer(ctx, *server, r, stdout)
	}
	uri, _, err := sf.paths()
	if err != nil {
		return err
	}
	if err := sf.lockGraph(); err != nil {
		return err
	}
	st, err := graph.Open(ctx, uri)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.Import(ctx, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d lines; the search index catches up on the next start", n)
	if a := st.Aborts(); a > 0 {
		fmt.Fprintf(stdout, " (%d commits conflicted with concurrent writes and were retried)", a)
	}
	fmt.Fprintln(stdout)
	return nil
}
