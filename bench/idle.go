package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// idleResult is one path's idle-stream figures.
type idleResult struct {
	Streams int      `json:"streams"` // asked for
	Opened  int      `json:"opened"`  // received their first chunk
	Errors  int      `json:"errors"`
	Before  snapshot `json:"before"`
	With    snapshot `json:"with"`
	After   snapshot `json:"after"`
	// Settle is how long the goroutines took to come back to the baseline
	// after the streams were closed (or the limit, when they did not).
	Settle time.Duration `json:"settle_ns"`
	// Settled reports that the stream goroutines came back to the baseline.
	Settled bool `json:"settled"`
}

// perStream returns the heap+stack and the RSS each open stream costs.
func (r *idleResult) perStream() (inUse, rss float64) {
	if r.Opened == 0 {
		return 0, 0
	}
	n := float64(r.Opened)
	return float64(r.With.inUse()-r.Before.inUse()) / n, float64(r.With.RSS-r.Before.RSS) / n
}

// idleBatch is how many streams are opened at a time.
const idleBatch = 200

// runIdle opens n streams to t that the mock holds open after their first
// chunk, idleBatch at a time, and reads the memory and goroutines of the
// path's process (pid, pprof at dbg) before, with all open, and after
// closing them.
func runIdle(ctx context.Context, t *target, dbg *debugClient, n int, log io.Writer) (*idleResult, error) {
	r := &idleResult{Streams: n}
	var err error
	if r.Before, err = dbg.snapshot(ctx, t.pid); err != nil {
		return nil, err
	}
	bodies, errs := openHeld(ctx, t, n, log)
	r.Opened, r.Errors = len(bodies), errs
	fmt.Fprintf(log, "idle %s: %d streams open (%d failed)\n", t.name, r.Opened, r.Errors)
	time.Sleep(500 * time.Millisecond) // let the last ones settle
	r.With, err = dbg.snapshot(ctx, t.pid)
	for _, b := range bodies {
		_ = b.Close()
	}
	t.client.CloseIdleConnections()
	if err != nil {
		return nil, err
	}
	r.Settle, r.Settled, err = waitGoroutines(ctx, dbg, r.Before.streamGoroutines(), 10*time.Second)
	if err != nil {
		return nil, err
	}
	if r.After, err = dbg.snapshot(ctx, t.pid); err != nil {
		return nil, err
	}
	return r, nil
}

// openHeld opens n held streams, idleBatch at a time, and returns the open
// ones and the number that failed.
func openHeld(ctx context.Context, t *target, n int, log io.Writer) ([]io.Closer, int) {
	spec := saturationStream()
	var (
		mu     sync.Mutex
		bodies = make([]io.Closer, 0, n)
		errs   int
	)
	for opened := 0; opened < n && ctx.Err() == nil; opened += idleBatch {
		var wg sync.WaitGroup
		for range min(idleBatch, n-opened) {
			wg.Go(func() {
				b, err := t.hold(ctx, spec)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if errs++; errs <= 3 {
						fmt.Fprintf(log, "idle: %v\n", err)
					}
					return
				}
				bodies = append(bodies, b)
			})
		}
		wg.Wait()
	}
	return bodies, errs
}

// waitGoroutines polls until the process's goroutines, less its idle
// connection pool's, are back to base, for at most limit.
func waitGoroutines(ctx context.Context, dbg *debugClient, base int, limit time.Duration) (time.Duration, bool, error) {
	start := time.Now()
	for {
		total, pool, err := dbg.goroutines(ctx)
		if err != nil {
			return 0, false, err
		}
		if total-pool <= base {
			return time.Since(start), true, nil
		}
		if time.Since(start) >= limit {
			return time.Since(start), false, nil
		}
		select {
		case <-ctx.Done():
			return 0, false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
