package sse

import (
	"sync/atomic"
	"time"
)

// StartKeepAlive writes a ": ping" comment whenever the stream has been
// silent for every, until stop is called, End is called or a write fails.
// A non-positive every does nothing.
//
// It holds no goroutine: one timer sleeps until the silence could reach
// every and re-arms itself from the time of the last flushed frame, so a
// stream costs a timer, and frames cost only the atomic store of their time.
func (w *Writer) StartKeepAlive(every time.Duration) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	k := &keepAlive{w: w, every: every}
	// Arm the timer only once k.timer is set: fire reads it.
	k.timer = time.AfterFunc(time.Duration(1<<62), k.fire)
	k.timer.Reset(every)
	return k.stop
}

type keepAlive struct {
	w       *Writer
	every   time.Duration
	timer   *time.Timer
	stopped atomic.Bool
}

func (k *keepAlive) stop() {
	k.stopped.Store(true)
	k.timer.Stop()
}

// fire runs on the timer's goroutine; it pings or re-arms. A ping racing
// End finds the Writer ended and writes nothing.
func (k *keepAlive) fire() {
	if k.stopped.Load() {
		return
	}
	select {
	case <-k.w.done:
		return
	default:
	}
	silence := time.Since(k.w.start) - time.Duration(k.w.last.Load())
	if silence < k.every {
		k.timer.Reset(k.every - silence)
		return
	}
	if k.w.Comment("ping") != nil {
		return
	}
	k.timer.Reset(k.every)
}
