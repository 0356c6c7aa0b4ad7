package edge

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the server's Prometheus metrics, in a registry of their own (served only on the
// admin listener). Names follow Prometheus' conventions: base units, _total for counters. A nil
// *Metrics records nothing. Safe for concurrent use.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	errors   *prometheus.CounterVec

	mu     sync.Mutex
	labels map[string]bool
}

// maxOperationLabels bounds the operation label's values; later ones count as "other".
const maxOperationLabels = 200

// NewMetrics registers the request metrics and the Go runtime's and the process's.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), labels: map[string]bool{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "totalrecall_requests_total",
		Help: "HTTP requests served, by operation (the GraphQL root field, or the path) and status."}, []string{"operation", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "totalrecall_request_duration_seconds",
		Help:    "Time to serve a request, by operation (a websocket: its whole life).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"operation"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "totalrecall_errors_total",
		Help: "Errors answered, by code (extensions.code; the edge's refusals included)."}, []string{"code"})
	m.reg.MustRegister(m.requests, m.latency, m.errors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Gauge registers a gauge read from f at every scrape; labels are constant labels.
func (m *Metrics) Gauge(name, help string, labels map[string]string, f func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels}, f))
}

// Counter registers a counter read from f at every scrape.
func (m *Metrics) Counter(name, help string, labels map[string]string, f func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, f))
}

// Error counts one error answered with code.
func (m *Metrics) Error(code string) {
	if m == nil || code == "" {
		return
	}
	m.errors.WithLabelValues(code).Inc()
}

func (m *Metrics) request(op string, status int, d time.Duration) {
	if m == nil {
		return
	}
	m.mu.Lock()
	if !m.labels[op] {
		if len(m.labels) >= maxOperationLabels {
			op = "other"
		} else {
			m.labels[op] = true
		}
	}
	m.mu.Unlock()
	m.requests.WithLabelValues(op, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(op).Observe(d.Seconds())
}
