package queue

import (
	"context"
	"fmt"
	"time"
)

// River's client, once started, fetches jobs whenever one of its workers
// is free: at once for a job this process queued, and at least every
// busyFetchPoll (100 ms) as a backstop. A started client that fetches
// nothing while jobs wait and workers are free is stalled: its producer
// did not start, or stopped, or hangs in a fetch, and nothing would tell
// anyone (bench/soak/README.md, O1: a process restarted after a kill ran
// nothing for 30 s, its log empty at WARN).
//
// The sweep loop watches for that at every heartbeat (watchFetches). The
// look is in memory (River's fetches counted by the waker, this
// process's workers in use); only when River's client has run for
// MissedHeartbeats heartbeats with a worker free and no fetch does it
// read the database: how many of the queue's jobs have been available for
// as long (River's fetch index), and whether River's queue is paused
// (river_queue.paused_at, which River's producer obeys). Jobs waiting
// make it a stall: it is logged at WARN, counted (waker.stalls), and,
// when no handler of this process runs, River's client is stopped
// (waiting at most a heartbeat) and started again, which starts a new
// producer that fetches at once. A client that will not stop is left
// running; the WARN repeats at each heartbeat until it fetches.

// watchFetches is the heartbeat's look for a stalled River client.
func (q *Queue) watchFetches(ctx context.Context) error {
	if q.stopping.Load() {
		return nil
	}
	q.riverMu.Lock()
	defer q.riverMu.Unlock()
	if !q.started || !q.riverOn {
		return nil
	}
	now := time.Now()
	fetches := q.w.fetches.Load()
	inUse := q.workersInUse()
	if fetches != q.fetchSeen || inUse >= q.cfg.Workers {
		// River fetched, or had no worker to fetch for: not stalled.
		q.fetchSeen, q.fetchMoved = fetches, now
		return nil
	}
	after := MissedHeartbeats * q.cfg.Heartbeat
	if now.Sub(q.fetchMoved) < after {
		return nil
	}
	waiting, paused, err := q.waitingJobs(ctx, now.Add(-after))
	if err != nil {
		return fmt.Errorf("looking for jobs River does not fetch: %w", err)
	}
	if waiting == 0 {
		return nil
	}
	q.w.stalls.Add(1)
	attrs := []any{"jobs_waiting", waiting, "waiting_for_more_than", after,
		"no_fetch_for", now.Sub(q.fetchMoved).Round(time.Millisecond), "workers_in_use", inUse,
		"workers", q.cfg.Workers, "river_queue_paused", paused}
	if paused {
		q.log.Warn("handoff queue: River's queue "+riverQueue+" is paused (river_queue.paused_at): its jobs wait until it is resumed", attrs...)
		q.fetchMoved = now // say it again a lease later, not at every heartbeat
		return nil
	}
	if inUse > 0 {
		q.log.Warn("handoff queue: River's client fetches no job while jobs wait and workers are free; it is restarted once no handler of this process runs", attrs...)
		return nil
	}
	q.log.Warn("handoff queue: River's client fetches no job while jobs wait and workers are free; restarting it", attrs...)
	sctx, cancel := context.WithTimeout(ctx, q.cfg.Heartbeat)
	err = q.b.stop(sctx)
	cancel()
	if err != nil {
		return fmt.Errorf("stopping River's client, which fetches nothing: %w", err)
	}
	q.riverOn = false
	return q.startRiver(ctx)
}

// workersInUse is how many of this process's workers are in a job.
func (q *Queue) workersInUse() int {
	n := 0
	q.working.Range(func(any, any) bool { n++; return true })
	return n
}

// waitingJobs counts (up to sweepBatch) the queue's River jobs available
// since before since, and reports whether River's queue is paused.
func (q *Queue) waitingJobs(ctx context.Context, since time.Time) (int64, bool, error) {
	var waiting, paused int64
	err := q.b.conn().QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM river_job
		WHERE state = 'available' AND queue = ? AND scheduled_at < ? LIMIT ?) w`,
		riverQueue, q.b.riverTime(since), sweepBatch).Scan(&waiting)
	if err != nil {
		return 0, false, err
	}
	if waiting == 0 {
		return 0, false, nil
	}
	err = q.b.conn().QueryRow(ctx, `SELECT count(*) FROM river_queue WHERE name = ? AND paused_at IS NOT NULL`,
		riverQueue).Scan(&paused)
	if err != nil {
		return 0, false, err
	}
	return waiting, paused > 0, nil
}
