package schedule

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// DefaultKeepRuns is how many runs the store keeps per schedule by default.
const DefaultKeepRuns = 20

// Options configures a Store; zero values are the defaults.
type Options struct {
	// KeepRuns is how many runs of each schedule are kept, the newest
	// (default DefaultKeepRuns). A run in progress is never deleted.
	KeepRuns int
	// Now is the clock of the records' times and of next runs (default
	// time.Now).
	Now func() time.Time
	// Logger logs the migrations applied (default: none).
	Logger *slog.Logger
}

// Store keeps schedules and their runs in the gateway's database, in
// tables of its own (schedules, schedule_runs), shared by the replicas.
// It is safe for concurrent use, and by several processes on one database.
type Store struct {
	pool dbconn.Conn
	// inTx runs fn in a transaction, committed when fn returns nil.
	inTx func(ctx context.Context, fn func(tx dbconn.Conn) error) error
	// forUpdate is appended to a SELECT in a transaction that will update
	// the row it reads: Postgres's row lock ("" on SQLite, whose
	// transactions hold the file's write lock from their start).
	forUpdate string
	// lockSync serializes Syncs in a transaction: an advisory lock on
	// Postgres, nothing on SQLite (the write lock).
	lockSync func(ctx context.Context, tx dbconn.Conn) error
	// lockOwner serializes CreateLimited's count and insert per owner, in
	// a transaction: an advisory lock on Postgres, nothing on SQLite.
	lockOwner func(ctx context.Context, tx dbconn.Conn, owner string) error
	keep      int
	now       func() time.Time
	// changed is signalled after each write this process commits (a
	// schedule made, changed, deleted or synced; a run claimed or
	// recorded): the Scheduler looks again at once rather than at its
	// next Tick.
	changed chan struct{}
}

// txNotify is inTx signalling s.changed after a transaction that
// committed.
func (s *Store) txNotify(inTx func(ctx context.Context, fn func(tx dbconn.Conn) error) error) func(ctx context.Context, fn func(tx dbconn.Conn) error) error {
	return func(ctx context.Context, fn func(tx dbconn.Conn) error) error {
		if err := inTx(ctx, fn); err != nil {
			return err
		}
		select {
		case s.changed <- struct{}{}:
		default:
		}
		return nil
	}
}

// NewSQLite returns a store in the SQLite database db, after applying the
// migrations it lacks. db must be the gateway store's (sqlitestore.SQLite's
// DB), or opened as it is: WAL, a busy_timeout, and transactions begun
// IMMEDIATE (_txlock=immediate); every process sharing the file must open
// it so. The store does not close db.
func NewSQLite(ctx context.Context, db *sql.DB, opts Options) (*Store, error) {
	if err := schema.MigrateSQLite(ctx, db, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("schedule: migrating the SQLite database: %w", err)
	}
	s := newStore(opts)
	s.pool = dbconn.SQL(db)
	s.inTx = s.txNotify(dbconn.TxSQL(db))
	s.lockSync = func(context.Context, dbconn.Conn) error { return nil }
	s.lockOwner = func(context.Context, dbconn.Conn, string) error { return nil }
	return s, nil
}

// NewPostgres returns a store in the PostgreSQL database of pool (the
// gateway store's, pgstore.Postgres's Pool), after applying the migrations
// it lacks. Its tables are in pool's search_path. The store does not close
// pool.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if err := schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: opts.Logger}); err != nil {
		return nil, fmt.Errorf("schedule: migrating the PostgreSQL database: %w", err)
	}
	s := newStore(opts)
	s.pool = dbconn.PGX(pool)
	s.inTx = s.txNotify(dbconn.TxPGX(pool))
	s.forUpdate = " FOR UPDATE"
	s.lockSync = func(ctx context.Context, tx dbconn.Conn) error {
		_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, syncLock)
		return err
	}
	s.lockOwner = func(ctx context.Context, tx dbconn.Conn, owner string) error {
		_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(?, ?))`, owner, ownerLockSeed)
		return err
	}
	return s, nil
}

func newStore(opts Options) *Store {
	if opts.KeepRuns <= 0 {
		opts.KeepRuns = DefaultKeepRuns
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{keep: opts.KeepRuns, now: opts.Now, changed: make(chan struct{}, 1)}
}

// columns are a schedule's columns, in scanSchedule's order.
const columns = `id, name, source, def_hash, spec, enabled, target, timeout, missed,
	created_at, updated_at, last_run, next_run, run_count, owner, disabled_reason`

// Create stores sc, a schedule made at run time, and returns it as
// stored. Its ID is sc.ID, or a new UUID when empty; its name must be
// free (else ErrExists); its Owner is kept as given; its state (Source,
// times, counts, runs) is the store's and ignored. An enabled schedule's
// NextRun is its spec's next time from now: a once schedule whose time
// has passed is refused. Its errors are *ValidationError, ErrExists or
// the database's.
func (s *Store) Create(ctx context.Context, sc Schedule) (Schedule, error) {
	return s.CreateLimited(ctx, sc, 0)
}

// CreateLimited is Create for an owner that may have at most limit
// schedules made at run time (0: no limit): when sc.Owner has limit
// already, it is ErrQuota and nothing is stored. The count and the insert
// are one transaction, serialized per owner (SQLite's write lock, an
// advisory lock on Postgres), so that concurrent creations cannot pass the
// limit together.
func (s *Store) CreateLimited(ctx context.Context, sc Schedule, limit int) (Schedule, error) {
	if err := sc.validate(); err != nil {
		return Schedule{}, err
	}
	if sc.ID == "" {
		sc.ID = uuid.NewString()
	}
	now := s.now().UTC()
	sc.Source, sc.CreatedAt, sc.UpdatedAt = "", now, now
	sc.LastRun, sc.RunCount, sc.Runs = time.Time{}, 0, nil
	sc.NextRun = time.Time{}
	if sc.Enabled {
		next, ok := sc.Spec.Next(now)
		if !ok {
			return Schedule{}, &ValidationError{Field: KindOnce, Value: sc.Spec.Text().Once, Offset: -1,
				Msg: fmt.Sprintf("%s is in the past", sc.Spec.Text().Once)}
		}
		sc.NextRun = next
	}
	err := s.inTx(ctx, func(tx dbconn.Conn) error {
		if limit > 0 {
			if err := s.lockOwner(ctx, tx, sc.Owner); err != nil {
				return fmt.Errorf("schedule: taking the lock of owner %s: %w", sc.Owner, err)
			}
			var n int64
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schedules WHERE owner = ? AND source = ''`, sc.Owner).Scan(&n); err != nil {
				return fmt.Errorf("schedule: counting the schedules of %s: %w", sc.Owner, err)
			}
			if n >= int64(limit) {
				return fmt.Errorf("%w: %d of %d", ErrQuota, n, limit)
			}
		}
		return s.insert(ctx, tx, sc, "")
	})
	if err != nil {
		return Schedule{}, err
	}
	return sc, nil
}

// insert inserts sc with the definition hash hash; a taken name or id is
// ErrExists.
func (s *Store) insert(ctx context.Context, tx dbconn.Conn, sc Schedule, hash string) error {
	spec, err := json.Marshal(sc.Spec.Text())
	if err != nil {
		return fmt.Errorf("schedule %s: encoding its spec: %w", sc.Name, err)
	}
	_, err = tx.Exec(ctx, `INSERT INTO schedules (id, name, source, def_hash, spec, enabled, target, timeout, missed,
		created_at, updated_at, last_run, next_run, run_count, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sc.ID, sc.Name, sc.Source, hash, string(spec), boolInt(sc.Enabled), string(sc.Target), int64(sc.Timeout),
		string(sc.Missed), unixNano(sc.CreatedAt), unixNano(sc.UpdatedAt), unixNano(sc.LastRun),
		unixNano(sc.NextRun), sc.RunCount, sc.Owner)
	if isUniqueViolation(err) {
		var n int64
		if qerr := s.pool.QueryRow(ctx, `SELECT count(*) FROM schedules WHERE id = ?`, sc.ID).Scan(&n); qerr == nil && n > 0 {
			return fmt.Errorf("%w: a schedule has the id %q", ErrExists, sc.ID)
		}
		return fmt.Errorf("%w: a schedule is named %q", ErrExists, sc.Name)
	}
	if err != nil {
		return fmt.Errorf("schedule: storing schedule %s: %w", sc.Name, err)
	}
	return nil
}

// Get returns schedule id with its newest runs, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Schedule, error) {
	return s.getBy(ctx, "id", id)
}

// GetByName returns the schedule named name with its newest runs, or
// ErrNotFound.
func (s *Store) GetByName(ctx context.Context, name string) (Schedule, error) {
	return s.getBy(ctx, "name", name)
}

func (s *Store) getBy(ctx context.Context, column, value string) (Schedule, error) {
	sc, _, err := scanSchedule(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM schedules WHERE `+column+` = ?`, value))
	if dbconn.IsNoRows(err) {
		return Schedule{}, fmt.Errorf("%w: no schedule with the %s %q", ErrNotFound, column, value)
	}
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule: reading schedule %s: %w", value, err)
	}
	if sc.Runs, err = s.Runs(ctx, sc.ID); err != nil {
		return Schedule{}, err
	}
	return sc, nil
}

// List returns every schedule, by name, each with its newest runs.
func (s *Store) List(ctx context.Context) ([]Schedule, error) {
	return s.list(ctx, "", "")
}

// ListOwned returns the schedules of owner, by name, each with its newest
// runs.
func (s *Store) ListOwned(ctx context.Context, owner string) ([]Schedule, error) {
	return s.list(ctx, ` WHERE owner = ?`, owner)
}

// list returns the schedules where says (with its one argument arg), by
// name, each with its newest runs.
func (s *Store) list(ctx context.Context, where, arg string) ([]Schedule, error) {
	var args []any
	if where != "" {
		args = append(args, arg)
	}
	rs, err := s.pool.Query(ctx, `SELECT `+columns+` FROM schedules`+where+` ORDER BY name`, args...)
	if err != nil {
		return nil, fmt.Errorf("schedule: listing schedules: %w", err)
	}
	var out []Schedule
	for rs.Next() {
		sc, _, err := scanSchedule(rs)
		if err != nil {
			_ = rs.Close()
			return nil, fmt.Errorf("schedule: listing schedules: %w", err)
		}
		out = append(out, sc)
	}
	_ = rs.Close()
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("schedule: listing schedules: %w", err)
	}
	runs, err := s.runs(ctx, `SELECT `+runColumns+` FROM schedule_runs WHERE schedule_id IN (SELECT id FROM schedules`+where+`)
		ORDER BY schedule_id, seq DESC`, args...)
	if err != nil {
		return nil, err
	}
	by := map[string][]Run{}
	for _, r := range runs {
		by[r.ScheduleID] = append(by[r.ScheduleID], r)
	}
	for i := range out {
		out[i].Runs = by[out[i].ID]
	}
	return out, nil
}

// Update changes schedule id: fn gets the schedule as stored and changes
// its definition (Name, Spec, Enabled, Target, Timeout, Missed; changes to
// the rest are ignored), in a transaction that holds the schedule. A
// changed Spec, or Enabled turned on, recomputes NextRun from now (a once
// schedule whose time has passed gets none); a disabled schedule has none.
// An enabled schedule has no DisabledReason; a disabled one keeps it.
// A static schedule (Source set) may only be enabled or disabled: other
// changes are ErrStatic. It returns the schedule as stored; an error of
// fn is returned as it is.
func (s *Store) Update(ctx context.Context, id string, fn func(*Schedule) error) (Schedule, error) {
	var out Schedule
	err := s.inTx(ctx, func(tx dbconn.Conn) error {
		old, hash, err := scanSchedule(tx.QueryRow(ctx, `SELECT `+columns+` FROM schedules WHERE id = ?`+s.forUpdate, id))
		if dbconn.IsNoRows(err) {
			return fmt.Errorf("%w: no schedule with the id %q", ErrNotFound, id)
		}
		if err != nil {
			return fmt.Errorf("schedule: reading schedule %s: %w", id, err)
		}
		sc := old
		if err := fn(&sc); err != nil {
			return err
		}
		// The state is the store's.
		sc.ID, sc.Source, sc.CreatedAt, sc.LastRun, sc.RunCount, sc.NextRun = old.ID, old.Source, old.CreatedAt, old.LastRun, old.RunCount, old.NextRun
		sc.Owner, sc.DisabledReason = old.Owner, old.DisabledReason
		if sc.Enabled {
			// Enabled again: why it was disabled no longer holds.
			sc.DisabledReason = ""
		}
		if err := sc.validate(); err != nil {
			return err
		}
		if old.Source != "" {
			a, b := old.definition(), sc.definition()
			a.Enabled = b.Enabled
			if !definitionsEqual(a, b) {
				return fmt.Errorf("%w: schedule %s is defined in %s; only enabling and disabling it is allowed here", ErrStatic, old.Name, old.Source)
			}
		}
		now := s.now().UTC()
		switch {
		case !sc.Enabled:
			sc.NextRun = time.Time{}
		case !old.Enabled || !sc.Spec.Equal(old.Spec):
			sc.NextRun, _ = sc.Spec.Next(now)
		}
		sc.UpdatedAt = now
		if err := s.rewrite(ctx, tx, sc, hash); err != nil {
			return err
		}
		out = sc
		return nil
	})
	if err != nil {
		return Schedule{}, err
	}
	out.Runs, err = s.Runs(ctx, out.ID)
	return out, err
}

// rewrite stores sc's definition, NextRun and UpdatedAt over its row,
// with the definition hash hash.
func (s *Store) rewrite(ctx context.Context, tx dbconn.Conn, sc Schedule, hash string) error {
	spec, err := json.Marshal(sc.Spec.Text())
	if err != nil {
		return fmt.Errorf("schedule %s: encoding its spec: %w", sc.Name, err)
	}
	_, err = tx.Exec(ctx, `UPDATE schedules SET name = ?, def_hash = ?, spec = ?, enabled = ?, target = ?, timeout = ?,
		missed = ?, updated_at = ?, next_run = ?, disabled_reason = ? WHERE id = ?`,
		sc.Name, hash, string(spec), boolInt(sc.Enabled), string(sc.Target), int64(sc.Timeout), string(sc.Missed),
		unixNano(sc.UpdatedAt), unixNano(sc.NextRun), sc.DisabledReason, sc.ID)
	if isUniqueViolation(err) {
		return fmt.Errorf("%w: a schedule is named %q", ErrExists, sc.Name)
	}
	if err != nil {
		return fmt.Errorf("schedule: updating schedule %s: %w", sc.Name, err)
	}
	return nil
}

// Delete deletes schedule id and its runs. A run in progress finishes but
// is not recorded. A static schedule is ErrStatic: it is removed from its
// file.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx dbconn.Conn) error {
		var source string
		err := tx.QueryRow(ctx, `SELECT source FROM schedules WHERE id = ?`+s.forUpdate, id).Scan(&source)
		if dbconn.IsNoRows(err) {
			return fmt.Errorf("%w: no schedule with the id %q", ErrNotFound, id)
		}
		if err != nil {
			return fmt.Errorf("schedule: deleting schedule %s: %w", id, err)
		}
		if source != "" {
			return fmt.Errorf("%w: schedule %s is defined in %s; remove it there", ErrStatic, id, source)
		}
		return deleteRows(ctx, tx, id)
	})
}

// deleteRows deletes schedule id's row and its runs.
func deleteRows(ctx context.Context, tx dbconn.Conn, id string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM schedule_runs WHERE schedule_id = ?`, id); err != nil {
		return fmt.Errorf("schedule: deleting the runs of %s: %w", id, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM schedules WHERE id = ?`, id); err != nil {
		return fmt.Errorf("schedule: deleting schedule %s: %w", id, err)
	}
	return nil
}

// scanSchedule reads the columns of a schedule and its definition hash.
func scanSchedule(r dbconn.Row) (Schedule, string, error) {
	var sc Schedule
	var hash, spec, target, missed string
	var enabled, timeout, created, updated, last, next int64
	err := r.Scan(&sc.ID, &sc.Name, &sc.Source, &hash, &spec, &enabled, &target, &timeout, &missed,
		&created, &updated, &last, &next, &sc.RunCount, &sc.Owner, &sc.DisabledReason)
	if err != nil {
		return Schedule{}, "", err
	}
	var t SpecText
	if err := json.Unmarshal([]byte(spec), &t); err != nil {
		return Schedule{}, "", fmt.Errorf("schedule %s: its stored spec %q: %w", sc.ID, spec, err)
	}
	sc.Spec = storedSpec(t)
	sc.Enabled = enabled != 0
	if target != "" {
		sc.Target = json.RawMessage(target)
	}
	sc.Timeout, sc.Missed = time.Duration(timeout), MissedPolicy(missed)
	sc.CreatedAt, sc.UpdatedAt = fromUnixNano(created), fromUnixNano(updated)
	sc.LastRun, sc.NextRun = fromUnixNano(last), fromUnixNano(next)
	return sc, hash, nil
}

// storedSpec reads a spec as stored. It was valid when stored; when it no
// longer is (a zone gone from the zone database), its fields are kept as
// they are and its Next has no time.
func storedSpec(t SpecText) Spec {
	if s, err := Parse(t); err == nil {
		return s
	}
	var s Spec
	s.Once, _ = time.Parse(time.RFC3339Nano, t.Once)
	s.Every, _ = time.ParseDuration(t.Every)
	s.Cron, s.Timezone = t.Cron, t.Timezone
	return s
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// unixNano and fromUnixNano are the tables' times (internal/dbconn),
// read back in UTC.
func unixNano(t time.Time) int64     { return dbconn.UnixNano(t) }
func fromUnixNano(n int64) time.Time { return dbconn.FromUnixNano(n).UTC() }

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
