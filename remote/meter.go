package remote

import (
	"errors"
	"io"

	"github.com/agentgw/agentgw/internal/watchdog"
)

// errFrameTooLarge ends the reading of a frame over the size limit.
var errFrameTooLarge = errors.New("frame too large")

// meter reads a response body for the SSE reader: it records activity
// for the watchdog and lets at most max+1 bytes past the end of the last
// complete frame (mark) be read, so that a frame over the limit is an
// error before it is buffered whole, whatever the remote sends.
type meter struct {
	body  io.Reader
	wd    *watchdog.Watchdog
	max   int
	total int
	mark  int
}

// Read reads from the body, up to the frame limit.
func (m *meter) Read(p []byte) (int, error) {
	room := m.mark + m.max + 1 - m.total
	if room <= 0 {
		return 0, errFrameTooLarge
	}
	if len(p) > room {
		p = p[:room]
	}
	n, err := m.body.Read(p)
	m.total += n
	if n > 0 {
		m.wd.Activity()
	}
	return n, err
}

// frameDone marks the end of a frame, buffered being the bytes the reader
// holds beyond it, and returns the frame's size.
func (m *meter) frameDone(buffered int) int {
	end := m.total - buffered
	size := end - m.mark
	m.mark = end
	return size
}
