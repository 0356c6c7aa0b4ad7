package cortex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/hippocampus"
)

// The Cortex's side of the minds' adapters (MCP, coding-agent hooks): scopes named by name, the
// notification queue of each mind instance, total recall that waits for its recollection, and
// the whole-graph dump for clients of a running server.

// ResolveScope returns the scope ref names: a scope id, or a scope name. An unused name creates
// the scope with its kernels (created is then true); concurrent resolutions of one new name
// create it once, since the creation's requestId is derived from the name. Of several scopes
// with the name, the oldest is taken.
// Errors: INVALID_ARGUMENT, NOT_FOUND (an id of no scope).
func (c *Cortex) ResolveScope(ctx context.Context, ref string) (sc *domain.Scope, created bool, err error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, false, domain.FieldErrorf("scope", "name a scope by its id or its name")
	}
	if domain.ValidID(ref) {
		sc, err := c.Scope(ctx, ref)
		return sc, false, err
	}
	if len(ref) > domain.MaxNameBytes {
		return nil, false, domain.FieldErrorf("scope", "is longer than %d bytes", domain.MaxNameBytes)
	}
	if err := hippocampus.CheckText("scope", ref); err != nil {
		return nil, false, err
	}
	all, err := c.Scopes(ctx)
	if err != nil {
		return nil, false, err
	}
	var named []*domain.Scope
	for _, s := range all {
		if s.Name == ref {
			named = append(named, s)
		}
	}
	if len(named) > 0 {
		sort.Slice(named, func(i, j int) bool {
			if !named[i].CreatedAt.Equal(named[j].CreatedAt) {
				return named[i].CreatedAt.Before(named[j].CreatedAt)
			}
			return named[i].ID < named[j].ID
		})
		return named[0], false, nil
	}
	sum := sha256.Sum256([]byte(ref))
	sc, err = c.CreateScope(ctx, ref, Meta{RequestID: "scope-by-name:" + hex.EncodeToString(sum[:16])})
	if err != nil {
		return nil, false, err
	}
	return sc, true, nil
}

func (c *Cortex) queue() (domain.NotificationQueue, error) {
	q, ok := c.store.(domain.NotificationQueue)
	if !ok {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store does not queue notifications")
	}
	return q, nil
}

func checkQueueArgs(instanceID, scopeID string) error {
	if err := checkToken("instanceId", instanceID); err != nil {
		return err
	}
	return domain.CheckID("scopeId", scopeID)
}

// QueuedNotifications returns the notifications queued for a mind instance in a scope, oldest
// first, without handing them over. Errors: INVALID_ARGUMENT, NOT_FOUND (scope).
func (c *Cortex) QueuedNotifications(ctx context.Context, instanceID, scopeID string) ([]*domain.Event, error) {
	q, err := c.queue()
	if err != nil {
		return nil, err
	}
	if err := checkQueueArgs(instanceID, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	return q.QueuedNotifications(ctx, instanceID, scopeID)
}

// TakeNotifications hands over the notifications queued for a mind instance in a scope (oldest
// first, at most graph.MaxTakenNotifications) and clears them from the queue; the handover is
// recorded as the NotificationPort's touch. Errors: INVALID_ARGUMENT, NOT_FOUND (scope).
func (c *Cortex) TakeNotifications(ctx context.Context, instanceID, scopeID string) ([]*domain.Event, error) {
	q, err := c.queue()
	if err != nil {
		return nil, err
	}
	if err := checkQueueArgs(instanceID, scopeID); err != nil {
		return nil, err
	}
	if _, err := c.store.Scope(ctx, scopeID); err != nil {
		return nil, err
	}
	evs, err := q.TakeNotifications(ctx, instanceID, scopeID)
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		c.touches.add(e.ID(), domain.CtxNotification)
	}
	return evs, nil
}

// DeliveredNotification clears one notification from an instance's queue once a push or a tool
// result delivered it; it reports whether it was still queued (false: another delivery handed it
// over first). The delivery is recorded as the NotificationPort's touch. Errors:
// INVALID_ARGUMENT.
func (c *Cortex) DeliveredNotification(ctx context.Context, instanceID string, ev *domain.Event) (bool, error) {
	q, err := c.queue()
	if err != nil {
		return false, err
	}
	if err := checkToken("instanceId", instanceID); err != nil {
		return false, err
	}
	n, err := q.DequeueNotifications(ctx, instanceID, []string{ev.ID()})
	if err != nil {
		return false, err
	}
	if n > 0 {
		c.touches.add(ev.ID(), domain.CtxNotification)
	}
	return n > 0, nil
}

// Recollection is the outcome of a total recall a mind waited for: the TotalRecallNotification,
// or why the Subconscious declined, or neither when the wait ran out first.
type Recollection struct {
	OriginRequestID string
	Notification    *domain.Event
	Declined        string
}

// MaxRecallWait bounds how long TotalRecallAndWait waits.
const MaxRecallWait = 60 * time.Second

// TotalRecallAndWait advises a total recall (TotalRecallAdvisory) and waits up to wait for the
// Subconscious's answer: the TotalRecallNotification, or its TotalRecallDeclined. Most MCP
// clients do not show pushed messages to the model, so the tool that advises can return the
// recollection itself; a notification handed over this way leaves the instance's queue.
// Errors: those of TotalRecallAdvisory; INVALID_ARGUMENT (wait out of 0..MaxRecallWait).
func (c *Cortex) TotalRecallAndWait(ctx context.Context, in TotalRecallInput, wait time.Duration) (*Recollection, error) {
	if wait < 0 || wait > MaxRecallWait {
		return nil, domain.FieldErrorf("waitSeconds", "must be within 0..%d", int(MaxRecallWait/time.Second))
	}
	if in.RequestID == "" {
		in.RequestID = domain.NewID()
	}
	origin := in.RequestID
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Subscribed before the advisory is published, so the answer cannot slip past.
	answers := c.log.Subscribe(wctx, c.log.Head(), func(e *domain.Event) bool {
		return (e.Type == domain.NtTotalRecallNotification || e.Type == domain.EvTotalRecallDeclined) &&
			str(e.Payload["originRequestId"]) == origin
	})
	id, err := c.TotalRecallAdvisory(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &Recollection{OriginRequestID: id}
	if wait == 0 {
		return out, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case e, ok := <-answers:
		if !ok {
			return out, nil
		}
		if e.Type == domain.EvTotalRecallDeclined {
			out.Declined = str(e.Payload["reason"])
			return out, nil
		}
		out.Notification = e
		if in.InstanceID != "" {
			if _, err := c.DeliveredNotification(ctx, in.InstanceID, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case <-timer.C:
		return out, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *Cortex) dumper() (domain.Dumper, error) {
	d, ok := c.store.(domain.Dumper)
	if !ok {
		return nil, domain.Errorf(domain.EUNAVAILABLE, "this store cannot be dumped")
	}
	return d, nil
}

// ExportDump writes the whole graph as a dump (JSON Lines, ids preserved) and returns the number
// of lines. Errors: UNAVAILABLE.
func (c *Cortex) ExportDump(ctx context.Context, w io.Writer) (int, error) {
	if err := needAdmin(ctx, "dump the whole graph"); err != nil {
		return 0, err
	}
	d, err := c.dumper()
	if err != nil {
		return 0, err
	}
	return d.Export(ctx, w)
}

// ImportDump loads a dump and returns the number of lines; the search index catches up with the
// imported memories when the server next starts. Errors: INVALID_ARGUMENT (a malformed dump),
// CONFLICT, UNAVAILABLE.
func (c *Cortex) ImportDump(ctx context.Context, r io.Reader) (int, error) {
	if err := needAdmin(ctx, "load a dump"); err != nil {
		return 0, err
	}
	d, err := c.dumper()
	if err != nil {
		return 0, err
	}
	n, err := d.Import(ctx, r)
	c.log.Kick()
	return n, err
}
