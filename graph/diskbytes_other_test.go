//go:build !unix

package graph

import "io/fs"

// onDisk is a file's size.
func onDisk(info fs.FileInfo) int64 { return info.Size() }
