//go:build unix

package tools

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readPids waits for the pid file a spawning tool writes.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(20 * time.Second); ; {
		var err error
		if b, err = os.ReadFile(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file %s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q: %v", b, err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// processGone reports whether pid no longer runs (gone, or a zombie
// waiting for a reaper).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS == "linux"
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] == 'Z' || b[i+2] == 'X'
	}
	return false
}

// waitGone fails the test unless every pid disappears; the kill is
// asynchronous, so it polls (generously) rather than asserting a time.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d still runs after the call ended", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
