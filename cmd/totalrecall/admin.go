package main

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/edge"
	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/search"
)

// readyMaxLag is how many events the index or a log consumer may trail the log's head for
// /readyz to answer ready (a server under writes always trails by a few).
const readyMaxLag = 1000

// livez answers as long as the process serves HTTP.
func livez() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("ok\n"))
	})
}

// readyz answers 200 when the server has started and is not shutting down, its store and index
// answer, and the index and the log consumers are caught up (within readyMaxLag events); 503
// with the reason otherwise.
func readyz(cx *cortex.Cortex, ready func() bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if ready != nil && !ready() {
			http.Error(w, "not ready: starting or shutting down", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		h := cx.Health(ctx)
		switch {
		case h.Err != nil:
			http.Error(w, "not ready: "+h.Err.Error(), http.StatusServiceUnavailable)
		case h.Lag() > readyMaxLag:
			http.Error(w, fmt.Sprintf("not ready: catching up, %d events behind the log (head %d, index %d, consumers %v)",
				h.Lag(), h.Head, h.IndexWatermark, h.Consumers), http.StatusServiceUnavailable)
		default:
			fmt.Fprintf(w, "ok: head %d, index %d, consumers %v\n", h.Head, h.IndexWatermark, h.Consumers)
		}
	})
}

// adminHandler is the admin listener's surface: metrics, profiles and the probes. It is never
// mounted on the public listener.
func adminHandler(cx *cortex.Cortex, ready func() bool, m *edge.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/livez", livez())
	mux.Handle("/readyz", readyz(cx, ready))
	return mux
}

// registerDiskMetrics adds the bytes the data folders take on disk: the embedded store's graph
// (not a cluster's) and the search index. Searches write too — each records its retrievals in
// the event log (docs/scaling.md, "What searches write") — so a server's disk grows with its
// use as well as with its memories.
func registerDiskMetrics(m *edge.Metrics, sf *storeFlags) {
	uri, idxDir, err := sf.paths()
	if err != nil {
		return
	}
	dirs := map[string]string{"index": idxDir}
	if g, ok := strings.CutPrefix(uri, "file://"); ok {
		dirs["graph"] = g
	}
	for part, dir := range dirs {
		m.Gauge("totalrecall_disk_bytes", "Bytes the data on disk takes, by part (graph: the embedded store; index: the search index).",
			map[string]string{"part": part}, func() float64 { return float64(diskUsage(dir)) })
	}
}

// diskUsage is the bytes the files under dir take on disk (Badger's value log is a sparse file of
// a gigabyte: its length says little).
func diskUsage(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += info.Size()
				}
			}
		}
		return nil
	})
	return n
}

// registerMetrics adds the store's, the index's and the Cortex's gauges and counters.
func registerMetrics(m *edge.Metrics, st *graph.Store, idx *search.Index, cx *cortex.Cortex, e *edge.Edge) {
	health := func() cortex.Health {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return cx.Health(ctx)
	}
	m.Counter("totalrecall_store_commits_total", "Writes the graph store committed (this process).", nil,
		func() float64 { return float64(st.Commits()) })
	m.Counter("totalrecall_store_aborts_total", "Commits that conflicted with concurrent writes and were retried (cluster).", nil,
		func() float64 { return float64(st.Aborts()) })
	m.Counter("totalrecall_read_events_pruned_total", "Read events (searches, loads, retrievals, scores) this process pruned from the log after --keep-read-events.", nil,
		func() float64 { return float64(cx.PrunedReadEvents()) })
	m.Gauge("totalrecall_event_log_head", "Seq of the newest event of the log.", nil,
		func() float64 { return float64(health().Head) })
	m.Gauge("totalrecall_index_lag_events", "Events of the log the search index has not applied yet.", nil, func() float64 {
		h := health()
		if h.Head < h.IndexWatermark {
			return 0
		}
		return float64(h.Head - h.IndexWatermark)
	})
	for _, name := range []string{"salience", "subconscious"} {
		m.Gauge("totalrecall_consumer_lag_events", "Events of the log a consumer has not handled yet.", map[string]string{"consumer": name},
			func() float64 {
				h := health()
				seq, ok := h.Consumers[name]
				if !ok || h.Head < seq {
					return 0
				}
				return float64(h.Head - seq)
			})
	}
	m.Gauge("totalrecall_subscriptions_open", "GraphQL subscriptions open now.", nil,
		func() float64 { return float64(cx.OpenSubscriptions()) })
	m.Gauge("totalrecall_websockets_open", "Websockets open now.", nil,
		func() float64 { return float64(e.OpenWebsockets()) })
	m.Gauge("totalrecall_index_documents", "Documents in the search index.", nil, func() float64 {
		n, _ := idx.Count()
		return float64(n)
	})
	for _, part := range []string{"memories", "walks"} {
		m.Gauge("totalrecall_read_cache_bytes", "Bytes held by the embedded store's read cache, by part (memories: records and contexts; walks: total recall's associations and states).",
			map[string]string{"cache": part}, func() float64 { return float64(st.CacheStats().Bytes(part)) })
		m.Gauge("totalrecall_read_cache_budget_bytes", "The read cache's budget now, by part: its configured size, less what the governor took back for the heap.",
			map[string]string{"cache": part}, func() float64 { return float64(st.CacheStats().Budget(part)) })
		m.Gauge("totalrecall_read_cache_entries", "Entries held by the embedded store's read cache, by part.",
			map[string]string{"cache": part}, func() float64 { return float64(st.CacheStats().Entries(part)) })
		m.Counter("totalrecall_read_cache_hits_total", "Entries the embedded store's read cache was asked for and held, by part.",
			map[string]string{"cache": part}, func() float64 { h, _ := st.CacheStats().Lookups(part); return float64(h) })
		m.Counter("totalrecall_read_cache_misses_total", "Entries the embedded store's read cache was asked for and did not hold (read from the engine), by part.",
			map[string]string{"cache": part}, func() float64 { _, n := st.CacheStats().Lookups(part); return float64(n) })
	}
	m.Gauge("totalrecall_api_keys", "API keys in the in-memory key table.", nil, func() float64 {
		if k := cx.Keys(); k != nil {
			return float64(k.Len())
		}
		return 0
	})
}
