package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/resolvers"
)

// benchLiving measures the living memory on one scope of a large corpus, each figure beside a
// raw baseline of the same run on the same graph: total recall against a raw DQL @recurse,
// decay sweeps against raw DQL reads of the same pages, resonate against a raw Bleve query.
func benchLiving(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench living", flag.ContinueOnError)
	var sf storeFlags
	data := fs.String("data", "", "keep the corpus in this folder and reuse it on later runs (default: a temp folder, removed)")
	corpus := fs.Int("corpus", 100000, "memories in the scope")
	degree := fs.Int("degree", 8, "associations per memory (on average)")
	days := fs.Int("days", 100, "the corpus arrives over this many simulated days")
	recalls := fs.Int("recalls", 300, "total recalls for the latency figures")
	loops := fs.Int("loops", 100, "advisories sent over HTTP and answered over websocket")
	queries := fs.Int("queries", 1000, "resonate calls per message shape for the latency figures")
	sweeps := fs.Int("sweeps", 2, "decay sweeps, a simulated day apart")
	pace := fs.Duration("pace", 100*time.Millisecond, "the interval of the paced resonate calls (a mind's turns)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	fs.Var(&sf.cache, "cache-mb", "read cache of the embedded store in MiB (0 turns it off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "totalrecall-bench-living-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	sf.store, sf.index = "file://"+filepath.Join(dir, "graph"), filepath.Join(dir, "index")
	marker := filepath.Join(dir, "bench-living.json")
	var state struct {
		Scope  string
		IDs    []string
		Offset time.Duration // the simulated time the last run ended at
	}
	reused := false
	if raw, err := os.ReadFile(marker); err == nil {
		if err := json.Unmarshal(raw, &state); err != nil {
			return fmt.Errorf("%s: %w", marker, err)
		}
		reused = true
	}
	var offset atomic.Int64
	offset.Store(int64(state.Offset))
	sf.now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	// No throttle: every advisory of the benchmark is evaluated.
	sf.living = cortex.LivingConfig{Subconscious: subconscious.Config{RecallBurst: 1 << 30, RecallRefill: time.Nanosecond}}
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// storeFlags.open puts the graph in PATH/graph for file://PATH.
	sf.store = "file://" + dir
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
	addr := ln.Addr().String()
	c := &benchClient{url: "http://" + addr + "/query", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	words := vocabulary()
	rng := rand.New(rand.NewPCG(3, 4))
	if !reused {
		start := time.Now()
		sc, err := cx.CreateScope(ctx, "bench living", cortex.Meta{})
		if err != nil {
			return err
		}
		state.Scope = sc.ID
		// The corpus arrives over simulated days, batch by batch, so its memories have every age.
		step := time.Duration(float64(*days) * float64(24*time.Hour) / math.Ceil(float64(*corpus)/1000))
		for len(state.IDs) < *corpus {
			ins := make([]hippocampus.StoreInput, min(1000, *corpus-len(state.IDs)))
			for i := range ins {
				imp := rng.Float64()
				ins[i] = hippocampus.StoreInput{ScopeID: state.Scope, Content: sentence(rng, words), Importance: &imp}
			}
			ms, err := cx.StoreMemories(ctx, ins, cortex.Meta{})
			if err != nil {
				return err
			}
			for _, m := range ms {
				state.IDs = append(state.IDs, m.ID)
			}
			waitConsumers(cx) // each batch is scored at its own simulated time
			offset.Add(int64(step))
		}
		stored := time.Since(start)
		if err := benchAssociate(ctx, st, state.Scope, state.IDs, *degree, rng); err != nil {
			return err
		}
		// The raw edges bypassed the association events that re-score their ends: re-score them.
		if err := benchRescore(ctx, st, cx.SalienceParams(), state.IDs, sf.now()); err != nil {
			return err
		}
		waitConsumers(cx)
		fmt.Fprintf(stdout, "set-up: %d memories stored and scored over %d simulated days in %s, ~%d associations each in %s\n",
			len(state.IDs), *days, stored.Round(time.Second), *degree, (time.Since(start) - stored).Round(time.Second))
	}
	defer func() {
		state.Offset = time.Duration(offset.Load())
		if raw, err := json.Marshal(state); err == nil && *data != "" {
			_ = os.WriteFile(marker, raw, 0o644)
		}
	}()
	scope, ids := state.Scope, state.IDs
	waitConsumers(cx)
	fmt.Fprintf(stdout, "totalrecall bench living — %s, %d cores, %d memories in one scope (reused: %v)\n\n", sf.store, runtimeCPUs(), len(ids), reused)
	fmt.Fprintf(stdout, "%-58s %14s   %s\n", "figure", "totalrecall", "raw baseline (same run, same graph)")
	stop, err := startProfile(*cpuprofile)
	if err != nil {
		return err
	}
	defer stop()

	// --- total recall: advisory in hand → notification built, beside raw DQL @recurse ---
	sub, err := cx.Subconscious()
	if err != nil {
		return err
	}
	p := sub.Config().Recall
	// Total recalls from random sources, then the raw traversals from the same sources:
	// interleaved, each would pay for the other's garbage (a raw traversal allocates some hundred
	// times more).
	sources := func() []string {
		srcs := make([]string, *recalls)
		for i := range srcs {
			srcs[i] = ids[rng.IntN(len(ids))]
		}
		return srcs
	}
	walks := func(srcs []string) (lat []time.Duration, reached int, err error) {
		for _, src := range srcs {
			t0 := time.Now()
			ch, err := sub.EvaluateAdvisory(ctx, advisoryEvent(scope, src, 3))
			if err != nil {
				return nil, 0, err
			}
			lat = append(lat, time.Since(t0))
			reached += len(ch.Accesses)
		}
		return lat, reached, nil
	}
	srcs := sources()
	cold, reached, err := walks(srcs)
	if err != nil {
		return err
	}
	var raw []time.Duration
	rawReached := 0
	for _, src := range srcs {
		t0 := time.Now()
		n, err := st.RawRecurse(ctx, []string{src}, 3, p.Floor)
		if err != nil {
			return err
		}
		raw = append(raw, time.Since(t0))
		rawReached += n
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse depth 3, every edge ≥ %.1f (%d nodes/query)\n",
		"total recall depth 3, advisory → notification built, p50", ms(pct(cold, 50)), ms(pct(raw, 50)), p.Floor, rawReached / *recalls)
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms   cold read cache (the %d strongest per level: %d memories/recall)\n",
		"total recall depth 3, advisory → notification built, p99", ms(pct(cold, 99)), ms(pct(raw, 99)), p.Beam, reached / *recalls)
	// The store's warm-up, as serve runs it at start: the walk's associations and states, then
	// memory records, within the read cache's budget.
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	ws, err := st.Warm(ctx)
	if err != nil {
		return err
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	fmt.Fprintf(stdout, "%-58s %12s   %d associations of %d memories in %s, then %d records (cache ~%d MiB; live heap %d → %d MiB)\n",
		"read cache warm-up", ws.Duration.Round(time.Millisecond), ws.Edges, ws.Adjacencies, ws.WalksAfter.Round(time.Millisecond),
		ws.Memories, ws.Bytes>>20, m0.HeapAlloc>>20, m1.HeapAlloc>>20)
	warmed, reached, err := walks(sources())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p50 (above)\n",
		"total recall depth 3, advisory → notification built, p50", ms(pct(warmed, 50)), ms(pct(raw, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms   warm read cache (the %d strongest per level: %d memories/recall)\n",
		"total recall depth 3, advisory → notification built, p99", ms(pct(warmed, 99)), ms(pct(raw, 99)), p.Beam, reached / *recalls)

	// The same, from a working set of 20 memories a mind keeps coming back to: the walks meet
	// neighbourhoods already read, which the read cache holds.
	work := make([]string, 20)
	for i := range work {
		work[i] = ids[rng.IntN(len(ids))]
	}
	var warm []time.Duration
	for i := 0; i < *recalls; i++ {
		t0 := time.Now()
		if _, err := sub.EvaluateAdvisory(ctx, advisoryEvent(scope, work[rng.IntN(len(work))], 3)); err != nil {
			return err
		}
		warm = append(warm, time.Since(t0))
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p50 (above, random sources)\n",
		"total recall, sources from a working set of 20, p50", ms(pct(warmed, 50)), ms(pct(raw, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p99 (above, random sources)\n",
		"total recall, sources from a working set of 20, p99", ms(pct(warmed, 99)), ms(pct(raw, 99)))

	waitConsumers(cx)
	// --- the whole loop: mutation over HTTP → notification over websocket ---
	loop, err := benchRecallLoop(c, addr, scope, ids, *loops, rng)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p50 (above)\n", "total recall over HTTP → websocket notification, p50", ms(pct(loop, 50)), ms(pct(raw, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p99 (above)\n", "total recall over HTTP → websocket notification, p99", ms(pct(loop, 99)), ms(pct(raw, 99)))

	waitConsumers(cx)
	// --- resonate, beside a query of the same Bleve index ---
	shapes := []struct {
		name string
		msg  func() string
	}{
		// The query shape of the search benchmark: two words.
		{"2-word messages", func() string { return words[rng.IntN(len(words)/4)] + " " + words[rng.IntN(len(words))] }},
		// A chat turn's content words: 4 to 8 of the corpus's vocabulary.
		{"4-8-word messages", func() string {
			ws := strings.Fields(sentence(rng, words))
			return strings.Join(ws[:4+rng.IntN(5)], " ")
		}},
	}
	for _, shape := range shapes {
		// Back to back: every call's recorded retrievals are written, scored and touched while
		// the next calls run (the embedded engine's writes exclude its reads). Each call has a
		// message of its own: a message repeated finds its words' postings and its memories
		// where the call before left them.
		var rlat, ilat, blat, plat []time.Duration
		for i := 0; i < *queries; i++ {
			m := shape.msg()
			t0 := time.Now()
			var out struct{ Resonate []struct{ Score float64 } }
			if err := c.do(`query($s: ID!, $m: String!) { resonate(scopeId: $s, message: $m) { score memory { id content tier } } }`,
				map[string]any{"s": scope, "m": m}, &out); err != nil {
				return err
			}
			rlat = append(rlat, time.Since(t0))
			m = shape.msg()
			t0 = time.Now()
			if _, err := cx.Resonate(ctx, scope, m, 0, cortex.Meta{}); err != nil {
				return err
			}
			ilat = append(ilat, time.Since(t0))
			m = shape.msg()
			t0 = time.Now()
			if _, err := idx.Search(ctx, domain.IndexQuery{ScopeID: scope, Text: m, Limit: 9, WordsOnly: true,
				Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}}); err != nil {
				return err
			}
			blat = append(blat, time.Since(t0))
		}
		waitConsumers(cx)
		// Paced like a mind's turns: one call per interval, over HTTP.
		for i := 0; i < max(1, *queries/3); i++ {
			m := shape.msg()
			t0 := time.Now()
			if err := c.do(`query($s: ID!, $m: String!) { resonate(scopeId: $s, message: $m) { score memory { id content tier } } }`,
				map[string]any{"s": scope, "m": m}, nil); err != nil {
				return err
			}
			el := time.Since(t0)
			plat = append(plat, el)
			time.Sleep(*pace - min(el, *pace))
		}
		for _, p := range []int{50, 99} {
			fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms index query alone (same index, as resonate asks it)\n",
				fmt.Sprintf("resonate over HTTP p%d, %s, one per %s", p, shape.name, *pace), ms(pct(plat, p)), ms(pct(blat, p)))
			fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms index query alone\n",
				fmt.Sprintf("resonate over HTTP p%d, %s, back to back", p, shape.name), ms(pct(rlat, p)), ms(pct(blat, p)))
			fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms index query alone\n",
				fmt.Sprintf("resonate in process p%d, %s, back to back", p, shape.name), ms(pct(ilat, p)), ms(pct(blat, p)))
		}
		waitConsumers(cx)
	}

	waitConsumers(cx)
	// --- decay sweeps, a simulated day apart. The first sweep of a fresh corpus catches up with
	// the days it arrived over (most memories move or get rewritten); the next is the steady
	// state: the slice of the corpus that crossed a threshold since the day before ---
	rawRate, err := benchRawSweepRead(ctx, st, scope, len(ids))
	if err != nil {
		return err
	}
	for i := 0; i < *sweeps; i++ {
		offset.Add(int64(24 * time.Hour))
		t0 := time.Now()
		res, err := cx.DecaySweep(ctx, scope, "", cortex.Meta{})
		if err != nil {
			return err
		}
		el := time.Since(t0)
		label := "decay sweep, a day later (steady state)"
		if i == 0 && !reused {
			label = "decay sweep, first (catches up the corpus's days)"
		}
		fmt.Fprintf(stdout, "%-58s %10.0f/s   %8.0f/s the sweep's reads alone, raw DQL (memories/s)\n", label, float64(res.Evaluated)/el.Seconds(), rawRate)
		fmt.Fprintf(stdout, "%-58s %14s   %d evaluated, %d demoted, %d rescored in %s\n", "", "", res.Evaluated, res.Demotions, res.Rescored, el.Round(time.Millisecond))
		waitConsumers(cx)
	}
	return nil
}

// waitConsumers waits until the living memory's consumers have handled the whole log (their own
// events included) and the log has stayed still for a second: measurements do not compete with
// a backlog. It returns when they first caught up with the head that stayed.
func waitConsumers(cx *cortex.Cortex) time.Time {
	for {
		head := cx.Log().Head()
		a, b := cx.LivingPosition()
		if a >= head && b >= head && cx.SynapsePosition() >= head {
			at := time.Now()
			time.Sleep(time.Second)
			if cx.Log().Head() == head {
				return at
			}
			continue
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// advisoryEvent is the TotalRecallAdvisory the Cortex publishes for one source.
func advisoryEvent(scope, src string, depth int) *domain.Event {
	rid := domain.NewID()
	return &domain.Event{Type: domain.EvTotalRecallAdvisory, ScopeID: scope, Payload: map[string]any{"sourceMemoryIds": []string{src}, "maxDepth": depth},
		Context: domain.TransactionContext{SessionID: "bench", RequestID: rid, MessageID: domain.NewID(), CausationID: rid,
			Timestamp: time.Now().UTC(), SourceContext: domain.CtxCortex}}
}

// benchAssociate links every memory to degree/2 others (so ~degree edges touch each), with
// random types and strengths in 0.2..1, written raw in large batches: set-up, not a figure.
func benchAssociate(ctx context.Context, st interface {
	RawQuery(context.Context, string, map[string]string) ([]byte, error)
	RawSetMany(context.Context, []map[string]any) error
}, scope string, ids []string, degree int, rng *rand.Rand) error {
	raw, err := st.RawQuery(ctx, `query q($s: string) { q(func: eq(tr.scope, $s)) @filter(eq(tr.kind, "Memory")) { uid tr.id } }`, map[string]string{"$s": scope})
	if err != nil {
		return err
	}
	var r struct {
		Q []struct {
			UID string `json:"uid"`
			ID  string `json:"tr.id"`
		} `json:"q"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	uid := make(map[string]string, len(r.Q))
	for _, n := range r.Q {
		uid[n.ID] = n.UID
	}
	var batch []map[string]any
	for i, id := range ids {
		for k := 0; k < degree/2; k++ {
			j := rng.IntN(len(ids))
			if j == i {
				continue
			}
			a, b := id, ids[j]
			if b < a {
				a, b = b, a
			}
			p := "assoc." + string(domain.AssociationTypes[rng.IntN(len(domain.AssociationTypes))])
			s := 0.2 + 0.8*rng.Float64()
			batch = append(batch, map[string]any{"uid": uid[a], p: map[string]any{"uid": uid[b], p + "|strength": s, p + "|cost": 1 - s,
				p + "|updatedAt": time.Now().UTC().Format(time.RFC3339Nano)}})
		}
		if len(batch) >= 20000 || i == len(ids)-1 {
			if err := st.RawSetMany(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	return nil
}

// benchRescore gives every memory the potential its associations earn, keeping its checkpoint:
// what the Salience consumer does on association events.
func benchRescore(ctx context.Context, st domain.LivingStore, p salience.Params, ids []string, now time.Time) error {
	for i := 0; i < len(ids); i += 2000 {
		rows, err := st.ScoreRows(ctx, ids[i:min(len(ids), i+2000)])
		if err != nil {
			return err
		}
		ups := make([]domain.ScoreUpdate, 0, len(rows))
		for _, r := range rows {
			score, _, potential := p.Current(r, now)
			rec, at := r.Recency, r.ScoredAt
			ups = append(ups, domain.ScoreUpdate{Ref: r.Ref, MemoryID: r.ID, Salience: score, Potential: &potential, Recency: &rec, ScoredAt: &at})
		}
		if _, err := st.Apply(ctx, nil, &domain.Changes{Scores: ups}, nil); err != nil {
			return err
		}
	}
	return nil
}

// benchRecallLoop sends advisories over HTTP and times each until its notification arrives over
// a websocket subscription.
func benchRecallLoop(c *benchClient, addr, scope string, ids []string, n int, rng *rand.Rand) ([]time.Duration, error) {
	d := websocket.Dialer{Subprotocols: []string{"graphql-transport-ws"}}
	conn, _, err := d.Dial("ws://"+addr+"/query", nil)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.WriteJSON(map[string]any{"type": "connection_init"}); err != nil {
		return nil, err
	}
	var ack map[string]any
	if err := conn.ReadJSON(&ack); err != nil {
		return nil, err
	}
	if err := conn.WriteJSON(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query":     `subscription($s: ID) { notifications(scopeId: $s) { ... on TotalRecallNotification { originRequestId depthReached } } }`,
		"variables": map[string]any{"s": scope}}}); err != nil {
		return nil, err
	}
	got := make(chan string, 16)
	go func() {
		for {
			var msg struct {
				Type    string
				Payload struct {
					Data struct {
						Notifications struct{ OriginRequestID string }
					}
				}
			}
			if err := conn.ReadJSON(&msg); err != nil {
				close(got)
				return
			}
			if msg.Type == "next" {
				got <- msg.Payload.Data.Notifications.OriginRequestID
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // let the subscription register
	var lat []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		var out struct{ TotalRecallAdvisory string }
		if err := c.do(`mutation($ids: [ID!]!) { totalRecallAdvisory(sourceMemoryIds: $ids, maxDepth: 3) }`,
			map[string]any{"ids": []string{ids[rng.IntN(len(ids))]}}, &out); err != nil {
			return nil, err
		}
		for rid := range got {
			if rid == out.TotalRecallAdvisory {
				break
			}
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// benchRawSweepRead runs the sweep's own reads raw — each tier's nodes with their stored scores,
// listed by the scope-and-tier key — over every tier: the floor of a sweep's cost.
func benchRawSweepRead(ctx context.Context, st interface {
	RawQuery(context.Context, string, map[string]string) ([]byte, error)
}, scope string, n int) (float64, error) {
	t0 := time.Now()
	read := 0
	for _, tier := range domain.Tiers {
		raw, err := st.RawQuery(ctx, graph.SweepListQuery, map[string]string{"$st": graph.ScopeTier(scope, tier)})
		if err != nil {
			return 0, err
		}
		var r struct {
			Q []map[string]any `json:"q"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return 0, err
		}
		read += len(r.Q)
	}
	if read != n {
		return 0, fmt.Errorf("raw sweep read %d memories, want %d", read, n)
	}
	return float64(read) / time.Since(t0).Seconds(), nil
}
