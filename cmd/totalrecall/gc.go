package main

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// GC defaults for the process, unless GOGC or GOMEMLIMIT say otherwise: the collector runs when
// the heap has grown by 400% over what survived the last cycle (Go's default is 100%), and a soft
// limit of half the machine's memory makes it collect sooner whenever the heap nears that. Graph
// reads and writes allocate heavily and briefly; at 100% a large digest pass or search spent
// about as long collecting garbage as answering (a propose pass over 100,000 artifacts: 7.3 s at
// 100%, 5.2 s at 400% on a 2-core machine).
const defaultGCPercent = 400

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := memTotal(); total > 0 {
			debug.SetMemoryLimit(total / 2)
		}
	}
}

// memTotal is the machine's memory in bytes from /proc/meminfo, 0 where that is not available.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
