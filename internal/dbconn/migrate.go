package dbconn

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// This file is the gateway's one migration runner: every table the
// gateway owns (the store's, the hand-off queue's, the schedules', the
// knowledge index's) is made and changed by it. Each package keeps its
// own steps next to the queries that use them, in a Schema, recorded in
// a table of its own; River's tables are River's, applied by River's
// migrator under the queue's lock (MigrateOptions' hooks).
//
// Why a list in code and not a migration library (golang-migrate, goose,
// atlas): the schemas are a handful of tables; the runner is a hundred
// lines, adds no dependency and keeps the SQL in the binary. What the
// libraries add that matters here is the concurrency story, and it is
// small: the runner takes the database's lock at the start of the
// migrating transaction, so of several replicas starting at once one
// migrates and the others wait, then find every step recorded. Down
// migrations are not wanted: a rollback is a restore.

// A Migration is one step of a package's own schema: one or more
// statements, separated by semicolons, for one backend. A package keeps
// one list per backend, steps numbered from 1 up by one; a published step
// is never edited, steps are additive (new tables, columns with defaults,
// indexes), so that a replica of the previous release keeps working on a
// database a newer one migrated.
type Migration struct {
	// Version is the step's number, its index in the list plus one.
	Version int
	// Name says what the step does; the record of an applied step must
	// name it the same.
	Name string
	// SQL is the step's statements.
	SQL string
}

// A Schema is one package's own tables, step by step, on both backends.
type Schema struct {
	// Table records the applied steps (version, name, applied_at). It
	// must be a plain lower-case SQL identifier, one per package.
	Table string
	// Lock is the key of the Postgres advisory lock the package migrates
	// under: the same in every replica and release, another package's
	// never (packages then do not wait for each other).
	Lock int64
	// SQLite and Postgres are the steps of each backend.
	SQLite, Postgres []Migration
}

// MigrateOptions are the optional parts of a migration.
type MigrateOptions struct {
	// Log gets an INFO line per step applied, once the migration is
	// committed (default: none).
	Log *slog.Logger
	// BeforeSQLite, when set, runs first in the migrating transaction,
	// under its lock: another migrator whose steps must be applied under
	// the same lock (River's).
	BeforeSQLite func(ctx context.Context, tx *sql.Tx) error
	// BeforePostgres, when set, runs first under the lock, while the
	// migrating transaction is open, on connections of the pool's own
	// (River's migrator, whose steps cannot share one transaction): the
	// pool must have a connection to spare beside the transaction's.
	BeforePostgres func(ctx context.Context) error
}

// createTable makes a schema's table of applied steps; %s is its name.
// applied_at is text, the database's CURRENT_TIMESTAMP; nothing reads it
// (an older store's schema_migrations has TIMESTAMP, TIMESTAMPTZ on
// Postgres: the runner only reads version and name and inserts them, so
// it works on both shapes).
const createTable = `CREATE TABLE IF NOT EXISTS %s (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
)`

// MigrateSQLite applies the steps of s.SQLite that db lacks, in one
// transaction that holds the database's write lock from its first
// statement (whether or not db begins its transactions IMMEDIATE): of
// several processes opening the file at once one migrates, the others
// wait (busy_timeout) and then find every step recorded. A failing step
// rolls back every step of the call. SQLite's DDL is transactional.
func (s Schema) MigrateSQLite(ctx context.Context, db *sql.DB, opts MigrateOptions) error {
	s.check(s.SQLite)
	for attempt := 1; ; attempt++ {
		done, err := s.migrateSQLiteOnce(ctx, db, opts)
		if err == nil {
			s.logApplied(ctx, opts, done)
			return nil
		}
		// A deferred transaction that read before it wrote (the table's
		// CREATE IF NOT EXISTS found it there) cannot take the write
		// lock once another process has written since its read began:
		// SQLite answers SQLITE_BUSY at once, which busy_timeout cannot
		// help, and the whole transaction is tried again on a fresh
		// snapshot. On a db that begins its transactions IMMEDIATE (the
		// gateway's), BeginTx waits for the lock and this never happens.
		if attempt == sqliteBusyAttempts || !isSQLiteBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("migrating %s: %w", s.Table, ctx.Err())
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		}
	}
}

// sqliteBusyAttempts bounds the tries of a SQLite migration that another
// process's write made fail with SQLITE_BUSY.
const sqliteBusyAttempts = 10

// isSQLiteBusy reports whether err is SQLite's "database is locked"
// (SQLITE_BUSY, with any extended code), as the pure-Go driver words it.
func isSQLiteBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// migrateSQLiteOnce is one try of MigrateSQLite: the steps it applied, or
// an error and nothing applied.
func (s Schema) migrateSQLiteOnce(ctx context.Context, db *sql.DB, opts MigrateOptions) (done []Migration, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("beginning the migration: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	// The table, inside the transaction: a process that creates it holds
	// the write lock from then on; two that race are serialized by the
	// lock (an autocommit CREATE beside the transaction could fail at once
	// with SQLITE_BUSY when another process had just written).
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(createTable, s.Table)); err != nil {
		return nil, fmt.Errorf("creating %s: %w", s.Table, err)
	}
	// A write to the table takes the write lock when the CREATE found the
	// table and so only read (on a db opened _txlock=immediate, BeginTx
	// took the lock already).
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+s.Table+` WHERE version < 0`); err != nil {
		return nil, fmt.Errorf("taking the write lock: %w", err)
	}
	if opts.BeforeSQLite != nil {
		if err := opts.BeforeSQLite(ctx, tx); err != nil {
			return nil, err
		}
	}
	done, err = apply(ctx, SQL(tx), s.Table, s.SQLite)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("committing the migration: %w", err)
	}
	return done, nil
}

// MigratePostgres applies the steps of s.Postgres that pool's database
// lacks (in pool's search_path), in one transaction that first takes the
// transaction-scoped advisory lock s.Lock: of several replicas starting at
// once one migrates, the others wait for the lock (released when the
// first commits, or when its connection dies) and then find every step
// recorded. A failing step rolls back every step of the call.
func (s Schema) MigratePostgres(ctx context.Context, pool *pgxpool.Pool, opts MigrateOptions) error {
	s.check(s.Postgres)
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("beginning the migration: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // after Commit, a no-op
	c := PGX(tx)
	if _, err := c.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, s.Lock); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	if _, err := c.Exec(ctx, fmt.Sprintf(createTable, s.Table)); err != nil {
		return fmt.Errorf("creating %s: %w", s.Table, err)
	}
	if opts.BeforePostgres != nil {
		if err := opts.BeforePostgres(ctx); err != nil {
			return err
		}
	}
	done, err := apply(ctx, c, s.Table, s.Postgres)
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("committing the migration: %w", err)
	}
	s.logApplied(ctx, opts, done)
	return nil
}

// logApplied logs a line per step of done, once they are committed.
func (s Schema) logApplied(ctx context.Context, opts MigrateOptions, done []Migration) {
	if opts.Log == nil {
		return
	}
	for _, m := range done {
		opts.Log.InfoContext(ctx, "migration applied", "table", s.Table, "version", m.Version, "name", m.Name)
	}
}

// check panics when s.Table is not a plain SQL identifier or list is not
// numbered 1, 2, …: both are the program's mistakes.
func (s Schema) check(list []Migration) {
	if !isIdentifier(s.Table) {
		panic(fmt.Sprintf("dbconn: migrations table %q is not a plain identifier", s.Table))
	}
	for i, m := range list {
		if m.Version != i+1 {
			panic(fmt.Sprintf("dbconn: %s: migration %q has version %d, want %d", s.Table, m.Name, m.Version, i+1))
		}
	}
}

// apply applies the steps of list that tx's table does not record, in
// order, recording each in table in tx. A database recording versions
// beyond list is accepted (a replica of the previous release keeps
// working beside a newer one); one recording a version under another name
// is an error. It returns the steps it applied.
func apply(ctx context.Context, tx Conn, table string, list []Migration) ([]Migration, error) {
	applied, err := recorded(ctx, tx, table)
	if err != nil {
		return nil, err
	}
	var done []Migration
	for _, m := range list {
		name, ok := applied[int64(m.Version)]
		if ok && name != m.Name {
			return nil, fmt.Errorf("%s records version %d as %q, not %q: the database belongs to another program or version", table, m.Version, name, m.Name)
		}
		if ok {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return nil, fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+table+` (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			return nil, fmt.Errorf("recording migration %d (%s): %w", m.Version, m.Name, err)
		}
		done = append(done, m)
	}
	return done, nil
}

// recorded reads table: version → name.
func recorded(ctx context.Context, tx Conn, table string) (map[int64]string, error) {
	rs, err := tx.Query(ctx, `SELECT version, name FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	defer rs.Close()
	applied := map[int64]string{}
	for rs.Next() {
		var v int64
		var name string
		if err := rs.Scan(&v, &name); err != nil {
			return nil, fmt.Errorf("reading %s: %w", table, err)
		}
		applied[v] = name
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	return applied, nil
}

// isIdentifier reports whether s is a lower-case SQL identifier that
// needs no quoting: a letter or underscore, then letters, digits and
// underscores.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
