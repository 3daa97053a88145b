package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/storetest"
)

// newClock starts at the real time: a store opened later with the real
// clock (a second instance, a reopened file) must agree on what is live.
func newClock() *testclock.Clock { return testclock.New(time.Now()) }

// openTestSQLite opens the store at path, closed when the test ends.
func openTestSQLite(t testing.TB, path string) *SQLite {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// TestContract: SQLite keeps the contract of every backend, two
// instances on one file too.
func TestContract(t *testing.T) {
	storetest.Contract(t, storetest.Backend{
		Open: func(t *testing.T, now func() time.Time) store.Store {
			s := openTestSQLite(t, filepath.Join(t.TempDir(), "store.db"))
			s.now = now
			return s
		},
		Another: func(t *testing.T, s store.Store) store.Store {
			other := openTestSQLite(t, s.(*SQLite).path)
			other.now = s.(*SQLite).now
			return other
		},
		DoesIO: true,
	})
}

// TestAcrossProcesses: two processes share one file (storetest's
// AcrossProcesses).
func TestAcrossProcesses(t *testing.T) {
	storetest.AcrossProcesses(t,
		func(t *testing.T) string { return filepath.Join(t.TempDir(), "procs.db") },
		func(t testing.TB, db string) store.Store { return openTestSQLite(t, db) })
}

func TestSQLiteInstancesShareTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := openTestSQLite(t, path), openTestSQLite(t, path)
	if err := a.Put(ctx, "run-1", []byte("paused"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Get(ctx, "run-1"); err != nil || string(v) != "paused" {
		t.Fatalf("b.Get = %q, %v", v, err)
	}
	if err := b.Put(ctx, "run-1", []byte("again"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Take(ctx, "run-1"); err != nil || string(v) != "again" {
		t.Fatalf("a.Take = %q, %v", v, err)
	}
	if v, err := b.Take(ctx, "run-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("b.Take after a.Take = %q, %v", v, err)
	}
	var mode string
	if err := a.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int
	if err := b.db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != int(busyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
}

// TestWriterCacheBounded: the writer's connection keeps at most
// writerCacheKiB of pages (cache_size), the pools SQLite's default; the
// writer's cache is the one that fills under load (bench/README.md,
// 2026-11-30).
func TestWriterCacheBounded(t *testing.T) {
	ctx := context.Background()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "cache.db"))
	if err := s.Put(ctx, "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		db   *sql.DB
		want int
	}{
		{"writer", s.w.db, -writerCacheKiB},
		{"write pool", s.db, -2000},
		{"read pool", s.rdb, -2000},
	} {
		var n int
		if err := c.db.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n); err != nil || n != c.want {
			t.Errorf("%s: cache_size = %d, %v; want %d", c.name, n, err, c.want)
		}
	}
}

// TestSQLiteSweep: expired rows are deleted every store.SweepEvery puts and when
// a store is opened; live ones stay.
func TestSQLiteSweep(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sweep.db")
	c := newClock()
	s := openTestSQLite(t, path)
	s.now = c.Now
	for i := range 10 {
		if err := s.Put(ctx, fmt.Sprint("old", i), nil, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c.Advance(time.Second)
	for i := range store.SweepEvery - 11 {
		if err := s.Put(ctx, fmt.Sprint("new", i), nil, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if n := countRows(t, s); n != store.SweepEvery-1 {
		t.Fatalf("%d rows before the sweep, want %d", n, store.SweepEvery-1)
	}
	if err := s.Put(ctx, "last", nil, time.Minute); err != nil { // the store.SweepEvery-th put
		t.Fatal(err)
	}
	if n := countRows(t, s); n != store.SweepEvery-10 {
		t.Errorf("%d rows after the sweep, want the %d live ones", n, store.SweepEvery-10)
	}

	for i := range 5 { // expired for the real clock of the next open too
		if err := s.Put(ctx, fmt.Sprint("gone", i), nil, -time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	reopened := openTestSQLite(t, path)
	if n := countRows(t, reopened); n != store.SweepEvery-10 {
		t.Errorf("%d rows after opening, want %d", n, store.SweepEvery-10)
	}
}

func countRows(t *testing.T, s *SQLite) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM store`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	otherTable := filepath.Join(dir, "other.db")
	o := openTestSQLite(t, otherTable)
	if _, err := o.db.Exec(`DROP TABLE store; CREATE TABLE store (id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"", "store: SQLite path is empty"},
		{filepath.Join(dir, "missing", "s.db"), "store: migrating SQLite database " + filepath.Join(dir, "missing", "s.db")},
		{notDB, "store: migrating SQLite database " + notDB + ": beginning the migration: file is not a database"},
		{otherTable, `has a table "store" of another shape`},
	}
	for _, tt := range tests {
		s, err := Open(tt.path)
		if err == nil {
			_ = s.Close()
			t.Errorf("Open(%q) succeeded", tt.path)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%q) = %v, want it to say %q", tt.path, err, tt.want)
		}
	}
}

// TestOpenOddPath: characters that mean something in a URI are part
// of the file name.
func TestOpenOddPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a b?c=1#d%20.db")
	s := openTestSQLite(t, path)
	if err := s.Put(context.Background(), "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at its path: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) == 0 || len(entries) > 3 { // the file, -wal, -shm
		t.Errorf("files in the directory: %v", entries)
	}
}

func BenchmarkSQLitePutTake(b *testing.B) {
	s := openTestSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	ctx := context.Background()
	value := []byte(strings.Repeat("x", 512))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Put(ctx, "run", value, time.Minute); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Take(ctx, "run"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSQLiteAdoptsUnversionedFile: a file made before migrations were
// recorded keeps its rows, gets step 1 recorded and step 2 applied.
func TestSQLiteAdoptsUnversionedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	dsn, err := sqliteDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE store (key TEXT PRIMARY KEY, value BLOB NOT NULL, expires INTEGER NOT NULL)`,
		`CREATE INDEX store_expires ON store (expires)`,
		fmt.Sprintf(`INSERT INTO store VALUES ('run-1', 'paused', %d)`, time.Now().Add(time.Hour).UnixNano()),
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	s := openTestSQLite(t, path)
	if v, err := s.Get(context.Background(), "run-1"); err != nil || string(v) != "paused" {
		t.Errorf("Get(run-1) = %q, %v", v, err)
	}
	if got := sqliteMigrationRows(t, s); got != "1 store table,2 store claims" {
		t.Errorf("schema_migrations: %q", got)
	}
}

func sqliteMigrationRows(t *testing.T, s *SQLite) string {
	t.Helper()
	rows, err := s.db.Query(`SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(v, " ", name))
	}
	return strings.Join(out, ",")
}

// TestSQLiteMigrationsAtOnce: stores opening one new file together all
// open it, and the schema is recorded once.
func TestSQLiteMigrationsAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	const n = 6
	stores := make([]*SQLite, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = Open(path)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	if got := sqliteMigrationRows(t, stores[0]); got != "1 store table,2 store claims" {
		t.Errorf("schema_migrations: %q", got)
	}
}

// TestSQLiteForeignMigrations: a schema_migrations recording another
// schema's step 1 is refused.
func TestSQLiteForeignMigrations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	s := openTestSQLite(t, path)
	if _, err := s.db.Exec(`UPDATE schema_migrations SET name = 'users' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), `store: migrating SQLite database `+path+`: schema_migrations records version 1 as "users", not "store table"`) {
		t.Errorf("Open = %v", err)
	}
}

// TestSwapSweeps: a store written only by Swap (contexts) still sweeps
// its expired rows every store.SweepEvery stored writes.
func TestSwapSweeps(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "swap.db"))
	s.now = c.Now
	for i := range 10 {
		if ok, err := s.Swap(ctx, fmt.Sprint("old", i), nil, nil, time.Second); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	c.Advance(time.Second)
	for i := range store.SweepEvery - 10 {
		if ok, err := s.Swap(ctx, fmt.Sprint("new", i), nil, nil, time.Minute); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if n := countRows(t, s); n != store.SweepEvery-10 {
		t.Errorf("%d rows after %d swaps, want the %d live ones", n, store.SweepEvery, store.SweepEvery-10)
	}
}

// TestSQLiteTransactionsAreImmediate: a transaction begun on DB holds the
// write lock from BEGIN, before it writes: another connection that does
// not wait (busy_timeout 0) cannot begin writing meanwhile.
func TestSQLiteTransactionsAreImmediate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tx.db")
	s := openTestSQLite(t, path)
	ctx := context.Background()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	other, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, `BEGIN IMMEDIATE`); err == nil {
		_, _ = other.ExecContext(ctx, `ROLLBACK`)
		t.Fatal("a second writer began while a transaction begun on DB was open: it is not IMMEDIATE")
	} else if !strings.Contains(err.Error(), "locked") && !strings.Contains(err.Error(), "busy") {
		t.Fatalf("BEGIN IMMEDIATE on a second connection: %v, want the database locked", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("after the rollback: %v", err)
	}
	_, _ = other.ExecContext(ctx, `ROLLBACK`)
}

// TestReadsDoNotWaitForWriters (soak finding F4): with every connection
// of the write pool taken, one of them holding the write lock in an
// uncommitted transaction (as under load, when writers queue for the lock
// holding their connections), Get still answers at once, with the last
// committed value: in WAL mode a read needs neither the lock nor a writer's
// connection. The deadline only bounds the failure; before the read pool
// Get waited for a connection until it ran out.
func TestReadsDoNotWaitForWriters(t *testing.T) {
	ctx := context.Background()
	s := openTestSQLite(t, filepath.Join(t.TempDir(), "busy.db"))
	if err := s.Put(ctx, "k", []byte("committed"), time.Hour); err != nil {
		t.Fatal(err)
	}
	var conns []*sql.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range maxConns {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, err := conns[0].ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].ExecContext(ctx, `UPDATE store SET value = 'uncommitted' WHERE key = 'k'`); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if v, err := s.Get(rctx, "k"); err != nil || string(v) != "committed" {
		t.Fatalf("Get while the writers hold every write connection = %q, %v; want the committed value", v, err)
	}
	if _, err := conns[0].ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	// The read pool cannot write, by mistake or otherwise.
	if _, err := s.ReadDB().ExecContext(ctx, `DELETE FROM store`); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Fatalf("a write on the read pool: %v, want SQLite's readonly error", err)
	}
}
