package sse

import (
	"context"
	"time"
)

// KeepAlive writes a ": ping" comment whenever the stream has been silent
// for every, until ctx is done, End is called or a write fails. It blocks:
// run it in its own goroutine. A non-positive every returns at once.
//
// Frames cost it nothing but the atomic store of their time: one timer
// sleeps until the silence could reach every and re-arms itself from the
// time of the last frame.
func (w *Writer) KeepAlive(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.done:
			return
		case <-t.C:
		}
		silence := time.Since(w.start) - time.Duration(w.last.Load())
		if silence < every {
			t.Reset(every - silence)
			continue
		}
		if w.Comment("ping") != nil {
			return
		}
		t.Reset(every)
	}
}
