package graph_test

import (
	"context"
	"os"
	"testing"

	"github.com/totalrecall/totalrecall/graph"
	"github.com/totalrecall/totalrecall/graph/storetest"
)

func TestEmbeddedConformance(t *testing.T) {
	uri := "file://" + t.TempDir()
	st, err := graph.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.RunConformanceTests(t, storeHarness{st, uri})
}

// TestClusterConformance runs the suite against a real Dgraph cluster when
// TOTALRECALL_TEST_DGRAPH names one; it fails loudly if the cluster is named but unreachable.
func TestClusterConformance(t *testing.T) {
	uri := os.Getenv("TOTALRECALL_TEST_DGRAPH")
	if uri == "" {
		t.Skip("TOTALRECALL_TEST_DGRAPH not set: no cluster configured")
	}
	st, err := graph.Open(context.Background(), uri)
	if err != nil {
		t.Fatalf("cluster %s configured but unreachable: %v", uri, err)
	}
	defer st.Close()
	storetest.RunConformanceTests(t, storeHarness{st, uri})
}
