//go:build !unix

package main

// graphFolderHeld cannot tell on this platform.
func graphFolderHeld(string) bool { return false }
