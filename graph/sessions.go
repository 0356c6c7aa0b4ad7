package graph

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/totalrecall/totalrecall/domain"
)

// A session node keeps what queries look up by (instance, state, last heartbeat, end) as
// predicates, the memories stored in it as a list, and the rest in sess.doc.
const sessFields = `uid tr.id tr.scope sess.instance sess.state sess.lastBeat sess.endedAt sess.doc sess.memories`

type sessNode struct {
	UID      string   `json:"uid"`
	ID       string   `json:"tr.id"`
	Scope    string   `json:"tr.scope"`
	Instance string   `json:"sess.instance"`
	Doc      string   `json:"sess.doc"`
	Memories []string `json:"sess.memories"`
}

func (n *sessNode) session() (*domain.Session, error) {
	var s domain.Session
	if err := json.Unmarshal([]byte(n.Doc), &s); err != nil {
		return nil, fmt.Errorf("session %s: bad document: %w", n.ID, err)
	}
	s.ID, s.ScopeID, s.InstanceID = n.ID, n.Scope, n.Instance
	s.MemoryIDs = append([]string{}, n.Memories...)
	return &s, nil
}

func sessionJSON(uid string, s *domain.Session, isNew bool) (map[string]any, error) {
	doc := *s
	doc.MemoryIDs = nil // kept in sess.memories, appended by the Subconscious
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	state := "ACTIVE"
	if !s.Active() {
		state = "ENDED"
	}
	obj := map[string]any{"uid": uid, "sess.state": state, "sess.lastBeat": ts(s.LastHeartbeatAt), "sess.doc": string(raw)}
	if s.EndedAt != nil {
		obj["sess.endedAt"] = ts(*s.EndedAt)
	}
	if isNew {
		obj["dgraph.type"], obj["tr.kind"], obj["tr.id"], obj["tr.scope"], obj["sess.instance"] = kindSession, kindSession, s.ID, s.ScopeID, s.InstanceID
	}
	return obj, nil
}

// applySessions writes the session changes of ch; obj merges into a node's object.
func (t *tx) applySessions(ch *domain.Changes, obj func(uid string) map[string]any) error {
	if len(ch.Sessions) == 0 && len(ch.SessionMemories) == 0 {
		return nil
	}
	var ids []string
	for _, s := range ch.Sessions {
		if !domain.ValidID(s.ID) || !domain.ValidID(s.ScopeID) || s.InstanceID == "" {
			return domain.Errorf(domain.EINVALID, "a session needs UUID id and scope and an instance")
		}
		t.inScope(s.ScopeID)
		ids = append(ids, s.ID)
	}
	for _, sm := range ch.SessionMemories {
		ids = append(ids, sm.SessionID)
	}
	var r struct {
		Q []sessNode `json:"q"`
	}
	if err := t.query(`{ q(func: eq(tr.id, `+idList(ids)+`)) @filter(eq(tr.kind, "Session")) { uid tr.id tr.scope sess.instance } }`, nil, &r); err != nil {
		return err
	}
	have := map[string]sessNode{}
	for _, n := range r.Q {
		have[n.ID] = n
	}
	scopes := map[string]bool{}
	for _, s := range ch.Sessions {
		if _, ok := have[s.ID]; !ok {
			scopes[s.ScopeID] = true
		}
	}
	if len(scopes) > 0 {
		var ids []string
		for id := range scopes {
			ids = append(ids, id)
		}
		var sr struct {
			Q []struct {
				ID string `json:"tr.id"`
			} `json:"q"`
		}
		if err := t.query(`{ q(func: eq(tr.id, `+idList(ids)+`)) @filter(eq(tr.kind, "Scope")) { tr.id } }`, nil, &sr); err != nil {
			return err
		}
		found := map[string]bool{}
		for _, x := range sr.Q {
			found[x.ID] = true
		}
		for _, id := range ids {
			if !found[id] {
				return domain.Errorf(domain.ENOTFOUND, "scope %s not found", id)
			}
		}
	}
	for i, s := range ch.Sessions {
		uid, isNew := fmt.Sprintf("_:sess%d", i), true
		if n, ok := have[s.ID]; ok {
			if n.Scope != s.ScopeID || n.Instance != s.InstanceID {
				return domain.Errorf(domain.EINVALID, "a session's scope and instance never change")
			}
			uid, isNew = n.UID, false
		}
		o, err := sessionJSON(uid, s, isNew)
		if err != nil {
			return err
		}
		for k, v := range o {
			obj(uid)[k] = v
		}
	}
	for _, sm := range ch.SessionMemories {
		n, ok := have[sm.SessionID]
		if !ok || len(sm.MemoryIDs) == 0 {
			continue
		}
		o := obj(n.UID)
		list, _ := o["sess.memories"].([]string)
		o["sess.memories"] = append(list, sm.MemoryIDs...)
	}
	return nil
}

// UpdateSessions runs a read-modify-write over an instance's active sessions. Every operation on
// an instance also bumps its lock node, so concurrent ones on a cluster conflict and retry
// rather than, say, starting two sessions at once.
func (s *Store) UpdateSessions(ctx context.Context, req *domain.Request, instanceID string, fn domain.SessionUpdate, out any) error {
	var rq *domain.Request
	if req != nil && req.RequestID != "" {
		rq = req
	}
	rec, err := write(ctx, s, rq, func(t *tx) (recorded, error) {
		var r struct {
			Active []sessNode `json:"active"`
			Lock   []struct {
				UID     string `json:"uid"`
				Version int64  `json:"inst.version"`
			} `json:"lock"`
		}
		vars := map[string]string{"$inst": instanceID, "$lock": "instance:" + instanceID}
		if err := t.query(`query q($inst: string, $lock: string) {
			active(func: eq(sess.instance, $inst)) @filter(eq(tr.kind, "Session") AND eq(sess.state, "ACTIVE")) { `+sessFields+` }
			lock(func: eq(tr.id, $lock)) { uid inst.version } }`, vars, &r); err != nil {
			return recorded{}, err
		}
		active := make([]*domain.Session, 0, len(r.Active))
		for i := range r.Active {
			sess, err := r.Active[i].session()
			if err != nil {
				return recorded{}, err
			}
			active = append(active, sess)
		}
		ch, result, err := fn(active)
		if err != nil {
			return recorded{}, err
		}
		if ch == nil {
			ch = &domain.Changes{}
		}
		for _, sess := range ch.Sessions {
			if sess.InstanceID != instanceID {
				return recorded{}, domain.Errorf(domain.EINVALID, "a session update may only change sessions of its instance")
			}
		}
		res, err := t.applyChanges(ch)
		if err != nil {
			return recorded{}, err
		}
		if !ch.Empty() {
			lock := map[string]any{"uid": "_:lock", "dgraph.type": kindInstance, "tr.kind": kindInstance, "tr.id": "instance:" + instanceID, "inst.version": 1}
			if len(r.Lock) > 0 {
				lock = map[string]any{"uid": r.Lock[0].UID, "inst.version": r.Lock[0].Version + 1}
			}
			t.set(lock)
		}
		raw, err := json.Marshal(result)
		if err != nil {
			return recorded{}, err
		}
		return recorded{Apply: res, Result: raw}, nil
	})
	if err != nil {
		return err
	}
	if out != nil && len(rec.Result) > 0 {
		return json.Unmarshal(rec.Result, out)
	}
	return nil
}

// Session loads one session.
func (s *Store) Session(ctx context.Context, id string) (*domain.Session, error) {
	if !domain.ValidID(id) {
		return nil, domain.Errorf(domain.ENOTFOUND, "session %q not found", id)
	}
	ss, err := s.sessions(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) @filter(eq(tr.kind, "Session")) { `+sessFields+` } }`,
		map[string]string{"$id": id})
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "session %s not found", id)
	}
	return ss[0], nil
}

// Sessions loads the sessions that exist among ids.
func (s *Store) Sessions(ctx context.Context, ids []string) ([]*domain.Session, error) {
	var valid []string
	for _, id := range ids {
		if domain.ValidID(id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return []*domain.Session{}, nil
	}
	return s.sessions(ctx, `{ q(func: eq(tr.id, `+idList(valid)+`)) @filter(eq(tr.kind, "Session")) { `+sessFields+` } }`, nil)
}

// ActiveSessions lists active sessions, oldest heartbeat first.
func (s *Store) ActiveSessions(ctx context.Context, limit int) ([]*domain.Session, error) {
	if limit <= 0 {
		limit = 1000
	}
	return s.sessions(ctx, fmt.Sprintf(`{ q(func: eq(sess.state, "ACTIVE"), orderasc: sess.lastBeat, first: %d) @filter(eq(tr.kind, "Session")) { %s } }`, limit, sessFields), nil)
}

// LastEndedSession returns the scope's most recently ended session.
func (s *Store) LastEndedSession(ctx context.Context, scopeID string) (*domain.Session, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	ss, err := s.sessions(ctx, `query q($s: string) { q(func: eq(sess.state, "ENDED"), orderdesc: sess.endedAt, first: 1) @filter(eq(tr.scope, $s) AND eq(tr.kind, "Session")) { `+sessFields+` } }`,
		map[string]string{"$s": scopeID})
	if err != nil || len(ss) == 0 {
		return nil, err
	}
	return ss[0], nil
}

func (s *Store) sessions(ctx context.Context, q string, vars map[string]string) ([]*domain.Session, error) {
	var r struct {
		Q []sessNode `json:"q"`
	}
	if err := s.read(ctx, q, vars, &r); err != nil {
		return nil, err
	}
	out := make([]*domain.Session, 0, len(r.Q))
	for i := range r.Q {
		sess, err := r.Q[i].session()
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, nil
}

// workingKey is the tr.id of a scope's working memory node.
func workingKey(scopeID string) string { return "wm:" + scopeID }

func (t *tx) applyWorkingMemory(wms []*domain.WorkingMemory) error {
	for i, wm := range wms {
		if !domain.ValidID(wm.ScopeID) {
			return domain.Errorf(domain.EINVALID, "working memory needs a scope id")
		}
		var r struct {
			Q []struct {
				UID string `json:"uid"`
			} `json:"q"`
			S []struct {
				UID string `json:"uid"`
			} `json:"s"`
		}
		if err := t.query(`query q($id: string, $s: string) { q(func: eq(tr.id, $id)) { uid } s(func: eq(tr.id, $s)) @filter(eq(tr.kind, "Scope")) { uid } }`,
			map[string]string{"$id": workingKey(wm.ScopeID), "$s": wm.ScopeID}, &r); err != nil {
			return err
		}
		if len(r.S) == 0 {
			return domain.Errorf(domain.ENOTFOUND, "scope %s not found", wm.ScopeID)
		}
		t.inScope(wm.ScopeID)
		raw, err := json.Marshal(wm)
		if err != nil {
			return err
		}
		obj := map[string]any{"uid": fmt.Sprintf("_:wm%d", i), "dgraph.type": kindWorkingMemory, "tr.kind": kindWorkingMemory,
			"tr.id": workingKey(wm.ScopeID), "tr.scope": wm.ScopeID, "wm.doc": string(raw)}
		if len(r.Q) > 0 {
			obj = map[string]any{"uid": r.Q[0].UID, "wm.doc": string(raw)}
		}
		t.set(obj)
	}
	return nil
}

// WorkingMemory returns a scope's working memory.
func (s *Store) WorkingMemory(ctx context.Context, scopeID string) (*domain.WorkingMemory, error) {
	if !domain.ValidID(scopeID) {
		return nil, domain.Errorf(domain.ENOTFOUND, "scope %q not found", scopeID)
	}
	var r struct {
		Q []struct {
			Doc string `json:"wm.doc"`
		} `json:"q"`
	}
	if err := s.read(ctx, `query q($id: string) { q(func: eq(tr.id, $id)) { wm.doc } }`, map[string]string{"$id": workingKey(scopeID)}, &r); err != nil {
		return nil, err
	}
	if len(r.Q) == 0 {
		return nil, nil
	}
	var wm domain.WorkingMemory
	if err := json.Unmarshal([]byte(r.Q[0].Doc), &wm); err != nil {
		return nil, fmt.Errorf("working memory of %s: bad document: %w", scopeID, err)
	}
	if wm.Items == nil {
		wm.Items = []domain.WorkingItem{}
	}
	return &wm, nil
}
