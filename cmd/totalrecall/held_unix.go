//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
)

// graphFolderHeld reports whether another process holds the embedded engine's folder: the
// engine takes an exclusive lock on p/LOCK and, finding it taken, exits with a stack trace
// instead of an error, so a command looks first.
func graphFolderHeld(graphDir string) bool {
	f, err := os.Open(filepath.Join(graphDir, "p", "LOCK"))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
