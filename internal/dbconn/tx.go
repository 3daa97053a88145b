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

// MigrateSQLite applies list to db in one transaction (ApplyMigrations,
// recorded in table); db's BeginTx takes the write lock, so of several
// processes starting at once one migrates and the others then find every
// step recorded.
func MigrateSQLite(ctx context.Context, db *sql.DB, table string, list []Migration) error {
	return TxSQL(db)(ctx, func(tx Conn) error { return ApplyMigrations(ctx, tx, table, list) })
}

// MigratePostgres applies list in one transaction that first takes the
// transaction-scoped advisory lock lock: of several replicas starting at
// once one migrates, the others wait for the lock (released when the first
// commits, or when its connection dies) and then find every step recorded.
func MigratePostgres(ctx context.Context, pool *pgxpool.Pool, lock int64, table string, list []Migration) error {
	return TxPGX(pool)(ctx, func(tx Conn) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, lock); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
		return ApplyMigrations(ctx, tx, table, list)
	})
}
