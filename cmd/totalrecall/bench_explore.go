package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/graph"
)

// benchExplore measures the explorer's neighbourhood query on a large scope (memories stored
// through the Cortex, associations, episodes and facets) beside the raw DQL @recurse of the same
// depth from the same seeds, in the same run, alternating the two.
func benchExplore(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench explore", flag.ContinueOnError)
	var sf storeFlags
	data := fs.String("data", "", "keep the corpus in this folder and reuse it on later runs (default: a temp folder, removed)")
	corpus := fs.Int("corpus", 100000, "memories in the scope")
	degree := fs.Int("degree", 8, "associations per memory (on average)")
	episode := fs.Int("episode", 20, "memories per episode (each episode also gets a facet per 10 memories)")
	queries := fs.Int("queries", 500, "neighbourhood queries per round (and as many raw traversals)")
	rounds := fs.Int("rounds", 4, "rounds, each the queries then the raw traversals")
	depth := fs.Int("depth", 2, "neighbourhood depth")
	limit := fs.Int("limit", domain.DefaultNeighborhoodLimit, "neighbourhood limit")
	paths := fs.Int("paths", 200, "path queries between random memories (0: none)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	fs.Var(&sf.cache, "cache-mb", "read cache of the embedded store in MiB (0 turns it off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "totalrecall-bench-explore-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	sf.store = "file://" + dir
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()

	marker := filepath.Join(dir, "bench-explore.json")
	var state struct {
		Scope string
		IDs   []string
	}
	reused := false
	if raw, err := os.ReadFile(marker); err == nil {
		if err := json.Unmarshal(raw, &state); err != nil {
			return fmt.Errorf("%s: %w", marker, err)
		}
		reused = true
	}
	rng := rand.New(rand.NewPCG(7, 11))
	if !reused {
		start := time.Now()
		if state.Scope, state.IDs, err = exploreCorpus(ctx, cx, st, *corpus, *degree, *episode, rng); err != nil {
			return err
		}
		waitConsumers(cx)
		fmt.Fprintf(stdout, "set-up: %d memories, ~%d associations each, episodes of %d with facets, in %s\n",
			len(state.IDs), *degree, *episode, time.Since(start).Round(time.Second))
		if *data != "" {
			raw, _ := json.Marshal(state)
			if err := os.WriteFile(marker, raw, 0o644); err != nil {
				return err
			}
		}
	}
	waitConsumers(cx)
	ids := state.IDs
	fmt.Fprintf(stdout, "totalrecall bench explore — %d cores, %d memories in one scope (reused: %v), depth %d, limit %d, %d rounds of %d queries\n\n",
		runtimeCPUs(), len(ids), reused, *depth, *limit, *rounds, *queries)

	stop, err := startProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	rss0, _ := residentMiB()
	// Untimed warm-up of both, then rounds alternating them so that both see the same machine.
	for i := 0; i < 50; i++ {
		seed := ids[rng.IntN(len(ids))]
		if _, err := cx.Neighborhood(ctx, cortex.NeighborhoodInput{ScopeID: state.Scope, Seeds: []string{seed}, Depth: depth, Limit: limit}); err != nil {
			return err
		}
		if _, err := rawExploreRecurse(ctx, st, seed, *depth); err != nil {
			return err
		}
	}
	var table []string
	measure := func(name string) error {
		var ours, raw []time.Duration
		var oursCPU, rawCPU time.Duration
		var nodes, edges, rawNodes, truncated int
		for r := 0; r < *rounds; r++ {
			seeds := make([]string, *queries)
			for i := range seeds {
				seeds[i] = ids[rng.IntN(len(ids))]
			}
			c0 := cpuTime()
			for _, seed := range seeds {
				t0 := time.Now()
				g, err := cx.Neighborhood(ctx, cortex.NeighborhoodInput{ScopeID: state.Scope, Seeds: []string{seed}, Depth: depth, Limit: limit})
				if err != nil {
					return err
				}
				ours = append(ours, time.Since(t0))
				nodes += len(g.Nodes)
				edges += len(g.Edges)
				if g.Truncated {
					truncated++
				}
			}
			c1 := cpuTime()
			oursCPU += c1 - c0
			for _, seed := range seeds {
				t0 := time.Now()
				n, err := rawExploreRecurse(ctx, st, seed, *depth)
				if err != nil {
					return err
				}
				raw = append(raw, time.Since(t0))
				rawNodes += n
			}
			rawCPU += cpuTime() - c1
			fmt.Fprintf(stdout, "%s round %d: neighborhood p50 %.2fms p99 %.2fms, raw p50 %.2fms p99 %.2fms\n", name, r+1,
				ms(pct(ours[len(ours)-*queries:], 50)), ms(pct(ours[len(ours)-*queries:], 99)), ms(pct(raw[len(raw)-*queries:], 50)), ms(pct(raw[len(raw)-*queries:], 99)))
		}
		n := len(ours)
		table = append(table,
			fmt.Sprintf("%-46s %10.2fms %10.2fms %10.2fms   %d nodes, %d edges (truncated %d of %d)",
				fmt.Sprintf("neighborhood depth %d, limit %d, %s", *depth, *limit, name), ms(pct(ours, 50)), ms(pct(ours, 99)),
				ms(oursCPU/time.Duration(n)), nodes/n, edges/n, truncated, n),
			fmt.Sprintf("%-46s %10.2fms %10.2fms %10.2fms   %d nodes, every edge predicate both ways, uncapped",
				fmt.Sprintf("raw DQL @recurse depth %d, uids only", *depth), ms(pct(raw, 50)), ms(pct(raw, 99)),
				ms(rawCPU/time.Duration(n)), rawNodes/n))
		return nil
	}
	if err := measure("cold"); err != nil {
		return err
	}
	// The read cache filled with the whole scope's nodes (as far as its budget allows): every
	// memory's neighbourhood at depth 1, many seeds per query.
	one, most := 1, domain.MaxNeighborhoodLimit
	t0, c0 := time.Now(), cpuTime()
	for i := 0; i < len(ids); i += 200 {
		if _, err := cx.Neighborhood(ctx, cortex.NeighborhoodInput{ScopeID: state.Scope, Seeds: ids[i:min(i+200, len(ids))], Depth: &one, Limit: &most}); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "warm-up: every memory's neighbourhood at depth 1, in %s (CPU %s)\n", time.Since(t0).Round(time.Millisecond), (cpuTime() - c0).Round(time.Millisecond))
	if err := measure("warm"); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	rss1, hwm := residentMiB()
	fmt.Fprintf(stdout, "%-46s %12s %12s %12s   %s\n", "figure", "p50", "p99", "CPU/query", "per query")
	for _, line := range table {
		fmt.Fprintln(stdout, line)
	}
	if *paths > 0 {
		var lat []time.Duration
		found := 0
		for i := 0; i < *paths; i++ {
			a, b := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
			t0 := time.Now()
			g, err := cx.Path(ctx, a, b, nil)
			if err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
			if len(g.Nodes) > 0 {
				found++
			}
		}
		fmt.Fprintf(stdout, "%-46s %10.2fms %10.2fms   %d of %d random pairs joined\n", "path maxDepth 6, random pairs",
			ms(pct(lat, 50)), ms(pct(lat, 99)), found, *paths)
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	fmt.Fprintf(stdout, "\nresident memory: %d MiB before the queries, %d MiB after (peak %d MiB); live heap after a collection %d MiB\n",
		rss0, rss1, hwm, m.HeapAlloc>>20)
	return nil
}

// exploreCorpus stores n memories through the Cortex, links them with random associations, and
// groups them into episodes with facets through the ingest port.
func exploreCorpus(ctx context.Context, cx *cortex.Cortex, st *graph.Store, n, degree, per int, rng *rand.Rand) (string, []string, error) {
	sc, err := cx.CreateScope(ctx, "bench explore", cortex.Meta{})
	if err != nil {
		return "", nil, err
	}
	words := vocabulary()
	ids := make([]string, 0, n)
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	for len(ids) < n {
		ins := make([]hippocampus.StoreInput, min(1000, n-len(ids)))
		for i := range ins {
			at := base.Add(time.Duration(len(ids)+i) * time.Minute)
			ins[i] = hippocampus.StoreInput{ScopeID: sc.ID, Content: sentence(rng, words), OccurredAt: &at}
		}
		ms, err := cx.StoreMemories(ctx, ins, cortex.Meta{})
		if err != nil {
			return "", nil, err
		}
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
	}
	if err := benchAssociate(ctx, st, sc.ID, ids, degree, rng); err != nil {
		return "", nil, err
	}
	if per <= 0 {
		return sc.ID, ids, nil
	}
	def := &domain.EpisodeDefinition{ID: domain.DeriveID(sc.ID, "def", "bench"), ScopeID: sc.ID, Name: "bench",
		Strategy: domain.StrategyTimeGap, Config: map[string]any{}, CreatedAt: base, UpdatedAt: base}
	at := &domain.AnalysisType{ID: domain.DeriveID(sc.ID, "type", "topics"), ScopeID: sc.ID, Name: "topics", Version: "1",
		OutputType: "structured", CreatedAt: base, UpdatedAt: base}
	b := &domain.IngestBatch{Definitions: []*domain.EpisodeDefinition{def}, AnalysisTypes: []*domain.AnalysisType{at}}
	flush := func() error {
		if b.Empty() {
			return nil
		}
		_, err := st.Ingest(ctx, domain.Request{}, sc.ID, b, nil)
		b = &domain.IngestBatch{}
		return err
	}
	for i := 0; i < len(ids); i += per {
		items := ids[i:min(i+per, len(ids))]
		start := base.Add(time.Duration(i) * time.Minute)
		ep := &domain.Episode{ID: domain.DeriveID(sc.ID, "episode", strconv.Itoa(i)), ScopeID: sc.ID, DefinitionID: def.ID,
			StartTime: start, EndTime: start.Add(time.Duration(len(items)) * time.Minute), EventCount: len(items),
			FirstEventID: items[0], LastEventID: items[len(items)-1], CreatedAt: start, Items: items}
		run := &domain.AnalysisRun{ID: domain.DeriveID(sc.ID, "run", ep.ID), ScopeID: sc.ID, TypeID: at.ID, TypeName: at.Name,
			EpisodeID: ep.ID, Status: domain.RunCompleted, CreatedAt: start}
		b.Episodes = append(b.Episodes, ep)
		b.Runs = append(b.Runs, run)
		for j := 0; j < len(items); j += 10 {
			topic := words[rng.IntN(len(words))]
			b.Facets = append(b.Facets, &domain.Facet{ID: domain.DeriveID(sc.ID, "facet", run.ID, strconv.Itoa(j)), ScopeID: sc.ID,
				RunID: run.ID, EpisodeID: ep.ID, MemoryID: items[j], Type: "topic", Value: topic, Confidence: 0.8, CreatedAt: start})
		}
		if len(b.Episodes) == 250 {
			if err := flush(); err != nil {
				return "", nil, err
			}
		}
	}
	return sc.ID, ids, flush()
}

// rawExploreRecurse is the raw baseline: Dgraph's own @recurse from one memory along every edge
// predicate the explorer follows, both ways, depth edges deep, uids only, uncapped.
func rawExploreRecurse(ctx context.Context, st *graph.Store, seed string, depth int) (int, error) {
	var preds []string
	for _, at := range domain.AssociationTypes {
		preds = append(preds, "assoc."+string(at))
	}
	for _, t := range domain.RefTypes {
		preds = append(preds, "ref."+string(t))
	}
	preds = append(preds, "ep.items", "mem.consolidatedInto")
	var b strings.Builder
	for _, p := range preds {
		fmt.Fprintf(&b, "%s ~%s ", p, p)
	}
	raw, err := st.RawQuery(ctx, fmt.Sprintf(`{ q(func: eq(tr.id, %q)) @recurse(depth: %d, loop: false) { uid %s } }`, seed, depth+1, b.String()), nil)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(raw), `"uid"`), nil
}

// residentMiB reads this process's resident memory and its peak from /proc (0 elsewhere).
func residentMiB() (rss, peak int) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			rss = kb >> 10
		case "VmHWM:":
			peak = kb >> 10
		}
	}
	return rss, peak
}
