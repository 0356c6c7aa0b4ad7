package graph_test

import (
	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/graph"
)

type storeHarness struct{ s *graph.Store }

func (h storeHarness) Store() domain.Store { return h.s }
