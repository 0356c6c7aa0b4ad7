package cortex

import (
	"strings"

	"github.com/totalrecall/totalrecall/domain"
	"github.com/totalrecall/totalrecall/domain/shard"
)

// A server may serve some of the scopes (Config.Shard): its index follower applies only their
// events, its index holds only their documents, and its living consumers act only on their
// events, with watermarks of their own in the graph (the consumer's name and the scope set's
// suffix, salience-s0of2), so that servers serving disjoint scope sets handle each event once.
// What every server still does with every event: advance the index's watermark over the whole
// log, reload the API keys, and feed the subscriptions (the log is shared).

// ESCOPENOTSERVED refuses a request for a scope this server does not serve (and that no peer
// took): nothing is written.
const ESCOPENOTSERVED = "SCOPE_NOT_SERVED"

// Shard returns the scopes this server serves (nil: every scope).
func (c *Cortex) Shard() *shard.Spec { return c.shard }

// servesEvent reports whether this server's derived state follows e. An event without a scope
// (API keys, for one) is the index's on every server — it holds no document — and belongs to
// the living consumers of shard 0 of a hash split, and of no list (none of the events they act
// on today lacks a scope).
func (c *Cortex) servesEvent(e *domain.Event, living bool) bool {
	if e.ScopeID == "" && !living {
		return true
	}
	return c.shard.Serves(e.ScopeID)
}

// consumerName is the name a living consumer keeps its watermark under: its own on a server of
// every scope, suffixed with the scope set on a server of some.
func (c *Cortex) consumerName(base string) string {
	if suf := c.shard.Suffix(); suf != "" {
		return base + "-" + suf
	}
	return base
}

// docScope is the scope of an index document's scope field (a knowledge page's or a skill's is
// the scope and its family: SCOPE/knowledge).
func docScope(s string) string {
	scope, _, _ := strings.Cut(s, "/")
	return scope
}

func notServed(scopeID string, sp *shard.Spec) error {
	return domain.Errorf(ESCOPENOTSERVED, "scope %q is not served by this server (it serves %s): send the request to the server of the scope", scopeID, sp)
}
