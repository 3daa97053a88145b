package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
)

// SQLite is a Store in a SQLite database file, shared by every process that
// opens the same file on one host: replicas side by side, or containers
// sharing a local volume. The database runs in WAL mode, so readers do not
// block the one writer; WAL keeps its index in shared memory, so processes
// on different hosts (a network file system) cannot share the file. A
// connection of DB that finds the file locked waits up to busyTimeout
// before it fails. The store's own writes do not use DB: they go through
// one writer (writer.go) that commits the writes queued meanwhile in one
// transaction, in the order they came, each waiting for the lock as long
// as its caller's context allows (writeWait without a deadline). Reads
// (Get) have a pool of connections of their own (ReadDB), so that they
// never queue behind writers for a connection: under load every write
// connection may be waiting for the write lock. The write pool's
// connections (DB: the hand-off queue's and River's statements) and the
// writer's keep their prepared statements by text (stmtcache.go), so a
// statement run again is not compiled again. Its schema is
// versioned (sqliteMigrations), applied when the store opens. Expired rows
// are deleted when the store is opened and every store.SweepEvery puts.
//
// It is safe for concurrent use.
type SQLite struct {
	db *sql.DB
	// w runs the store's own writes, batched, on a connection of its own.
	w *writer
	// rdb is the read pool: query_only connections on the same file.
	rdb *sql.DB
	// get is Get's statement, prepared on rdb's connections once each
	// (SQLite compiles a statement each time it is not).
	get  *sql.Stmt
	path string
	now  func() time.Time
	puts atomic.Int64
}

var (
	_ store.Store   = (*SQLite)(nil)
	_ store.Swapper = (*SQLite)(nil)
)

const (
	// busyTimeout is how long a statement waits for another connection's
	// lock (SQLite's busy_timeout) before it fails with "database is locked".
	busyTimeout = 5 * time.Second
	// maxConns bounds the write pool's connections (DB) of one process:
	// SQLite has one writer at a time anyway, and the queue, the scheduler
	// and the knowledge index share the pool (the store's writes have the
	// writer's connection, its reads the read pool).
	maxConns = 8
	// writeWait is how long a store write whose context has no deadline
	// waits for the write lock (writer.go): as long as the store's callers
	// with a deadline allow theirs (a conversation's turn kept after its
	// answer, a claim settled: 10 s). Measured in the sqlite-kill soak at
	// 2,000 clients on a loaded machine: with busyTimeout (5 s) instead, 934
	// STORE_UNAVAILABLE, most of them these writes (bench/soak/README.md).
	writeWait = 10 * time.Second
	// minReadConns is the least the read pool (ReadDB) may hold; it holds
	// twice the CPUs when that is more. Reads in WAL mode run side by
	// side, each on a connection of its own, bounded by the CPUs.
	minReadConns = 4
	// writerCacheKiB bounds the page cache of the writer's connection
	// (SQLite's cache_size, in KiB when negative). SQLite's default, 2,000
	// KiB per connection, is kept for as long as the connection lives,
	// and the writer's lives as long as the store; its own commits never
	// invalidate its cache, so any sustained writing fills it to the bound.
	// modernc.org/sqlite's allocator rounds a 4 KiB page up to an 8 KiB
	// slot, so the default held about 3 MB of C heap after the bench's
	// load, never returned (bench/README.md, 2026-11-30). The store's
	// writes touch a few pages each (the paths down the table's and its
	// index's B-trees), which 128 KiB (about 30 pages) keeps; any other
	// page comes from the operating system's page cache. The pools keep
	// SQLite's default: the read pool's caches stayed small under the
	// load, and the write pool's serve the knowledge index's builds.
	writerCacheKiB = 128
)

// sqliteMigrations is the SQLite schema, step by step (see schema).
// Step 1 is the table as it was before migrations were recorded, IF NOT
// EXISTS, so that a file made then is adopted as it is.
var sqliteMigrations = []dbconn.Migration{
	{Version: 1, Name: "store table", SQL: `CREATE TABLE IF NOT EXISTS store (
	key     TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	expires INTEGER NOT NULL -- unix nanoseconds
);
CREATE INDEX IF NOT EXISTS store_expires ON store (expires)`},
	// Step 2: the token of a claim (store.Store's Claim), NULL for none.
	{Version: 2, Name: "store claims", SQL: `ALTER TABLE store ADD COLUMN claim TEXT`},
}

// checkTable fails on a table "store" of another shape.
const checkTable = `SELECT key, value, expires, claim FROM store LIMIT 0`

// Open opens the SQLite database at path, creating the file when it
// does not exist yet (the directory must exist), applies the migrations it
// lacks and deletes the expired rows. Close releases it.
func Open(path string, opts ...store.Option) (*SQLite, error) {
	return open(path, writeWait, opts)
}

// open is Open with busy, the longest a write whose context has no
// deadline waits for the write lock.
func open(path string, busy time.Duration, opts []store.Option) (*SQLite, error) {
	if path == "" {
		return nil, errors.New("store: SQLite path is empty")
	}
	dsn, err := sqliteDSN(path)
	if err != nil {
		return nil, err
	}
	drv, err := sqliteDriver()
	if err != nil {
		return nil, fmt.Errorf("store: opening SQLite database %s: %w", path, err)
	}
	// The write pool's connections keep their prepared statements
	// (stmtcache.go).
	db := sql.OpenDB(cachingConnector{dsn: dsn, drv: drv})
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	s := &SQLite{db: db, path: path, now: time.Now}
	if err := s.migrate(context.Background(), store.NewOptions(opts)); err != nil {
		_ = db.Close()
		return nil, err
	}
	// The writer's connection opens once the file is in WAL mode and
	// migrated; it keeps its prepared statements too.
	wdsn, err := sqliteWriterDSN(path)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: opening SQLite database %s for writing: %w", path, err)
	}
	wdb := sql.OpenDB(cachingConnector{dsn: wdsn, drv: drv})
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	s.w = newWriter(wdb, busy)
	if _, err := s.Sweep(context.Background()); err != nil {
		_ = errors.Join(s.w.close(), db.Close())
		return nil, err
	}
	// The read pool opens once the file is in WAL mode and migrated.
	rdsn, err := sqliteReadDSN(path)
	if err == nil {
		s.rdb, err = sql.Open("sqlite", rdsn)
	}
	if err != nil {
		_ = errors.Join(s.w.close(), db.Close())
		return nil, fmt.Errorf("store: opening SQLite database %s for reading: %w", path, err)
	}
	n := max(minReadConns, 2*runtime.GOMAXPROCS(0))
	s.rdb.SetMaxOpenConns(n)
	s.rdb.SetMaxIdleConns(n)
	if s.get, err = s.rdb.Prepare(getQuery); err != nil {
		_ = errors.Join(s.rdb.Close(), s.w.close(), db.Close())
		return nil, fmt.Errorf("store: preparing a read of SQLite database %s: %w", path, err)
	}
	return s, nil
}

// migrate applies the migrations and checks the table's shape.
func (s *SQLite) migrate(ctx context.Context, o store.Options) error {
	if err := schema.MigrateSQLite(ctx, s.db, dbconn.MigrateOptions{Log: o.Log}); err != nil {
		return fmt.Errorf("store: migrating SQLite database %s: %w", s.path, err)
	}
	// A table of that name made by something else fails here, not at the
	// first Put.
	if _, err := s.db.ExecContext(ctx, checkTable); err != nil {
		return fmt.Errorf("store: SQLite database %s has a table \"store\" of another shape: %w", s.path, err)
	}
	return nil
}

// sqliteDSN is the driver's name for path: a file: URI of the absolute path,
// so that any character of the path ('?', '#', '%', ':') is escaped rather
// than parsed, with the pragmas every connection runs. _txlock=immediate
// makes the driver begin every database/sql transaction (BeginTx) with
// BEGIN IMMEDIATE: a transaction that reads and then writes holds the
// write lock from its start, so it waits (busy_timeout) for another
// writer rather than failing at once with SQLITE_BUSY when it comes to
// write after that writer committed, which busy_timeout cannot help. The
// store's own statements do not use BeginTx; packages that share the file
// through DB (the hand-off queue, River's driver) do.
func sqliteDSN(path string) (string, error) {
	return fileDSN(path, url.Values{"_pragma": {busyPragma, "journal_mode(WAL)", "synchronous(NORMAL)"}, "_txlock": {"immediate"}})
}

// sqliteWriterDSN is sqliteDSN for the writer's connection: its
// busy_timeout is a slice of a write's wait for the lock, after which the
// writer looks at its queue and tries again (writer.begin), and its page
// cache is bounded to writerCacheKiB.
func sqliteWriterDSN(path string) (string, error) {
	busy := fmt.Sprintf("busy_timeout(%d)", writerBusySlice.Milliseconds())
	cache := fmt.Sprintf("cache_size(-%d)", writerCacheKiB)
	return fileDSN(path, url.Values{"_pragma": {busy, "journal_mode(WAL)", "synchronous(NORMAL)", cache}, "_txlock": {"immediate"}})
}

// sqliteReadDSN is sqliteDSN for the read pool: its connections are
// query_only, so that a statement that would write fails rather than take
// the write lock. The file's WAL mode is the write pool's to set (it
// persists in the file); a plain BEGIN is deferred, a snapshot.
func sqliteReadDSN(path string) (string, error) {
	return fileDSN(path, url.Values{"_pragma": {busyPragma, "query_only(1)"}})
}

// busyPragma sets busyTimeout.
var busyPragma = fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds())

// fileDSN is the file: URI of path's absolute path with the query q.
func fileDSN(path string, q url.Values) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("store: SQLite path %s: %w", path, err)
	}
	abs = filepath.ToSlash(abs)
	if !strings.HasPrefix(abs, "/") {
		abs = "/" + abs // a Windows drive: file:/C:/dir/file
	}
	u := url.URL{Scheme: "file", Path: abs, OmitHost: true}
	return u.String() + "?" + q.Encode(), nil
}

// DB is the store's database, for a package that keeps tables of its own
// in the same file (the hand-off queue). Its connections wait busy_timeout
// for another's lock and begin transactions with BEGIN IMMEDIATE (see
// sqliteDSN). The caller must not close it; Close does.
func (s *SQLite) DB() *sql.DB { return s.db }

// ReadDB is the store's read pool, for a package that only reads its own
// tables in the same file (a search): its connections are query_only, so
// they never wait for the write lock nor for a connection a writer holds
// while it waits for that lock; a read sees what was committed when it
// began (WAL). BeginTx on it begins a deferred, read-only transaction: a
// snapshot. The caller must not close it; Close does.
func (s *SQLite) ReadDB() *sql.DB { return s.rdb }

// Put implements Store: it inserts or replaces key. Every store.SweepEvery-th Put
// also deletes the expired rows.
func (s *SQLite) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if value == nil {
		value = []byte{} // NOT NULL: nil is stored as empty
	}
	expires := expiry(s.now(), ttl)
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO store (key, value, expires) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, claim = NULL`,
			key, value, expires)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: putting %q in %s: %w", key, s.path, err)
	}
	if s.puts.Add(1)%store.SweepEvery == 0 {
		// The value is stored: a failed sweep is not this Put's failure.
		// Expired rows are never read, and the next sweep deletes them.
		_, _ = s.Sweep(ctx)
	}
	return nil
}

// expiry is now+ttl in unix nanoseconds, the largest value when that
// overflows.
func expiry(now time.Time, ttl time.Duration) int64 {
	n := now.UnixNano()
	if ttl > 0 && n > math.MaxInt64-int64(ttl) {
		return math.MaxInt64
	}
	return n + int64(ttl)
}

// getQuery is Get's statement.
const getQuery = `SELECT value FROM store WHERE key = ? AND expires > ? AND claim IS NULL`

// Get implements Store, on the read pool.
func (s *SQLite) Get(ctx context.Context, key string) ([]byte, error) {
	var value []byte
	err := s.get.QueryRowContext(ctx, key, s.now().UnixNano()).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: getting %q from %s: %w", key, s.path, err)
	}
	return value, nil
}

// Take implements Store with one DELETE … RETURNING statement: SQLite runs
// it under the database's write lock, so of several connections or
// processes taking one key exactly one sees the row. An expired row is
// deleted too, and reported as store.ErrNotFound.
func (s *SQLite) Take(ctx context.Context, key string) ([]byte, error) {
	var value []byte
	var expires int64
	var found bool
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return noRows(tx.QueryRowContext(ctx, `DELETE FROM store WHERE key = ? AND claim IS NULL RETURNING value, expires`, key).
			Scan(&value, &expires), &found)
	})
	if err != nil {
		return nil, fmt.Errorf("store: taking %q from %s: %w", key, s.path, err)
	}
	if !found {
		return nil, store.ErrNotFound
	}
	if expires <= s.now().UnixNano() {
		return nil, store.ErrNotFound
	}
	return value, nil
}

// Claim implements Store with one UPDATE … RETURNING statement, which
// SQLite runs under the database's write lock: of several connections or
// processes claiming one key exactly one sees it unclaimed.
func (s *SQLite) Claim(ctx context.Context, key, token string) ([]byte, error) {
	var value []byte
	var found bool
	now := s.now().UnixNano()
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return noRows(tx.QueryRowContext(ctx, `UPDATE store SET claim = ? WHERE key = ? AND claim IS NULL AND expires > ? RETURNING value`,
			token, key, now).Scan(&value), &found)
	})
	if err != nil {
		return nil, fmt.Errorf("store: claiming %q in %s: %w", key, s.path, err)
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return nonNil(value), nil
}

// noRows is err of a write's RETURNING, nil when no row matched: a write
// that finds nothing has not failed, and must not fail its batch. It sets
// *found.
func noRows(err error, found *bool) error {
	*found = err == nil
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// nonNil is v, or an empty slice for nil.
func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// Release implements Store.
func (s *SQLite) Release(ctx context.Context, key, token string) error {
	if err := s.exec(ctx, `UPDATE store SET claim = NULL WHERE key = ? AND claim = ?`, key, token); err != nil {
		return fmt.Errorf("store: releasing %q in %s: %w", key, s.path, err)
	}
	return nil
}

// Finish implements Store.
func (s *SQLite) Finish(ctx context.Context, key, token string) error {
	if err := s.exec(ctx, `DELETE FROM store WHERE key = ? AND claim = ?`, key, token); err != nil {
		return fmt.Errorf("store: finishing %q in %s: %w", key, s.path, err)
	}
	return nil
}

// Swap implements Swapper with one statement, which SQLite runs under the
// database's write lock: an UPDATE of the live row holding old, or, with
// old nil, an INSERT that replaces only an expired row. A stored swap
// counts as a Put for sweeping.
func (s *SQLite) Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if value == nil {
		value = []byte{}
	}
	now := s.now()
	var n int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var res sql.Result
		var err error
		if old == nil {
			res, err = tx.ExecContext(ctx, `INSERT INTO store (key, value, expires) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, claim = NULL WHERE store.expires <= ?`,
				key, value, expiry(now, ttl), now.UnixNano())
		} else {
			res, err = tx.ExecContext(ctx, `UPDATE store SET value = ?, expires = ? WHERE key = ? AND value = ? AND expires > ? AND claim IS NULL`,
				value, expiry(now, ttl), key, old, now.UnixNano())
		}
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: swapping %q in %s: %w", key, s.path, err)
	}
	if n == 1 && s.puts.Add(1)%store.SweepEvery == 0 {
		_, _ = s.Sweep(ctx) // as in Put
	}
	return n == 1, nil
}

// Sweep deletes the expired rows and returns how many it deleted. Put calls
// it every store.SweepEvery puts; a caller may also call it periodically.
func (s *SQLite) Sweep(ctx context.Context) (int64, error) {
	now := s.now().UnixNano()
	var n int64
	err := s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM store WHERE expires <= ?`, now)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: deleting expired rows of %s: %w", s.path, err)
	}
	return n, nil
}

// exec runs query with args as one write.
func (s *SQLite) exec(ctx context.Context, query string, args ...any) error {
	return s.w.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}

// Close closes the database. The file stays for the other processes and
// the next open.
func (s *SQLite) Close() error {
	if err := errors.Join(s.get.Close(), s.rdb.Close(), s.w.close(), s.db.Close()); err != nil {
		return fmt.Errorf("store: closing %s: %w", s.path, err)
	}
	return nil
}
