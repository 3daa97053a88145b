package harness

import (
	"fmt"
	"syscall"
)

// childAttr makes a child process get SIGKILL when the harness dies, so no
// server outlives an interrupted run.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// RaiseFDLimit raises the soft limit on open files to the hard limit, for
// the idle scenario's thousands of connections, and returns the new limit.
// Children started afterwards inherit it.
func RaiseFDLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("reading the open files limit: %w", err)
	}
	lim.Cur = lim.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("raising the open files limit to %d: %w", lim.Max, err)
	}
	return lim.Cur, nil
}
