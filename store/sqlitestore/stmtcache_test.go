package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// pinned is one connection of the store's write pool and its cache.
type pinned struct {
	*sql.Conn
	t *testing.T
}

func (p pinned) cache() (compiled, held int) {
	p.t.Helper()
	if err := p.Raw(func(dc any) error {
		c := dc.(*cachingConn)
		compiled, held = c.compiled, len(c.stmts)
		return nil
	}); err != nil {
		p.t.Fatal(err)
	}
	return compiled, held
}

func (p pinned) exec(query string, args ...any) {
	p.t.Helper()
	if _, err := p.ExecContext(context.Background(), query, args...); err != nil {
		p.t.Fatalf("%s: %v", query, err)
	}
}

func (p pinned) one(query string, args ...any) string {
	p.t.Helper()
	var s string
	if err := p.QueryRowContext(context.Background(), query, args...).Scan(&s); err != nil {
		p.t.Fatalf("%s: %v", query, err)
	}
	return s
}

// TestStatementCache: a connection of the write pool compiles a statement
// once and runs it again from its cache, with other arguments, in and out
// of transactions; a query run again while its rows are open runs
// uncached and both read their own rows; a statement cached before a
// change of the schema sees the new schema; the cache holds at most
// stmtCacheSize statements, the least recently used finalized; a script
// of several statements runs whole every time.
func TestStatementCache(t *testing.T) {
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "cache.db"))
	conn, err := s.DB().Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p := pinned{conn, t}
	p.exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)`)

	for _, tc := range []struct {
		name     string
		run      func(t *testing.T)
		compiled int // statements compiled by run
	}{
		{"repeated", func(t *testing.T) {
			for i := range 100 {
				p.exec(`INSERT INTO t (k, v) VALUES (?, ?)`, i, fmt.Sprint("v", i))
			}
			tx, err := conn.BeginTx(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				var v string
				if err := tx.QueryRow(`SELECT v FROM t WHERE k = ?`, i).Scan(&v); err != nil || v != fmt.Sprint("v", i) {
					t.Fatalf("row %d: %q, %v", i, v, err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}, 2},
		{"the same query while its rows are open", func(t *testing.T) {
			const q = `SELECT k FROM t WHERE k >= ? ORDER BY k`
			rows, err := conn.QueryContext(t.Context(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for want := 10; want < 13; want++ {
				var k int
				if !rows.Next() || rows.Scan(&k) != nil || k != want {
					t.Fatalf("outer row %d: %d, %v", want, k, rows.Err())
				}
				if got := p.one(q, k+50); got != fmt.Sprint(k+50) {
					t.Fatalf("inner query from %d: %s", k+50, got)
				}
			}
		}, 4}, // the outer once, the inner uncached three times
		{"the schema changed", func(t *testing.T) {
			p.exec(`CREATE TABLE u (a TEXT)`)
			p.exec(`INSERT INTO u (a) VALUES ('x')`)
			const q = `SELECT * FROM u`
			if got := p.one(q); got != "x" {
				t.Fatalf("before: %s", got)
			}
			p.exec(`ALTER TABLE u ADD COLUMN b TEXT DEFAULT 'y'`)
			var a, b string
			if err := conn.QueryRowContext(t.Context(), q).Scan(&a, &b); err != nil || a != "x" || b != "y" {
				t.Fatalf("after: %q %q, %v", a, b, err)
			}
		}, 4}, // the SELECT after the change from the cache: SQLite compiles it again itself
		{"a script", func(t *testing.T) {
			for range 2 {
				p.exec(`INSERT INTO t (v) VALUES ('s1'); INSERT INTO t (v) VALUES ('s2')`)
			}
			if got := p.one(`SELECT count(*) FROM t WHERE v IN ('s1', 's2')`); got != "4" {
				t.Fatalf("%s rows of the script", got)
			}
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			before, _ := p.cache()
			tc.run(t)
			if after, _ := p.cache(); after-before != tc.compiled {
				t.Errorf("%d statements compiled, want %d", after-before, tc.compiled)
			}
		})
	}

	// The cache's bound: more distinct statements than it holds.
	p.t = t
	for i := range 2 * stmtCacheSize {
		if got := p.one(fmt.Sprintf(`SELECT %d + ?`, i), 1); got != fmt.Sprint(i+1) {
			t.Fatalf("statement %d: %s", i, got)
		}
	}
	before, held := p.cache()
	if held != stmtCacheSize {
		t.Errorf("%d statements held, want %d", held, stmtCacheSize)
	}
	p.one(`SELECT 0 + ?`, 1) // the least recently used: finalized, compiled again
	p.one(fmt.Sprintf(`SELECT %d + ?`, 2*stmtCacheSize-1), 1)
	if after, _ := p.cache(); after-before != 1 {
		t.Errorf("%d compiled, want the evicted one only", after-before)
	}
}
