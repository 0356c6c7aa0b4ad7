package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/shard"
	"github.com/totalrecall/totalrecall/search"
)

// shardColumn is what bench shard measures of one server: its index and memory, and the
// searches of the scopes it serves, sent to it (direct) and through the other server (routed).
type shardColumn struct {
	name            string
	docs            uint64
	disk            int64
	anonSettled     int64
	anonPeak        int64
	direct, routed  []time.Duration
	rawBleve        []time.Duration
	rawLivez        []time.Duration
	queries, scopes int
	warmup          int
}

// benchShard measures the split of the scopes between two servers on one cluster against one
// server serving every scope, on the same cluster, the same data and the same queries.
func benchShard(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench shard", flag.ContinueOnError)
	n := fs.Int("n", 2000, "memories to load, spread evenly over the scopes")
	nScopes := fs.Int("scopes", 8, "scopes to load (each falls on a shard by the hash of its id; at least one per shard)")
	queries := fs.Int("queries", 200, "timed searchMemory calls per server and path")
	warmup := fs.Int("warmup", 50, "untimed searches before each timed series")
	cluster := fs.String("cluster", "", "the Dgraph cluster the servers share, dgraph://HOST:PORT (required)")
	limit := fs.String("memory-limit", "1GiB", "each server's --memory-limit")
	data := fs.String("dir", "", "folder for the servers' indexes and logs (default: a temp folder, removed at the end)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case !strings.HasPrefix(*cluster, "dgraph://"):
		return errors.New("bench shard: --cluster dgraph://HOST:PORT is required (the servers that split the scopes share a cluster)")
	case *n < 1 || *nScopes < 2 || *queries < 1 || *warmup < 0:
		return errors.New("bench shard: -n and -queries must be at least 1, -scopes at least 2, -warmup at least 0")
	}
	if _, err := parseSize(*limit); err != nil {
		return fmt.Errorf("-memory-limit: %v", err)
	}
	dir, cleanup, err := benchDir(*data, "totalrecall-bench-shard-")
	if err != nil {
		return err
	}
	defer cleanup()
	host, _ := os.Hostname()
	fmt.Fprintf(stdout, "totalrecall bench shard — %s, %d cores, %s; cluster %s; serve --memory-limit %s\n",
		host, runtimeCPUs(), time.Now().UTC().Format("2006-01-02 15:04 MST"), *cluster, *limit)
	fmt.Fprintf(stdout, "indexes and logs in %s\n", dir)

	quiet := []string{"--store", *cluster, "--memory-limit", *limit, "--access-log=false", "--decay-interval", "0", "--session-check", "0"}
	addrs := [2]string{}
	for i := range addrs {
		a, err := freeAddr()
		if err != nil {
			return err
		}
		addrs[i] = a
	}
	var procs [2]*serverProc
	defer func() {
		for _, p := range procs {
			if p != nil {
				p.kill()
			}
		}
	}()
	for i := range procs {
		flags := append(append([]string(nil), quiet...), "--index", filepath.Join(dir, fmt.Sprintf("index-%dof2", i)),
			"--serve-scopes", fmt.Sprintf("%d/2", i), "--peers", "http://"+addrs[1-i])
		p, err := startServeAt(addrs[i], filepath.Join(dir, fmt.Sprintf("server-%dof2.log", i)), flags...)
		if err != nil {
			return err
		}
		procs[i] = p
	}
	client := func(addr string) *benchClient {
		return &benchClient{url: "http://" + addr + "/query", http: &http.Client{Timeout: 2 * time.Minute}}
	}

	// The scopes, made through server 0 (the graph is one), until each shard has one.
	run := fmt.Sprint(time.Now().UnixNano())
	var scopes []string
	var per [2][]string
	for i := 0; len(scopes) < *nScopes || len(per[0]) == 0 || len(per[1]) == 0; i++ {
		if i == 64+*nScopes {
			return errors.New("bench shard: the scopes made all fall on one shard")
		}
		var r struct{ CreateScope struct{ ID string } }
		if err := client(addrs[0]).do(`mutation($n: String!) { createScope(name: $n) { id } }`, map[string]any{"n": fmt.Sprintf("bench shard %s %d", run, i)}, &r); err != nil {
			return fmt.Errorf("createScope: %w", err)
		}
		id := r.CreateScope.ID
		scopes = append(scopes, id)
		per[shard.Of(id, 2)] = append(per[shard.Of(id, 2)], id)
	}

	// The memories, in batches through server 0: the batches of shard 1's scopes are routed.
	words := vocabulary()
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Now()
	const batch = 100
	for i, sc := range scopes {
		k := *n / len(scopes)
		if i < *n%len(scopes) {
			k++
		}
		for done := 0; done < k; done += batch {
			var ins []map[string]any
			for j := done; j < min(k, done+batch); j++ {
				ins = append(ins, map[string]any{"scopeId": sc, "content": sentence(rng, words)})
			}
			if err := client(addrs[0]).do(`mutation($in: [StoreMemoryInput!]!) { storeMemories(inputs: $in) { id } }`, map[string]any{"in": ins}, nil); err != nil {
				return fmt.Errorf("storeMemories: %w", err)
			}
		}
	}
	fmt.Fprintf(stdout, "loaded %d memories into %d scopes (%d on shard 0/2, %d on 1/2) through server 0/2 in %s\n",
		*n, len(scopes), len(per[0]), len(per[1]), time.Since(start).Round(time.Millisecond))
	for i, p := range procs {
		if err := waitHead(addrs[i], 10*time.Minute); err != nil {
			return err
		}
		waitProcIdle(p.cmd.Process.Pid, 20*time.Second)
	}

	// The queries: two words each, drawn as the memories' words are, in the scopes of one shard.
	qrng := rand.New(rand.NewPCG(13, 17))
	type query struct{ scope, text string }
	draw := func(scs []string, k int) []query {
		out := make([]query, k)
		for i := range out {
			f, g := qrng.Float64(), qrng.Float64()
			out[i] = query{scs[qrng.IntN(len(scs))], words[int(f*f*float64(len(words)))] + " " + words[int(g*g*float64(len(words)))]}
		}
		return out
	}
	timed := func(addr string, qs []query) ([]time.Duration, error) {
		c := client(addr)
		out := make([]time.Duration, 0, len(qs))
		for _, q := range qs {
			t0 := time.Now()
			if err := c.do(`query($s: ID!, $q: String!) { searchMemory(scopeId: $s, query: $q, maxResults: 10) { score } }`,
				map[string]any{"s": q.scope, "q": q.text}, nil); err != nil {
				return nil, fmt.Errorf("searchMemory on %s: %w", addr, err)
			}
			out = append(out, time.Since(t0))
		}
		return out, nil
	}
	series := func(addr string, qs, warm []query) ([]time.Duration, error) {
		if _, err := timed(addr, warm); err != nil {
			return nil, err
		}
		return timed(addr, qs)
	}
	cols := make([]*shardColumn, 3)
	qsOf := [2][]query{draw(per[0], *queries), draw(per[1], *queries)}
	warmOf := [2][]query{draw(per[0], *warmup), draw(per[1], *warmup)}
	for i := range procs {
		col := &shardColumn{name: fmt.Sprintf("server %d/2", i), queries: *queries, warmup: *warmup, scopes: len(per[i])}
		cols[i] = col
		col.anonSettled = procs[i].rss.Now().Anon
		procs[i].rss.Reset()
		// Each query sent to its server (direct) and to the other, which forwards it (routed),
		// one after the other in turns: the two series see the same graph and the same load.
		var err error
		if _, err = timed(addrs[i], warmOf[i]); err != nil {
			return err
		}
		if _, err = timed(addrs[1-i], warmOf[i]); err != nil {
			return err
		}
		for k, q := range qsOf[i] {
			order := []string{addrs[i], addrs[1-i]}
			if k%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, addr := range order {
				d, err := timed(addr, []query{q})
				if err != nil {
					return err
				}
				if addr == addrs[i] {
					col.direct = append(col.direct, d[0])
				} else {
					col.routed = append(col.routed, d[0])
				}
			}
		}
		col.anonPeak = procs[i].rss.Peak().Anon
		if col.rawLivez, err = livezRoundTrips(addrs[i], *warmup, *queries); err != nil {
			return err
		}
	}
	for i, p := range procs {
		if err := p.stop(); err != nil {
			return fmt.Errorf("server %d/2 on SIGTERM: %w", i, err)
		}
		procs[i] = nil
	}

	// One server of every scope on the same cluster: its index catches up from the whole log.
	allAddr, err := freeAddr()
	if err != nil {
		return err
	}
	allIndex := filepath.Join(dir, "index-all")
	one, err := startServeAt(allAddr, filepath.Join(dir, "server-all.log"), append(append([]string(nil), quiet...), "--index", allIndex)...)
	if err != nil {
		return err
	}
	procs[0] = one
	if err := waitHead(allAddr, 10*time.Minute); err != nil {
		return err
	}
	waitProcIdle(one.cmd.Process.Pid, 20*time.Second)
	all := &shardColumn{name: "one server, every scope", queries: *queries, warmup: *warmup, scopes: len(scopes)}
	cols[2] = all
	all.anonSettled = one.rss.Now().Anon
	one.rss.Reset()
	both := append(append([]query(nil), qsOf[0]...), qsOf[1]...)
	warmBoth := append(append([]query(nil), warmOf[0]...), warmOf[1]...)
	qrng.Shuffle(len(both), func(i, j int) { both[i], both[j] = both[j], both[i] })
	if all.direct, err = series(allAddr, both, warmBoth); err != nil {
		return err
	}
	all.anonPeak = one.rss.Peak().Anon
	if all.rawLivez, err = livezRoundTrips(allAddr, *warmup, *queries); err != nil {
		return err
	}
	if err := one.stop(); err != nil {
		return fmt.Errorf("the server of every scope on SIGTERM: %w", err)
	}
	procs[0] = nil

	// Each index, read bare once its server stopped: documents, disk, and raw Bleve top-10 of
	// the same queries (the raw baseline of the searches).
	for i, col := range cols {
		idxDir := allIndex
		qs := both
		if i < 2 {
			idxDir, qs = filepath.Join(dir, fmt.Sprintf("index-%dof2", i)), qsOf[i]
		}
		col.disk = diskUsage(idxDir)
		ix, err := search.Open(idxDir)
		if err != nil {
			return err
		}
		col.docs, _ = ix.Count()
		for k, q := range append(warmOf[min(i, 1)], qs...) {
			t0 := time.Now()
			if _, err := ix.Search(context.Background(), domain.IndexQuery{ScopeID: q.scope, Text: q.text, Limit: 10}); err != nil {
				ix.Close()
				return err
			}
			if k >= len(warmOf[min(i, 1)]) {
				col.rawBleve = append(col.rawBleve, time.Since(t0))
			}
		}
		ix.Close()
	}
	printShard(stdout, cols)
	return nil
}

// waitHead waits until the server's index and consumers have reached the log's head (/readyz).
func waitHead(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	hc := &http.Client{Timeout: 5 * time.Second}
	for {
		resp, err := hc.Get("http://" + addr + "/readyz")
		if err == nil {
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var head, index uint64
			if resp.StatusCode == http.StatusOK {
				if _, err := fmt.Sscanf(string(raw), "ok: head %d, index %d", &head, &index); err == nil && index >= head {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server at %s did not catch up with the log within %s", addr, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// livezRoundTrips times bare loopback HTTP round trips to the server: the floor of a request.
func livezRoundTrips(addr string, warmup, n int) ([]time.Duration, error) {
	hc := &http.Client{Timeout: 10 * time.Second}
	out := make([]time.Duration, 0, n)
	for i := 0; i < warmup+n; i++ {
		t0 := time.Now()
		resp, err := hc.Get("http://" + addr + "/livez")
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if i >= warmup {
			out = append(out, time.Since(t0))
		}
	}
	return out, nil
}

func printShard(w io.Writer, cols []*shardColumn) {
	mib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	p := func(ds []time.Duration, q int) string {
		if len(ds) == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", ms(pct(ds, q)))
	}
	hop := func(c *shardColumn) string {
		if len(c.routed) == 0 {
			return "—"
		}
		return fmt.Sprintf("%+.2f", ms(pct(c.routed, 50))-ms(pct(c.direct, 50)))
	}
	rows := [][]string{{"figure"}, {"scopes served"}, {"index documents"}, {"index on disk, MiB"}, {"RssAnon settled after the load, MiB"},
		{"RssAnon peak while searching, MiB"}, {"searchMemory p50 direct, ms"}, {"searchMemory p99 direct, ms"},
		{"searchMemory p50 routed through the other, ms"}, {"searchMemory p99 routed through the other, ms"},
		{"the hop, p50 routed − p50 direct, ms"}, {"raw: Bleve top-10 of the same queries p50, ms"}, {"raw: Bleve top-10 p99, ms"},
		{"raw: loopback GET /livez p50, ms"}}
	for _, c := range cols {
		vals := []string{c.name, fmt.Sprint(c.scopes), fmt.Sprint(c.docs), mib(c.disk), mib(c.anonSettled), mib(c.anonPeak),
			p(c.direct, 50), p(c.direct, 99), p(c.routed, 50), p(c.routed, 99), hop(c), p(c.rawBleve, 50), p(c.rawBleve, 99), p(c.rawLivez, 50)}
		for i, v := range vals {
			rows[i] = append(rows[i], v)
		}
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, v := range r {
			widths[i] = max(widths[i], len([]rune(v)))
		}
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		var b strings.Builder
		for i, v := range r {
			if i == 0 {
				b.WriteString(v + strings.Repeat(" ", widths[0]-len([]rune(v))+2))
				continue
			}
			b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(v))) + v + "  ")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(w, "\n%d timed searches per server and path after %d untimed; the servers of a split serve the queries of their own scopes, the one server all of them.\n",
		cols[0].queries, cols[0].warmup)
}
