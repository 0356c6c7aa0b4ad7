//go:build !unix

package main

import "time"

// cpuTime is not measured on this platform: the CPU figures print as zero.
func cpuTime() time.Duration { return 0 }
