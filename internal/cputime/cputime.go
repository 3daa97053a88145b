//go:build unix

// Package cputime reads the process's own CPU time, for benchmarks that
// report CPU per operation beside wall time (on a shared machine the wall
// time is mostly waiting for a core).
package cputime

import (
	"syscall"
	"time"
)

// Process is the user plus system CPU time the process has used so far;
// 0 where the system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
