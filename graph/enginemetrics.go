package graph

import (
	"sync"

	"github.com/hypermodeinc/dgraph/v25/x"
	"go.opencensus.io/stats"
	"go.opencensus.io/stats/view"
)

// engineMeasures are the measures of the views Dgraph registers when its packages load. An
// alpha exports them to Prometheus; the embedded engine exports nothing, yet every recorded
// measurement of a registered view goes through OpenCensus' worker (one per edge written: a
// write of a few hundred edges spent about 4% of its CPU there).
var engineMeasures = []stats.Measure{
	x.ActiveMutations, x.AlphaHealth, x.BadgerReadLatencyMs, x.DiskFree, x.DiskTotal, x.DiskUsed,
	x.LatencyMs, x.MaxAssignedTs, x.MemoryAlloc, x.MemoryIdle, x.MemoryInUse, x.MemoryProc,
	x.NumBackups, x.NumBackupsFailed, x.NumBackupsSuccess, x.NumEdges, x.NumPostingListCacheRead,
	x.NumPostingListCacheReadFail, x.NumPostingListCacheSave, x.NumQueries, x.PBlockHitRatio,
	x.PIndexHitRatio, x.PLCacheHitRatio, x.PendingBackups, x.PendingProposals, x.PendingQueries,
	x.RaftAppliedIndex, x.RaftApplyCh, x.RaftHasLeader, x.RaftIsLeader, x.RaftLeaderChanges,
	x.RaftPendingSize, x.TxnAborts, x.TxnCommits, x.TxnDiscards,
}

var quietOnce sync.Once

// quietEngineMetrics unregisters the views of the engine's measures, once per process: a
// measurement no view subscribes to is dropped where it is recorded.
func quietEngineMetrics() {
	quietOnce.Do(func() {
		for _, m := range engineMeasures {
			if v := view.Find(m.Name()); v != nil {
				view.Unregister(v)
			}
		}
	})
}
