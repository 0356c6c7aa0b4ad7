package graph_test

import (
	"context"
	"testing"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
)

// storeHarness hands out the store under test; uri names its graph, so that Peer can open a
// second store on it.
type storeHarness struct {
	s   *graph.Store
	uri string
}

func (h storeHarness) Store() domain.Store { return h.s }

// Peer opens a second store — a second dgo connection, as a second server has — on a cluster.
// The embedded engine runs once per process (modusgraph allows one engine), so there the second
// "server" is the store itself and the multi-store tests run as concurrent clients of it.
func (h storeHarness) Peer(t *testing.T) domain.Store {
	if h.s.Embedded() {
		return h.s
	}
	p, err := graph.Open(context.Background(), h.uri)
	if err != nil {
		t.Fatalf("second store on %s: %v", h.uri, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func (h storeHarness) Shared() string {
	if h.s.Embedded() {
		return "the embedded engine allows one engine per process, so both sides are one store"
	}
	return ""
}
