//go:build unix

package lexicon

import (
	"syscall"
	"time"
)

// cpuTime is the CPU the process has used: benchmarks report it per op beside the wall time,
// which a machine busy with other work stretches.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
