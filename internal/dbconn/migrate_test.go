package dbconn

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/pgtest"

	_ "modernc.org/sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testSteps are two steps, each of which fails when applied twice.
var testSteps = []Migration{
	{Version: 1, Name: "a", SQL: `CREATE TABLE a (x INTEGER NOT NULL); CREATE INDEX a_x ON a (x)`},
	{Version: 2, Name: "b", SQL: `CREATE TABLE b (y INTEGER NOT NULL)`},
}

// testLock is the advisory lock key of the tests' schemas.
const testLock int64 = 0x74_65_73_74_6c_6f_63_6b

// backend is a database of one kind for one test.
type backend struct {
	// migrate applies list, recorded in test_migrations, with opts.
	migrate func(list []Migration, opts MigrateOptions) error
	// conn runs statements outside migrations.
	conn Conn
}

func schema(list []Migration) Schema {
	return Schema{Table: "test_migrations", Lock: testLock, SQLite: list, Postgres: list}
}

// openSQLite opens the SQLite file path with the pragmas in dsn's query.
func openSQLite(t *testing.T, path, query string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+query)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func sqliteBackend(t *testing.T) backend {
	db := openSQLite(t, filepath.Join(t.TempDir(), "db"), "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	return backend{
		migrate: func(list []Migration, opts MigrateOptions) error {
			return schema(list).MigrateSQLite(context.Background(), db, opts)
		},
		conn: SQL(db),
	}
}

func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func postgresBackend(t *testing.T) backend {
	pool := openPool(t, pgtest.Schema(t))
	return backend{
		migrate: func(list []Migration, opts MigrateOptions) error {
			return schema(list).MigratePostgres(context.Background(), pool, opts)
		},
		conn: PGX(pool),
	}
}

var backends = []struct {
	name string
	open func(*testing.T) backend
}{{"sqlite", sqliteBackend}, {"postgres", postgresBackend}}

// records is test_migrations as "version name" lines.
func records(t *testing.T, c Conn) string {
	t.Helper()
	rs, err := c.Query(context.Background(), `SELECT version, name FROM test_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var lines []string
	for rs.Next() {
		var v int64
		var n string
		if err := rs.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%d %s", v, n))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// logTo is a logger writing text lines without times to buf.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

func TestMigrate(t *testing.T) {
	tests := []struct {
		name string
		// before are the lists applied first, in order.
		before [][]Migration
		list   []Migration
		// err is what the error says, "" for none.
		err     string
		records string
		// log is what applying list logs.
		log string
	}{
		{name: "fresh", list: testSteps, records: "1 a\n2 b",
			log: "level=INFO msg=\"migration applied\" table=test_migrations version=1 name=a\n" +
				"level=INFO msg=\"migration applied\" table=test_migrations version=2 name=b\n"},
		{name: "partial", before: [][]Migration{testSteps[:1]}, list: testSteps, records: "1 a\n2 b",
			log: "level=INFO msg=\"migration applied\" table=test_migrations version=2 name=b\n"},
		{name: "up to date", before: [][]Migration{testSteps}, list: testSteps, records: "1 a\n2 b"},
		{name: "empty list", list: nil, records: ""},
		// An older binary's shorter list is accepted.
		{name: "newer than the code", before: [][]Migration{testSteps}, list: testSteps[:1], records: "1 a\n2 b"},
		{name: "renamed step", before: [][]Migration{testSteps[:1]},
			list:    []Migration{{Version: 1, Name: "other", SQL: `SELECT 1`}, testSteps[1]},
			err:     `test_migrations records version 1 as "a", not "other": the database belongs to another program or version`,
			records: "1 a"},
		// A failing step fails the call and rolls back its earlier steps.
		{name: "failing step", before: [][]Migration{testSteps[:1]},
			list:    append(testSteps[:2:2], Migration{Version: 3, Name: "bad", SQL: `CREATE TABLE a (x INTEGER)`}),
			err:     "migration 3 (bad): ",
			records: "1 a"},
	}
	for _, b := range backends {
		for _, tc := range tests {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				db := b.open(t)
				for _, l := range tc.before {
					if err := db.migrate(l, MigrateOptions{}); err != nil {
						t.Fatal(err)
					}
				}
				var log bytes.Buffer
				err := db.migrate(tc.list, MigrateOptions{Log: logTo(&log)})
				switch {
				case tc.err == "" && err != nil:
					t.Fatalf("error: %v", err)
				case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
					t.Fatalf("error: %v, want one saying %q", err, tc.err)
				}
				if got := records(t, db.conn); got != tc.records {
					t.Errorf("recorded:\n%s\nwant:\n%s", got, tc.records)
				}
				if got := log.String(); got != tc.log {
					t.Errorf("log:\n%s\nwant:\n%s", got, tc.log)
				}
			})
		}
	}
}

// TestMigrateBeforeHooks: the hook runs under the lock before the steps,
// and its error fails the migration, applying nothing.
func TestMigrateBeforeHooks(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			db := b.open(t)
			// The table, for records (a failed migration on Postgres
			// rolls back its creation too).
			if err := db.migrate(nil, MigrateOptions{}); err != nil {
				t.Fatal(err)
			}
			var calls int
			fail := errors.New("hook failed")
			opts := MigrateOptions{
				BeforeSQLite:   func(context.Context, *sql.Tx) error { calls++; return fail },
				BeforePostgres: func(context.Context) error { calls++; return fail },
			}
			if err := db.migrate(testSteps, opts); !errors.Is(err, fail) {
				t.Errorf("error: %v", err)
			}
			if got := records(t, db.conn); got != "" || calls != 1 {
				t.Errorf("after a failing hook: %q recorded, %d calls", got, calls)
			}
			opts.BeforeSQLite = func(context.Context, *sql.Tx) error { calls++; return nil }
			opts.BeforePostgres = func(context.Context) error { calls++; return nil }
			if err := db.migrate(testSteps, opts); err != nil {
				t.Fatal(err)
			}
			if got := records(t, db.conn); got != "1 a\n2 b" || calls != 2 {
				t.Errorf("%q recorded, %d calls", got, calls)
			}
		})
	}
}

// TestMigrateSQLiteLocks: a migration holds the file's write lock from
// its start even when the database begins its transactions DEFERRED
// (no _txlock): another connection cannot write meanwhile.
func TestMigrateSQLiteLocks(t *testing.T) {
	for _, query := range []string{"_pragma=journal_mode(WAL)", "_pragma=journal_mode(WAL)&_txlock=immediate", "_pragma=journal_mode(DELETE)"} {
		t.Run(query, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			db := openSQLite(t, path, query+"&_pragma=busy_timeout(5000)")
			// busy_timeout 0: a locked database fails at once.
			other := openSQLite(t, path, query+"&_pragma=busy_timeout(0)")
			if _, err := other.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
				t.Fatal(err)
			}
			var blocked error
			hook := func(ctx context.Context, tx *sql.Tx) error {
				_, blocked = other.ExecContext(ctx, `INSERT INTO t VALUES (1)`)
				return nil
			}
			if err := schema(testSteps).MigrateSQLite(context.Background(), db, MigrateOptions{BeforeSQLite: hook}); err != nil {
				t.Fatal(err)
			}
			if blocked == nil || !strings.Contains(blocked.Error(), "database is locked") {
				t.Errorf("another connection's write during the migration: %v", blocked)
			}
			if _, err := other.Exec(`INSERT INTO t VALUES (1)`); err != nil {
				t.Errorf("after the migration: %v", err)
			}
		})
	}
}

// TestMigrateSQLiteConcurrent: processes opening a new file at once (a
// *sql.DB each, beginning DEFERRED transactions) all migrate without
// error; the steps are applied once.
func TestMigrateSQLiteConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	const processes = 4
	logs := make([]bytes.Buffer, processes)
	errs := make([]error, processes)
	dbs := make([]*sql.DB, processes)
	for i := range dbs {
		dbs[i] = openSQLite(t, path, "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range processes {
		wg.Go(func() {
			<-start
			errs[i] = schema(testSteps).MigrateSQLite(context.Background(), dbs[i], MigrateOptions{Log: logTo(&logs[i])})
		})
	}
	close(start)
	wg.Wait()
	applied := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", i, err)
		}
		applied += strings.Count(logs[i].String(), "migration applied")
	}
	if applied != 2 {
		t.Errorf("%d steps applied, want 2", applied)
	}
	if got := records(t, SQL(dbs[0])); got != "1 a\n2 b" {
		t.Errorf("recorded: %q", got)
	}
}

// TestMigratePostgresConcurrent: of two migrators starting at once, one
// takes the lock and applies every step; the other waits for it, then
// finds every step recorded and applies none.
func TestMigratePostgresConcurrent(t *testing.T) {
	url := pgtest.Schema(t)
	first, second := openPool(t, url), openPool(t, url)
	ctx := context.Background()
	locked, release := make(chan struct{}), make(chan struct{})
	var firstLog, secondLog bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- schema(testSteps).MigratePostgres(ctx, first, MigrateOptions{Log: logTo(&firstLog),
			BeforePostgres: func(context.Context) error { close(locked); <-release; return nil }})
	}()
	<-locked
	secondDone := make(chan error, 1)
	go func() {
		secondDone <- schema(testSteps).MigratePostgres(ctx, second, MigrateOptions{Log: logTo(&secondLog)})
	}()
	// Wait until the second waits for the lock (pg_locks: an advisory
	// lock of testLock's halves not granted).
	for {
		var n int
		err := first.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
			AND classid::bigint = $1 AND objid::bigint = $2`, testLock>>32, testLock&0xffffffff).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		select {
		case err := <-secondDone:
			t.Fatalf("the second migrator ended while the first held the lock: %v", err)
		default:
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first: %v", err)
	}
	if err := <-secondDone; err != nil {
		t.Fatalf("second: %v", err)
	}
	if got := strings.Count(firstLog.String(), "migration applied"); got != 2 {
		t.Errorf("the first applied %d steps:\n%s", got, firstLog.String())
	}
	if secondLog.Len() != 0 {
		t.Errorf("the second applied steps:\n%s", secondLog.String())
	}
	if got := records(t, PGX(first)); got != "1 a\n2 b" {
		t.Errorf("recorded: %q", got)
	}
}

func TestMigratePanics(t *testing.T) {
	for name, s := range map[string]Schema{
		"table":   {Table: "x; DROP TABLE y"},
		"empty":   {Table: ""},
		"digit":   {Table: "1x"},
		"upper":   {Table: "X"},
		"version": {Table: "m", SQLite: []Migration{{Version: 2, Name: "a"}}},
		"gap":     {Table: "m", SQLite: []Migration{{Version: 1, Name: "a"}, {Version: 3, Name: "c"}}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			// The check comes before any statement: a closed database
			// is never used.
			db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(t.TempDir(), "db")))
			if err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			_ = s.MigrateSQLite(context.Background(), db, MigrateOptions{})
		})
	}
}
