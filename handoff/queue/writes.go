package queue

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// Group commit of the writes of runs. A claim (claimQueued's UPDATE …
// RETURNING) and an outcome (update's UPDATE) are each one statement
// outside a transaction; those that arrive while a batch of them is
// written are written together in the next: on Postgres in one batch of
// statements, one round trip and one commit (pgx runs a batch without a
// BEGIN in one implicit transaction), on SQLite in one transaction. A
// write alone is its statement alone, as it was.
//
// A batch that fails commits nothing (one member's statement failing
// fails the transaction); each member is then written alone, in its
// caller's goroutine, as a write that failed on its own would be: a
// claim's error goes to River, which tries the job again, and an
// outcome is tried again (update's retry). Each statement is conditional
// on the row it changes, so writing it again after a failure whose commit
// is unknown (the connection cut as the batch ended) changes nothing it
// should not: a claim finds the message RUNNING and waits for its lease,
// as after a lone claim whose answer was lost; an outcome finds its run
// token gone and changes nothing.

// maxWriteBatch bounds the statements of one batch of writes; writeSlots
// is how many batches a process writes at once.
const (
	maxWriteBatch = 128
	writeSlots    = 4
)

// writeCall is one write: its statement, and what its batch made of it
// (set before done is closed).
type writeCall struct {
	ctx   context.Context
	query string
	args  []any
	// scan reads the statement's row; nil: the statement is an Exec,
	// whose rows affected are n. scan returns nil for no row when that
	// is an answer.
	scan func(dbconn.Row) error
	done chan struct{}

	n   int64
	err error
	// alone: the statement is to be run alone, by its caller.
	alone bool
}

// write runs query with args, with the writes of other runs that meet it
// in a batch, and hands its row to scan; with scan nil it returns the
// rows affected.
func (q *Queue) write(ctx context.Context, scan func(dbconn.Row) error, query string, args ...any) (int64, error) {
	c := &writeCall{ctx: ctx, query: query, args: args, scan: scan, done: make(chan struct{})}
	if q.writes.add(c, writeSlots) {
		q.writes.lead(maxWriteBatch, q.runWrites)
	}
	if err := awaitBatch(ctx, c.done); err != nil {
		// Its batch may still commit it, as a lone statement whose
		// context ends as its commit is sent.
		return 0, err
	}
	return q.written(c)
}

// written is what write answers for c, whose batch is done: c's statement
// run alone first when the batch failed.
func (q *Queue) written(c *writeCall) (int64, error) {
	if !c.alone {
		return c.n, c.err
	}
	if c.scan == nil {
		return q.b.conn().Exec(c.ctx, c.query, c.args...)
	}
	return 0, c.scan(q.b.conn().QueryRow(c.ctx, c.query, c.args...))
}

// runWrites writes calls in one transaction and tells each how it went:
// a call alone is its statement alone (its error its own); every call of
// a batch that failed is marked to run alone.
func (q *Queue) runWrites(calls []*writeCall) {
	defer func() {
		for _, c := range calls {
			close(c.done)
		}
	}()
	live := make([]*writeCall, 0, len(calls))
	ctxs := make([]context.Context, 0, len(calls))
	for _, c := range calls {
		if err := c.ctx.Err(); err != nil {
			c.err = context.Cause(c.ctx)
			continue
		}
		live, ctxs = append(live, c), append(ctxs, c.ctx)
	}
	switch len(live) {
	case 0:
		return
	case 1: // its statement alone, as it was; the next wait for it
		c := live[0]
		if c.scan == nil {
			c.n, c.err = q.b.conn().Exec(c.ctx, c.query, c.args...)
		} else {
			c.err = c.scan(q.b.conn().QueryRow(c.ctx, c.query, c.args...))
		}
		return
	}
	ctx, stop := batchContext(ctxs)
	defer stop()
	if err := q.b.writeBatch(ctx, live); err != nil {
		q.log.Debug("handoff queue: a batch of writes failed; each is written alone", "writes", len(live), "error", err)
		for _, c := range live {
			c.alone = true
		}
	}
}

// pgWrites is backend.writeBatch on Postgres: calls in one batch of
// statements, which pgx runs in one implicit transaction.
func pgWrites(ctx context.Context, pool *pgxpool.Pool, calls []*writeCall) error {
	b := &pgx.Batch{}
	for _, c := range calls {
		b.Queue(dbconn.Rebind(c.query), c.args...)
	}
	br := pool.SendBatch(ctx, b)
	err := func() error {
		for _, c := range calls {
			if c.scan != nil {
				if err := c.scan(br.QueryRow()); err != nil {
					return err
				}
				continue
			}
			tag, err := br.Exec()
			if err != nil {
				return err
			}
			c.n = tag.RowsAffected()
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// sqliteWrites is backend.writeBatch on SQLite: calls in one transaction.
func sqliteWrites(ctx context.Context, db *sql.DB, calls []*writeCall) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	conn := dbconn.SQL(tx)
	for _, c := range calls {
		if c.scan != nil {
			err = c.scan(conn.QueryRow(ctx, c.query, c.args...))
		} else {
			c.n, err = conn.Exec(ctx, c.query, c.args...)
		}
		if err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}
