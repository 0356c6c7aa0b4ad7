package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/shard"
)

// shardFlags are serve's flags for a cluster whose servers split the scopes between them: which
// scopes this server serves (--serve-scopes) and where the others are (--peers).
type shardFlags struct {
	serveScopes string
	given       bool // --serve-scopes was on the command line
	peersFlag   string
	// spec is the parsed --serve-scopes (nil: every scope); peers the parsed --peers.
	spec  *shard.Spec
	peers []*url.URL
}

func (f *shardFlags) register(fs *flag.FlagSet) {
	fs.Func("serve-scopes", "serve only these scopes (a Dgraph cluster): I/N, the scopes whose id hashes (FNV-1a) to shard I of N, or a comma list of scope ids; requests for the others go to --peers (default: every scope)", func(s string) error {
		f.serveScopes, f.given = s, true
		return nil
	})
	fs.StringVar(&f.peersFlag, "peers", "", "the other servers of the cluster, URL,URL,… (http://HOST:PORT): a request for a scope this server does not serve is forwarded to the one that does")
}

// parse checks the flags once the command line is read; store is --store.
func (f *shardFlags) parse(store string) error {
	if f.given {
		sp, err := shard.Parse(f.serveScopes)
		if err != nil {
			return fmt.Errorf("--serve-scopes %w", err)
		}
		f.spec = sp
		if sp != nil && !strings.HasPrefix(store, "dgraph://") {
			return errors.New("--serve-scopes needs a Dgraph cluster (--store dgraph://HOST:PORT): the servers that split the scopes share one graph")
		}
	}
	if strings.TrimSpace(f.peersFlag) == "" {
		return nil
	}
	if f.spec == nil {
		return errors.New("--peers needs --serve-scopes: a server of every scope answers every request itself")
	}
	seen := map[string]bool{}
	for _, raw := range strings.Split(f.peersFlag, ",") {
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return fmt.Errorf("--peers %q: want URL,URL,… each http://HOST:PORT or https://HOST:PORT", truncate(raw, 80))
		}
		u.Path = ""
		if !seen[u.String()] {
			seen[u.String()] = true
			f.peers = append(f.peers, u)
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// shardServing is what serve knows of the split: the scopes it serves, the router to its peers
// (nil without --peers) and the id /shard answers with.
type shardServing struct {
	spec     *shard.Spec
	router   *shardRouter
	instance string
}

// shardInfo is the answer of GET /shard.
type shardInfo struct {
	// Serves is the scopes this server serves: "all", "I/N" or the list of ids.
	Serves string `json:"serves"`
	// Shard and Of are I and N of an I/N split; Scopes the ids of a list.
	Shard  *int     `json:"shard,omitempty"`
	Of     *int     `json:"of,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
	// Hash names the function of the split, so servers of different builds can check they agree.
	Hash string `json:"hash"`
	// Instance tells a server from another (a server listed among its own peers skips itself).
	Instance string     `json:"instance"`
	Peers    []peerInfo `json:"peers"`
}

// peerInfo is a peer as this server knows it: its URL and, once it answered, what it serves.
type peerInfo struct {
	URL    string  `json:"url"`
	Serves *string `json:"serves"`
}

func newInstanceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func describeShard(sp *shard.Spec, instance string, peers []peerInfo) shardInfo {
	in := shardInfo{Serves: sp.String(), Scopes: sp.Scopes(), Hash: "fnv1a64", Instance: instance, Peers: peers}
	if in.Peers == nil {
		in.Peers = []peerInfo{}
	}
	if i, n, ok := sp.Hash(); ok {
		in.Shard, in.Of = &i, &n
	}
	return in
}

// shardHandler answers GET /shard: what this server serves and what its peers do. It holds no
// memory and answers without a key (publicPaths), so that servers learn from each other.
func shardHandler(rt *shardRouter, sp *shard.Spec, instance string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "GET /shard", http.StatusMethodNotAllowed)
			return
		}
		var peers []peerInfo
		if rt != nil {
			peers = rt.known()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(describeShard(sp, instance, peers))
	})
}

// serving builds the split's parts once the Cortex runs: nil on a server of every scope.
func (f *shardFlags) serving(ctx context.Context, cx *cortex.Cortex, logger *slog.Logger) *shardServing {
	if f.spec == nil {
		return nil
	}
	sh := &shardServing{spec: f.spec, instance: newInstanceID()}
	if len(f.peers) > 0 {
		resolve := func(ctx context.Context, name string) (string, error) {
			sc, _, err := cx.ResolveScope(ctx, name)
			if err != nil {
				return "", err
			}
			return sc.ID, nil
		}
		sh.router = newShardRouter(f.spec, sh.instance, f.peers, resolve, logger)
		go sh.router.follow(ctx) // learned before the first request needs it, when the peers run
	}
	return sh
}
