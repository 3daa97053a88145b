package schedule

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// This file is handoff/queue's db.go with the package name changed: the two
// packages keep their own tables in the store's database the same way. A
// third user would be the time to move it to an internal package.

// conn runs the package's statements, on a pool or in a transaction, on
// either backend. Statements are written once with ? placeholders; the
// Postgres conn rewrites them to $1, $2, … (no statement of this package
// has a ? anywhere else).
type conn interface {
	exec(ctx context.Context, query string, args ...any) (int64, error)
	queryRow(ctx context.Context, query string, args ...any) row
	query(ctx context.Context, query string, args ...any) (rows, error)
}

type row interface{ Scan(dest ...any) error }

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// sqlConn is a conn on database/sql: a *sql.DB or a *sql.Tx.
type sqlConn struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
}

func (c sqlConn) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) queryRow(ctx context.Context, query string, args ...any) row {
	return c.q.QueryRowContext(ctx, query, args...)
}

func (c sqlConn) query(ctx context.Context, query string, args ...any) (rows, error) {
	return c.q.QueryContext(ctx, query, args...)
}

// pgxConn is a conn on pgx: a *pgxpool.Pool or a pgx.Tx.
type pgxConn struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	}
}

func (c pgxConn) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, rebind(query), args...)
	return tag.RowsAffected(), err
}

func (c pgxConn) queryRow(ctx context.Context, query string, args ...any) row {
	return c.q.QueryRow(ctx, rebind(query), args...)
}

func (c pgxConn) query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := c.q.Query(ctx, rebind(query), args...)
	if err != nil {
		return nil, err
	}
	return pgxRows{r}, nil
}

type pgxRows struct{ pgx.Rows }

func (r pgxRows) Close() error { r.Rows.Close(); return nil }

// rebind turns the ? placeholders of query into Postgres's $1, $2, ….
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isNoRows reports whether err says a single-row query found no row, on
// either backend.
func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}

// isUniqueViolation reports whether err is a unique constraint's failure,
// on either backend: Postgres's SQLSTATE 23505, SQLite's
// SQLITE_CONSTRAINT_UNIQUE (the modernc driver's message names it).
func isUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}
