package domain

import (
	"context"
	"io"
)

// NotificationQueue is the optional store capability of queueing the notifications addressed to
// a mind instance (SessionAuditPrompt, BreakNotification and TotalRecallNotification events whose
// payload names an instanceId) in the commit that writes them, until a hook or a push hands them
// over. The graph store implements it; the Cortex finds it by type assertion. Implementations are
// safe for concurrent use.
type NotificationQueue interface {
	// QueuedNotifications returns the notifications queued for an instance in a scope, oldest
	// first. It changes nothing.
	QueuedNotifications(ctx context.Context, instanceID, scopeID string) ([]*Event, error)
	// TakeNotifications returns the notifications queued for an instance in a scope, oldest
	// first, and removes them from the queue atomically: two takers never both get one.
	TakeNotifications(ctx context.Context, instanceID, scopeID string) ([]*Event, error)
	// DequeueNotifications removes the notifications with the given message ids from an
	// instance's queue and returns how many were queued.
	DequeueNotifications(ctx context.Context, instanceID string, messageIDs []string) (int, error)
}

// Dumper is the optional store capability of writing the whole graph as a dump and loading one
// (the JSON Lines format of `totalrecall export`).
type Dumper interface {
	// Export writes every node and edge and returns the number of lines written.
	Export(ctx context.Context, w io.Writer) (int, error)
	// Import loads a dump and returns the number of lines read.
	Import(ctx context.Context, r io.Reader) (int, error)
}

// InstanceSessions is the optional store capability of reading a mind instance's active
// sessions without taking the write lock (a hook's heartbeat asks it on every prompt).
type InstanceSessions interface {
	// ActiveSessionsOf returns the instance's active sessions.
	ActiveSessionsOf(ctx context.Context, instanceID string) ([]*Session, error)
}
