//go:build unix

package graph

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used so far, on every thread: the work a benchmark
// did, which other load on the machine does not inflate the way it does wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
