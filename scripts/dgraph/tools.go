//go:build tools

// Package tools pins the Dgraph server so that
//
//	go build -o <out> github.com/hypermodeinc/dgraph/v25/dgraph
//
// run inside this directory builds exactly Dgraph v25.0.0.
package tools

import (
	_ "github.com/hypermodeinc/dgraph/v25/dgraph"
)
