package dbconn

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/pgtest"

	_ "modernc.org/sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var testMigrations = []Migration{
	{Version: 1, Name: "a", SQL: `CREATE TABLE a (x INTEGER NOT NULL); CREATE INDEX a_x ON a (x)`},
	{Version: 2, Name: "b", SQL: `CREATE TABLE b (y INTEGER NOT NULL)`},
}

// inTx runs fn in a transaction of the backend, committed when fn returns
// nil, rolled back otherwise.
type inTx func(t *testing.T, fn func(Conn) error) error

func sqliteTx(t *testing.T) inTx {
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "db"))+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return func(t *testing.T, fn func(Conn) error) error {
		tx, err := db.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(SQL(tx)); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
}

func postgresTx(t *testing.T) inTx {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(ctx) })
	return func(t *testing.T, fn func(Conn) error) error {
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(PGX(tx)); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		return tx.Commit(ctx)
	}
}

func TestApplyMigrations(t *testing.T) {
	for name, open := range map[string]func(*testing.T) inTx{"sqlite": sqliteTx, "postgres": postgresTx} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			run := open(t)
			apply := func(list []Migration) error {
				return run(t, func(c Conn) error { return ApplyMigrations(ctx, c, "test_migrations", list) })
			}
			recorded := func() string {
				var names []string
				err := run(t, func(c Conn) error {
					rs, err := c.Query(ctx, `SELECT version, name FROM test_migrations ORDER BY version`)
					if err != nil {
						return err
					}
					defer rs.Close()
					for rs.Next() {
						var v int64
						var n string
						if err := rs.Scan(&v, &n); err != nil {
							return err
						}
						names = append(names, n)
					}
					return rs.Err()
				})
				if err != nil {
					t.Fatal(err)
				}
				return strings.Join(names, ",")
			}

			if err := apply(testMigrations[:1]); err != nil {
				t.Fatal(err)
			}
			if got := recorded(); got != "a" {
				t.Fatalf("after step 1: %q recorded", got)
			}
			// Again, and with a later step: only the new one runs (a
			// second CREATE TABLE a would fail).
			for range 2 {
				if err := apply(testMigrations); err != nil {
					t.Fatal(err)
				}
			}
			if got := recorded(); got != "a,b" {
				t.Fatalf("after steps 1-2: %q recorded", got)
			}
			// An older binary's shorter list is accepted.
			if err := apply(testMigrations[:1]); err != nil {
				t.Errorf("older list: %v", err)
			}
			// A step recorded under another name is refused.
			other := []Migration{{Version: 1, Name: "other", SQL: `SELECT 1`}}
			if err := apply(other); err == nil || !strings.Contains(err.Error(), `test_migrations records version 1 as "a", not "other"`) {
				t.Errorf("renamed step: %v", err)
			}
			// A failing step is reported and leaves nothing recorded.
			bad := append(testMigrations[:2:2], Migration{Version: 3, Name: "bad", SQL: `CREATE TABLE a (x INTEGER)`})
			if err := apply(bad); err == nil || !strings.Contains(err.Error(), "migration 3 (bad)") {
				t.Errorf("failing step: %v", err)
			}
			if got := recorded(); got != "a,b" {
				t.Errorf("after a failing step: %q recorded", got)
			}
		})
	}
}

func TestApplyMigrationsPanics(t *testing.T) {
	for name, tc := range map[string]struct {
		table string
		list  []Migration
	}{
		"table":   {"x; DROP TABLE y", nil},
		"empty":   {"", nil},
		"digit":   {"1x", nil},
		"version": {"m", []Migration{{Version: 2, Name: "a"}}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			_ = ApplyMigrations(context.Background(), panicConn{}, tc.table, tc.list)
		})
	}
}

// panicConn is a Conn whose statements succeed, finding no rows.
type panicConn struct{}

func (panicConn) Exec(context.Context, string, ...any) (int64, error) { return 0, nil }
func (panicConn) QueryRow(context.Context, string, ...any) Row        { return nil }
func (panicConn) Query(context.Context, string, ...any) (Rows, error) { return noRows{}, nil }

type noRows struct{}

func (noRows) Next() bool        { return false }
func (noRows) Scan(...any) error { return nil }
func (noRows) Err() error        { return nil }
func (noRows) Close() error      { return nil }
