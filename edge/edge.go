package edge

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/totalrecall/totalrecall/domain"
)

// Authenticator turns an API key's secret into the principal it stands for (the Cortex).
type Authenticator interface {
	Authenticate(ctx context.Context, secret, client, path string) (*domain.Principal, error)
}

// Defaults of the limits (serve's flags document them).
const (
	DefaultMaxBodyBytes             = 16 << 20
	DefaultRateLimit                = 100
	DefaultRateBurst                = 200
	DefaultMaxWebsocketMessageBytes = DefaultMaxBodyBytes
)

// ERATELIMITED refuses a request beyond its key's rate (HTTP 429, with Retry-After).
const ERATELIMITED = "RATE_LIMITED"

// EUNSUPPORTEDMEDIA refuses a POST whose body is not JSON (HTTP 415).
const EUNSUPPORTEDMEDIA = "UNSUPPORTED_MEDIA_TYPE"

// Config configures the edge.
type Config struct {
	// Auth requires an API key on every path but the public ones.
	Auth bool
	Keys Authenticator
	// Public reports the paths served without a key (health probes, static pages that hold no
	// data); nil: none.
	Public func(path string) bool
	// Bulk reports whether a path takes a JSON Lines stream (application/x-ndjson) as its body:
	// the whole graph's dump, which goes through unread and unbounded (the handler checks its
	// caller is ADMIN).
	Bulk func(path string) bool
	// WebsocketPath is the path whose websockets may authenticate in connection_init instead of
	// the upgrade request's header (a browser cannot set one).
	WebsocketPath string
	// MaxBodyBytes caps a request body (HTTP 413 beyond); 0: no cap.
	MaxBodyBytes int64
	// RateLimit is each key's rate in requests a second, with a burst of RateBurst (HTTP 429
	// beyond); 0: no limit. It applies to authenticated requests.
	RateLimit float64
	RateBurst int
	// MaxWebsocketMessageBytes caps one websocket message a client sends; the socket is closed
	// beyond. 0: no cap.
	MaxWebsocketMessageBytes int64
	// AccessLog receives one line per request (nil: none).
	AccessLog *slog.Logger
	// Metrics receives the requests' measurements (nil: none).
	Metrics *Metrics
}

// Edge is the handler chain. Safe for concurrent use.
type Edge struct {
	cfg Config

	limMu    sync.Mutex
	limiters map[string]*rate.Limiter

	wsMu    sync.Mutex
	sockets map[*int]context.CancelFunc
}

// New returns an edge configured by cfg.
func New(cfg Config) *Edge {
	if cfg.RateBurst <= 0 {
		cfg.RateBurst = max(1, int(math.Ceil(cfg.RateLimit)))
	}
	return &Edge{cfg: cfg, limiters: map[string]*rate.Limiter{}, sockets: map[*int]context.CancelFunc{}}
}

// requestInfo is what the edge knows of a request, filled in as it is served.
type requestInfo struct {
	id        string
	remote    string
	edge      *Edge
	mu        sync.Mutex
	operation string
	principal *domain.Principal
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	i, _ := ctx.Value(infoKey{}).(*requestInfo)
	return i
}

// RequestID returns the id the edge gave the request of ctx ("" outside one).
func RequestID(ctx context.Context) string {
	if i := infoFrom(ctx); i != nil {
		return i.id
	}
	return ""
}

// Observe records what an adapter learned of the request of ctx: the operation it ran (its
// metrics and access-log label; the first one named wins) and the error codes it answered with.
func Observe(ctx context.Context, operation string, errorCodes []string) {
	i := infoFrom(ctx)
	if i == nil {
		return
	}
	i.mu.Lock()
	if i.operation == "" {
		i.operation = operation
	}
	i.mu.Unlock()
	for _, c := range errorCodes {
		i.edge.cfg.Metrics.Error(c)
	}
}

// requestIDHeader carries a caller's request id, echoed back (or one the edge draws).
const requestIDHeader = "X-Request-Id"

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validRequestID accepts a caller's id when it is short and plain.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// Handler wraps next in the edge.
func (e *Edge) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(requestIDHeader)
		if !validRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set(requestIDHeader, id)
		info := &requestInfo{id: id, remote: r.RemoteAddr, edge: e}
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		sw := &statusWriter{ResponseWriter: w, maxFrame: e.cfg.MaxWebsocketMessageBytes}
		public := e.cfg.Public != nil && e.cfg.Public(r.URL.Path)
		defer func() { e.finish(r, sw, info, start, public) }()
		e.serve(sw, r, info, public, next)
	})
}

func (e *Edge) serve(w *statusWriter, r *http.Request, info *requestInfo, public bool, next http.Handler) {
	if public {
		next.ServeHTTP(w, r)
		return
	}
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if e.cfg.Auth {
		secret, hasHeader := bearer(r.Header.Get("Authorization"))
		// A browser's websocket cannot carry a header: it authenticates in connection_init.
		if hasHeader || !(upgrade && r.URL.Path == e.cfg.WebsocketPath) {
			p, err := e.cfg.Keys.Authenticate(r.Context(), secret, r.RemoteAddr, r.URL.Path)
			if err != nil {
				e.refuse(w, err)
				return
			}
			info.mu.Lock()
			info.principal = p
			info.mu.Unlock()
			if err := e.allow(p); err != nil {
				e.refuse(w, err)
				return
			}
			r = r.WithContext(domain.WithPrincipal(r.Context(), p))
		}
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt == "application/x-ndjson" && e.cfg.Bulk != nil && e.cfg.Bulk(r.URL.Path) {
			// A dump is streamed to its reader, not held: --max-body-bytes bounds requests.
			next.ServeHTTP(w, r)
			return
		}
		if mt != "application/json" {
			e.refuse(w, domain.Errorf(EUNSUPPORTEDMEDIA, "send JSON (Content-Type: application/json); form and other encodings are not accepted"))
			return
		}
		if err := e.readBody(r); err != nil {
			e.refuse(w, err)
			return
		}
	}
	if upgrade {
		ctx, cancel := context.WithCancel(r.Context())
		token := e.addSocket(cancel)
		defer e.removeSocket(token)
		r = r.WithContext(ctx)
	}
	next.ServeHTTP(w, r)
}

// readBody reads the whole body within the cap (refusing it with PAYLOAD_TOO_LARGE beyond) and
// hands it on as read.
func (e *Edge) readBody(r *http.Request) error {
	max := e.cfg.MaxBodyBytes
	if max <= 0 || r.Body == nil {
		return nil
	}
	tooLarge := domain.Errorf(domain.ETOOLARGE, "the request body is larger than %d bytes (--max-body-bytes)", max)
	if r.ContentLength > max {
		return tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	r.Body.Close()
	if err != nil {
		return domain.Errorf(domain.EINVALID, "reading the request body: %v", err)
	}
	if int64(len(data)) > max {
		return tooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.ContentLength = int64(len(data))
	return nil
}

func bearer(h string) (string, bool) {
	if h == "" {
		return "", false
	}
	scheme, secret, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(secret), true
}

// allow takes one request of p's rate: RATE_LIMITED, with the wait, beyond it.
func (e *Edge) allow(p *domain.Principal) error {
	if e.cfg.RateLimit <= 0 || p == nil {
		return nil
	}
	e.limMu.Lock()
	lim := e.limiters[p.KeyID]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(e.cfg.RateLimit), e.cfg.RateBurst)
		e.limiters[p.KeyID] = lim
	}
	e.limMu.Unlock()
	res := lim.Reserve()
	d := res.Delay()
	if res.OK() && d == 0 {
		return nil
	}
	res.Cancel()
	return &retryError{wait: d, err: domain.Errorf(ERATELIMITED, "this API key sent more than %g requests a second (burst %d); retry after %s",
		e.cfg.RateLimit, e.cfg.RateBurst, d.Round(time.Millisecond))}
}

type retryError struct {
	wait time.Duration
	err  *domain.Error
}

func (r *retryError) Error() string { return r.err.Error() }
func (r *retryError) Unwrap() error { return r.err }

// status is the HTTP status of a refusal's code.
func status(code string) int {
	switch code {
	case domain.EUNAUTHENTICATED:
		return http.StatusUnauthorized
	case domain.EFORBIDDEN:
		return http.StatusForbidden
	case domain.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case ERATELIMITED:
		return http.StatusTooManyRequests
	case EUNSUPPORTEDMEDIA:
		return http.StatusUnsupportedMediaType
	case domain.EINVALID:
		return http.StatusBadRequest
	}
	return http.StatusServiceUnavailable
}

// refuse answers a request the edge turns away, as a GraphQL error (every client of the API
// reads those) with the matching HTTP status.
func (e *Edge) refuse(w http.ResponseWriter, err error) {
	code := domain.ErrorCode(err)
	msg := domain.ErrorMessage(err)
	if code == domain.EINTERNAL {
		code, msg = domain.EUNAVAILABLE, "the API keys cannot be read now; retry"
	}
	e.cfg.Metrics.Error(code)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	var re *retryError
	if errors.As(err, &re) {
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(re.wait.Seconds())))))
	}
	if code == domain.EUNAUTHENTICATED {
		h.Set("WWW-Authenticate", `Bearer realm="totalrecall"`)
	}
	w.WriteHeader(status(code))
	_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []map[string]any{
		{"message": msg, "extensions": map[string]any{"code": code}}}})
}

// WebsocketInit authenticates a websocket in its connection_init payload
// ({"authorization": "Bearer trk_…"}) when its upgrade request carried no key, and returns the
// connection's context: it ends — closing the socket — when the key is revoked or expires.
func (e *Edge) WebsocketInit(ctx context.Context, payload map[string]any) (context.Context, error) {
	if !e.cfg.Auth {
		return ctx, nil
	}
	p := domain.PrincipalFrom(ctx)
	if p == nil {
		var h string
		for k, v := range payload {
			if strings.EqualFold(k, "authorization") {
				h, _ = v.(string)
			}
		}
		secret, _ := bearer(h)
		client, path := "", e.cfg.WebsocketPath
		info := infoFrom(ctx)
		if info != nil {
			client = info.remote
		}
		var err error
		if p, err = e.cfg.Keys.Authenticate(ctx, secret, client, path); err != nil {
			e.cfg.Metrics.Error(domain.ErrorCode(err))
			return nil, err
		}
		if err := e.allow(p); err != nil {
			e.cfg.Metrics.Error(ERATELIMITED)
			return nil, err
		}
		if info != nil {
			info.mu.Lock()
			info.principal = p
			info.mu.Unlock()
		}
		ctx = domain.WithPrincipal(ctx, p)
	}
	ctx, cancel := context.WithCancel(ctx)
	var expiry <-chan time.Time
	var timer *time.Timer
	if p.ExpiresAt != nil {
		timer = time.NewTimer(time.Until(*p.ExpiresAt))
		expiry = timer.C
	}
	go func() {
		defer cancel()
		if timer != nil {
			defer timer.Stop()
		}
		select {
		case <-ctx.Done():
		case <-p.Revoked:
		case <-expiry:
		}
	}()
	return ctx, nil
}

func (e *Edge) addSocket(cancel context.CancelFunc) *int {
	t := new(int)
	e.wsMu.Lock()
	e.sockets[t] = cancel
	e.wsMu.Unlock()
	return t
}

func (e *Edge) removeSocket(t *int) {
	e.wsMu.Lock()
	delete(e.sockets, t)
	e.wsMu.Unlock()
}

// OpenWebsockets is the number of websockets open now.
func (e *Edge) OpenWebsockets() int {
	e.wsMu.Lock()
	defer e.wsMu.Unlock()
	return len(e.sockets)
}

// CloseWebsockets closes every open websocket (at shutdown, once their subscriptions completed).
func (e *Edge) CloseWebsockets() {
	e.wsMu.Lock()
	defer e.wsMu.Unlock()
	for _, cancel := range e.sockets {
		cancel()
	}
}

// finish logs and measures a request once it is served.
func (e *Edge) finish(r *http.Request, w *statusWriter, info *requestInfo, start time.Time, public bool) {
	d := time.Since(start)
	st := w.status
	if st == 0 {
		st = http.StatusOK
	}
	info.mu.Lock()
	op, p := info.operation, info.principal
	info.mu.Unlock()
	if op == "" {
		switch {
		case w.hijacked:
			op = "websocket"
		case public:
			op = r.URL.Path
		case st == http.StatusUnauthorized:
			op = "unauthenticated"
		default:
			op = firstSegment(r.URL.Path)
		}
	}
	e.cfg.Metrics.request(op, st, d)
	if e.cfg.AccessLog != nil && !(public && isProbe(r.URL.Path)) {
		e.cfg.AccessLog.Info("request", "id", info.id, "method", r.Method, "path", r.URL.Path, "status", st,
			"bytes", w.bytes, "ms", float64(d.Microseconds())/1000, "op", op, "key", p.Label(), "remote", r.RemoteAddr)
	}
}

func isProbe(path string) bool { return path == "/healthz" || path == "/livez" || path == "/readyz" }

func firstSegment(path string) string {
	path = strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(path, '/'); i >= 0 {
		path = path[:i]
	}
	return "/" + path
}

// statusWriter records the status and size of a response; it passes flushes on (SSE) and
// hijacks (websockets, whose messages it caps).
type statusWriter struct {
	http.ResponseWriter
	status   int
	bytes    int64
	hijacked bool
	maxFrame int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status != 0 {
		return // answered already (a refused websocket upgrade is answered twice)
	}
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("edge: the response cannot be hijacked")
	}
	conn, rw, err := h.Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.hijacked = true
	w.status = http.StatusSwitchingProtocols
	if w.maxFrame > 0 {
		conn = &frameLimitConn{Conn: conn, max: uint64(w.maxFrame)}
	}
	return conn, rw, nil
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
