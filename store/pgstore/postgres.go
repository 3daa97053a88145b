package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
)

// Postgres is a Store in a PostgreSQL database, shared by replicas on any
// number of hosts. Its schema is versioned (postgresMigrations), applied
// when the store opens. Times are the database server's clock, so replicas
// whose clocks disagree still agree on what has expired. Expired rows are
// never returned; they are deleted when a store opens and every store.SweepEvery
// puts of each replica.
//
// It is safe for concurrent use.
type Postgres struct {
	pool *pgxpool.Pool
	// name is the URL with its password redacted, for errors.
	name string
	// now, when set (tests), replaces the database's clock.
	now  func() time.Time
	puts atomic.Int64
}

var (
	_ store.Store   = (*Postgres)(nil)
	_ store.Swapper = (*Postgres)(nil)
)

// postgresMigrations is the PostgreSQL schema, step by step (see
// schema). Keys are bytea, not text: a key may hold any byte, NUL too.
var postgresMigrations = []dbconn.Migration{
	{Version: 1, Name: "store table", SQL: `CREATE TABLE store (
	key     BYTEA PRIMARY KEY,
	value   BYTEA NOT NULL,
	expires BIGINT NOT NULL -- unix nanoseconds
);
CREATE INDEX store_expires ON store (expires)`},
	// Step 2: the token of a claim (store.Store's Claim), NULL for none.
	{Version: 2, Name: "store claims", SQL: `ALTER TABLE store ADD COLUMN claim TEXT`},
}

// migrationLock is the pg_advisory_xact_lock key of migrating (any number,
// the same in every replica and release): "agentgw" in ASCII.
const migrationLock int64 = 0x61_67_65_6e_74_67_77

// pgNow is the database's clock in unix nanoseconds (microsecond
// resolution).
const pgNow = `(extract(epoch FROM clock_timestamp()) * 1000000000)::bigint`

// defaultConnectTimeout bounds connecting when the URL sets no
// connect_timeout: a server that never answers fails the start, it does
// not hang it.
const defaultConnectTimeout = 10 * time.Second

// defaultMaxConns is the pool's bound when neither store.WithMaxConns nor
// the URL's pool_max_conns sets one (at least the CPU count, pgx's own
// default): the hand-off queue's workers, the per-request key lookups and
// budget reservations share the pool, and pgx's default of 4 on a small
// host held hand-off bursts to half the rate 16 allows (bench/README.md,
// "Hand-off throughput"). Connections are opened as they are needed.
const defaultMaxConns = 16

// Open connects to the PostgreSQL database at rawURL
// (postgres://user:password@host:port/database?sslmode=…; pgx's parameters,
// such as pool_max_conns, and server settings, such as search_path, may be
// added; store.WithMaxConns overrides pool_max_conns), applies the migrations it lacks and deletes the expired rows.
// Close releases it. Errors name the URL with its password redacted.
func Open(ctx context.Context, rawURL string, opts ...store.Option) (*Postgres, error) {
	if rawURL == "" {
		return nil, errors.New("store: the PostgreSQL URL is empty")
	}
	name := store.RedactURL(rawURL)
	if !store.IsPostgresURL(rawURL) {
		return nil, fmt.Errorf("store: %s is not a postgres:// URL", name)
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		// pgx's parse errors redact the password themselves.
		return nil, fmt.Errorf("store: PostgreSQL URL %s: %w", name, err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	o := store.NewOptions(opts)
	if o.MaxConns == 0 && !setsMaxConns(rawURL) {
		cfg.MaxConns = max(cfg.MaxConns, defaultMaxConns)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = int32(min(o.MaxConns, math.MaxInt32))
		cfg.MinConns = min(cfg.MinConns, cfg.MaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connecting to %s: %w", name, err)
	}
	p := &Postgres{pool: pool, name: name}
	if err := schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: o.Log}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: migrating PostgreSQL database %s: %w", name, err)
	}
	if _, err := p.Sweep(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return p, nil
}

// clock is the time to give a statement: nil, for the database's own.
func (p *Postgres) clock() *int64 {
	if p.now == nil {
		return nil
	}
	n := p.now().UnixNano()
	return &n
}

// Put implements Store: it inserts or replaces key, to expire at now+ttl
// (the largest time when that overflows). Every store.SweepEvery-th Put also
// deletes the expired rows.
func (p *Postgres) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if value == nil {
		value = []byte{} // NOT NULL: nil is stored as empty
	}
	err := p.retry(func() error {
		_, err := p.pool.Exec(ctx, `INSERT INTO store (key, value, expires)
		VALUES ($1, $2, LEAST(COALESCE($3::bigint, `+pgNow+`)::numeric + $4::numeric, 9223372036854775807)::bigint)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, claim = NULL`,
			[]byte(key), value, p.clock(), int64(ttl))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: putting %q in %s: %w", key, p.name, err)
	}
	if p.puts.Add(1)%store.SweepEvery == 0 {
		// The value is stored: a failed sweep is not this Put's failure.
		_, _ = p.Sweep(ctx)
	}
	return nil
}

// Get implements Store.
func (p *Postgres) Get(ctx context.Context, key string) ([]byte, error) {
	var value []byte
	err := p.retry(func() error {
		return p.pool.QueryRow(ctx, `SELECT value FROM store WHERE key = $1 AND claim IS NULL AND expires > COALESCE($2::bigint, `+pgNow+`)`,
			[]byte(key), p.clock()).Scan(&value)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: getting %q from %s: %w", key, p.name, err)
	}
	return nonNil(value), nil
}

// Take implements Store with one DELETE … RETURNING statement: of several
// connections deleting one row, PostgreSQL lets the first delete it and
// the others, once it commits, find no row. An expired row is deleted too,
// and reported as store.ErrNotFound.
func (p *Postgres) Take(ctx context.Context, key string) ([]byte, error) {
	var value []byte
	var live bool
	err := p.retry(func() error {
		return p.pool.QueryRow(ctx, `DELETE FROM store WHERE key = $1 AND claim IS NULL
		RETURNING value, expires > COALESCE($2::bigint, `+pgNow+`)`,
			[]byte(key), p.clock()).Scan(&value, &live)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: taking %q from %s: %w", key, p.name, err)
	}
	if !live {
		return nil, store.ErrNotFound
	}
	return nonNil(value), nil
}

// Claim implements Store with one UPDATE … RETURNING statement: of several
// connections updating one row, PostgreSQL lets the first through and
// re-checks the others' WHERE on its result, which is no longer
// unclaimed.
func (p *Postgres) Claim(ctx context.Context, key, token string) ([]byte, error) {
	var value []byte
	err := p.retry(func() error {
		return p.pool.QueryRow(ctx, `UPDATE store SET claim = $2
		WHERE key = $1 AND claim IS NULL AND expires > COALESCE($3::bigint, `+pgNow+`) RETURNING value`,
			[]byte(key), token, p.clock()).Scan(&value)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: claiming %q in %s: %w", key, p.name, err)
	}
	return nonNil(value), nil
}

// Release implements Store.
func (p *Postgres) Release(ctx context.Context, key, token string) error {
	err := p.retry(func() error {
		_, err := p.pool.Exec(ctx, `UPDATE store SET claim = NULL WHERE key = $1 AND claim = $2`, []byte(key), token)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: releasing %q in %s: %w", key, p.name, err)
	}
	return nil
}

// Finish implements Store.
func (p *Postgres) Finish(ctx context.Context, key, token string) error {
	err := p.retry(func() error {
		_, err := p.pool.Exec(ctx, `DELETE FROM store WHERE key = $1 AND claim = $2`, []byte(key), token)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: finishing %q in %s: %w", key, p.name, err)
	}
	return nil
}

// Swap implements Swapper with one statement: an UPDATE of the live row
// holding old (of concurrent updates PostgreSQL lets the first through and
// re-checks the others' WHERE on its result, which no longer holds old),
// or, with old nil, an INSERT that replaces only an expired row. A stored
// swap counts as a Put for sweeping.
func (p *Postgres) Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if value == nil {
		value = []byte{}
	}
	const exp = `LEAST(COALESCE($3::bigint, ` + pgNow + `)::numeric + $4::numeric, 9223372036854775807)::bigint`
	var n int64
	err := p.retry(func() error {
		var tag pgconn.CommandTag
		var err error
		if old == nil {
			tag, err = p.pool.Exec(ctx, `INSERT INTO store (key, value, expires) VALUES ($1, $2, `+exp+`)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires, claim = NULL
			WHERE store.expires <= COALESCE($3::bigint, `+pgNow+`)`,
				[]byte(key), value, p.clock(), int64(ttl))
		} else {
			tag, err = p.pool.Exec(ctx, `UPDATE store SET value = $2, expires = `+exp+`
			WHERE key = $1 AND value = $5 AND claim IS NULL AND expires > COALESCE($3::bigint, `+pgNow+`)`,
				[]byte(key), value, p.clock(), int64(ttl), old)
		}
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store: swapping %q in %s: %w", key, p.name, err)
	}
	if n == 1 && p.puts.Add(1)%store.SweepEvery == 0 {
		_, _ = p.Sweep(ctx) // as in Put
	}
	return n == 1, nil
}

// nonNil is v, or an empty slice for nil: pgx scans an empty bytea as nil,
// and a stored empty value comes back empty, as from the other stores.
func nonNil(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return v
}

// Sweep deletes the expired rows and returns how many it deleted. Put calls
// it every store.SweepEvery puts; a caller may also call it periodically.
func (p *Postgres) Sweep(ctx context.Context) (int64, error) {
	tag, err := p.pool.Exec(ctx, `DELETE FROM store WHERE expires <= COALESCE($1::bigint, `+pgNow+`)`, p.clock())
	if err != nil {
		return 0, fmt.Errorf("store: deleting expired rows of %s: %w", p.name, err)
	}
	return tag.RowsAffected(), nil
}

// Pool is the store's connection pool, for a package that keeps tables of
// its own in the same database (the hand-off queue). The caller must not
// close it; Close does.
func (p *Postgres) Pool() *pgxpool.Pool { return p.pool }

// Close closes the store's connections.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// retry runs op, and once more when it failed on a connection the server
// had terminated (a restart, a failover, pg_terminate_backend): the pool's
// idle connections are then all dead, so it is reset first, and the
// statement runs on a new connection. A terminated connection ran nothing
// of the statement (or rolled it back), so running it again is safe, Take
// included; an error that may follow a commit (a connection lost after
// the statement was sent) is not retried.
func (p *Postgres) retry(op func() error) error {
	err := op()
	if !connTerminated(err) {
		return err
	}
	p.pool.Reset()
	return op()
}

// connTerminated reports whether err says the connection was dead before
// the statement ran: the server's "terminating connection" errors (class
// 57, operator intervention: admin or crash shutdown) or a failure before
// anything was sent.
func connTerminated(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	return pgconn.SafeToRetry(err)
}

// setsMaxConns reports whether the URL sets pool_max_conns.
func setsMaxConns(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Query().Has("pool_max_conns")
}
