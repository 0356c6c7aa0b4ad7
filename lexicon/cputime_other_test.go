//go:build !unix

package lexicon

import "time"

func cpuTime() time.Duration { return 0 }
