//go:build !linux

package harness

import "syscall"

// childAttr is nothing special outside Linux (the harness reads /proc and
// is meant for Linux anyway).
func childAttr() *syscall.SysProcAttr { return nil }

// RaiseFDLimit is not supported outside Linux.
func RaiseFDLimit() (uint64, error) { return 0, nil }
