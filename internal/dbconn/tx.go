package dbconn

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// InTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise.
type InTx func(ctx context.Context, fn func(tx Conn) error) error

// TxSQL is InTx on the SQLite database db (its BeginTx takes the write
// lock when db was opened with _txlock=immediate, as the store's is).
func TxSQL(db *sql.DB) InTx {
	return func(ctx context.Context, fn func(tx Conn) error) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		if err := fn(SQL(tx)); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("committing: %w", err)
		}
		return nil
	}
}

// TxPGX is InTx on the PostgreSQL database of pool.
func TxPGX(pool *pgxpool.Pool) InTx {
	return func(ctx context.Context, fn func(tx Conn) error) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		if err := fn(PGX(tx)); err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("committing: %w", err)
		}
		return nil
	}
}
