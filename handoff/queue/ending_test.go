package queue

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRenewalAfterOutcomeIsNoLoss: a run's outcome clears its run token
// before the run stops renewing its lease, so a heartbeat in between
// finds no row to renew. That is the run ending, not a lost lease: no
// WARN, and the run's context is not cancelled. The same renewal while
// the handler still runs is a lost lease (the WARN, the cancel).
func TestRenewalAfterOutcomeIsNoLoss(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		for _, ending := range []bool{true, false} {
			var logs syncBuffer
			q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 20 * time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			// No row holds this token: every renewal updates nothing.
			r := &held{id: "m-gone", token: "t-cleared", attempts: 1}
			r.ending.Store(ending)
			ctx, release := q.hold(context.Background(), r)
			if ending {
				time.Sleep(10 * q.cfg.Heartbeat) // renewals that find no row
			} else {
				select { // the first renewal finds none; 10 s bounds a hang
				case <-ctx.Done():
				case <-time.After(10 * time.Second):
				}
			}
			cancelled := ctx.Err() != nil
			release()
			warned := strings.Contains(strings.Join(logs.lines(), "\n"), "a run lost its lease")
			if ending && (cancelled || warned || r.lost.Load()) {
				t.Errorf("ending run: cancelled %v, warned %v, lost %v; want none (log %q)", cancelled, warned, r.lost.Load(), logs.lines())
			}
			if !ending && (!cancelled || !warned || !r.lost.Load()) {
				t.Errorf("running run: cancelled %v, warned %v, lost %v; want all", cancelled, warned, r.lost.Load())
			}
		}
	})
}
