// Package domain holds totalrecall's entities, messages, the TransactionContext envelope, error
// codes and the ports the bounded contexts are written against. It imports only the standard
// library (and uuid): adapters depend on it, never the other way round.
package domain
