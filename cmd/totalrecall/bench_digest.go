package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync/atomic"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/graph"
)

// benchDigest is `totalrecall bench digest`: a propose pass over one scope of n artifacts with
// about refs references each, timed beside the raw DQL reads of the same refgraph (the very
// queries the pass runs, answered and not decoded) in the same run: on the embedded engine,
// and on a Dgraph cluster as well when --cluster names one. It prints the scope's first pass
// (which records every proposal in its artifact's history), the median pass, and the time the
// history of one proposed artifact takes.
func benchDigest(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench digest", flag.ContinueOnError)
	n := fs.Int("n", 100000, "artifacts in the scope (70% memories, 20% knowledge pages, 10% skills)")
	refs := fs.Int("refs", 5, "references per artifact")
	rounds := fs.Int("rounds", 3, "timed passes of each kind (the median is printed)")
	cluster := fs.String("cluster", "", "also measure on this Dgraph cluster (dgraph://HOST:PORT)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed passes (not the load) to this file")
	allStale := fs.Bool("all-stale", false, "make every artifact unused for a year (a third are, without it), so that every unsupported one is proposed")
	heap := fs.Bool("heap", false, "instead of timing passes, measure the peak heap of the refgraph's scan alone, a first propose pass and a second one, with the collector held close to what is live (GOGC=10)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "totalrecall-bench-digest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	runs := []storeFlags{{store: "file://" + filepath.Join(tmp, "embedded")}}
	names := []string{"embedded"}
	if *cluster != "" {
		runs = append(runs, storeFlags{store: *cluster, index: filepath.Join(tmp, "cluster-index")})
		names = append(names, "cluster")
	}
	fmt.Fprintf(stdout, "totalrecall bench digest — %d cores, %d artifacts, ~%d references each, median of %d passes\n\n",
		runtimeCPUs(), *n, *refs, *rounds)
	for i, sf := range runs {
		prof := ""
		if *cpuprofile != "" {
			prof = *cpuprofile + "." + names[i]
		}
		if err := benchDigestOn(stdout, names[i], sf, *n, *refs, *rounds, prof, *heap, *allStale); err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
	}
	return nil
}

func benchDigestOn(w io.Writer, name string, sf storeFlags, n, refs, rounds int, cpuprofile string, heap, allStale bool) error {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, idx, cx, err := sf.open(ctx, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	defer idx.Close()
	defer cx.Close()
	sc, err := cx.CreateScope(ctx, "bench digest", cortex.Meta{})
	if err != nil {
		return err
	}
	start := time.Now()
	live, edges, err := loadRefgraph(ctx, st, sc.ID, n, refs, allStale)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "[%s] loaded %d artifacts (%d live, the rest tombstones of removed ones) and ~%d references in %s\n",
		name, n, live, edges, time.Since(start).Round(time.Millisecond))

	if heap {
		return digestHeap(ctx, w, name, st, cx, sc.ID, live)
	}
	stop, err := startProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	var raw, rawPar, pass []time.Duration
	var rawBytes int
	var rep *domain.DigestReport
	rawRound := func() error {
		t0 := time.Now()
		rows, bytes, err := st.RawScanRefgraph(ctx, sc.ID, 1)
		if err != nil {
			return err
		}
		raw = append(raw, time.Since(t0))
		rawBytes = bytes
		if rows < n {
			return fmt.Errorf("raw scan read %d nodes, want at least %d", rows, n)
		}
		t0 = time.Now()
		if _, _, err := st.RawScanRefgraph(ctx, sc.ID, graph.ScanWorkers); err != nil {
			return err
		}
		rawPar = append(rawPar, time.Since(t0))
		return nil
	}
	passRound := func() error {
		t0 := time.Now()
		var err error
		if rep, err = cx.RunDigest(ctx, cortex.DigestInput{ScopeID: sc.ID, Propose: true}); err != nil {
			return err
		}
		pass = append(pass, time.Since(t0))
		return nil
	}
	// A warm-up read, then the two kinds alternate, each going first in turn.
	if err := rawRound(); err != nil {
		return err
	}
	raw, rawPar = nil, nil
	for r := 0; r < rounds; r++ {
		first, second := rawRound, passRound
		if r%2 == 1 {
			first, second = passRound, rawRound
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	if rep.Evaluated != live {
		return fmt.Errorf("the pass evaluated %d artifacts, want %d", rep.Evaluated, live)
	}
	reasons := map[domain.ReasonCode]int{}
	var middle *domain.Proposal
	read := 0
	if err := eachProposalPage(ctx, localDigester{cx}, rep, domain.MaxProposalPage, func(page []domain.Proposal) error {
		for i, p := range page {
			for _, r := range p.Reasons {
				reasons[r.Code]++
			}
			if read == rep.ProposalCount/2 {
				middle = &page[i]
			}
			read++
		}
		return nil
	}); err != nil {
		return err
	}
	if read != rep.ProposalCount {
		return fmt.Errorf("the report counts %d proposals, %d were read", rep.ProposalCount, read)
	}
	// The scope's first pass records the proposals in their artifacts' histories; the later ones
	// find the same proposals and record nothing new. The median is of the later ones.
	later := pass
	if len(pass) > 1 {
		later = pass[1:]
	}
	rawMed, passMed := median(raw), median(later)
	fmt.Fprintf(w, "[%s] %-52s %12.0f artifacts/s (%s)\n", name, "first propose pass of the scope (all proposals new)",
		float64(rep.Evaluated)/pass[0].Seconds(), pass[0].Round(time.Millisecond))
	fmt.Fprintf(w, "[%s] %-52s %12.0f artifacts/s (%s)\n", name, "a later propose pass, median (report written)",
		float64(rep.Evaluated)/passMed.Seconds(), passMed.Round(time.Millisecond))
	fmt.Fprintf(w, "[%s] %-52s %12.0f artifacts/s (%s, %.1f MB of JSON)\n", name, "raw baseline: the same DQL refgraph reads, undecoded",
		float64(rep.Evaluated)/rawMed.Seconds(), rawMed.Round(time.Millisecond), float64(rawBytes)/1e6)
	fmt.Fprintf(w, "[%s] %-52s %12.0f artifacts/s (%s)\n", name, fmt.Sprintf("raw baseline: the same reads, %d queries at a time", graph.ScanWorkers),
		float64(rep.Evaluated)/median(rawPar).Seconds(), median(rawPar).Round(time.Millisecond))
	fmt.Fprintf(w, "[%s] proposals %d of %d (reasons: %s)\n", name, rep.ProposalCount, rep.Evaluated, fmtReasons(reasons))
	// The history of a proposed artifact holds the first pass's proposal, with its reasons.
	if middle != nil {
		pr := middle
		t0 := time.Now()
		h, err := cx.History(ctx, pr.ArtifactID)
		if err != nil {
			return err
		}
		took := time.Since(t0)
		found := false
		for _, e := range h {
			if e.Type == domain.EvDigestProposed && e.MemoryID == pr.ArtifactID && e.Payload["reasons"] != nil {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("the history of proposed artifact %s holds no DigestProposed with its reasons", pr.ArtifactID)
		}
		fmt.Fprintf(w, "[%s] history of a proposed artifact (its DigestProposed with the reasons): %s\n", name, took.Round(time.Millisecond))
	}
	// Leave nothing behind on a shared cluster.
	t0 := time.Now()
	del, err := cx.DeleteScope(ctx, sc.ID, cortex.Meta{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "[%s] deleted the bench scope (%d nodes, %d events) in %s\n\n", name, del.Nodes, del.Events, time.Since(t0).Round(time.Millisecond))
	return nil
}

func fmtReasons(m map[domain.ReasonCode]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", k, m[domain.ReasonCode(k)])
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// loadRefgraph writes n artifacts of the scope with about refs outgoing references each, in
// batches of one mutation. References point at the batch's first 30% ("hubs"), so most
// artifacts have no support; a third are old (stale; with allStale, all are), 5% archived, and 1%
// are tombstones of removed artifacts, so some references are broken.
func loadRefgraph(ctx context.Context, st *graph.Store, scopeID string, n, refs int, allStale bool) (live, edges int, err error) {
	const batch = 10000
	rng := rand.New(rand.NewPCG(4, 2))
	now := time.Now().UTC()
	old := now.Add(-365 * 24 * time.Hour)
	for base := 0; base < n; base += batch {
		k := min(batch, n-base)
		objs := make([]map[string]any, k)
		for i := 0; i < k; i++ {
			used := now
			if rng.IntN(3) == 0 || allStale {
				used = old
			}
			state := string(domain.StateActive)
			if rng.IntN(20) == 0 {
				state = string(domain.StateArchived)
			}
			o := map[string]any{"uid": fmt.Sprintf("_:n%d", i), "tr.id": domain.NewID(), "tr.scope": scopeID}
			switch r := rng.IntN(10); {
			case rng.IntN(100) == 0:
				o["tr.kind"], o["life.family"] = "Removed", "memory"
			case r < 7:
				o["tr.kind"], o["mem.content"], o["mem.kind"], o["mem.tier"] = "Memory", fmt.Sprintf("memory %d", base+i), "EPISODIC", "LONG_TERM"
				o["mem.occurredAt"], o["mem.salience"], o["mem.state"], o["mem.version"] = used.Format(time.RFC3339Nano), 0.3, state, 1
				o["mem.doc"] = `{"createdAt":"` + used.Format(time.RFC3339Nano) + `"}`
			default:
				kind, typ := "Knowledge", "FACT"
				if r == 9 {
					kind, typ = "Skill", "PROCEDURE"
				}
				o["tr.kind"], o["art.type"], o["art.state"], o["art.content"] = kind, typ, state, fmt.Sprintf("%s %d", kind, base+i)
				o["art.updatedAt"], o["art.version"], o["art.doc"] = used.Format(time.RFC3339Nano), 1, `{"title":"t"}`
			}
			if o["tr.kind"] != "Removed" {
				live++
				hubs := max(1, k*3/10)
				per := map[string][]map[string]any{}
				for j := 0; j < refs; j++ {
					t := rng.IntN(hubs)
					if t == i {
						continue
					}
					p := "ref." + string(domain.RefTypes[rng.IntN(len(domain.RefTypes))])
					per[p] = append(per[p], map[string]any{"uid": fmt.Sprintf("_:n%d", t)})
					edges++
				}
				for p, es := range per {
					o[p] = es
				}
			}
			objs[i] = o
		}
		if err := st.RawSetMany(ctx, objs); err != nil {
			return 0, 0, err
		}
	}
	return live, edges, nil
}

// digestHeap measures, with the collector held close to what is live (GOGC=10), the peak heap
// above the heap at the start (live objects and garbage not yet swept) and the process's peak
// anonymous resident memory of: the refgraph's scan alone (decoded, as a pass reads it: the
// pass's raw baseline), the scope's first propose pass (every proposal new to its history) and
// a second pass (the same proposals, none new).
func digestHeap(ctx context.Context, w io.Writer, name string, st *graph.Store, cx *cortex.Cortex, scopeID string, live int) error {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	rss := sampleRSS(os.Getpid())
	defer rss.Stop()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	heapNow := func() (objects, live uint64) {
		metrics.Read(sample)
		return sample[0].Value.Uint64(), sample[1].Value.Uint64()
	}
	measure := func(label string, fn func() error) error {
		runtime.GC()
		base, liveBase := heapNow()
		rssBase := rss.Now().Anon
		rss.Reset()
		var peak, peakLive atomic.Uint64
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				h, l := heapNow()
				peak.Store(max(peak.Load(), h))
				peakLive.Store(max(peakLive.Load(), l))
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		t0 := time.Now()
		err := fn()
		took := time.Since(t0)
		close(stop)
		<-done
		if err != nil {
			return err
		}
		const mib = 1 << 20
		fmt.Fprintf(w, "[%s] %-52s peak heap +%5.0f MiB, live at a collection +%5.0f MiB, RssAnon peak %5.0f MiB (%+.0f) (%s)\n", name, label,
			float64(peak.Load()-min(base, peak.Load()))/mib, float64(peakLive.Load()-min(liveBase, peakLive.Load()))/mib,
			float64(rss.Peak().Anon)/mib, float64(rss.Peak().Anon-rssBase)/mib, took.Round(time.Millisecond))
		return nil
	}
	scanned := 0
	if err := measure("raw baseline: the refgraph's scan alone, decoded", func() error {
		return st.ScanRefgraph(ctx, scopeID, func(page []*domain.RefNode) error {
			scanned += len(page)
			return nil
		})
	}); err != nil {
		return err
	}
	var rep *domain.DigestReport
	pass := func() error {
		var err error
		rep, err = cx.RunDigest(ctx, cortex.DigestInput{ScopeID: scopeID, Propose: true})
		return err
	}
	if err := measure("first propose pass of the scope (all proposals new)", pass); err != nil {
		return err
	}
	if err := measure("propose pass again (the same proposals)", pass); err != nil {
		return err
	}
	if rep.Evaluated != live {
		return fmt.Errorf("the pass evaluated %d artifacts, want %d", rep.Evaluated, live)
	}
	fmt.Fprintf(w, "[%s] proposals %d of %d evaluated (%d nodes scanned)\n\n", name, rep.ProposalCount, rep.Evaluated, scanned)
	return nil
}
