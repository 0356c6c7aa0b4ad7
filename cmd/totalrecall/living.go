package main

import (
	"flag"
	"time"

	"github.com/totalrecall/totalrecall/domain/cortex"
	"github.com/totalrecall/totalrecall/domain/subconscious"
)

// registerLivingFlags adds the Subconscious's timers and limits to serve (on by default there;
// every other command, and tests, run without timers).
func registerLivingFlags(fs *flag.FlagSet, lc *cortex.LivingConfig) {
	sc := &lc.Subconscious
	fs.DurationVar(&sc.DecayInterval, "decay-interval", time.Hour, "how often every scope is swept for decay (0: never)")
	fs.DurationVar(&sc.SessionCheckInterval, "session-check", 15*time.Second, "how often sessions are checked for timeouts and breaks (0: never)")
	fs.DurationVar(&sc.SessionTimeout, "session-timeout", subconscious.DefaultSessionTimeout, "a session without heartbeats for this long ends as TIMEOUT")
	fs.DurationVar(&sc.BreakAfter, "break-after", subconscious.DefaultBreakAfter, "time in task mode before a BreakNotification")
	fs.IntVar(&sc.RecallBurst, "recall-burst", subconscious.DefaultRecallBurst, "total recalls a mind may run at once")
	fs.DurationVar(&sc.RecallRefill, "recall-refill", subconscious.DefaultRecallRefill, "one more total recall is allowed per this interval")
}

// registerRetentionFlags adds how long the event log keeps its read events (serve only).
func registerRetentionFlags(fs *flag.FlagSet, r *cortex.Retention) {
	fs.DurationVar(&r.Keep, "keep-read-events", 30*24*time.Hour,
		"how long the event log keeps read events (searches, loads, resonates, the retrievals and scores they caused; 0: for good)")
	fs.DurationVar(&r.Interval, "prune-interval", cortex.DefaultPruneInterval, "how often the event log is pruned of read events older than --keep-read-events")
}
