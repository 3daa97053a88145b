package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// writeTx is the index's read-write transaction: statements, and the bulk
// writes of Replace and Writer, which take the way each database writes
// many rows fastest. Exactly one of sqlTx and pgTx is set.
type writeTx struct {
	dbconn.Conn
	sqlTx *sql.Tx
	pgTx  pgx.Tx
}

// sqliteValuesParams bounds the parameters of one multi-row statement on
// SQLite (its limit is 32,766): a statement of that many is prepared
// once a transaction and run for each full block of rows.
const sqliteValuesParams = 5000

// insert inserts n rows into table's columns cols; row sets row i's
// values in dst (one per column), which insert reuses for the next row
// once it has read them. On Postgres it is a COPY, on SQLite multi-row
// INSERTs of one prepared statement.
func (tx writeTx) insert(ctx context.Context, table string, cols []string, n int, row func(i int, dst []any)) error {
	if n == 0 {
		return nil
	}
	if tx.pgTx != nil {
		src := &rowSource{n: n, i: -1, row: row, vals: make([]any, len(cols))}
		_, err := tx.pgTx.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
		return err
	}
	head := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES `
	return tx.sqliteValues(ctx, head, "", len(cols), n, row)
}

// addTerms adds deltas[t] to the document frequency of each of terms in
// kbID, making the rows that are missing. terms must be sorted and
// distinct: concurrent writers then lock rows in one order.
func (tx writeTx) addTerms(ctx context.Context, kbID int64, terms []string, deltas map[string]int) error {
	if len(terms) == 0 {
		return nil
	}
	if tx.pgTx != nil {
		dfs := make([]int64, len(terms))
		for i, t := range terms {
			dfs[i] = int64(deltas[t])
		}
		_, err := tx.Exec(ctx, `INSERT INTO kb_terms (kb_id, term, df) SELECT ?::bigint, t, n FROM unnest(?::text[], ?::bigint[]) AS u(t, n)
ON CONFLICT (kb_id, term) DO UPDATE SET df = kb_terms.df + excluded.df`, kbID, terms, dfs)
		return err
	}
	var kb any = kbID
	return tx.sqliteValues(ctx, `INSERT INTO kb_terms (kb_id, term, df) VALUES `,
		` ON CONFLICT (kb_id, term) DO UPDATE SET df = kb_terms.df + excluded.df`, 3, len(terms),
		func(i int, dst []any) { dst[0], dst[1], dst[2] = kb, terms[i], deltas[terms[i]] })
}

// sqliteValues runs head + VALUES rows + tail over n rows of cols
// columns: full blocks of sqliteValuesParams/cols rows through one
// prepared statement (parsing a statement of thousands of parameters
// costs as much as running it), the rest through one more. Both are
// prepared on the transaction, not run by text: the store's connections
// keep the statements run by text (sqlitestore's statement cache), and
// these large ones, whose text hangs on the number of rows, would push
// out the small ones it is for.
func (tx writeTx) sqliteValues(ctx context.Context, head, tail string, cols, n int, row func(i int, dst []any)) error {
	block := min(n, sqliteValuesParams/cols)
	args := make([]any, block*cols)
	for i := 0; i < n; {
		rows := min(block, n-i)
		stmt, err := tx.sqlTx.PrepareContext(ctx, head+dbconn.Values(rows, cols)+tail)
		if err != nil {
			return err
		}
		for ; n-i >= rows; i += rows {
			a := args[:rows*cols]
			for r := range rows {
				row(i+r, a[r*cols:(r+1)*cols])
			}
			if _, err := stmt.ExecContext(ctx, a...); err != nil {
				_ = stmt.Close()
				return err
			}
		}
		if err := stmt.Close(); err != nil {
			return err
		}
	}
	return nil
}

// rowSource is pgx's CopyFromSource over insert's rows.
type rowSource struct {
	n, i int
	row  func(i int, dst []any)
	vals []any
}

func (s *rowSource) Next() bool {
	s.i++
	return s.i < s.n
}

func (s *rowSource) Values() ([]any, error) {
	s.row(s.i, s.vals)
	return s.vals, nil
}

func (s *rowSource) Err() error { return nil }

// sqliteWriteTx runs fn in a read-write transaction of db (BEGIN
// IMMEDIATE: the store's database takes the write lock at once).
func sqliteWriteTx(db *sql.DB) func(ctx context.Context, fn func(tx writeTx) error) error {
	return func(ctx context.Context, fn func(tx writeTx) error) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		if err := fn(writeTx{Conn: dbconn.SQL(tx), sqlTx: tx}); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("committing: %w", err)
		}
		return nil
	}
}

// pgxBeginner is what pgxWriteTx needs of a pool.
type pgxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// pgxWriteTx runs fn in a read-write transaction of pool.
func pgxWriteTx(pool pgxBeginner) func(ctx context.Context, fn func(tx writeTx) error) error {
	return func(ctx context.Context, fn func(tx writeTx) error) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return fmt.Errorf("beginning a transaction: %w", err)
		}
		if err := fn(writeTx{Conn: dbconn.PGX(tx), pgTx: tx}); err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("committing: %w", err)
		}
		return nil
	}
}
