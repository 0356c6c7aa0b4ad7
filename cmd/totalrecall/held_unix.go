//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
)

// graphFolderHeld reports whether another process (or this one) holds the embedded engine's
// folder: Badger takes an exclusive flock on the directory p itself (p/LOCK only holds its pid)
// and, finding it taken, the engine exits with a stack trace instead of an error, so a command
// looks first.
func graphFolderHeld(graphDir string) bool {
	f, err := os.Open(filepath.Join(graphDir, "p"))
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
