package queue

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// pgTx is a Postgres transaction as the queue's statements see it, which
// also sends batches (pgLockedRow).
type pgTx struct {
	dbconn.Conn
	tx *lazyTx
}

// lazyTx is a transaction of pool that begins with its first statement:
// a batch (sendBatch) carries the BEGIN with it (pgx's Batch.BeginTx), one
// round trip less; any other first statement begins it on its own, as
// pool.Begin does. Committing or rolling back one that never began does
// nothing. It is the pgx.Tx River's InsertTx takes.
type lazyTx struct {
	pool *pgxpool.Pool
	tx   pgx.Tx // nil until it begins
}

var _ pgx.Tx = (*lazyTx)(nil)

// begun returns the transaction, begun.
func (t *lazyTx) begun(ctx context.Context) (pgx.Tx, error) {
	if t.tx == nil {
		tx, err := t.pool.Begin(ctx)
		if err != nil {
			return nil, err
		}
		t.tx = tx
	}
	return t.tx, nil
}

// sendBatch sends the batch that fill queues, in the transaction; when the
// transaction has not begun, the batch begins it and began is true: its
// first result is the BEGIN's.
func (t *lazyTx) sendBatch(ctx context.Context, fill func(b *pgx.Batch)) (br pgx.BatchResults, began bool) {
	b := &pgx.Batch{}
	if t.tx != nil {
		fill(b)
		return t.tx.SendBatch(ctx, b), false
	}
	b.BeginTx(pgx.TxOptions{})
	fill(b)
	br = t.pool.SendBatch(ctx, b)
	t.tx = br.Tx()
	return br, true
}

// Begin implements pgx.Tx: a savepoint of the transaction.
func (t *lazyTx) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := t.begun(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Begin(ctx)
}

// Commit implements pgx.Tx.
func (t *lazyTx) Commit(ctx context.Context) error {
	if t.tx == nil {
		return nil
	}
	return t.tx.Commit(ctx)
}

// Rollback implements pgx.Tx.
func (t *lazyTx) Rollback(ctx context.Context) error {
	if t.tx == nil {
		return nil
	}
	return t.tx.Rollback(ctx)
}

// CopyFrom implements pgx.Tx.
func (t *lazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	tx, err := t.begun(ctx)
	if err != nil {
		return 0, err
	}
	return tx.CopyFrom(ctx, table, columns, src)
}

// SendBatch implements pgx.Tx.
func (t *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	tx, err := t.begun(ctx)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return tx.SendBatch(ctx, b)
}

// LargeObjects implements pgx.Tx; the queue uses none.
func (t *lazyTx) LargeObjects() pgx.LargeObjects {
	tx, err := t.begun(context.Background())
	if err != nil {
		return pgx.LargeObjects{}
	}
	return tx.LargeObjects()
}

// Prepare implements pgx.Tx.
func (t *lazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	tx, err := t.begun(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Prepare(ctx, name, sql)
}

// Exec implements pgx.Tx.
func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tx, err := t.begun(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return tx.Exec(ctx, sql, args...)
}

// Query implements pgx.Tx.
func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tx, err := t.begun(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Query(ctx, sql, args...)
}

// QueryRow implements pgx.Tx.
func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	tx, err := t.begun(ctx)
	if err != nil {
		return errRow{err}
	}
	return tx.QueryRow(ctx, sql, args...)
}

// Conn implements pgx.Tx: nil before the transaction began.
func (t *lazyTx) Conn() *pgx.Conn {
	if t.tx == nil {
		return nil
	}
	return t.tx.Conn()
}

// taskLockSQL holds, until the transaction ends, the lock of the one
// owner's task its argument names (a transaction advisory lock).
const taskLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`

// pgLockedRows is backend.lockedRows on Postgres: every statement of qs,
// each after its task's lock, in one batch, one round trip (with the
// BEGIN when they are the transaction's first statements). The lock and
// its statement stay two statements: in READ COMMITTED each takes its
// snapshot when it starts, so the statement sees every message committed
// by the transaction that held the lock before.
func pgLockedRows(ctx context.Context, tx dbconn.Conn, qs []lockedQuery, scan func(i int, r dbconn.Row) error) error {
	t, ok := tx.(pgTx)
	if !ok { // not the backend's own transaction: one statement each
		return lockedRowsEach(ctx, tx, qs, scan, func(key string) error {
			_, err := tx.Exec(ctx, taskLockSQL, key)
			return err
		})
	}
	br, began := t.tx.sendBatch(ctx, func(b *pgx.Batch) {
		for _, q := range qs {
			if q.key != "" {
				b.Queue(taskLockSQL, q.key)
			}
			b.Queue(dbconn.Rebind(q.query), q.args...)
		}
	})
	err := func() error {
		if began {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		for i, q := range qs {
			if q.key != "" {
				if _, err := br.Exec(); err != nil {
					return err
				}
			}
			if err := scan(i, br.QueryRow()); err != nil {
				return err
			}
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return err
}

// lockedRowsEach runs qs one statement at a time, each after lock(key)
// when it names a task (lock nil: the transaction holds every lock, as
// SQLite's does from its start).
func lockedRowsEach(ctx context.Context, tx dbconn.Conn, qs []lockedQuery, scan func(i int, r dbconn.Row) error, lock func(key string) error) error {
	for i, q := range qs {
		if q.key != "" && lock != nil {
			if err := lock(q.key); err != nil {
				return err
			}
		}
		if err := scan(i, tx.QueryRow(ctx, q.query, q.args...)); err != nil {
			return err
		}
	}
	return nil
}

// errRow is a row whose statement failed.
type errRow struct{ err error }

// Scan implements dbconn.Row.
func (r errRow) Scan(...any) error { return r.err }
