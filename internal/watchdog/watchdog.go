// Package watchdog enforces the first-byte and idle timeouts of one
// upstream call (llm's to a model, remote's to a remote agent service)
// with one timer that cancels the call's context.
package watchdog

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// TimeoutError is the cancellation cause set by a Watchdog: its Error is
// "first-byte timeout of 30s exceeded" or "idle timeout of 30s exceeded".
type TimeoutError struct {
	// Which is "first-byte" or "idle".
	Which string
	// Limit is the timeout exceeded.
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s timeout of %s exceeded", e.Which, e.Limit)
}

// A Watchdog enforces the first-byte and idle timeouts of one call with
// one timer that cancels the call's context. Activity only stores its time
// atomically; the timer re-arms itself from the last one. A nil *Watchdog
// is valid and enforces nothing.
type Watchdog struct {
	cancel      context.CancelCauseFunc
	first, idle time.Duration
	start       time.Time
	timer       *time.Timer
	// seen is set by the first activity.
	seen atomic.Bool
	// last is the time of the last activity, in nanoseconds since start.
	last atomic.Int64
}

// Start arms the first-byte timeout, counted from start (now, or the first
// attempt of a call that is retried); a zero limit disables that timeout.
// A timeout calls cancel with a *TimeoutError. Start returns nil when both
// limits are zero.
func Start(cancel context.CancelCauseFunc, start time.Time, first, idle time.Duration) *Watchdog {
	if first <= 0 && idle <= 0 {
		return nil
	}
	w := &Watchdog{cancel: cancel, first: first, idle: idle, start: start}
	d := first - time.Since(start)
	if first <= 0 {
		d = math.MaxInt64 // no first-byte timeout: the first activity arms the idle one
	}
	w.timer = time.AfterFunc(d, w.fire)
	return w
}

// Activity records that the upstream sent something (or that the caller
// finished passing it on, time spent writing to a slow client not being
// the upstream's silence). The first one switches the timer from the
// first-byte to the idle timeout; later ones cost an atomic store.
func (w *Watchdog) Activity() {
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

func (w *Watchdog) fire() {
	if !w.seen.Load() {
		w.cancel(&TimeoutError{Which: "first-byte", Limit: w.first})
		return
	}
	if w.idle <= 0 {
		return
	}
	silence := time.Since(w.start) - time.Duration(w.last.Load())
	if silence >= w.idle {
		w.cancel(&TimeoutError{Which: "idle", Limit: w.idle})
		return
	}
	w.timer.Reset(w.idle - silence)
}

// Stop disarms the timer.
func (w *Watchdog) Stop() {
	if w != nil {
		w.timer.Stop()
	}
}
