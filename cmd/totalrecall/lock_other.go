//go:build !unix

package main

import "os"

// tryLock takes no lock on this platform: the engine's own locks stand alone.
func tryLock(*os.File) error { return nil }
