package queue

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// pgTx is a Postgres transaction as the queue's statements see it, which
// also sends batches (pgLockedRow).
type pgTx struct {
	dbconn.Conn
	tx pgx.Tx
}

// taskLockSQL holds, until the transaction ends, the lock of the one
// owner's task its argument names (a transaction advisory lock).
const taskLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`

// pgLockedRow is backend.lockedRow on Postgres: the task's lock and query
// in one batch, one round trip. They stay two statements: in READ
// COMMITTED each takes its snapshot when it starts, so query sees every
// message committed by the transaction that held the lock before.
func pgLockedRow(ctx context.Context, tx dbconn.Conn, key, query string, args []any) dbconn.Row {
	t, ok := tx.(pgTx)
	if !ok { // not the backend's own transaction: one statement each
		if _, err := tx.Exec(ctx, taskLockSQL, key); err != nil {
			return errRow{err}
		}
		return tx.QueryRow(ctx, query, args...)
	}
	b := &pgx.Batch{}
	b.Queue(taskLockSQL, key)
	b.Queue(dbconn.Rebind(query), args...)
	return batchRow{t.tx.SendBatch(ctx, b)}
}

// batchRow is the row of pgLockedRow's query, read once the lock's result
// is: the batch is closed when it is scanned.
type batchRow struct{ br pgx.BatchResults }

// Scan implements dbconn.Row.
func (r batchRow) Scan(dest ...any) error {
	_, err := r.br.Exec()
	if err == nil {
		err = r.br.QueryRow().Scan(dest...)
	}
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// errRow is a row whose statement failed.
type errRow struct{ err error }

// Scan implements dbconn.Row.
func (r errRow) Scan(...any) error { return r.err }
