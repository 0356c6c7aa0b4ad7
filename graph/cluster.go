package graph

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/dgraph-io/dgo/v250"
	"github.com/dgraph-io/dgo/v250/protos/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// maxMessage is the largest gRPC message exchanged with a cluster: a page of events may carry
// memories of up to 1 MiB each, far past gRPC's 4 MiB default.
const maxMessage = 512 << 20

// clusterConfig is what a dgraph:// store URI says.
type clusterConfig struct {
	host        string // HOST:PORT of an alpha's gRPC endpoint
	apiKey      string
	bearerToken string
	sslMode     string // disable, require or verify-ca
	namespace   uint64
	user        string
	password    string
}

// parseClusterURI reads dgraph://[user:password@]HOST:PORT[?sslmode=disable|require|verify-ca&
// bearertoken=…&apikey=…&namespace=N] — the options of dgo.Open. A namespace is entered by
// logging in, so it needs user:password; apikey and bearertoken exclude each other.
func parseClusterURI(uri string) (clusterConfig, error) {
	var c clusterConfig
	u, err := url.Parse(uri)
	if err != nil {
		return c, fmt.Errorf("store uri: %w", err)
	}
	if u.Scheme != "dgraph" {
		return c, errors.New("store uri: scheme must be dgraph://")
	}
	if u.Hostname() == "" || u.Port() == "" {
		return c, fmt.Errorf("store uri %q: give HOST:PORT (alpha gRPC, usually 9080)", uri)
	}
	if _, err := strconv.ParseUint(u.Port(), 10, 16); err != nil {
		return c, fmt.Errorf("store uri %q: port %q is no number", uri, u.Port())
	}
	if u.Path != "" && u.Path != "/" {
		return c, fmt.Errorf("store uri %q: a cluster URI has no path", uri)
	}
	c.host = u.Host
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return c, fmt.Errorf("store uri: %w", err)
	}
	for k := range q {
		switch k {
		case "apikey", "bearertoken", "sslmode", "namespace":
		default:
			return c, fmt.Errorf("store uri: unknown option %q (apikey, bearertoken, sslmode, namespace)", k)
		}
	}
	c.apiKey, c.bearerToken = q.Get("apikey"), q.Get("bearertoken")
	if c.apiKey != "" && c.bearerToken != "" {
		return c, errors.New("store uri: give apikey or bearertoken, not both")
	}
	switch c.sslMode = q.Get("sslmode"); c.sslMode {
	case "":
		c.sslMode = "disable"
	case "disable", "require", "verify-ca":
	default:
		return c, errors.New("store uri: sslmode must be disable, require or verify-ca")
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		if u.User.Username() == "" || pw == "" {
			return c, errors.New("store uri: give both user and password")
		}
		c.user, c.password = u.User.Username(), pw
	}
	if ns := q.Get("namespace"); ns != "" {
		n, err := strconv.ParseUint(ns, 10, 64)
		if err != nil {
			return c, fmt.Errorf("store uri: namespace: %w", err)
		}
		// dgo enters a namespace only when it logs in; without credentials it would silently
		// use the default namespace.
		if c.user == "" {
			return c, errors.New("store uri: namespace needs user:password@ (the namespace is entered by logging in)")
		}
		c.namespace = n
	}
	return c, nil
}

// options are the dgo client options of c, with message size limits fit for large pages.
func (c clusterConfig) options() []dgo.ClientOption {
	opts := []dgo.ClientOption{dgo.WithGrpcOption(grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)))}
	if c.apiKey != "" {
		opts = append(opts, dgo.WithDgraphAPIKey(c.apiKey))
	}
	if c.bearerToken != "" {
		opts = append(opts, dgo.WithBearerToken(c.bearerToken))
	}
	switch c.sslMode {
	case "require":
		opts = append(opts, dgo.WithSkipTLSVerify())
	case "verify-ca":
		opts = append(opts, dgo.WithSystemCertPool())
	default:
		opts = append(opts, dgo.WithGrpcOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	}
	if c.user != "" {
		opts = append(opts, dgo.WithACLCreds(c.user, c.password), dgo.WithNamespace(c.namespace))
	}
	return opts
}

// abortCounters holds the count of aborted commits of each cluster client (see Store.Aborts);
// an entry goes when its client is collected.
var abortCounters sync.Map // weak.Pointer[dgo.Dgraph] → *atomic.Uint64

// countAborts counts the mutating requests the cluster answers with Aborted — the conflicts dgo
// reports as ErrAborted, which write retries.
func countAborts(n *atomic.Uint64) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err != nil && status.Code(err) == codes.Aborted {
			if r, ok := req.(*api.Request); ok && len(r.Mutations) > 0 {
				n.Add(1)
			}
		}
		return err
	}
}

// openCluster dials a cluster from a dgraph:// URI (see parseClusterURI).
func openCluster(uri string) (*dgo.Dgraph, error) {
	c, err := parseClusterURI(uri)
	if err != nil {
		return nil, err
	}
	aborts := new(atomic.Uint64)
	opts := append(c.options(), dgo.WithGrpcOption(grpc.WithChainUnaryInterceptor(countAborts(aborts))))
	dg, err := dgo.NewClient(c.host, opts...)
	if err != nil {
		return nil, err
	}
	key := weak.Make(dg)
	abortCounters.Store(key, aborts)
	runtime.AddCleanup(dg, func(k weak.Pointer[dgo.Dgraph]) { abortCounters.Delete(k) }, key)
	return dg, nil
}

// Aborts returns how many of this store's commits the cluster aborted because they conflicted
// with concurrent transactions (of this or another server); each was retried (see write). It is
// always 0 on the embedded engine, whose writes are serialised in the process.
func (s *Store) Aborts() uint64 {
	c, ok := s.b.(*clusterBackend)
	if !ok {
		return 0
	}
	if n, ok := abortCounters.Load(weak.Make(c.dg)); ok {
		return n.(*atomic.Uint64).Load()
	}
	return 0
}
