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
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/resolvers"
	"github.com/totalrecall/totalrecall/search"
)

// bench measures the server end to end over HTTP and prints each figure beside a raw baseline
// measured in the same run on the same machine.
func bench(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var sf storeFlags
	fs.StringVar(&sf.store, "store", "", "graph store (default: a fresh embedded store in a temp folder)")
	fs.StringVar(&sf.index, "index", "", "search index folder (default: in the temp folder)")
	n := fs.Int("n", 3000, "storeMemory calls per store measurement")
	corpus := fs.Int("corpus", 100000, "memories in the search corpus (one scope)")
	queries := fs.Int("queries", 2000, "searches for the latency figures")
	clients := fs.Int("clients", 8, "concurrent clients of the concurrent measurement")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	tmp, err := os.MkdirTemp("", "totalrecall-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if sf.store == "" {
		sf.store = "file://" + tmp
	}
	if sf.index == "" {
		sf.index = filepath.Join(tmp, "index")
	}
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: resolvers.NewHandler(cx, nil)}
	go srv.Serve(ln)
	defer srv.Close()
	c := &benchClient{url: "http://" + ln.Addr().String() + "/query",
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}

	fmt.Fprintf(stdout, "totalrecall bench — store %s, %d cores\n\n", sf.store, runtimeCPUs())
	var sc struct {
		CreateScope struct{ ID string }
	}
	if err := c.do(`mutation { createScope(name: "bench") { id } }`, nil, &sc); err != nil {
		return err
	}
	scope := sc.CreateScope.ID
	words := vocabulary()
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string // every text stored, for the raw search baseline
	var textsMu sync.Mutex

	// --- store, one client ---
	start := time.Now()
	for i := 0; i < *n; i++ {
		t := sentence(rng, words)
		if err := c.store(scope, t); err != nil {
			return err
		}
		texts = append(texts, t)
	}
	single := float64(*n) / time.Since(start).Seconds()

	// --- store, concurrent clients ---
	var done atomic.Int64
	var firstErr atomic.Value
	start = time.Now()
	var wg sync.WaitGroup
	for w := 0; w < *clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for done.Add(1) <= int64(*n) {
				t := sentence(r, words)
				if err := c.store(scope, t); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				textsMu.Lock()
				texts = append(texts, t)
				textsMu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return e.(error)
	}
	concurrent := float64(*n) / time.Since(start).Seconds()

	// --- raw baselines: single mutations on the same engine, raw Bleve ---
	start = time.Now()
	for i := 0; i < *n; i++ {
		if err := st.RawSet(ctx, map[string]any{"uid": "_:x", "tr.kind": "Baseline", "mem.content": sentence(rng, words)}); err != nil {
			return err
		}
	}
	rawMut := float64(*n) / time.Since(start).Seconds()
	rawDir := filepath.Join(tmp, "raw-bleve")
	rawSingle, rawBatch, err := rawBleveIndexing(rawDir, rng, words, *n)
	if err != nil {
		return err
	}

	fmt.Fprintf(stdout, "%-52s %12s   %s\n", "figure", "totalrecall", "raw baseline (same run)")
	fmt.Fprintf(stdout, "%-52s %10.0f/s   %8.0f/s single-mutation commits (embedded engine)\n", "storeMemory over HTTP, 1 client", single, rawMut)
	fmt.Fprintf(stdout, "%-52s %10.0f/s   %8.0f/s raw Bleve single-doc index\n", fmt.Sprintf("storeMemory over HTTP, %d clients", *clients), concurrent, rawSingle)

	// --- bulk: the search corpus through storeMemories ---
	const batch = 1000
	have := 2 * *n
	start = time.Now()
	stored := 0
	for have+stored < *corpus {
		k := min(batch, *corpus-have-stored)
		ins := make([]map[string]any, k)
		for i := range ins {
			t := sentence(rng, words)
			texts = append(texts, t)
			ins[i] = map[string]any{"scopeId": scope, "content": t}
		}
		var out struct{ StoreMemories []struct{ ID string } }
		if err := c.do(`mutation($in: [StoreMemoryInput!]!) { storeMemories(inputs: $in) { id } }`, map[string]any{"in": ins}, &out); err != nil {
			return err
		}
		stored += k
	}
	bulk := float64(stored) / time.Since(start).Seconds()
	fmt.Fprintf(stdout, "%-52s %10.0f/s   %8.0f/s raw Bleve batches of 1000\n", "storeMemories bulk (batches of 1000)", bulk, rawBatch)

	// --- search latency at the corpus size, beside raw Bleve over the same texts ---
	qs := make([]string, *queries)
	for i := range qs {
		qs[i] = words[rng.IntN(len(words)/4)] + " " + words[rng.IntN(len(words))]
	}
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		t0 := time.Now()
		var out struct{ SearchMemory []struct{ Score float64 } }
		if err := c.do(`query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { score memory { id content } } }`,
			map[string]any{"s": scope, "q": q}, &out); err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
	}
	rawLat, err := rawBleveSearch(filepath.Join(tmp, "raw-bleve-search"), scope, texts, qs)
	if err != nil {
		return err
	}
	cnt, _ := idx.Count()
	p50, p99 := pct(lat, 50), pct(lat, 99)
	r50, r99 := pct(rawLat, 50), pct(rawLat, 99)
	fmt.Fprintf(stdout, "%-52s %9.2fms   %7.2fms raw Bleve top-10 match query\n", fmt.Sprintf("searchMemory over HTTP p50 (%d memories)", cnt), ms(p50), ms(r50))
	fmt.Fprintf(stdout, "%-52s %9.2fms   %7.2fms raw Bleve top-10 match query\n", fmt.Sprintf("searchMemory over HTTP p99 (%d memories)", cnt), ms(p99), ms(r99))
	return nil
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
}

func (c *benchClient) do(q string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": q, "variables": vars})
	resp, err := c.http.Post(c.url, "application/json", bytes.NewReader(body))
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

func rawBleveIndexing(dir string, r *rand.Rand, words []string, n int) (single, batched float64, err error) {
	ix, err := bleve.New(dir, search.Mapping())
	if err != nil {
		return 0, 0, err
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
			return 0, 0, err
		}
	}
	single = float64(k) / time.Since(start).Seconds()
	start = time.Now()
	total := 0
	for total < 10*k {
		b := ix.NewBatch()
		for i := 0; i < 1000; i++ {
			if err := b.Index(domain.NewID(), doc()); err != nil {
				return 0, 0, err
			}
		}
		if err := ix.Batch(b); err != nil {
			return 0, 0, err
		}
		total += 1000
	}
	batched = float64(total) / time.Since(start).Seconds()
	return single, batched, nil
}

// rawBleveSearch indexes texts into a raw Bleve index (same mapping, batches of 1000) and
// times the same top-10 queries on it, built by the same query builder as the server's.
func rawBleveSearch(dir, scope string, texts, qs []string) ([]time.Duration, error) {
	ix, err := bleve.New(dir, search.Mapping())
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	now := time.Now()
	for i := 0; i < len(texts); i += 1000 {
		b := ix.NewBatch()
		for _, t := range texts[i:min(len(texts), i+1000)] {
			id := domain.NewID()
			if err := b.Index(id, search.BleveDoc(domain.IndexDoc{ID: id, ScopeID: scope, Content: t, Kind: domain.KindEpisodic,
				Tier: domain.TierActiveContext, State: domain.StateActive, OccurredAt: now, CreatedAt: now})); err != nil {
				return nil, err
			}
		}
		if err := ix.Batch(b); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		t0 := time.Now()
		bq, err := search.BleveQuery(domain.IndexQuery{ScopeID: scope, Text: q, Limit: 10,
			Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}})
		if err != nil {
			return nil, err
		}
		req := bleve.NewSearchRequestOptions(bq, 10, 0, false)
		if _, err := ix.Search(req); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}
