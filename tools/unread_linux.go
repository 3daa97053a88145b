package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// unread says whether the pipe's read end f holds bytes not read yet
// (FIONREAD, named TIOCINQ on Linux). It asks through SyscallConn, which
// leaves f in the poller's non-blocking mode (Fd would not). A closed or
// failing f holds nothing.
func unread(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	if cerr := rc.Control(func(fd uintptr) {
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	}); cerr != nil {
		return false
	}
	return err == nil && n > 0
}
