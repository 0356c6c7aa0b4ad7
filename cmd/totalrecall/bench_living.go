package main

import (
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
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
	"github.com/totalrecall/totalrecall/domain/salience"
	"github.com/totalrecall/totalrecall/domain/subconscious"
	"github.com/totalrecall/totalrecall/resolvers"
)

// benchLiving measures the living memory on one scope of a large corpus, each figure beside a
// raw baseline of the same run on the same graph: total recall against a raw DQL @recurse,
// decay sweeps against raw DQL reads of the same pages, resonate against a raw Bleve query.
func benchLiving(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench living", flag.ContinueOnError)
	var sf storeFlags
	fs.StringVar(&sf.store, "store", "", "graph store (default: a fresh embedded store in a temp folder)")
	fs.StringVar(&sf.index, "index", "", "search index folder (default: in the temp folder)")
	corpus := fs.Int("corpus", 100000, "memories in the scope")
	degree := fs.Int("degree", 8, "associations per memory (on average)")
	recalls := fs.Int("recalls", 300, "total recalls for the latency figures")
	loops := fs.Int("loops", 100, "advisories sent over HTTP and answered over websocket")
	queries := fs.Int("queries", 2000, "resonate calls for the latency figures")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the measurements to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "totalrecall-bench-living-")
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
	var offset atomic.Int64
	sf.now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	// No throttle: every advisory of the benchmark is evaluated.
	sf.living = cortex.LivingConfig{Subconscious: subconscious.Config{RecallBurst: 1 << 30, RecallRefill: time.Nanosecond}}
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
	addr := ln.Addr().String()
	c := &benchClient{url: "http://" + addr + "/query", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	fmt.Fprintf(stdout, "totalrecall bench living — store %s, %d cores, %d memories, ~%d associations each\n\n", sf.store, runtimeCPUs(), *corpus, *degree)

	sc, err := cx.CreateScope(ctx, "bench living", cortex.Meta{})
	if err != nil {
		return err
	}
	scope := sc.ID
	words := vocabulary()
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	ids := make([]string, 0, *corpus)
	for len(ids) < *corpus {
		ins := make([]hippocampus.StoreInput, min(1000, *corpus-len(ids)))
		for i := range ins {
			imp := rng.Float64()
			ins[i] = hippocampus.StoreInput{ScopeID: scope, Content: sentence(rng, words), Importance: &imp}
		}
		ms, err := cx.StoreMemories(ctx, ins, cortex.Meta{})
		if err != nil {
			return err
		}
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
	}
	stored := time.Since(start)
	// The Salience context scores every stored memory; measure once it has caught up.
	head := cx.Log().Head()
	for {
		w, _, err := st.ConsumerWatermark(ctx, "salience")
		if err != nil {
			return err
		}
		if w >= head {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	scored := time.Since(start)
	if err := benchAssociate(ctx, st, scope, ids, *degree, rng); err != nil {
		return err
	}
	// The raw edges bypassed the association events that re-score their ends: re-score them.
	if err := benchRescore(ctx, st, cx.SalienceParams(), ids, sf.now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "set-up: %d memories stored in %s (scored by the Salience consumer after %s), associations in %s\n\n",
		len(ids), stored.Round(time.Millisecond), scored.Round(time.Millisecond), (time.Since(start) - scored).Round(time.Millisecond))
	fmt.Fprintf(stdout, "%-58s %14s   %s\n", "figure", "totalrecall", "raw baseline (same run, same graph)")
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

	// --- total recall: advisory in hand → notification built, beside raw DQL @recurse ---
	sub, err := cx.Subconscious()
	if err != nil {
		return err
	}
	p := sub.Config().Recall
	var lat, raw []time.Duration
	reached, rawReached := 0, 0
	for i := 0; i < *recalls; i++ {
		src := ids[rng.IntN(len(ids))]
		adv := advisoryEvent(scope, src, 3)
		t0 := time.Now()
		ch, err := sub.EvaluateAdvisory(ctx, adv)
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
		reached += len(ch.Accesses)
		t0 = time.Now()
		n, err := st.RawRecurse(ctx, []string{src}, 3, p.Floor)
		if err != nil {
			return err
		}
		raw = append(raw, time.Since(t0))
		rawReached += n
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse depth 3, every edge ≥ %.1f (%d nodes/query)\n",
		fmt.Sprintf("total recall depth 3, advisory → notification built, p50"), ms(pct(lat, 50)), ms(pct(raw, 50)), p.Floor, rawReached / *recalls)
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms   (totalrecall keeps the %d strongest per level: %d memories/recall)\n",
		"total recall depth 3, advisory → notification built, p99", ms(pct(lat, 99)), ms(pct(raw, 99)), p.Beam, reached / *recalls)

	// --- the whole loop: mutation over HTTP → notification over websocket ---
	loop, err := benchRecallLoop(c, addr, scope, ids, *loops, rng)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p50 (above)\n", "total recall over HTTP → websocket notification, p50", ms(pct(loop, 50)), ms(pct(raw, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw @recurse p99 (above)\n", "total recall over HTTP → websocket notification, p99", ms(pct(loop, 99)), ms(pct(raw, 99)))

	// --- resonate over HTTP, beside a raw query of the same Bleve index ---
	msgs := make([]string, *queries)
	for i := range msgs {
		msgs[i] = sentence(rng, words)
	}
	var rlat, blat []time.Duration
	for _, m := range msgs {
		t0 := time.Now()
		var out struct{ Resonate []struct{ Score float64 } }
		if err := c.do(`query($s: ID!, $m: String!) { resonate(scopeId: $s, message: $m) { score memory { id content tier } } }`,
			map[string]any{"s": scope, "m": m}, &out); err != nil {
			return err
		}
		rlat = append(rlat, time.Since(t0))
		t0 = time.Now()
		if _, err := idx.Search(ctx, domain.IndexQuery{ScopeID: scope, Text: m, Limit: 20,
			Filter: domain.MemoryFilter{States: []domain.LifecycleState{domain.StateActive}}}); err != nil {
			return err
		}
		blat = append(blat, time.Since(t0))
	}
	var ilat []time.Duration
	for _, m := range msgs {
		t0 := time.Now()
		if _, err := cx.Resonate(ctx, scope, m, 0, cortex.Meta{}); err != nil {
			return err
		}
		ilat = append(ilat, time.Since(t0))
	}
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw Bleve query, same index\n", "resonate in process p50", ms(pct(ilat, 50)), ms(pct(blat, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw Bleve query, same index\n", "resonate in process p99", ms(pct(ilat, 99)), ms(pct(blat, 99)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw Bleve query, same index\n", fmt.Sprintf("resonate over HTTP p50 (%d memories)", len(ids)), ms(pct(rlat, 50)), ms(pct(blat, 50)))
	fmt.Fprintf(stdout, "%-58s %12.2fms   %7.2fms raw Bleve query, same index\n", fmt.Sprintf("resonate over HTTP p99 (%d memories)", len(ids)), ms(pct(rlat, 99)), ms(pct(blat, 99)))

	// --- decay sweeps: a first sweep after 13 simulated days rewrites every stored score (and
	// demotes the least salient); the next day's sweep is the steady state: a slice of the
	// corpus crosses ACTIVE_CONTEXT's threshold and sinks ---
	rawRate, err := benchRawSweepRead(ctx, st, scope, len(ids))
	if err != nil {
		return err
	}
	for _, day := range []int{13, 1} {
		offset.Add(int64(time.Duration(day) * 24 * time.Hour))
		t0 := time.Now()
		res, err := cx.DecaySweep(ctx, scope, "", cortex.Meta{})
		if err != nil {
			return err
		}
		el := time.Since(t0)
		label := "decay sweep, first (day 13: every score rewritten)"
		if day == 1 {
			label = "decay sweep, next day (steady state)"
		}
		fmt.Fprintf(stdout, "%-58s %10.0f/s   %8.0f/s raw DQL reads of the same pages (memories/s)\n", label, float64(res.Evaluated)/el.Seconds(), rawRate)
		fmt.Fprintf(stdout, "%-58s %14s   %d evaluated, %d demoted, %d rescored in %s\n", "", "", res.Evaluated, res.Demotions, res.Rescored, el.Round(time.Millisecond))
	}
	return nil
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
	RawSetBatch(context.Context, []map[string]any) error
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
			if err := st.RawSetBatch(ctx, batch); err != nil {
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

// benchRawSweepRead runs the sweep's own reads raw — the list of a tier's nodes, then their stored
// scores by uid in chunks of 10,000 — over every tier: the floor of a sweep's cost.
func benchRawSweepRead(ctx context.Context, st interface {
	RawQuery(context.Context, string, map[string]string) ([]byte, error)
}, scope string, n int) (float64, error) {
	t0 := time.Now()
	read := 0
	for _, tier := range domain.Tiers {
		raw, err := st.RawQuery(ctx, `query q($scope: string, $tier: string) { q(func: eq(mem.tier, $tier)) @filter(eq(tr.scope, $scope)) { uid } }`,
			map[string]string{"$scope": scope, "$tier": string(tier)})
		if err != nil {
			return 0, err
		}
		var list struct {
			Q []struct {
				UID string `json:"uid"`
			} `json:"q"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return 0, err
		}
		for i := 0; i < len(list.Q); i += 10000 {
			var uids []string
			for _, x := range list.Q[i:min(len(list.Q), i+10000)] {
				uids = append(uids, x.UID)
			}
			raw, err := st.RawQuery(ctx, `{ q(func: uid(`+strings.Join(uids, ",")+`)) { uid mem.salience mem.score } }`, nil)
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
	}
	if read != n {
		return 0, fmt.Errorf("raw sweep read %d memories, want %d", read, n)
	}
	return float64(read) / time.Since(t0).Seconds(), nil
}
