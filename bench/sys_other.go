//go:build !linux

package main

import "syscall"

// childAttr is nothing special outside Linux (the harness reads /proc and
// is meant for Linux anyway).
func childAttr() *syscall.SysProcAttr { return nil }

// raiseFDLimit is not supported outside Linux.
func raiseFDLimit() (uint64, error) { return 0, nil }
