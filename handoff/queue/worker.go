package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// jobKind is the kind of the River job that delivers one message.
const jobKind = "agentgw_handoff_deliver"

// deliverArgs are the arguments of a message's River job: only its id.
// The envelope is in handoff_messages, inserted in the same transaction.
type deliverArgs struct {
	ID string `json:"id"`
}

// Kind implements river.JobArgs.
func (deliverArgs) Kind() string { return jobKind }

// worker is the River worker of deliverArgs jobs.
type worker struct {
	river.WorkerDefaults[deliverArgs]
	q *Queue
}

// Timeout implements river.Worker: a handler's time.
func (w *worker) Timeout(*river.Job[deliverArgs]) time.Duration { return w.q.cfg.RunTimeout }

// Work implements river.Worker. A nil error completes the job: the message
// is in a final state, or settled by another run. River retries the job on
// another error (the queue's own database failing), with its default
// backoff; the queue schedules its own retries of failed runs, with
// Config.Backoff, by snoozing the job (which River does not count as an
// attempt).
func (w *worker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	w.q.working.Store(job.ID, struct{}{})
	defer w.q.working.Delete(job.ID)
	return w.q.deliver(ctx, job.Args.ID, job.ID)
}

// shutdownError begins the Error of a message whose run a hard Stop
// cancelled and queued again, due at once (retryDue).
const shutdownError = "interrupted by a shutdown: "

// recordFor bounds how long the outcome of a run is tried again while the
// database does not answer (a brief outage, a restart): a run that
// finished is recorded, not run again, unless the outage outlasts it.
const recordFor = 15 * time.Minute

// claimed is what claim decided to do with a message.
type claimed int

const (
	skip    claimed = iota // final, expired, or unknown: nothing to run
	wait                   // another run holds its lease
	run                    // run the handler
	exhaust                // its retries are spent: escalate, fall back or give up
)

// claim is a message as claim left it.
type claim struct {
	do      claimed
	rec     Record
	wait    time.Duration
	lastErr error
	// final is the status of a message to exhaust that nothing takes
	// over: DEAD, or EXPIRED for one that expired waiting for a retry.
	final Status
}

// attempts says how many runs of rec started and how they ended.
func attempts(rec Record) string {
	s := fmt.Sprintf("%d attempt", rec.Attempts)
	if rec.Attempts != 1 {
		s += "s"
	}
	s += fmt.Sprintf(" (%d failed", rec.Failures)
	if rec.Interruptions > 0 {
		s += fmt.Sprintf(", %d interrupted", rec.Interruptions)
	}
	return s + ")"
}

// deliver runs message id once, for River job jobID: it claims the
// message (the guard against running it twice), runs the handler while
// renewing the run's lease, and records the outcome.
func (q *Queue) deliver(ctx context.Context, id string, jobID int64) error {
	token := uuid.NewString()
	c, err := q.claim(ctx, id, token, jobID)
	if err != nil {
		return fmt.Errorf("queue: claiming message %s: %w", id, err)
	}
	switch c.do {
	case skip:
		return nil
	case wait:
		return river.JobSnooze(c.wait)
	}
	r := &held{id: id, token: token, attempts: c.rec.Attempts}
	ctx, release := q.hold(ctx, r)
	defer release()
	if c.do == exhaust {
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.cfg.RunTimeout)
		defer cancel()
		return q.exhaust(bg, c.rec, r, c.lastErr, c.final)
	}
	result, delivered, herr := q.call(ctx, c.rec.Envelope)
	var refusal *Refusal
	r.ending.Store(true)
	if herr != nil && r.lost.Load() {
		// The message was taken back (this run's heartbeats did not reach
		// the database), which cancelled the handler: the message is
		// another run's, this failure is not its.
		q.log.Warn("handoff queue: a run that lost its lease ended", "id", id, "error", herr)
		return nil
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordFor)
	defer cancel()
	now := q.cfg.Now().UnixNano()
	switch {
	case herr == nil:
		status := StatusCompleted
		if delivered {
			status = StatusDelivered
		}
		return q.update(bg, r, `status = ?, result = ?, error = '', run_token = '', lease_until = 0,
			finished_at = ?, updated_at = ?`, string(status), string(result), now, now)
	case q.stopping.Load() && ctx.Err() != nil:
		// A hard stop cancelled it: not the message's failure. It runs
		// again when a queue starts.
		if err := q.update(bg, r, `status = ?, error = ?, run_token = '', lease_until = 0, updated_at = ?`,
			string(StatusQueued), shutdownError+herr.Error(), now); err != nil {
			return err
		}
		return river.JobSnooze(0)
	case errors.As(herr, &refusal):
		// It may never run: DEAD now, not retried, escalated nor
		// fallen back to.
		q.log.Warn("handoff queue: message refused", "id", id, "recipient", c.rec.Recipient, "code", refusal.Code, "error", herr)
		return q.update(bg, r, `status = ?, code = ?, error = ?, run_token = '', lease_until = 0, finished_at = ?,
			updated_at = ?`, string(StatusDead), refusal.Code, refusal.Error(), now, now)
	case IsUnavailable(herr):
		// The handler could not tell whether it may run: not its
		// failure. QUEUED again, and River runs the job again after its
		// retry policy's wait, as when the queue's own database fails.
		q.log.Warn("handoff queue: could not tell whether a message may run; it runs again", "id", id, "error", herr)
		if err := q.update(bg, r, `status = ?, error = ?, run_token = '', lease_until = 0, updated_at = ?`,
			string(StatusQueued), herr.Error(), now); err != nil {
			return err
		}
		return fmt.Errorf("queue: message %s: %w", id, herr)
	}
	failures := c.rec.Failures + 1
	q.log.Warn("handoff queue: run failed", "id", id, "recipient", c.rec.Recipient,
		"failure", failures, "retries", c.rec.RetryCount, "error", herr)
	if failures > c.rec.RetryCount {
		if err := q.update(bg, r, `failures = ?, error = ?, lease_until = ?, updated_at = ?`,
			failures, herr.Error(), q.lease(), now); err != nil {
			return err
		}
		xctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.cfg.RunTimeout)
		defer cancel()
		c.rec.Failures, c.rec.Error = failures, herr.Error()
		return q.exhaust(xctx, c.rec, r, herr, StatusDead)
	}
	if err := q.update(bg, r, `status = ?, failures = ?, error = ?, run_token = '', lease_until = 0, updated_at = ?`,
		string(StatusQueued), failures, herr.Error(), now); err != nil {
		return err
	}
	return river.JobSnooze(q.cfg.Backoff(failures))
}

// lease is when a run holding a message now is taken for interrupted
// unless it renews its lease: MissedHeartbeats heartbeats from now, on
// the real clock (a lease is about processes, not messages).
func (q *Queue) lease() int64 {
	return time.Now().Add(MissedHeartbeats * q.cfg.Heartbeat).UnixNano()
}

// claim decides, in one transaction that holds the message's row, what to
// do with message id for River job jobID, and takes the message (RUNNING,
// a fresh run token and lease, the job) when it is to run or be
// exhausted. A message RUNNING whose lease has passed was interrupted
// (its process stopped): that counts as an interruption, not a failure.
// A job that is not the message's (the job of an interrupted run, rescued
// by River after the run was taken back with a new job) runs nothing.
func (q *Queue) claim(ctx context.Context, id, token string, jobID int64) (claim, error) {
	if c, ok, err := q.claimQueued(ctx, id, token, jobID); ok || err != nil {
		return c, err
	}
	var c claim
	err := q.b.inTx(ctx, func(tx dbconn.Conn, _ jobInserter) error {
		var leaseUntil, job int64
		rec, err := scanRecord(tx.QueryRow(ctx, `SELECT `+columns+`, lease_until, job_id FROM handoff_messages WHERE id = ?`+q.b.forUpdate(), id), &leaseUntil, &job)
		if dbconn.IsNoRows(err) {
			q.log.Error("handoff queue: a job for a message the queue does not hold", "id", id)
			c.do = skip
			return nil
		}
		if err != nil {
			return err
		}
		c.rec = rec
		if rec.Status.Final() {
			c.do = skip
			return nil
		}
		wall := time.Now().UnixNano()
		if rec.Status == StatusRunning && leaseUntil > wall {
			c.do, c.wait = wait, time.Duration(leaseUntil-wall)
			return nil
		}
		if job != 0 && job != jobID {
			c.do = skip // another job runs the message
			return nil
		}
		now := q.cfg.Now()
		if rec.Status == StatusRunning {
			rec.Interruptions++
			rec.Error = fmt.Sprintf(interruptedError+"the run started at %s did not finish (its process stopped)", rec.StartedAt.UTC().Format(time.RFC3339))
			q.log.Warn("handoff queue: run interrupted", "id", id, "interruptions", rec.Interruptions)
		}
		if !rec.ExpiresAt.IsZero() && !now.Before(rec.ExpiresAt) && rec.Attempts > 0 {
			// It ran and failed (or was cut off), and expired waiting for
			// its retry: that is its failure, and its failure strategy
			// applies, its escalation or fallback; EXPIRED when neither
			// takes it over.
			c.do, c.final = exhaust, StatusExpired
			c.lastErr = fmt.Errorf("expired at %s after %s, before its retry; the last failure: %s",
				rec.ExpiresAt.UTC().Format(time.RFC3339Nano), attempts(rec), rec.Error)
			rec.Error = c.lastErr.Error()
			_, err := tx.Exec(ctx, `UPDATE handoff_messages SET status = ?, interruptions = ?, error = ?, run_token = ?,
				lease_until = ?, updated_at = ?, job_id = ? WHERE id = ?`,
				string(StatusRunning), rec.Interruptions, rec.Error, token, q.lease(), now.UnixNano(), jobID, id)
			c.rec = rec
			return err
		}
		if !rec.ExpiresAt.IsZero() && !now.Before(rec.ExpiresAt) {
			c.do = skip
			_, err := tx.Exec(ctx, `UPDATE handoff_messages SET status = ?, error = ?, interruptions = ?, run_token = '',
				lease_until = 0, finished_at = ?, updated_at = ? WHERE id = ?`,
				string(StatusExpired), "expired at "+rec.ExpiresAt.UTC().Format(time.RFC3339Nano)+", before it ran",
				rec.Interruptions, now.UnixNano(), now.UnixNano(), id)
			return err
		}
		if rec.Failures > rec.RetryCount || rec.Interruptions > q.cfg.MaxInterruptions {
			c.do, c.final, c.lastErr = exhaust, StatusDead, errors.New(rec.Error)
			if rec.Interruptions > q.cfg.MaxInterruptions {
				c.lastErr = fmt.Errorf("interrupted %d times; the last: %s", rec.Interruptions, rec.Error)
			}
			_, err := tx.Exec(ctx, `UPDATE handoff_messages SET status = ?, interruptions = ?, error = ?, run_token = ?,
				lease_until = ?, updated_at = ?, job_id = ? WHERE id = ?`,
				string(StatusRunning), rec.Interruptions, rec.Error, token, q.lease(), now.UnixNano(), jobID, id)
			c.rec = rec
			return err
		}
		c.do = run
		rec.Attempts++
		_, err = tx.Exec(ctx, `UPDATE handoff_messages SET status = ?, attempts = ?, interruptions = ?, error = ?,
			run_token = ?, lease_until = ?, started_at = ?, updated_at = ?, job_id = ? WHERE id = ?`,
			string(StatusRunning), rec.Attempts, rec.Interruptions, rec.Error, token, q.lease(),
			now.UnixNano(), now.UnixNano(), jobID, id)
		c.rec = rec
		return err
	})
	return c, err
}

// claimQueued is claim's common case in one statement, without a
// transaction: a message QUEUED, of this job or of none, not expired,
// whose failures and interruptions are within its bounds, is taken to run
// (what claim's transaction does to it), and ok is true. Any other
// message (RUNNING, final, expired, to exhaust, another job's, unknown)
// is left as it is, ok false, for claim's transaction to decide. The
// single UPDATE is atomic on both databases (on PostgreSQL its WHERE is
// checked again on the row it locks), so two jobs of one message cannot
// both take it.
func (q *Queue) claimQueued(ctx context.Context, id, token string, jobID int64) (claim, bool, error) {
	now := q.cfg.Now()
	var rec Record
	taken := false
	_, err := q.write(ctx, func(row dbconn.Row) (err error) {
		rec, err = scanRecord(row)
		taken = err == nil
		if dbconn.IsNoRows(err) {
			return nil // not QUEUED as claimed: claim's transaction decides
		}
		return err
	}, `UPDATE handoff_messages SET status = ?, attempts = attempts + 1,
		run_token = ?, lease_until = ?, started_at = ?, updated_at = ?, job_id = ?
		WHERE id = ? AND status = ? AND (job_id = 0 OR job_id = ?) AND (expires_at = 0 OR expires_at > ?)
		AND failures <= retry_count AND interruptions <= ?
		RETURNING `+columns,
		string(StatusRunning), token, q.lease(), now.UnixNano(), now.UnixNano(), jobID,
		id, string(StatusQueued), jobID, now.UnixNano(), q.cfg.MaxInterruptions)
	if err != nil || !taken {
		return claim{}, false, err
	}
	return claim{do: run, rec: rec}, true, nil
}

// update sets the columns of set on the message run r holds, if it still
// holds it: its run token is the message's, or the message was taken
// back as interrupted while the database did not answer the run's
// heartbeats and has not started again since. A run that no longer holds
// it (another run took the message over) changes nothing, and says so in
// the log.
//
// A write that fails (the database briefly unreachable) is tried again,
// with backoff up to a heartbeat, until it succeeds or ctx ends: the
// outcome of a finished run is recorded, not lost and run again.
func (q *Queue) update(ctx context.Context, r *held, set string, args ...any) error {
	where := ` WHERE id = ? AND (run_token = ? OR (run_token = '' AND status = ? AND attempts = ?))`
	args = append(args, r.id, r.token, string(StatusQueued), r.attempts)
	var n int64
	query, first := `UPDATE handoff_messages SET `+set+where, true
	err := q.retry(ctx, "recording message "+r.id, func() (err error) {
		if first { // with the outcomes of other runs
			first = false
			n, err = q.write(ctx, nil, query, args...)
			return err
		}
		n, err = q.b.conn().Exec(ctx, query, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("queue: recording message %s: %w", r.id, err)
	}
	if n == 0 {
		q.log.Warn("handoff queue: a run outlived its lease; another run took the message over", "id", r.id)
	}
	return nil
}

// deliveredKey is the context key of the flag MarkDelivered sets.
type deliveredKey struct{}

// MarkDelivered, called by a Handler, says that the handler hands the
// message on (to a remote recipient that queues it) rather than running
// it: when the handler returns without error, the message is DELIVERED,
// not COMPLETED, with the handler's result. Outside a Handler it does
// nothing.
func MarkDelivered(ctx context.Context) {
	if f, ok := ctx.Value(deliveredKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// call runs the handler on env. A panic is a failed run, and so is a
// result that is not JSON.
func (q *Queue) call(ctx context.Context, env Envelope) (result json.RawMessage, delivered bool, err error) {
	flag := new(atomic.Bool)
	hctx := context.WithValue(ctx, deliveredKey{}, flag)
	defer func() {
		if p := recover(); p != nil {
			q.log.Error("handoff queue: handler panicked", "id", env.ID, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, fmt.Errorf("the handler panicked: %v", p)
		}
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s: %w", q.cfg.RunTimeout, err)
		}
		delivered = flag.Load()
	}()
	result, err = q.cfg.Handler(hctx, env)
	if err == nil && len(result) > 0 && !json.Valid(result) {
		return nil, false, errors.New("the handler's result is not JSON")
	}
	return result, false, err
}

// exhaust settles a message whose retries are spent (or that expired
// waiting for one), holding it with token: escalated when it names
// EscalateTo and Config.Escalate gives a message (FAILED), else its
// fallback run when it names a FallbackAction and the fallback succeeds
// (FAILED), else final (DEAD, or EXPIRED). Each step that did not take it
// over is noted in its Error; a fallback that refused the message (a
// Refusal) gives it the refusal's Code, and one that could not tell
// whether it may run (Unavailable) leaves it QUEUED for River to run the
// job, and exhaust it, again.
func (q *Queue) exhaust(ctx context.Context, rec Record, r *held, lastErr error, final Status) error {
	env := rec.Envelope
	notes := []string{lastErr.Error()}
	now := func() int64 { return q.cfg.Now().UnixNano() }
	if env.EscalateTo != "" {
		next, err := q.cfg.Escalate(ctx, env, lastErr)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("escalating to %s failed: %v", env.EscalateTo, err))
		case next != nil && next.ID == env.ID:
			notes = append(notes, fmt.Sprintf("escalating to %s failed: the escalation has the message's own id", env.EscalateTo))
		case next != nil:
			// The escalation is the message's owner's, one hop further,
			// whatever Escalate said: it counts against the same bounds.
			next.Owner, next.Hops = env.Owner, max(next.Hops, env.Hops+1)
			if !next.ExpiresAt.IsZero() && !q.cfg.Now().Before(next.ExpiresAt) {
				// It takes over a message that ran out of time: it is not
				// born expired.
				next.ExpiresAt = time.Time{}
			}
			taken, err := q.escalationTaken(ctx, *next, env.ID)
			if err != nil {
				return err // River tries again; the enqueue is idempotent
			}
			if taken {
				// Another owner's message has the escalation's id (it is
				// derived from the message's): it is not this escalation.
				notes = append(notes, fmt.Sprintf("escalating to %s failed: its id %s is taken by another message", env.EscalateTo, next.ID))
				break
			}
			q.log.Info("handoff queue: escalated", "id", env.ID, "to", next.Recipient, "escalation", next.ID)
			return q.update(ctx, r, `status = ?, escalated_to = ?, run_token = '', lease_until = 0,
				finished_at = ?, updated_at = ?`, string(StatusFailed), next.ID, now(), now())
		}
	}
	code := ""
	if env.FallbackAction != "" {
		if q.cfg.Fallback == nil {
			notes = append(notes, fmt.Sprintf("fallback %s: no fallback is configured", env.FallbackAction))
		} else {
			res, err := q.fallback(ctx, env, lastErr)
			if err == nil {
				q.log.Info("handoff queue: fell back", "id", env.ID, "action", env.FallbackAction)
				return q.update(ctx, r, `status = ?, fallback_ran = 1, result = ?, run_token = '',
					lease_until = 0, finished_at = ?, updated_at = ?`, string(StatusFailed), string(res), now(), now())
			}
			if IsUnavailable(err) {
				// Whether the fallback may run is not known yet: the
				// message waits, QUEUED with its failure, and River runs
				// the job again, which exhausts it again.
				q.log.Warn("handoff queue: could not tell whether a fallback may run; it runs again", "id", env.ID, "action", env.FallbackAction, "error", err)
				if err := q.update(ctx, r, `status = ?, run_token = '', lease_until = 0, updated_at = ?`, string(StatusQueued), now()); err != nil {
					return err
				}
				return fmt.Errorf("queue: message %s, fallback %s: %w", env.ID, env.FallbackAction, err)
			}
			var refusal *Refusal
			if errors.As(err, &refusal) {
				// The fallback may not run the message: the refusal's
				// code says why nothing took it over.
				code = refusal.Code
			}
			notes = append(notes, fmt.Sprintf("fallback %s failed: %v", env.FallbackAction, err))
		}
	}
	q.log.Warn("handoff queue: "+strings.ToLower(string(final)), "id", env.ID, "error", strings.Join(notes, "; "))
	return q.update(ctx, r, `status = ?, code = ?, error = ?, run_token = '', lease_until = 0, finished_at = ?,
		updated_at = ?`, string(final), code, strings.Join(notes, "; "), now(), now())
}

// escalationTaken queues next, the escalation of message from, and
// reports whether its id was taken by a message of another owner or that
// escalates another message (one submitted with the derived id before).
func (q *Queue) escalationTaken(ctx context.Context, next Envelope, from string) (bool, error) {
	rec, fresh, err := q.enqueue(ctx, next, from)
	if err != nil {
		return false, err
	}
	return !fresh && (rec.Owner != next.Owner || rec.EscalatedFrom != from), nil
}

// fallback runs Config.Fallback; a panic or a result that is not JSON is
// its failure.
func (q *Queue) fallback(ctx context.Context, env Envelope, lastErr error) (res json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panicked: %v", p)
		}
	}()
	res, err = q.cfg.Fallback(ctx, env, lastErr)
	if err == nil && len(res) > 0 && !json.Valid(res) {
		return nil, errors.New("its result is not JSON")
	}
	return res, err
}
