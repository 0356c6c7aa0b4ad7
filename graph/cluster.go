package graph

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/dgraph-io/dgo/v250"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// maxMessage is the largest gRPC message exchanged with a cluster: a page of events may carry
// memories of up to 1 MiB each, far past gRPC's 4 MiB default.
const maxMessage = 512 << 20

// openCluster dials a cluster from dgraph://[user:password@]HOST:PORT[?sslmode=disable|require|
// verify-ca&bearertoken=…&apikey=…&namespace=N] — the options of dgo.Open, with message size
// limits fit for large pages.
func openCluster(uri string) (*dgo.Dgraph, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("store uri: %w", err)
	}
	if u.Scheme != "dgraph" {
		return nil, errors.New("store uri: scheme must be dgraph://")
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("store uri %q: give HOST:PORT (alpha gRPC, usually 9080)", uri)
	}
	q := u.Query()
	opts := []dgo.ClientOption{dgo.WithGrpcOption(grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)))}
	if k := q.Get("apikey"); k != "" {
		opts = append(opts, dgo.WithDgraphAPIKey(k))
	}
	if b := q.Get("bearertoken"); b != "" {
		opts = append(opts, dgo.WithBearerToken(b))
	}
	switch q.Get("sslmode") {
	case "", "disable":
		opts = append(opts, dgo.WithGrpcOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	case "require":
		opts = append(opts, dgo.WithSkipTLSVerify())
	case "verify-ca":
		opts = append(opts, dgo.WithSystemCertPool())
	default:
		return nil, fmt.Errorf("store uri: sslmode must be disable, require or verify-ca")
	}
	if ns := q.Get("namespace"); ns != "" {
		n, err := strconv.ParseUint(ns, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("store uri: namespace: %w", err)
		}
		opts = append(opts, dgo.WithNamespace(n))
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		if u.User.Username() == "" || pw == "" {
			return nil, errors.New("store uri: give both user and password")
		}
		opts = append(opts, dgo.WithACLCreds(u.User.Username(), pw))
	}
	host := u.Host
	if strings.Contains(host, "@") {
		host = host[strings.LastIndex(host, "@")+1:]
	}
	return dgo.NewClient(host, opts...)
}
