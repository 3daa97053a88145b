package llm

import (
	"context"
	"fmt"
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

// watchdog enforces the first-byte and idle timeouts of one call with a
// single timer that cancels the call's context. Events only store their time
// atomically; the timer re-arms itself from the last one.
type watchdog struct {
	cancel      context.CancelCauseFunc
	first, idle time.Duration
	start       time.Time
	timer       *time.Timer
	// seen is set by the first event.
	seen atomic.Bool
	// last is the time of the last event, in nanoseconds since start.
	last atomic.Int64
}

// startWatchdog arms the first-byte timeout, counted from start (the
// first attempt of a call that is retried); a zero limit disables that
// timeout. It returns nil when both are disabled (a nil watchdog is valid).
func startWatchdog(cancel context.CancelCauseFunc, start time.Time, first, idle time.Duration) *watchdog {
	if first <= 0 && idle <= 0 {
		return nil
	}
	w := &watchdog{cancel: cancel, first: first, idle: idle, start: start}
	d := first - time.Since(start)
	if first <= 0 {
		d = math.MaxInt64 // no first-byte timeout: the first event arms the idle one
	}
	w.timer = time.AfterFunc(d, w.fire)
	return w
}

// event records an upstream event. The first one switches the timer from
// the first-byte to the idle timeout; later ones cost an atomic store.
func (w *watchdog) event() {
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
