//go:build !unix

// Package cputime reads the process's own CPU time, for benchmarks that
// report CPU per operation beside wall time (on a shared machine the wall
// time is mostly waiting for a core).
package cputime

import "time"

// Process is 0 where getrusage is not at hand.
func Process() time.Duration { return 0 }
