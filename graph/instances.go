package graph

import (
	"context"

	"github.com/totalrecall/totalrecall/domain"
)

var _ domain.InstanceSessions = (*Store)(nil)

// ActiveSessionsOf reads the active sessions of a mind instance from committed data, without
// the write lock UpdateSessions takes.
func (s *Store) ActiveSessionsOf(ctx context.Context, instanceID string) ([]*domain.Session, error) {
	var r struct {
		Q []sessNode `json:"q"`
	}
	if err := s.read(ctx, `query q($inst: string) {
		q(func: eq(sess.instance, $inst)) @filter(eq(tr.kind, "Session") AND eq(sess.state, "ACTIVE")) { `+sessFields+` } }`,
		map[string]string{"$inst": instanceID}, &r); err != nil {
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
