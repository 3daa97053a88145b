package keys

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// Options configures a Store; zero values are the defaults.
type Options struct {
	// Now is the clock of the keys' times (default time.Now).
	Now func() time.Time
	// Logger logs the migrations applied (default: none).
	Logger *slog.Logger
	// ReadDB is the SQLite store's read pool (sqlitestore.SQLite.ReadDB)
	// the per-request Lookup runs on, so that it never waits for a
	// connection behind writers queued for SQLite's one write lock; nil:
	// the database NewSQLite is given. PostgreSQL does not use it.
	ReadDB *sql.DB
}

// Store keeps the keys in the gateway's database, shared by the replicas
// and by `agentgw keys`. It is safe for concurrent use, and by several
// processes on one database.
type Store struct {
	db dbconn.Conn
	// lookup reads the live key of a secret's digest: a statement
	// prepared once on SQLite (database/sql would prepare it again on
	// every request: 2.5 times the cost), pgx's own statement cache on
	// PostgreSQL.
	lookup func(ctx context.Context, digest string) dbconn.Row
	// lookupID reads the live key of an id (LookupID), as lookup does.
	lookupID func(ctx context.Context, id string) dbconn.Row
	now      func() time.Time
}

// lookupQuery is Lookup's query, lookupIDQuery LookupID's: each one read
// of a unique index (secret_hash's, the primary key).
const (
	lookupQuery   = `SELECT ` + columns + ` FROM api_keys WHERE secret_hash = ? AND revoked_at = 0`
	lookupIDQuery = `SELECT ` + columns + ` FROM api_keys WHERE id = ? AND revoked_at = 0`
)

// NewSQLite returns the keys of the SQLite database db (the gateway
// store's, sqlitestore.SQLite's DB, or opened as it is), after applying
// the migrations it lacks; Lookup reads on opts.ReadDB, the store's read
// pool, when given. The store does not close db.
func NewSQLite(ctx context.Context, db *sql.DB, opts Options) (*Store, error) {
	if err := schema.MigrateSQLite(ctx, db, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("keys: migrating the SQLite database: %w", err)
	}
	rdb := opts.ReadDB
	if rdb == nil {
		rdb = db
	}
	stmt, err := rdb.PrepareContext(ctx, lookupQuery)
	if err != nil {
		return nil, fmt.Errorf("keys: preparing the lookup: %w", err)
	}
	byID, err := rdb.PrepareContext(ctx, lookupIDQuery)
	if err != nil {
		_ = stmt.Close()
		return nil, fmt.Errorf("keys: preparing the lookup by id: %w", err)
	}
	s := newStore(dbconn.SQL(db), opts)
	s.lookup = func(ctx context.Context, digest string) dbconn.Row { return stmt.QueryRowContext(ctx, digest) }
	s.lookupID = func(ctx context.Context, id string) dbconn.Row { return byID.QueryRowContext(ctx, id) }
	return s, nil
}

// NewPostgres returns the keys of the PostgreSQL database of pool (the
// gateway store's, pgstore.Postgres's Pool), after applying the
// migrations it lacks. The store does not close pool.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if err := schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("keys: migrating the PostgreSQL database: %w", err)
	}
	s := newStore(dbconn.PGX(pool), opts)
	s.lookup = func(ctx context.Context, digest string) dbconn.Row { return s.db.QueryRow(ctx, lookupQuery, digest) }
	s.lookupID = func(ctx context.Context, id string) dbconn.Row { return s.db.QueryRow(ctx, lookupIDQuery, id) }
	return s, nil
}

func newStore(db dbconn.Conn, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{db: db, now: opts.Now}
}

// columns are a key's columns, in scan's order.
const columns = `id, hint, name, user_name, team, agents, models, admin, created_by, created_at, rotated_at, revoked_at`

// Create stores a new key of k's user, team, name, scope and admin flag,
// made by createdBy, and returns it with its secret: the only time the
// secret is known.
func (s *Store) Create(ctx context.Context, k Key, createdBy string) (Key, string, error) {
	if err := k.Validate(); err != nil {
		return Key{}, "", err
	}
	secret, digest, err := newSecret()
	if err != nil {
		return Key{}, "", err
	}
	k.ID, k.Hint, k.CreatedBy = uuid.NewString(), secret[:hintLen], createdBy
	k.CreatedAt, k.RotatedAt, k.RevokedAt = s.now().UTC(), time.Time{}, time.Time{}
	k.Agents, k.Models = nonNil(k.Agents), nonNil(k.Models)
	agents, _ := json.Marshal(k.Agents)
	models, _ := json.Marshal(k.Models)
	admin := 0
	if k.Admin {
		admin = 1
	}
	_, err = s.db.Exec(ctx, `INSERT INTO api_keys (id, secret_hash, hint, name, user_name, team, agents, models, admin, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, digest, k.Hint, k.Name, k.User, k.Team, string(agents), string(models), admin, k.CreatedBy, dbconn.UnixNano(k.CreatedAt))
	if err != nil {
		return Key{}, "", fmt.Errorf("keys: storing key of %s: %w", k.whom(), err)
	}
	return k, secret, nil
}

// whom names k's holder for an error message.
func (k Key) whom() string {
	if k.User != "" {
		return "user " + k.User
	}
	return "team " + k.Team
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// List returns every key, revoked ones included, oldest first.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	rs, err := s.db.Query(ctx, `SELECT `+columns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("keys: listing: %w", err)
	}
	defer rs.Close()
	var out []Key
	for rs.Next() {
		k, err := scan(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("keys: listing: %w", err)
	}
	return out, nil
}

// Get returns key id; ErrNotFound when there is none.
func (s *Store) Get(ctx context.Context, id string) (Key, error) {
	k, err := s.one(ctx, `SELECT `+columns+` FROM api_keys WHERE id = ?`, id)
	if err == ErrNotFound {
		return Key{}, fmt.Errorf("keys: key %q: %w", id, err)
	}
	return k, err
}

// Lookup returns the live key whose secret is secret; false when none is
// (no key has it, or its key is revoked or was rotated since). It reads
// the database every time: see the package's doc.
func (s *Store) Lookup(ctx context.Context, secret string) (Key, bool, error) {
	if !LooksLikeSecret(secret) {
		return Key{}, false, nil
	}
	k, err := scan(s.lookup(ctx, Digest(secret)))
	if dbconn.IsNoRows(err) {
		return Key{}, false, nil
	}
	if err != nil {
		return Key{}, false, err
	}
	return k, true, nil
}

// LookupID returns key id when it is live; false when it is not (no key
// has the id, or it is revoked). A rotated key is live: rotation keeps the
// id. It reads the database every time, one read of the primary key (on
// SQLite on the read pool, as Lookup): what a schedule made with a key
// checks before each run (schedule/agentrun).
func (s *Store) LookupID(ctx context.Context, id string) (Key, bool, error) {
	k, err := scan(s.lookupID(ctx, id))
	if dbconn.IsNoRows(err) {
		return Key{}, false, nil
	}
	if err != nil {
		return Key{}, false, fmt.Errorf("keys: looking up key %s: %w", id, err)
	}
	return k, true, nil
}

// Rotate gives key id a new secret, which it returns: the old one stops
// working at once; the key keeps its id, identity and scope.
func (s *Store) Rotate(ctx context.Context, id string) (Key, string, error) {
	secret, digest, err := newSecret()
	if err != nil {
		return Key{}, "", err
	}
	now := s.now().UTC()
	n, err := s.db.Exec(ctx, `UPDATE api_keys SET secret_hash = ?, hint = ?, rotated_at = ? WHERE id = ? AND revoked_at = 0`,
		digest, secret[:hintLen], dbconn.UnixNano(now), id)
	if err != nil {
		return Key{}, "", fmt.Errorf("keys: rotating key %s: %w", id, err)
	}
	k, err := s.Get(ctx, id)
	if err != nil {
		return Key{}, "", err
	}
	if n == 0 {
		return Key{}, "", fmt.Errorf("keys: rotating key %s: %w", id, ErrRevoked)
	}
	return k, secret, nil
}

// Revoke revokes key id: no replica takes its secret from then on. A
// revoked key stays listed (with its revocation time), so that what it
// did can still be told; revoking it again changes nothing.
func (s *Store) Revoke(ctx context.Context, id string) (Key, error) {
	if _, err := s.db.Exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at = 0`,
		dbconn.UnixNano(s.now().UTC()), id); err != nil {
		return Key{}, fmt.Errorf("keys: revoking key %s: %w", id, err)
	}
	return s.Get(ctx, id)
}

// one reads the one key query finds; ErrNotFound when it finds none.
func (s *Store) one(ctx context.Context, query string, args ...any) (Key, error) {
	k, err := scan(s.db.QueryRow(ctx, query, args...))
	if dbconn.IsNoRows(err) {
		return Key{}, ErrNotFound
	}
	return k, err
}

// scan reads a key's columns.
func scan(r dbconn.Row) (Key, error) {
	var k Key
	var agents, models string
	var admin, created, rotated, revoked int64
	if err := r.Scan(&k.ID, &k.Hint, &k.Name, &k.User, &k.Team, &agents, &models, &admin, &k.CreatedBy,
		&created, &rotated, &revoked); err != nil {
		if dbconn.IsNoRows(err) {
			return Key{}, err
		}
		return Key{}, fmt.Errorf("keys: reading a key: %w", err)
	}
	if err := json.Unmarshal([]byte(agents), &k.Agents); err != nil {
		return Key{}, fmt.Errorf("keys: key %s's agents: %w", k.ID, err)
	}
	if err := json.Unmarshal([]byte(models), &k.Models); err != nil {
		return Key{}, fmt.Errorf("keys: key %s's models: %w", k.ID, err)
	}
	k.Admin = admin != 0
	k.CreatedAt, k.RotatedAt, k.RevokedAt = utc(created), utc(rotated), utc(revoked)
	return k, nil
}

func utc(n int64) time.Time {
	t := dbconn.FromUnixNano(n)
	if t.IsZero() {
		return t
	}
	return t.UTC()
}
