package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"
)

// timeoutError is the cancellation cause set by the watchdog.
type timeoutError struct {
	which string
	limit time.Duration
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s timeout of %s exceeded", e.which, e.limit)
}

// watchdog enforces the first-byte and idle timeouts of one call with one
// timer that cancels the call's context. Activity only stores its time
// atomically; the timer re-arms itself from the last one.
type watchdog struct {
	cancel      context.CancelCauseFunc
	first, idle time.Duration
	start       time.Time
	timer       *time.Timer
	// seen is set by the first activity (the response headers).
	seen atomic.Bool
	// last is the time of the last activity, in nanoseconds since start.
	last atomic.Int64
}

// startWatchdog arms the first-byte timeout; a zero limit disables a
// timeout. It returns nil when both are disabled (a nil watchdog is valid).
func startWatchdog(cancel context.CancelCauseFunc, first, idle time.Duration) *watchdog {
	if first <= 0 && idle <= 0 {
		return nil
	}
	w := &watchdog{cancel: cancel, first: first, idle: idle, start: time.Now()}
	d := first
	if first <= 0 {
		d = math.MaxInt64 // the first activity arms the idle timeout
	}
	w.timer = time.AfterFunc(d, w.fire)
	return w
}

// activity records that the remote sent something, or that the gateway
// finished passing it on (time spent writing to a slow client is not the
// remote's silence). The first one switches from the first-byte to the
// idle timeout.
func (w *watchdog) activity() {
	if w == nil {
		return
	}
	w.last.Store(int64(time.Since(w.start)))
	if w.seen.Load() {
		return
	}
	w.seen.Store(true)
	w.timer.Stop()
	if w.idle > 0 {
		w.timer.Reset(w.idle)
	}
}

func (w *watchdog) fire() {
	if !w.seen.Load() {
		w.cancel(&timeoutError{which: "first-byte", limit: w.first})
		return
	}
	if w.idle <= 0 {
		return
	}
	silence := time.Since(w.start) - time.Duration(w.last.Load())
	if silence >= w.idle {
		w.cancel(&timeoutError{which: "idle", limit: w.idle})
		return
	}
	w.timer.Reset(w.idle - silence)
}

// stop disarms the timer.
func (w *watchdog) stop() {
	if w != nil {
		w.timer.Stop()
	}
}

// errFrameTooLarge ends the reading of a frame over the size limit.
var errFrameTooLarge = errors.New("frame too large")

// meter reads a response body for the SSE reader: it records activity
// for the watchdog and lets at most max+1 bytes past the end of the last
// complete frame (mark) be read, so that a frame over the limit is an
// error before it is buffered whole, whatever the remote sends.
type meter struct {
	body  io.Reader
	wd    *watchdog
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
		m.wd.activity()
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
