// Package dbconn runs a package's own statements on the gateway store's
// database, SQLite (database/sql, the modernc driver) or PostgreSQL (pgx),
// with one text per statement: statements are written with ? placeholders
// and the Postgres connection rewrites them to $1, $2, ….
//
// The packages that keep tables in the store's database (store itself,
// handoff/queue, schedule, knowledge/index) use it, and its migration
// runner (Schema) for every table the gateway owns.
package dbconn

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Conn runs statements on a pool, a connection or a transaction. No
// statement may have a ? anywhere but in its placeholders.
type Conn interface {
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// Row is one row of QueryRow.
type Row interface{ Scan(dest ...any) error }

// Rows are the rows of Query; Close them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// SQLQuerier is what database/sql's *DB, *Conn and *Tx have in common.
type SQLQuerier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// PGXQuerier is what pgx's pool, connection and transaction have in
// common.
type PGXQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// SQL is a Conn on database/sql.
func SQL(q SQLQuerier) Conn { return sqlConn{q} }

// PGX is a Conn on pgx.
func PGX(q PGXQuerier) Conn { return pgxConn{q} }

type sqlConn struct{ q SQLQuerier }

func (c sqlConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c sqlConn) QueryRow(ctx context.Context, query string, args ...any) Row {
	return c.q.QueryRowContext(ctx, query, args...)
}

func (c sqlConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	return c.q.QueryContext(ctx, query, args...)
}

type pgxConn struct{ q PGXQuerier }

func (c pgxConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, Rebind(query), args...)
	return tag.RowsAffected(), err
}

func (c pgxConn) QueryRow(ctx context.Context, query string, args ...any) Row {
	return c.q.QueryRow(ctx, Rebind(query), args...)
}

func (c pgxConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	r, err := c.q.Query(ctx, Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	return pgxRows{r}, nil
}

type pgxRows struct{ pgx.Rows }

func (r pgxRows) Close() error { r.Rows.Close(); return nil }

// Rebind turns the ? placeholders of query into Postgres's $1, $2, ….
func Rebind(query string) string {
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

// Placeholders is n placeholders separated by commas: "?, ?, ?".
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// Values is the VALUES list of a multi-row INSERT of rows rows of cols
// columns: "(?, ?), (?, ?)".
func Values(rows, cols int) string {
	if rows <= 0 {
		return ""
	}
	one := "(" + Placeholders(cols) + ")"
	return strings.Repeat(one+", ", rows-1) + one
}

// IsNoRows reports whether err says a single-row query found no row, on
// either backend.
func IsNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}
