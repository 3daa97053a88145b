package queue

import (
	"context"
	"errors"
	"fmt"
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
			q.log.Warn("handoff queue: runs interrupted: their process stopped; taken back", "runs", n)
		}
		if err := q.dormant(ctx); err != nil && ctx.Err() == nil {
			q.log.Warn("handoff queue: looking for work", "error", err)
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
	return taken, errors.Join(errs...)
}

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
		job, err := insert(ctx, deliverArgs{ID: id}, q.jobOpts(rec.Envelope))
		if err != nil {
			return err
		}
		rec.Interruptions++
		msg := fmt.Sprintf("interrupted: the run started at %s did not finish (its process stopped)", rec.StartedAt.UTC().Format(time.RFC3339))
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
