package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/riverqueue/river"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// Group commit of Enqueues. Each Enqueue waits for the transaction that
// holds its message's row and job to commit; Enqueues that arrive while
// one such transaction is being written are queued in the next, together:
// one transaction, one commit and, on Postgres, three round trips for
// the whole batch (its BEGIN, every task's lock and every row in one
// batch of statements, then River's jobs in one statement, then the
// commit) instead of three each. A message alone waits for nobody: its
// batch is itself.
//
// What a batch keeps of a message queued alone:
//   - A caller is answered only after its batch committed; an error is
//     never an acknowledgement.
//   - A batch that fails before its commit (one member's statement, a
//     deadlock with another replica's batch, the store failing) commits
//     nothing; each member is then queued again alone, in its own
//     caller's goroutine, with its own context, so each caller gets its
//     own answer. A batch whose commit fails answers the commit's error to
//     every member (the commit may have happened: the caller sends again,
//     and a message that was queued is answered as it is, not twice).
//   - Tasks' locks are taken in one order (by key) in every batch, so two
//     batches cannot each wait for a lock the other holds; a task's
//     messages keep their order within a batch (their seq and their jobs).
//   - A task's bound counts the batch's earlier messages of the task: each
//     row's status is counted in its INSERT, in the batch's transaction.

// maxEnqueueBatch bounds the messages of one batch; enqueueSlots is how
// many batches a process writes at once.
const (
	maxEnqueueBatch = 128
	enqueueSlots    = 1
)

// batcher gathers the calls that arrive while slots batches of them are
// being written, for the next batch. running is how many are.
type batcher[C any] struct {
	mu      sync.Mutex
	pending []C
	running int
}

// add puts c in the next batch and says whether the caller leads one
// (lead): when fewer than slots batches are being written.
func (b *batcher[C]) add(c C, slots int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, c)
	if b.running < slots {
		b.running++
		return true
	}
	return false
}

// lead writes the pending calls with write, at most limit at a time,
// until none is left: the first batch in the caller's goroutine, the next
// in a goroutine of its own, so that the leader is answered as soon as
// its own batch is written. (Another leader may have taken the caller's
// call into its batch: the caller waits for that one.)
func (b *batcher[C]) lead(limit int, write func([]C)) {
	b.mu.Lock()
	n := min(len(b.pending), limit)
	batch := slices.Clone(b.pending[:n])
	b.pending = slices.Delete(b.pending, 0, n)
	b.mu.Unlock()
	if n > 0 {
		write(batch)
	}
	b.mu.Lock()
	more := len(b.pending) > 0
	if !more {
		b.running--
	}
	b.mu.Unlock()
	if more {
		go b.lead(limit, write)
	}
}

// enqueueCall is one Enqueue: its message, and what its batch made of it
// (set before done is closed).
type enqueueCall struct {
	ctx  context.Context
	env  Envelope
	from string
	done chan struct{}

	rec   Record
	fresh bool
	// limit says why a fresh message is DEAD at a bound ("" when not).
	limit string
	err   error
	// alone: the batch failed before its commit; the call queues its
	// message in a transaction of its own.
	alone bool
}

// enqueue queues env, an escalation of message from when from is set. The
// message's row and its River job are inserted in one transaction, with
// those of the other Enqueues of its batch: there is never one without
// the other.
func (q *Queue) enqueue(ctx context.Context, env Envelope, from string) (Record, bool, error) {
	if err := check(&env); err != nil {
		return Record{}, false, err
	}
	c := &enqueueCall{ctx: ctx, env: env, from: from, done: make(chan struct{})}
	if q.enqueues.add(c, enqueueSlots) {
		q.enqueues.lead(maxEnqueueBatch, q.runBatch)
	}
	if err := awaitBatch(ctx, c.done); err != nil {
		// Its batch may still commit it: the caller is not told it was
		// queued, and sending it again is answered as it is.
		return Record{}, false, fmt.Errorf("queue: queuing message %s: %w", env.ID, err)
	}
	return q.answer(c)
}

// awaitBatch waits for done, closed when a call's batch is done, or for
// ctx: its cause when ctx ends first (a batch done at the same moment
// counts as done).
func awaitBatch(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		select {
		case <-done:
			return nil
		default:
			return context.Cause(ctx)
		}
	}
}

// answer is what Enqueue answers for c, whose batch is done: c's message
// queued alone first when its batch failed before its commit.
func (q *Queue) answer(c *enqueueCall) (Record, bool, error) {
	env := c.env
	if c.alone {
		c.err = q.insertBatch(c.ctx, []*enqueueCall{c})
	}
	if c.err != nil {
		return Record{}, false, fmt.Errorf("queue: queuing message %s: %w", env.ID, c.err)
	}
	if c.fresh && c.limit != "" {
		q.log.Warn("handoff queue: message dead at a bound of its task", "id", env.ID, "task", env.TaskID,
			"recipient", env.Recipient, "hops", env.Hops, "code", CodeLimit, "error", c.limit)
		if q.cfg.OnLimit != nil {
			q.cfg.OnLimit(env)
		}
	}
	return c.rec, c.fresh, nil
}

// runBatch writes calls in one transaction and tells each how it went:
// the members whose context ended before are left out; when the
// transaction fails before its commit, each member is marked to queue
// its message alone (a batch of one gets the error).
func (q *Queue) runBatch(calls []*enqueueCall) {
	defer func() {
		for _, c := range calls {
			close(c.done)
		}
	}()
	live := make([]*enqueueCall, 0, len(calls))
	for _, c := range calls {
		if err := c.ctx.Err(); err != nil {
			c.err = context.Cause(c.ctx)
			continue
		}
		live = append(live, c)
	}
	if len(live) == 0 {
		return
	}
	ctxs := make([]context.Context, len(live))
	for i, c := range live {
		ctxs[i] = c.ctx
	}
	ctx, stop := batchContext(ctxs)
	defer stop()
	err := q.insertBatch(ctx, live)
	var commit *commitError
	if err == nil || len(live) == 1 || errors.As(err, &commit) {
		for _, c := range live {
			c.err = err
		}
		return
	}
	for _, c := range live {
		c.alone = true
	}
}

// batchContext is a context for the statements of a batch whose calls'
// contexts are ctxs: ended when every one of them has ended, with the
// values of the first.
func batchContext(ctxs []context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctxs[0]))
	var left atomic.Int64
	left.Store(int64(len(ctxs)))
	stops := make([]func() bool, len(ctxs))
	for i, c := range ctxs {
		stops[i] = context.AfterFunc(c, func() {
			if left.Add(-1) == 0 {
				cancel(context.Cause(c))
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
}

// commitError is the failure of a batch's commit: the batch may have
// committed, so its members are not queued again alone.
type commitError struct{ err error }

func (e *commitError) Error() string { return "committing: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// enqueueRow is a member of insertBatch: its call, its row's statement
// and what the statement made of it.
type enqueueRow struct {
	c       *enqueueCall
	key     string // the task's lock ("" when the message is not counted)
	status  Status
	code    string
	limit   string
	done    int64 // finished_at
	seq     int64
	counted string // the status the INSERT counted
	fresh   bool
}

// insertBatch inserts the messages of calls and their jobs in one
// transaction, and on success sets each call's record, freshness and
// limit. A failure of the commit is a *commitError.
func (q *Queue) insertBatch(ctx context.Context, calls []*enqueueCall) error {
	now := q.cfg.Now().UnixNano()
	rows := make([]enqueueRow, len(calls))
	for i, c := range calls {
		r := enqueueRow{c: c, status: StatusQueued, limit: q.overHops(c.env)}
		if r.limit != "" {
			r.status, r.code, r.done = StatusDead, CodeLimit, now
		} else if q.cfg.MaxMessagesPerTask > 0 && c.env.TaskID != "" {
			// A bounded task: its status is counted in its INSERT, under
			// the task's lock: QUEUED, or DEAD when the task is full.
			r.key = c.env.Owner + "/" + c.env.TaskID
		}
		rows[i] = r
	}
	// One order of the tasks' locks in every transaction; a task's
	// messages keep theirs.
	slices.SortStableFunc(rows, func(a, b enqueueRow) int { return strings.Compare(a.key, b.key) })
	recs := make([]Record, len(rows))
	committing := false
	err := q.b.inTx(ctx, func(tx dbconn.Conn, insert jobInserter) error {
		qs := make([]lockedQuery, len(rows))
		for i := range rows {
			qs[i] = q.insertQuery(&rows[i], now)
		}
		err := q.b.lockedRows(ctx, tx, qs, func(i int, row dbconn.Row) error {
			err := row.Scan(&rows[i].seq, &rows[i].counted)
			if dbconn.IsNoRows(err) {
				return nil // the id is taken
			}
			rows[i].fresh = err == nil
			return err
		})
		if err != nil {
			return err
		}
		var jobs []river.InsertManyParams
		for i := range rows {
			r := &rows[i]
			env := r.c.env
			if !r.fresh {
				// The record as it is, read in this transaction: a fresh
				// message is answered as it was queued, never as a worker
				// that took it a moment later made it.
				if recs[i], err = scanRecord(tx.QueryRow(ctx, `SELECT `+columns+` FROM handoff_messages WHERE id = ?`, env.ID)); err != nil {
					return fmt.Errorf("reading it back: %w", err)
				}
				continue
			}
			if r.key != "" && Status(r.counted) == StatusDead {
				// The task is full: the message's error says how full,
				// still under the task's lock.
				r.status, r.code, r.done = StatusDead, CodeLimit, now
				later := 0
				for _, o := range rows[i+1:] {
					if o.fresh && o.key == r.key {
						later++
					}
				}
				if r.limit, err = q.taskFull(ctx, tx, env, later); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, `UPDATE handoff_messages SET code = ?, error = ?, finished_at = ? WHERE id = ?`,
					r.code, r.limit, r.done, env.ID); err != nil {
					return err
				}
			}
			if r.limit == "" { // DEAD: no job
				jobs = append(jobs, river.InsertManyParams{Args: deliverArgs{ID: env.ID}, InsertOpts: q.jobOpts(env)})
			}
			// The row as inserted, without reading it back (what
			// scanRecord would read: the times through the column's
			// nanoseconds).
			rec := Record{Envelope: env, Status: r.status, Error: r.limit, Code: r.code, EscalatedFrom: r.c.from,
				Seq: r.seq, CreatedAt: fromUnixNano(now), UpdatedAt: fromUnixNano(now), FinishedAt: fromUnixNano(r.done)}
			rec.ExpiresAt = fromUnixNano(unixNano(env.ExpiresAt))
			if len(env.Payload) == 0 {
				rec.Payload = nil
			}
			recs[i] = rec
		}
		if len(jobs) > 0 {
			if _, err := insert(ctx, jobs); err != nil {
				return err
			}
		}
		committing = true
		return nil
	})
	if err != nil {
		if committing {
			return &commitError{err}
		}
		return err
	}
	for i, r := range rows {
		r.c.rec, r.c.fresh = recs[i], r.fresh
		if r.fresh {
			r.c.limit = r.limit
		}
	}
	return nil
}

// lockedQuery is a statement of backend.lockedRows: query with args, run
// once the transaction holds the lock of the task key names ("" none).
type lockedQuery struct {
	key   string
	query string
	args  []any
}

// insertQuery is the INSERT of r's message, its status counted when it
// is in a bounded task (r.key).
func (q *Queue) insertQuery(r *enqueueRow, now int64) lockedQuery {
	env := r.c.env
	statusSQL, statusArgs := "?", []any{string(r.status)}
	if r.key != "" {
		statusSQL = `CASE WHEN (SELECT count(*) FROM handoff_messages WHERE owner = ? AND task_id = ?) >= ?
				THEN '` + string(StatusDead) + `' ELSE '` + string(StatusQueued) + `' END`
		statusArgs = []any{env.Owner, env.TaskID, q.cfg.MaxMessagesPerTask}
	}
	query := `INSERT INTO handoff_messages (id, task_id, correlation_id, recipient, priority,
			expires_at, retry_count, escalate_to, fallback_action, payload, escalated_from, status, created_at, updated_at,
			owner, hops, code, error, finished_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ` + statusSQL + `, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING RETURNING seq, status`
	args := append([]any{env.ID, env.TaskID, env.CorrelationID, env.Recipient, env.Priority,
		unixNano(env.ExpiresAt), env.RetryCount, env.EscalateTo, env.FallbackAction, string(env.Payload), r.c.from},
		statusArgs...)
	args = append(args, now, now, env.Owner, env.Hops, r.code, r.limit, r.done)
	return lockedQuery{key: r.key, query: query, args: args}
}
