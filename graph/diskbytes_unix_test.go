//go:build unix

package graph

import (
	"io/fs"
	"syscall"
)

// onDisk is what a file takes on disk, in blocks, as du counts it: the engine's memtable files
// are preallocated, larger than what they hold.
func onDisk(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
