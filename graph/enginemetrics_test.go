package graph

import (
	"testing"

	"go.opencensus.io/stats/view"
)

// The embedded engine exports no metrics, so no view of its measures stays registered to
// aggregate every edge written.
func TestEmbeddedEngineRegistersNoViews(t *testing.T) {
	openScopeStore(t)
	for _, m := range engineMeasures {
		if v := view.Find(m.Name()); v != nil {
			t.Errorf("view %q is still registered", m.Name())
		}
	}
}
