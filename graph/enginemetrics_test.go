package graph

import (
	"sync/atomic"
	"testing"

	"go.opencensus.io/stats/view"
)

// The embedded engine exports no metrics, so no view of its measures stays registered to
// aggregate every edge written, and no measurement of them is handed to OpenCensus' worker.
func TestEmbeddedEngineRegistersNoViews(t *testing.T) {
	openScopeStore(t)
	for _, m := range engineMeasures {
		if v := view.Find(m.Name()); v != nil {
			t.Errorf("view %q is still registered", m.Name())
		}
		if p := subscription(m); p == nil {
			t.Errorf("measure %q: no subscription flag found (has OpenCensus changed?)", m.Name())
		} else if atomic.LoadInt32(p) != 0 {
			t.Errorf("measure %q is still subscribed: its measurements go to the worker", m.Name())
		}
	}
}
