package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// held is a run that holds a message: the message, the run's token, the
// attempt it is, and whether it lost its lease (a replica took the
// message back while this run's heartbeats did not reach the database:
// its handler is cancelled).
type held struct {
	id       string
	token    string
	attempts int
	lost     atomic.Bool
	// ending is set once the run's handler returned: its outcome, being
	// written, clears the run token, so a renewal that then finds no row
	// is the run ending, not a lost lease.
	ending atomic.Bool
}

// errLeaseLost is the cause of a run's context cancelled because another
// replica took its message back.
var errLeaseLost = errors.New("the run lost its lease: the message was taken back as interrupted")

// hold renews r's lease every Heartbeat until release is called, and
// keeps r's message out of this process's sweep meanwhile. When a renewal
// finds the message no longer r's (it was taken back after heartbeats
// that did not reach the database), the returned context is cancelled:
// another run has the message.
func (q *Queue) hold(ctx context.Context, r *held) (context.Context, func()) {
	q.running.Store(r.id, struct{}{})
	ctx, cancel := context.WithCancelCause(ctx)
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(q.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rctx, rcancel := context.WithTimeout(context.Background(), q.cfg.Heartbeat)
			n, err := q.b.conn().Exec(rctx, `UPDATE handoff_messages SET lease_until = ? WHERE id = ? AND run_token = ?`,
				q.lease(), r.id, r.token)
			rcancel()
			switch {
			case err != nil:
				q.log.Warn("handoff queue: renewing a run's lease", "id", r.id, "error", err)
			case n == 0 && r.ending.Load():
				return // the outcome cleared the token: nothing to renew
			case n == 0:
				if r.lost.CompareAndSwap(false, true) {
					q.log.Warn("handoff queue: a run lost its lease; the message was taken back", "id", r.id)
				}
				cancel(errLeaseLost)
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		<-ended
		q.running.Delete(r.id)
		cancel(nil)
	}
}

// retry calls write until it succeeds or ctx ends, waiting between tries
// from 50 ms, doubling, up to a heartbeat; each failure is logged.
func (q *Queue) retry(ctx context.Context, what string, write func() error) error {
	wait := 50 * time.Millisecond
	for try := 1; ; try++ {
		err := write()
		if err == nil || ctx.Err() != nil {
			return err
		}
		q.log.Warn("handoff queue: "+what+" failed; trying again", "try", try, "in", wait, "error", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, q.cfg.Heartbeat)
	}
}

// sweepLoop takes back interrupted runs (see sweep) and looks for work
// (dormant) at once and every Heartbeat, until ctx is done; it closes
// ended when it returns.
func (q *Queue) sweepLoop(ctx context.Context, ended chan struct{}) {
	defer close(ended)
	t := time.NewTicker(q.cfg.Heartbeat)
	defer t.Stop()
	for {
		if n, err := q.sweep(ctx); err != nil && ctx.Err() == nil {
			q.log.Warn("handoff queue: taking back interrupted runs", "error", err)
		} else if n > 0 {
			q.log.Warn("handoff queue: messages taken back: their process stopped", "messages", n)
		}
		if err := q.dormant(ctx); err != nil && ctx.Err() == nil {
			q.log.Warn("handoff queue: looking for work", "error", err)
		}
		if err := q.watchFetches(ctx); err != nil && ctx.Err() == nil {
			q.log.Warn("handoff queue: watching River's fetches", "error", err)
		}
		if !q.nextHeartbeat(ctx, t.C) {
			return
		}
	}
}

// nextHeartbeat waits for the next tick of heartbeat, starting River's
// client meanwhile each time this process queues a message (wakeRiver);
// it returns false when ctx is done.
func (q *Queue) nextHeartbeat(ctx context.Context, heartbeat <-chan time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-heartbeat:
			return true
		case <-q.riverWake:
			if err := q.woken(ctx); err != nil && ctx.Err() == nil {
				q.log.Warn("handoff queue: starting River's client for a message", "error", err)
			}
		}
	}
}

// sweep takes back the runs whose lease has passed, but for those of
// this process: their process died (or cannot reach the database). Each
// such message is QUEUED again, its run counted as an interruption, with
// a new River job that becomes the message's: the job of the interrupted
// run, which River's rescuer hands out much later, then runs nothing. Of
// replicas sweeping at once, the first takes a message back and the
// others find it taken. It returns how many it took back.
func (q *Queue) sweep(ctx context.Context) (int, error) {
	rs, err := q.b.conn().Query(ctx, `SELECT id FROM handoff_messages WHERE status = ? AND lease_until < ? LIMIT ?`,
		string(StatusRunning), time.Now().UnixNano(), sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("finding interrupted runs: %w", err)
	}
	var ids []string
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			rs.Close()
			return 0, fmt.Errorf("finding interrupted runs: %w", err)
		}
		if _, mine := q.running.Load(id); !mine {
			ids = append(ids, id)
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("finding interrupted runs: %w", err)
	}
	taken := 0
	var errs []error
	for _, id := range ids {
		ok, err := q.takeBack(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("message %s: %w", id, err))
		} else if ok {
			taken++
		}
	}
	orphans, err := q.sweepOrphans(ctx)
	return taken + orphans, errors.Join(append(errs, err)...)
}

// orphan is a message QUEUED whose River job is running with no run of
// the message: the job's process died between River's fetch and the
// claim.
type orphan struct {
	id  string
	job int64
}

// sweepOrphans takes back the messages QUEUED whose River job has been
// running for longer than a lease (MissedHeartbeats heartbeats) without
// a run holding the message, but for the jobs this process works on. River
// marks a job running when it fetches it, before the worker claims the
// message; a process killed in between leaves the message QUEUED with no
// attempt and its job running, which River's rescuer takes back only
// after RescueAfter (11 minutes by default), and which the lease sweep,
// of RUNNING messages, does not see. So does a process killed after a run
// recorded the message QUEUED again (a failure to retry, a hard stop) but
// before River recorded the job's snooze. Each such message gets a new
// job that becomes its own, as sweep does (due when a failed run's retry
// was: retryDue); the old job, when River's rescuer hands it out, runs
// nothing.
//
// The look is one statement, driven by River's index of jobs by state
// and queue (an empty range when no job runs: an idle or dormant process
// reads nothing more), each job found joined to its message by the
// message's key. The message must also have been left alone for a lease
// (updated_at), so that a run that has just queued its message again,
// whose snooze River records a moment later, is not taken for dead.
func (q *Queue) sweepOrphans(ctx context.Context) (int, error) {
	lease := MissedHeartbeats * q.cfg.Heartbeat
	query, args := q.orphansQuery(lease)
	rs, err := q.b.conn().Query(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("finding messages whose job's process died before it ran them: %w", err)
	}
	var found []orphan
	for rs.Next() {
		var o orphan
		if err := rs.Scan(&o.id, &o.job); err != nil {
			rs.Close()
			return 0, fmt.Errorf("finding messages whose job's process died before it ran them: %w", err)
		}
		if _, mine := q.working.Load(o.job); !mine {
			found = append(found, o)
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("finding messages whose job's process died before it ran them: %w", err)
	}
	taken := 0
	var errs []error
	for _, o := range found {
		ok, err := q.takeBackOrphan(ctx, o, lease)
		if err != nil {
			errs = append(errs, fmt.Errorf("message %s: %w", o.id, err))
		} else if ok {
			taken++
		}
	}
	return taken, errors.Join(errs...)
}

// orphansQuery is sweepOrphans's statement and its arguments: the
// messages QUEUED (m.id) whose job (j.id) has been running for longer
// than lease, of messages left alone for as long.
func (q *Queue) orphansQuery(lease time.Duration) (string, []any) {
	return `SELECT m.id, j.id FROM river_job j JOIN handoff_messages m ON m.id = ` + q.b.jobMessage() + `
		WHERE j.state = 'running' AND j.queue = ? AND j.kind = ? AND j.attempted_at < ?
		AND m.status = ? AND (m.job_id = 0 OR m.job_id = j.id) AND m.updated_at < ? LIMIT ?`,
		[]any{riverQueue, jobKind, q.b.riverTime(time.Now().Add(-lease)),
			string(StatusQueued), q.cfg.Now().Add(-lease).UnixNano(), sweepBatch}
}

// takeBackOrphan gives message o.id a new job, in one transaction that
// holds its row, if it is still QUEUED, of job o.job (or of none), left
// alone for a lease, and o.job still runs. A worker's claim of the
// message with o.job, before or after, excludes it: the claim makes the
// message RUNNING, and a claim after finds the message another job's
// (claimQueued's condition on job_id) and runs nothing. The take-back
// does not count as an interruption: no run of the message started.
func (q *Queue) takeBackOrphan(ctx context.Context, o orphan, lease time.Duration) (bool, error) {
	taken := false
	err := q.b.inTx(ctx, func(tx dbconn.Conn, insert jobInserter) error {
		var job int64
		rec, err := scanRecord(tx.QueryRow(ctx, `SELECT `+columns+`, job_id FROM handoff_messages WHERE id = ?`+q.b.forUpdate(), o.id), &job)
		if dbconn.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		now := q.cfg.Now()
		if rec.Status != StatusQueued || (job != 0 && job != o.job) || !rec.UpdatedAt.Before(now.Add(-lease)) {
			return nil // claimed, taken back by another replica, or queued again just now
		}
		var state string
		err = tx.QueryRow(ctx, `SELECT state FROM river_job WHERE id = ?`, o.job).Scan(&state)
		if dbconn.IsNoRows(err) || (err == nil && state != "running") {
			return nil // River recorded the job meanwhile: it is not stuck
		}
		if err != nil {
			return err
		}
		opts := q.jobOpts(rec.Envelope)
		if due := q.retryDue(rec); due.After(now) {
			opts.ScheduledAt = due // the retry of a failed run keeps its backoff
		}
		next, err := insertJob(ctx, insert, deliverArgs{ID: o.id}, opts)
		if err != nil {
			return err
		}
		n, err := tx.Exec(ctx, `UPDATE handoff_messages SET job_id = ?, updated_at = ? WHERE id = ? AND status = ? AND job_id = ?`,
			next, now.UnixNano(), o.id, string(StatusQueued), job)
		if err != nil {
			return err
		}
		if n != 1 {
			return errNotTaken // roll the new job back
		}
		q.log.Warn("handoff queue: message taken back: the process that fetched its job stopped before running it",
			"id", o.id, "job", o.job, "new_job", next, "attempts", rec.Attempts)
		taken = true
		return nil
	})
	if errors.Is(err, errNotTaken) {
		return false, nil
	}
	return taken, err
}

// retryDue is when the retry of message rec, QUEUED, is due: the time its
// last run's failure was recorded (rec.UpdatedAt, the last change to a
// message QUEUED for a retry) plus Backoff, when that failure is the last
// thing that happened to it (Failures counted, and not queued again since
// by a hard stop or a take-back of an interrupted run). Zero when it is
// due at once.
func (q *Queue) retryDue(rec Record) time.Time {
	if rec.Failures == 0 || rec.Attempts == 0 ||
		strings.HasPrefix(rec.Error, shutdownError) || strings.HasPrefix(rec.Error, interruptedError) {
		return time.Time{}
	}
	return rec.UpdatedAt.Add(q.cfg.Backoff(rec.Failures))
}

// interruptedError begins the Error of a message whose run was taken back
// as interrupted, due at once (retryDue).
const interruptedError = "interrupted: "

// errNotTaken rolls back a take-back that found the message changed.
var errNotTaken = errors.New("the message changed: not taken back")

// takeBack queues message id again if it is still RUNNING past its lease,
// with a new job, in one transaction that holds its row.
func (q *Queue) takeBack(ctx context.Context, id string) (bool, error) {
	taken := false
	err := q.b.inTx(ctx, func(tx dbconn.Conn, insert jobInserter) error {
		var leaseUntil int64
		rec, err := scanRecord(tx.QueryRow(ctx, `SELECT `+columns+`, lease_until FROM handoff_messages WHERE id = ?`+q.b.forUpdate(), id), &leaseUntil)
		if dbconn.IsNoRows(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Status != StatusRunning || leaseUntil >= time.Now().UnixNano() {
			return nil // finished, renewed, or taken back by another replica
		}
		job, err := insertJob(ctx, insert, deliverArgs{ID: id}, q.jobOpts(rec.Envelope))
		if err != nil {
			return err
		}
		rec.Interruptions++
		msg := fmt.Sprintf(interruptedError+"the run started at %s did not finish (its process stopped)", rec.StartedAt.UTC().Format(time.RFC3339))
		_, err = tx.Exec(ctx, `UPDATE handoff_messages SET status = ?, interruptions = ?, error = ?, run_token = '',
			lease_until = 0, job_id = ?, updated_at = ? WHERE id = ?`,
			string(StatusQueued), rec.Interruptions, msg, job, q.cfg.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		q.log.Warn("handoff queue: run interrupted", "id", id, "interruptions", rec.Interruptions)
		taken = true
		return nil
	})
	return taken, err
}
