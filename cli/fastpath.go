package cli

import (
	"fmt"
	"os"
)

// The fast path. A Go program initialises every package it links before main runs, and the
// Dgraph engine's packages are costly to initialise: github.com/hypermodeinc/dgraph/v25/x
// computes a package variable (RootTemplate) from BuildDetails, which reads and hashes the whole
// executable — 90 MB, over 100 ms of a hook's budget. The language orders initialisation:
// repeatedly, the first package (by import path) whose imports are all initialised goes next.
// This package imports nothing of the engine's, so it is initialised long before the engine's
// packages, and its init runs the client commands right there and exits: a hook or a bridge
// never pays for what only a server needs. TestFastPathSkipsTheEngine (cmd/totalrecall) checks
// that the engine's initialisation does not run for them.

// EnvNoFastPath, when set, leaves the client commands to main (for measuring the difference).
const EnvNoFastPath = "TOTALRECALL_NO_FASTPATH"

func init() {
	if len(os.Args) < 2 || !IsCommand(os.Args[1]) || os.Getenv(EnvNoFastPath) != "" {
		return
	}
	if err := Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "totalrecall:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
