package queue

import (
	"context"
	"fmt"
	"time"
)

// idleLooksToStop is how many heartbeats in a row the queue must find
// nothing to do before it stops River's client.
const idleLooksToStop = 2

// River's client, started, costs CPU whether there is work or not: its
// job completer wakes every 50 ms, its leader election and maintenance
// every few seconds. So a started queue that finds, at idleLooksToStop
// heartbeats in a row, no message QUEUED or RUNNING (in any process) and
// no run of its own, stops the client: it is dormant, and its heartbeat
// (the sweep loop) is all that runs. It starts the client again:
//
//   - at once, when this process queues a message or takes one back
//     (wakeRiver, after the transaction commits, tells the sweep loop);
//   - at its next heartbeat, when it finds a message QUEUED or RUNNING:
//     one another replica queued (which that replica runs at once,
//     itself), a retry waiting for its time, an interrupted run.
//
// The look is one indexed read of the status index (an empty range when
// idle); while dormant, nothing else of the queue's runs. River's own
// maintenance (deleting jobs finished a day ago, its rescuer) runs while
// some replica's client runs: an idle fleet leaves it for the next work,
// which is when there is something to clean.

// dormant is the heartbeat's look for work: it stops River's client after
// idleLooksToStop idle looks and starts it when there is work.
func (q *Queue) dormant(ctx context.Context) error {
	if q.stopping.Load() {
		return nil
	}
	busy, err := q.busy(ctx)
	if err != nil {
		return err
	}
	q.riverMu.Lock()
	defer q.riverMu.Unlock()
	if !q.started {
		return nil
	}
	switch {
	case busy && !q.riverOn:
		return q.startRiver(ctx)
	case busy:
		q.idleLooks = 0
	case q.riverOn:
		if q.idleLooks++; q.idleLooks >= idleLooksToStop {
			if err := q.b.stop(ctx); err != nil {
				return fmt.Errorf("stopping River's client while idle: %w", err)
			}
			q.riverOn = false
			q.w.dormant.Add(1)
			q.log.Debug("handoff queue: idle; River's client stopped until there is work")
		}
	}
	return nil
}

// busy reports whether the queue has work: a run in this process, or a
// message QUEUED or RUNNING in the database.
func (q *Queue) busy(ctx context.Context) (bool, error) {
	mine := false
	q.running.Range(func(any, any) bool { mine = true; return false })
	if mine {
		return true, nil
	}
	var n int64
	err := q.b.conn().QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM handoff_messages WHERE status IN (?, ?) LIMIT 1) w`,
		string(StatusQueued), string(StatusRunning)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("looking for queued and running messages: %w", err)
	}
	return n > 0, nil
}

// wakeRiver tells the sweep loop that this process just queued a job: it
// starts River's client if the queue is dormant. It never blocks (its
// callers include handlers that River's Stop may be waiting for).
func (q *Queue) wakeRiver() {
	select {
	case q.riverWake <- struct{}{}:
	default:
	}
}

// woken is the sweep loop's answer to wakeRiver.
func (q *Queue) woken(ctx context.Context) error {
	q.riverMu.Lock()
	defer q.riverMu.Unlock()
	q.idleLooks = 0
	if !q.started || q.riverOn || q.stopping.Load() {
		return nil
	}
	return q.startRiver(ctx)
}

// startRiver starts River's client; q.riverMu is held.
func (q *Queue) startRiver(ctx context.Context) error {
	if err := q.b.start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("starting River's client: %w", err)
	}
	q.riverOn, q.idleLooks = true, 0
	q.fetchSeen, q.fetchMoved = q.w.fetches.Load(), time.Now()
	q.w.woken.Add(1)
	return nil
}
