package graph

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

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

// quietEngineMetrics unregisters the views of the engine's measures, once per process, and
// marks the measures unsubscribed: a measurement no view subscribes to is dropped where it is
// recorded. OpenCensus sets a measure's flag when a view of it is registered and never clears it
// on Unregister, so without the second step every measurement still went to its worker (an
// allocation and a channel send per edge written).
func quietEngineMetrics() {
	quietOnce.Do(func() {
		for _, m := range engineMeasures {
			if v := view.Find(m.Name()); v != nil {
				view.Unregister(v)
			}
			unsubscribe(m)
		}
	})
}

// subscription is the flag stats.Record reads to know whether any view subscribes to m: the
// first field (subs, an int32) of the descriptor the measure points to first
// (go.opencensus.io v0.24.0). It is nil when the measure is not of that shape, and then left
// alone.
func subscription(m stats.Measure) *int32 {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Elem().NumField() == 0 {
		return nil
	}
	d := v.Elem().Field(0)
	if d.Kind() != reflect.Pointer || d.IsNil() || d.Elem().Kind() != reflect.Struct || d.Elem().NumField() == 0 {
		return nil
	}
	f := d.Elem().Type().Field(0)
	if f.Name != "subs" || f.Type.Kind() != reflect.Int32 {
		return nil
	}
	return (*int32)(unsafe.Pointer(d.Elem().Field(0).UnsafeAddr()))
}

func unsubscribe(m stats.Measure) {
	if p := subscription(m); p != nil {
		atomic.StoreInt32(p, 0)
	}
}
