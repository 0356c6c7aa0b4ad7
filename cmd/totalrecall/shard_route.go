package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/shard"
	"github.com/totalrecall/totalrecall/edge"
)

// The router of a server that serves some of the scopes: a request naming a scope another server
// serves is forwarded to it — method, path, query, body and headers (Authorization among them)
// as they came, the answer streamed back as it is written. The graph and the event log are
// shared, so what names no scope is answered where it arrives; only the search index and the
// living consumers are split.

// Headers of the split: the server that answered (every answer of a split server carries it),
// and the hop a forwarded request carries so that it is never forwarded again.
const (
	shardHeader = "X-Totalrecall-Shard"
	hopHeader   = "X-Totalrecall-Forwarded-By"
)

// ESCOPESSPLIT refuses a request naming scopes that no one server serves together.
const ESCOPESSPLIT = "SCOPES_ON_SEVERAL_SERVERS"

// followEvery is how often the peers are asked what they serve while one of them is unknown (not
// started yet, or down); once all answered, every 30 seconds. A request naming a scope no known
// peer serves, and a failed forward, ask at once.
const followEvery = time.Second

// shardRouter routes requests by scope. Safe for concurrent use.
type shardRouter struct {
	self     *shard.Spec
	instance string
	peers    []*peer
	// resolve turns a scope's name (/mcp?scope=NAME) into its id.
	resolve   func(context.Context, string) (string, error)
	transport http.RoundTripper
	client    *http.Client
	logger    *slog.Logger

	refreshMu   sync.Mutex
	lastRefresh time.Time // when the last refresh that completed began

	namesMu sync.Mutex
	names   map[string]string // scope name → id, as resolved
}

// peer is another server, and what it serves as last learned from its GET /shard.
type peer struct {
	url *url.URL

	mu    sync.Mutex
	known bool
	self  bool // the server itself, listed among its peers
	spec  *shard.Spec
}

func (p *peer) serving() (spec *shard.Spec, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spec, p.known && !p.self
}

func newShardRouter(self *shard.Spec, instance string, peers []*url.URL, resolve func(context.Context, string) (string, error), logger *slog.Logger) *shardRouter {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	rt := &shardRouter{self: self, instance: instance, resolve: resolve, transport: tr,
		client: &http.Client{Transport: tr, Timeout: 5 * time.Second}, logger: logger, names: map[string]string{}}
	for _, u := range peers {
		rt.peers = append(rt.peers, &peer{url: u})
	}
	return rt
}

// known is what the router knows of its peers now (GET /shard).
func (rt *shardRouter) known() []peerInfo {
	out := make([]peerInfo, 0, len(rt.peers))
	for _, p := range rt.peers {
		p.mu.Lock()
		pi := peerInfo{URL: p.url.String()}
		if p.known {
			s := p.spec.String()
			if p.self {
				s = "self"
			}
			pi.Serves = &s
		}
		p.mu.Unlock()
		out = append(out, pi)
	}
	return out
}

// refresh asks every peer what it serves, unless a refresh that began after since has completed
// meanwhile: the requests that miss at once share one round of questions.
func (rt *shardRouter) refresh(ctx context.Context, since time.Time) {
	rt.refreshMu.Lock()
	defer rt.refreshMu.Unlock()
	if rt.lastRefresh.After(since) {
		return
	}
	began := time.Now()
	var wg sync.WaitGroup
	for _, p := range rt.peers {
		wg.Add(1)
		go func(p *peer) {
			defer wg.Done()
			info, err := rt.ask(ctx, p.url)
			p.mu.Lock()
			defer p.mu.Unlock()
			if err != nil {
				if p.known {
					rt.logger.Warn("peer does not answer /shard", "peer", p.url.String(), "err", err)
				}
				p.known, p.spec = false, nil
				return
			}
			sp, err := parseServes(info.Serves)
			if err != nil || info.Hash != "fnv1a64" {
				rt.logger.Warn("peer's /shard is not understood", "peer", p.url.String(), "serves", truncate(info.Serves, 80), "hash", truncate(info.Hash, 20))
				p.known, p.spec = false, nil
				return
			}
			p.known, p.spec, p.self = true, sp, info.Instance == rt.instance
		}(p)
	}
	wg.Wait()
	rt.lastRefresh = began
}

// follow keeps what the router knows of its peers fresh until ctx ends.
func (rt *shardRouter) follow(ctx context.Context) {
	for {
		rt.refresh(ctx, time.Now())
		wait := 30 * time.Second
		for _, p := range rt.peers {
			p.mu.Lock()
			if !p.known {
				wait = followEvery
			}
			p.mu.Unlock()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func parseServes(s string) (*shard.Spec, error) {
	if s == "all" {
		return nil, nil
	}
	return shard.Parse(s)
}

func (rt *shardRouter) ask(ctx context.Context, u *url.URL) (*shardInfo, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("/shard").String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := rt.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /shard: HTTP %d", resp.StatusCode)
	}
	var info shardInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("GET /shard: %w", err)
	}
	return &info, nil
}

// owner is the peer that serves every scope of scopes (nil: none known). missing lists the
// scopes no server serves.
func (rt *shardRouter) owner(scopes []string) (p *peer, missing []string) {
	for _, c := range rt.peers {
		sp, ok := c.serving()
		if ok && servesAll(sp, scopes) {
			return c, nil
		}
	}
	for _, s := range scopes {
		if rt.self.Serves(s) {
			continue
		}
		served := false
		for _, c := range rt.peers {
			if sp, ok := c.serving(); ok && sp.Serves(s) {
				served = true
			}
		}
		if !served {
			missing = append(missing, s)
		}
	}
	return nil, missing
}

func servesAll(sp *shard.Spec, scopes []string) bool {
	for _, s := range scopes {
		if !sp.Serves(s) {
			return false
		}
	}
	return true
}

// resolveName is resolve with the answers kept: an MCP session sends every request with its
// scope's name.
func (rt *shardRouter) resolveName(ctx context.Context, name string) (string, error) {
	rt.namesMu.Lock()
	id, ok := rt.names[name]
	rt.namesMu.Unlock()
	if ok {
		return id, nil
	}
	if rt.resolve == nil {
		return "", nil
	}
	id, err := rt.resolve(ctx, name)
	if err != nil {
		return "", err
	}
	rt.namesMu.Lock()
	if len(rt.names) > 10000 {
		rt.names = map[string]string{}
	}
	rt.names[name] = id
	rt.namesMu.Unlock()
	return id, nil
}

// Wrap routes the requests next would answer: the ones naming scopes this server does not serve
// go to the peer that serves them.
func (rt *shardRouter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		w.Header().Set(shardHeader, rt.self.String())
		scopes, body, err := requestScopes(r, rt.resolveName)
		if err != nil {
			refuseJSON(w, http.StatusBadRequest, domain.ErrorCode(err), domain.ErrorMessage(err))
			return
		}
		if len(scopes) == 0 || servesAll(rt.self, scopes) {
			next.ServeHTTP(w, r)
			return
		}
		if by := r.Header.Get(hopHeader); by != "" {
			// Forwarded here by a server that thought this one serves the scope: the servers
			// disagree on the split. Never forwarded twice.
			edge.Observe(r.Context(), "forward", []string{cortex.ESCOPENOTSERVED})
			refuseJSON(w, http.StatusMisdirectedRequest, cortex.ESCOPENOTSERVED, fmt.Sprintf(
				"scope %s is not served by this server (it serves %s), which %s forwarded the request to: the servers' --serve-scopes disagree",
				strings.Join(scopes, ", "), rt.self, truncate(by, 40)))
			return
		}
		if r.Body != nil && r.Body != http.NoBody && body == nil {
			if body, err = readBody(r); err != nil {
				refuseJSON(w, http.StatusBadRequest, domain.ErrorCode(err), domain.ErrorMessage(err))
				return
			}
		}
		for attempt := 0; ; attempt++ {
			p, missing := rt.owner(scopes)
			if p == nil {
				// Perhaps a peer came up or changed since: ask them, or wait for the answers to a
				// question asked since the request arrived (or failed).
				rt.refresh(r.Context(), arrived)
				p, missing = rt.owner(scopes)
			}
			if p == nil {
				edge.Observe(r.Context(), "forward", nil)
				if len(missing) > 0 {
					edge.Observe(r.Context(), "", []string{cortex.ESCOPENOTSERVED})
					refuseJSON(w, http.StatusMisdirectedRequest, cortex.ESCOPENOTSERVED, fmt.Sprintf(
						"no server serves scope %s: this one serves %s and no peer (--peers) that answers serves it; nothing was done",
						strings.Join(missing, ", "), rt.self))
				} else {
					edge.Observe(r.Context(), "", []string{ESCOPESSPLIT})
					refuseJSON(w, http.StatusMisdirectedRequest, ESCOPESSPLIT, fmt.Sprintf(
						"scopes %s are served by different servers: send one request per scope; nothing was done", strings.Join(scopes, ", ")))
				}
				return
			}
			if body != nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			ferr := rt.forward(w, r, p)
			if ferr == nil {
				return
			}
			// The peer did not answer (nothing was written): ask the peers again and retry once.
			rt.logger.Warn("forwarding failed", "peer", p.url.String(), "err", ferr, "attempt", attempt+1)
			p.mu.Lock()
			p.known = false
			p.mu.Unlock()
			arrived = time.Now()
			if attempt > 0 || (body == nil && r.Body != nil && r.Body != http.NoBody) {
				edge.Observe(r.Context(), "forward", []string{domain.EUNAVAILABLE})
				refuseJSON(w, http.StatusBadGateway, domain.EUNAVAILABLE, fmt.Sprintf(
					"the server of scope %s (%s) does not answer: retry", strings.Join(scopes, ", "), p.url))
				return
			}
		}
	})
}

// errNotReached is a forward that failed before the peer answered.
var errNotReached = errors.New("peer not reached")

// forward proxies r to p and streams the answer back. It returns an error, having written
// nothing, when the peer could not be reached.
func (rt *shardRouter) forward(w http.ResponseWriter, r *http.Request, p *peer) error {
	edge.Observe(r.Context(), "forward", nil)
	var failed error
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.url)
			pr.Out.Header.Set(hopHeader, rt.self.String())
		},
		Transport:     rt.transport,
		FlushInterval: -1, // server-sent events and MCP streams arrive as they are written
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			failed = fmt.Errorf("%w: %v", errNotReached, err)
		},
	}
	w.Header().Del(shardHeader)
	proxy.ServeHTTP(w, r)
	if failed != nil && r.Context().Err() == nil {
		w.Header().Set(shardHeader, rt.self.String())
		return failed
	}
	return nil
}

// refuseJSON answers with one error in GraphQL's shape, as the edge refuses requests.
func refuseJSON(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"data": nil, "errors": []map[string]any{
		{"message": msg, "extensions": map[string]any{"code": code}}}})
}
