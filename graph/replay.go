package graph

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/dgo/v250/protos/api"
	"google.golang.org/protobuf/proto"
)

// A Recorder keeps a copy of every mutation a store commits while it records, with the uids
// the engine gave the mutation's blank nodes, so that the same writes can be committed again by
// themselves (Store.ReplayRecorded): the engine's own share of a workload, measured apart from
// everything the store and the Cortex do around it (the eval's "graph writes alone" line).
// Recording copies each mutation before the engine takes it; a store with a recorder that is not
// recording pays one atomic load per commit, one without none.
type Recorder struct {
	on      atomic.Bool
	mu      sync.Mutex
	commits []recordedCommit
}

type recordedCommit struct {
	mu   *api.Mutation
	uids map[string]string // blank node name (without _:) → uid the commit gave it
}

// WithRecorder makes the store copy its commits into r while r records.
func WithRecorder(r *Recorder) Option { return func(s *Store) { s.recorder = r } }

// Start begins recording; Stop ends it. Commits recorded stay until a replay takes them.
func (r *Recorder) Start() { r.on.Store(true) }

// Stop ends recording.
func (r *Recorder) Stop() { r.on.Store(false) }

// begin starts a read-write unit of the store's backend: one whose commits r copies while it
// records, when the store has a recorder, and that goes through the commit hooks, when it has
// them.
func (s *Store) begin(ctx context.Context) unit {
	u := s.b.begin(ctx)
	if s.hooks.set() {
		u = hookedUnit{unit: u, hooks: s.hooks}
	}
	if s.recorder == nil {
		return u
	}
	return recordingUnit{unit: u, r: s.recorder}
}

// recordingUnit is a unit whose commits its recorder copies while it records, with the uids
// the commit gave the blank nodes.
type recordingUnit struct {
	unit
	r *Recorder
}

func (u recordingUnit) commit(ctx context.Context, mu *api.Mutation) (map[string]string, error) {
	if !u.r.on.Load() {
		return u.unit.commit(ctx, mu)
	}
	kept := proto.Clone(mu).(*api.Mutation) // before the engine, which owns what it is given
	uids, err := u.unit.commit(ctx, mu)
	if err != nil {
		return nil, err
	}
	u.r.mu.Lock()
	u.r.commits = append(u.r.commits, recordedCommit{mu: kept, uids: uids})
	u.r.mu.Unlock()
	return uids, nil
}

// Commits is the number of commits recorded.
func (r *Recorder) Commits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.commits)
}

// Quads is the number of N-Quads (set and delete) recorded.
func (r *Recorder) Quads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.commits {
		n += len(c.mu.Set) + len(c.mu.Del)
	}
	return n
}

// ReplayRecorded commits the recorded mutations again, one transaction each and in their order,
// and returns the time the commits took. It writes new nodes: a blank node of a recorded commit
// becomes a new node, and a uid a recorded commit had given a blank node is rewritten to the
// new node's uid in the commits after it; a uid from before the recording names the same node.
// What a replay writes duplicates the records it copies (their ids included), so it is for
// measuring a store that is not used afterwards. Mutations sent as JSON are committed as they
// are. It stops r recording and takes its commits (the engine owns what it is given): r is
// empty after it. Errors: a commit the engine refuses.
func (s *Store) ReplayRecorded(ctx context.Context, r *Recorder) (time.Duration, error) {
	r.Stop()
	r.mu.Lock()
	recorded := r.commits
	r.commits = nil
	r.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cache.clear()
	remap := map[string]string{}
	node := func(ref string) string {
		if to, ok := remap[ref]; ok {
			return to
		}
		return ref
	}
	start := time.Now()
	for _, c := range recorded {
		mu := c.mu
		for _, nqs := range [][]*api.NQuad{mu.Set, mu.Del} {
			for _, nq := range nqs {
				nq.Subject = node(nq.Subject)
				if nq.ObjectId != "" {
					nq.ObjectId = node(nq.ObjectId)
				}
			}
		}
		mu.CommitNow = true
		u := s.b.begin(ctx)
		uids, err := u.commit(ctx, mu)
		u.discard(ctx)
		if err != nil {
			return 0, wrapErr(err)
		}
		for blank, was := range c.uids {
			if now, ok := uids[blank]; ok {
				remap[was] = now
			}
		}
	}
	return time.Since(start), nil
}
