// Package mcpserver is totalrecall's Model Context Protocol server: seed 000's external snake_case
// operations as MCP tools over the Cortex, the scope's identity as a resource, and the
// NotificationPort's adapter for LLMs — notifications pushed as Claude Code channel
// notifications to clients that accept them. One server definition, written once: it is served
// over streamable HTTP at /mcp, and `totalrecall mcp` bridges stdio to that endpoint (package
// client), so every tool runs on the one server that owns the data.
//
// The scope is bound by the connection (/mcp?scope=ID-or-NAME): no tool reaches another scope.
// The mind instance is bound by ?instance=ID, or by the first tool call that names one
// (session_start, usually). Tools call the Cortex with the context of the HTTP request that
// opened the connection, so the checks at the HTTP edge (API keys, scope grants) hold for them.
package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
)

// ChannelCapability is the experimental capability of Claude Code's channels: a server declares
// it, and a client that declares it too (or a connection opened with ?channels=true) gets the
// notifications for its instance pushed as ChannelMethod notifications.
const (
	ChannelCapability = "claude/channel"
	ChannelMethod     = "notifications/claude/channel"
)

// Version is reported as the server's implementation version.
var Version = "dev"

// Options configure a Server.
type Options struct {
	Logger *slog.Logger
	// SessionTimeout closes an MCP session idle that long (default 30 minutes; the bridge
	// re-initializes transparently).
	SessionTimeout time.Duration
}

// Server is the MCP server. Safe for concurrent use.
type Server struct {
	cx      *cortex.Cortex
	logger  *slog.Logger
	mcp     *mcp.Server
	handler *mcp.StreamableHTTPHandler

	mu       sync.Mutex
	sessions map[string]*binding // by MCP session id
}

// New returns the MCP server over cx.
func New(cx *cortex.Cortex, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// The SDK logs every session's comings and goings at INFO: only its warnings are kept.
	sdkLog := slog.New(minLevel{opts.Logger.Handler(), slog.LevelWarn})
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	s := &Server{cx: cx, logger: opts.Logger, sessions: map[string]*binding{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "totalrecall", Title: "totalrecall memory", Version: Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLog,
		Capabilities: &mcp.ServerCapabilities{
			Experimental: map[string]any{ChannelCapability: map[string]any{}},
			Tools:        &mcp.ToolCapabilities{},
			Resources:    &mcp.ResourceCapabilities{},
		},
		InitializedHandler: s.initialized,
		SchemaCache:        mcp.NewSchemaCache(),
	})
	s.mcp.AddReceivingMiddleware(s.forgiveNames)
	s.addTools()
	s.addJournalTools()
	s.addResources()
	s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: sdkLog, SessionTimeout: opts.SessionTimeout})
	return s
}

const instructions = `totalrecall is your long-term memory: a graph of typed memories, ranked by salience, that fades what does not matter and brings back what does.
- Call session_start once at the beginning (with your instance id) and session_end when you finish.
- Before answering about past work, decisions or preferences, check both memory systems: search_memory for the graph and journal_memory_search for your journal (MEMORY.md, memory/*.md; read a file's lines with journal_memory_get). Call resonate with a new message to get the few memories it brings back.
- session_start gives you your story: the newest chapters of your first-person autobiography, written from the memories of your sessions.
- When something is worth keeping (a decision, a fact about the user or the project, a lesson), call store_memory; claim_memory what you refuse to lose.
- When a search hints at more, call total_recall_advisory on the best results: it walks their associations and returns the recollection.
- Link related memories with associate_memories; move a memory between tiers with reclassify_memory; reflect lists memories that need your judgment.
Everything you store stays in this connection's scope.`

// minLevel passes on the records of at least its level.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(as), m.min}
}
func (m minLevel) WithGroup(n string) slog.Handler { return minLevel{m.Handler.WithGroup(n), m.min} }

// binding is what a connection is bound to: its scope, and the mind instance once known.
type binding struct {
	scope    *domain.Scope
	channels *bool  // ?channels=true|false; nil: as the client declares
	auth     string // a digest of the Authorization header that opened the session

	mu        sync.Mutex
	instance  string
	mindType  string
	session   string // the mind session, once started or looked up
	sessionID string // the MCP session
	accepts   bool   // the client declared ChannelCapability
	stream    *sseStream
	streamCtx context.Context
	pushing   bool
	// awaited are the total recalls a tool of this connection waits for: their recollections
	// are the tool's to return, not the channel's to push.
	awaited map[string]bool
	// returned are the total recalls whose recollection a tool returned, and when: the pusher,
	// which may see the recollection after the tool returned, does not push it again.
	returned map[string]time.Time
}

type bindingKey struct{}

func bindingFrom(ctx context.Context) *binding {
	b, _ := ctx.Value(bindingKey{}).(*binding)
	return b
}

// ServeHTTP serves /mcp. A request that opens a session names the scope (?scope=) and
// optionally the instance (?instance=) and channel delivery (?channels=true|false).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		if r.Method != http.MethodPost {
			s.handler.ServeHTTP(w, r)
			return
		}
		b, status, err := s.bind(r)
		if err != nil {
			httpError(w, status, err)
			return
		}
		// The session is registered as its id is sent, before the client can use it.
		cw := &captureSession{ResponseWriter: w, found: func(id string) { s.register(id, b) }}
		s.handler.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), bindingKey{}, b)))
		return
	}
	b := s.lookup(sid)
	if b != nil && b.auth != keyOf(r) {
		// Tools run with the principal of the request that opened the session: another key
		// must not ride on it.
		httpError(w, http.StatusForbidden, domain.Errorf(domain.EFORBIDDEN, "the MCP session was opened with another key"))
		return
	}
	if b != nil && r.Method == http.MethodGet {
		// The standalone stream: channel notifications are written beside the SDK's messages.
		st := &sseStream{ResponseWriter: w}
		b.attach(s, st, r.Context())
		defer b.detach(st)
		s.handler.ServeHTTP(st, r)
		return
	}
	s.handler.ServeHTTP(w, r)
	if r.Method == http.MethodDelete {
		s.forget(sid)
	}
}

// bind reads the connection's binding from the request that opens it.
func (s *Server) bind(r *http.Request) (*binding, int, error) {
	q := r.URL.Query()
	ref := q.Get("scope")
	if strings.TrimSpace(ref) == "" {
		return nil, http.StatusBadRequest, domain.FieldErrorf("scope", "name the scope: /mcp?scope=ID-or-NAME (`totalrecall mcp --scope`)")
	}
	sc, _, err := s.cx.ResolveScope(r.Context(), ref)
	if err != nil {
		return nil, statusOf(err), err
	}
	b := &binding{scope: sc, auth: keyOf(r)}
	if inst := q.Get("instance"); inst != "" {
		b.instance = inst
	}
	if v := q.Get("channels"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, http.StatusBadRequest, domain.FieldErrorf("channels", "want true or false, not %q", v)
		}
		b.channels = &on
	}
	return b, 0, nil
}

// keyOf is a digest of the request's credentials (none: "").
func keyOf(r *http.Request) string {
	a := r.Header.Get("Authorization")
	if a == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(a))
	return hex.EncodeToString(sum[:])
}

// initialized learns what the client declared, and forgets the session when it closes.
func (s *Server) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	b := bindingFrom(ctx)
	if b == nil {
		return
	}
	ss := req.Session
	b.mu.Lock()
	b.sessionID = ss.ID()
	if p := ss.InitializeParams(); p != nil && p.Capabilities != nil && p.Capabilities.Experimental != nil {
		_, b.accepts = p.Capabilities.Experimental[ChannelCapability]
	}
	if b.mindType == "" {
		b.mindType = "mcp"
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			b.mindType = p.ClientInfo.Name
		}
	}
	b.mu.Unlock()
	// The stream may have been attached before this ran.
	b.maybePush(s)
	if ss.ID() == "" {
		return
	}
	go func() {
		_ = ss.Wait()
		s.forget(ss.ID())
	}()
}

// captureSession sees the session id the SDK answers a new session's first request with.
type captureSession struct {
	http.ResponseWriter
	found func(id string)
	seen  bool
}

func (c *captureSession) see() {
	if !c.seen {
		c.seen = true
		if id := c.Header().Get("Mcp-Session-Id"); id != "" {
			c.found(id)
		}
	}
}

func (c *captureSession) WriteHeader(code int) {
	c.see()
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureSession) Write(p []byte) (int, error) {
	c.see()
	return c.ResponseWriter.Write(p)
}

func (c *captureSession) Flush() {
	c.see()
	_ = http.NewResponseController(c.ResponseWriter).Flush()
}

func (c *captureSession) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (s *Server) register(id string, b *binding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[id] = b
}

func (s *Server) lookup(sid string) *binding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sid]
}

func (s *Server) forget(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, sid)
}

// bound returns the connection's binding; a tool call always has one.
func bound(ctx context.Context) (*binding, error) {
	b := bindingFrom(ctx)
	if b == nil {
		return nil, domain.Errorf(domain.EINTERNAL, "the connection is bound to no scope")
	}
	return b, nil
}

// instanceOf returns the instance a call names, else the connection's; the first one named
// binds the connection.
func (s *Server) instanceOf(b *binding, named string) string {
	b.mu.Lock()
	if named == "" {
		named = b.instance
	}
	start := b.instance == "" && named != ""
	if start {
		b.instance = named
	}
	b.mu.Unlock()
	if start {
		b.maybePush(s)
	}
	return named
}

// mindSession is the active mind session of the connection's instance ("" without one): the
// memories stored through the connection count for it.
func (s *Server) mindSession(ctx context.Context, b *binding) string {
	b.mu.Lock()
	inst, sess := b.instance, b.session
	b.mu.Unlock()
	if sess != "" || inst == "" {
		return sess
	}
	ms, err := s.cx.ActiveSession(ctx, inst)
	if err != nil || ms == nil || ms.ScopeID != b.scope.ID {
		return ""
	}
	b.mu.Lock()
	b.session = ms.ID
	b.mu.Unlock()
	return ms.ID
}

// forgiveNames renames the arguments of a tool call to the tool's own names before the SDK
// validates them: camelCase and kebab-case spellings, and the aliases a model reaches for
// (text for content, q for query, id for memory_id, limit for max_results, ...).
func (s *Server) forgiveNames(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if ct, ok := req.(*mcp.CallToolRequest); ok && ct.Params != nil && len(ct.Params.Arguments) > 0 {
				if props := toolProperties[ct.Params.Name]; props != nil {
					ct.Params.Arguments = renameArguments(ct.Params.Arguments, props)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// toolProperties are each tool's argument names (filled as the tools are added).
var toolProperties = map[string]map[string]bool{}

var aliases = map[string][]string{
	"content":              {"text", "memory", "body", "note"},
	"suggested_tier":       {"tier"},
	"query":                {"q", "text", "search", "question"},
	"max_results":          {"limit", "k", "top_k", "n", "count"},
	"include_associations": {"associations", "expand"},
	"memory_id":            {"id", "memory"},
	"source_memory_ids":    {"memory_ids", "ids", "sources", "source_ids"},
	"source_id":            {"from", "source", "from_id"},
	"target_id":            {"to", "target", "to_id"},
	"type":                 {"association_type", "kind"},
	"message":              {"prompt", "text", "query"},
	"instance_id":          {"instance", "session_id"},
	"mind_type":            {"mind", "agent"},
	"metadata":             {"meta"},
	"max_tokens":           {"token_budget", "budget"},
	"wait_seconds":         {"wait", "timeout"},
	"from_line":            {"start_line", "line", "offset", "from"},
	"lines":                {"count", "limit", "n", "num_lines"},
	"path":                 {"file", "filename", "file_path"},
	"include_story":        {"story", "with_story"},
}

func snake(k string) string {
	var b strings.Builder
	for i, r := range k {
		switch {
		case r == '-' || r == ' ':
			b.WriteByte('_')
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// renameArguments maps the keys of raw onto props; keys it cannot place are left for the
// schema to refuse by name.
func renameArguments(raw json.RawMessage, props map[string]bool) json.RawMessage {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return raw
	}
	changed := false
	for k, v := range args {
		if props[k] {
			continue
		}
		name := snake(k)
		if !props[name] {
			name = ""
			for canon, as := range aliases {
				if !props[canon] {
					continue
				}
				for _, a := range as {
					if a == k || a == snake(k) {
						name = canon
					}
				}
			}
		}
		if name == "" {
			continue
		}
		if _, taken := args[name]; taken {
			continue
		}
		args[name] = v
		delete(args, k)
		changed = true
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(args)
	if err != nil {
		return raw
	}
	return out
}

// statusOf maps an error code onto the HTTP status of a refused connection.
func statusOf(err error) int {
	switch domain.ErrorCode(err) {
	case domain.EINVALID:
		return http.StatusBadRequest
	case domain.ENOTFOUND:
		return http.StatusNotFound
	case domain.EFORBIDDEN:
		return http.StatusForbidden
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case domain.EUNAVAILABLE, domain.ESHUTTINGDOWN:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func httpError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "totalrecall: %s: %s\n", domain.ErrorCode(err), domain.ErrorMessage(err))
}

// toolError is a tool's error as the model reads it: the code, the field and the message; an
// internal error says no more than that.
func (s *Server) toolError(tool string, err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		if de.Field != "" {
			return fmt.Errorf("%s (%s): %s", de.Code, de.Field, de.Message)
		}
		return fmt.Errorf("%s: %s", de.Code, de.Message)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: canceled", domain.ECANCELED)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: deadline exceeded", domain.EDEADLINEEXCEEDED)
	}
	s.logger.Error("mcp tool failed", "tool", tool, "err", err)
	return fmt.Errorf("%s: internal error", domain.EINTERNAL)
}
