package main

import (
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/edge"
	"github.com/totalrecall/totalrecall/resolvers"
)

// exposeFlags are serve's flags for a server on a network: keys, limits, the admin listener and
// shutdown. Their zero value (what tests that call serveOn directly get) is no auth, no limits,
// and the default timeouts.
type exposeFlags struct {
	auth          bool
	insecure      bool
	introspection *bool // nil: on without --auth, off with it
	allowOrigins  []string

	maxComplexity     int
	maxDepth          int
	maxBodyBytes      int64
	rateLimit         float64
	rateBurst         int
	maxSubscriptions  int
	maxWSMessageBytes int64
	readHeaderTimeout time.Duration
	idleTimeout       time.Duration
	shutdownTimeout   time.Duration

	adminAddr string
	accessLog bool
	// shardPublic serves GET /shard without a key: set on a server that serves some scopes, whose
	// peers ask it without one.
	shardPublic bool
}

// Defaults of serve's flags.
const (
	defaultMaxComplexity     = 2000
	defaultMaxDepth          = 20
	defaultMaxSubscriptions  = 100
	defaultReadHeaderTimeout = 10 * time.Second
	defaultIdleTimeout       = 120 * time.Second
	defaultShutdownTimeout   = 30 * time.Second
)

func (f *exposeFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.auth, "auth", false, "require an API key (Authorization: Bearer trk_…) on every request but the health probes and the playground page")
	fs.BoolVar(&f.insecure, "insecure", false, "serve on a non-loopback address without --auth (anyone who reaches the port reads and writes every scope)")
	fs.Func("introspection", "answer schema introspection (default: on without --auth, off with it)", func(s string) error {
		v := s == "" || s == "true" || s == "1"
		if !v && s != "false" && s != "0" {
			return fmt.Errorf("--introspection %q: want true or false", s)
		}
		f.introspection = &v
		return nil
	})
	fs.Func("allow-origin", "an origin (scheme://host[:port]) whose pages may open websockets, besides the server's own (repeatable)", func(s string) error {
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("--allow-origin %q: want scheme://host[:port]", s)
		}
		f.allowOrigins = append(f.allowOrigins, strings.ToLower(u.Scheme+"://"+u.Host))
		return nil
	})
	fs.IntVar(&f.maxComplexity, "max-complexity", defaultMaxComplexity, "refuse GraphQL operations selecting more fields than this (COMPLEXITY_LIMIT_EXCEEDED; 0: no limit)")
	fs.IntVar(&f.maxDepth, "max-depth", defaultMaxDepth, "refuse GraphQL operations nesting fields deeper than this (DEPTH_LIMIT_EXCEEDED; 0: no limit)")
	fs.Int64Var(&f.maxBodyBytes, "max-body-bytes", edge.DefaultMaxBodyBytes, "refuse request bodies larger than this with HTTP 413 (raised to fit --max-content-bytes twice over; 0: no limit)")
	fs.Float64Var(&f.rateLimit, "rate-limit", edge.DefaultRateLimit, "requests a second each API key may send, with --rate-burst at once (HTTP 429 with Retry-After beyond; 0: no limit; with --auth)")
	fs.IntVar(&f.rateBurst, "rate-burst", edge.DefaultRateBurst, "requests an API key may send at once above --rate-limit")
	fs.IntVar(&f.maxSubscriptions, "max-subscriptions", defaultMaxSubscriptions, "open subscriptions each API key may hold (SUBSCRIPTION_LIMIT_EXCEEDED beyond; 0: no limit; with --auth)")
	fs.Int64Var(&f.maxWSMessageBytes, "max-ws-message-bytes", edge.DefaultMaxWebsocketMessageBytes, "close a websocket whose client sends a message larger than this (0: no limit)")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", defaultReadHeaderTimeout, "time a client has to send a request's headers")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", defaultIdleTimeout, "time an idle keep-alive connection stays open")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "on SIGTERM or SIGINT: time to finish requests, complete subscriptions and flush the index and consumers before exiting")
	fs.StringVar(&f.adminAddr, "admin-addr", "", "serve /metrics, /debug/pprof, /livez and /readyz on this HOST:PORT (off unless set; never on --addr)")
	fs.BoolVar(&f.accessLog, "access-log", true, "log one line per request (id, method, path, status, bytes, time, operation, key)")
}

// checkExposure refuses to serve on an address other machines reach without keys, unless asked.
func (f *exposeFlags) checkExposure(addr string) error {
	if f.auth || f.insecure {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if loopback(host) {
		return nil
	}
	return fmt.Errorf("--addr %s is reachable from other machines: serve with --auth (and create a key with `totalrecall keys create --role admin --store …`), or pass --insecure to serve every scope to anyone who reaches the port", addr)
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// subscriptionCap is the open subscriptions a key may hold (keys exist only with --auth).
func (f *exposeFlags) subscriptionCap() int {
	if !f.auth {
		return 0
	}
	return f.maxSubscriptions
}

// introspectionOn says whether the schema answers introspection.
func (f *exposeFlags) introspectionOn() bool {
	if f.introspection != nil {
		return *f.introspection
	}
	return !f.auth
}

// bodyLimit is --max-body-bytes, raised so that content of --max-content-bytes fits (JSON may
// escape it to twice its size).
func (f *exposeFlags) bodyLimit() int64 {
	if f.maxBodyBytes <= 0 {
		return 0
	}
	return max(f.maxBodyBytes, 2*int64(domain.MaxContentBytes())+1<<20)
}

func (f *exposeFlags) timeouts() (readHeader, idle, shutdown time.Duration) {
	readHeader, idle, shutdown = f.readHeaderTimeout, f.idleTimeout, f.shutdownTimeout
	if readHeader <= 0 {
		readHeader = defaultReadHeaderTimeout
	}
	if idle <= 0 {
		idle = defaultIdleTimeout
	}
	if shutdown <= 0 {
		shutdown = defaultShutdownTimeout
	}
	return
}

// checkOrigin accepts a websocket from a page of the server's own origin, of an allowed one, or
// from a client that sends no Origin (not a browser).
func (f *exposeFlags) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	o := strings.ToLower(u.Scheme + "://" + u.Host)
	for _, a := range f.allowOrigins {
		if a == o {
			return true
		}
	}
	return false
}

// publicPaths are served without an API key: they hold no data (the health probes, the
// playground and explorer pages, which ask for a key to send their queries with, and their
// embedded assets). A server that serves some scopes adds /shard (shardPublic).
var publicPaths = map[string]bool{"/": true, "/explore": true, "/explore/": true, "/healthz": true, "/livez": true, "/readyz": true}

func isPublic(path string) bool { return publicPaths[path] || strings.HasPrefix(path, "/assets/") }

// buildEdge makes the handler chain and the GraphQL handler's options from the flags.
func (f *exposeFlags) buildEdge(cx *cortex.Cortex, logger *slog.Logger, metrics *edge.Metrics) (*edge.Edge, resolvers.Options) {
	var access *slog.Logger
	if f.accessLog {
		access = logger
	}
	rate, burst := 0.0, 0
	if f.auth {
		rate, burst = f.rateLimit, f.rateBurst
	}
	public := isPublic
	if f.shardPublic {
		public = func(p string) bool { return p == "/shard" || isPublic(p) }
	}
	e := edge.New(edge.Config{Auth: f.auth, Keys: cx, Public: public, Bulk: func(p string) bool { return p == "/import" },
		WebsocketPath: "/query", MaxBodyBytes: f.bodyLimit(), RateLimit: rate, RateBurst: burst,
		MaxWebsocketMessageBytes: f.maxWSMessageBytes, AccessLog: access, Metrics: metrics})
	gql := resolvers.Options{MaxComplexity: f.maxComplexity, MaxDepth: f.maxDepth, NoIntrospection: !f.introspectionOn(),
		WebsocketInit: e.WebsocketInit, CheckOrigin: f.checkOrigin, Observe: edge.Observe}
	return e, gql
}
