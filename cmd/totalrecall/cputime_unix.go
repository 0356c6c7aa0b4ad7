//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used so far, user and system, on every thread: a
// measure of work that other load on the machine does not inflate the way it does wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
