package queue

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// sqliteMigrations and postgresMigrations are the queue's schema, step by
// step. Times are unix nanoseconds (0: none), as in the store; text and
// numbers are NOT NULL, an empty string or 0 meaning none, so that both drivers scan
// them into plain Go values. seq orders the messages as they were queued
// (Task lists a task's messages by it).
//
// A step of the queue's own schema (the table handoff_messages) is
// applied once and in order by dbconn's runner (schema), recorded in
// handoff_migrations (version, name, applied_at) in the same transaction
// as its statements. As in the store package: versions start at 1 and go
// up by one, a published step is never edited, steps are additive, and a
// database with versions beyond a binary's list is accepted. The table is
// not the store's schema_migrations: each package's list is its own.
//
// River's tables (river_job, river_leader, river_migration, …) are
// River's: rivermigrate applies its own steps, first, under the same lock
// (the runner's hooks).
var (
	sqliteMigrations = []dbconn.Migration{
		{Version: 1, Name: "handoff_messages", SQL: `CREATE TABLE handoff_messages (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	id              TEXT NOT NULL UNIQUE,
	task_id         TEXT NOT NULL DEFAULT '',
	correlation_id  TEXT NOT NULL DEFAULT '',
	recipient       TEXT NOT NULL DEFAULT '',
	priority        INTEGER NOT NULL,
	expires_at      INTEGER NOT NULL DEFAULT 0,
	retry_count     INTEGER NOT NULL DEFAULT 0,
	escalate_to     TEXT NOT NULL DEFAULT '',
	fallback_action TEXT NOT NULL DEFAULT '',
	payload         TEXT NOT NULL DEFAULT '',
	escalated_from  TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,
	result          TEXT NOT NULL DEFAULT '',
	error           TEXT NOT NULL DEFAULT '',
	attempts        INTEGER NOT NULL DEFAULT 0,
	failures        INTEGER NOT NULL DEFAULT 0,
	interruptions   INTEGER NOT NULL DEFAULT 0,
	escalated_to    TEXT NOT NULL DEFAULT '',
	fallback_ran    INTEGER NOT NULL DEFAULT 0,
	run_token       TEXT NOT NULL DEFAULT '',
	lease_until     INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	updated_at      INTEGER NOT NULL,
	started_at      INTEGER NOT NULL DEFAULT 0,
	finished_at     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX handoff_messages_task ON handoff_messages (task_id, seq)`},
		// Stats counts the messages of a status and finds the oldest at
		// each metrics scrape: an index, not a scan of every message ever.
		{Version: 2, Name: "status index", SQL: `CREATE INDEX handoff_messages_status ON handoff_messages (status, created_at)`},
		// Owner, hops and code (issue 24): every message belongs to the
		// owner that sent it over the API (or to the task of the message
		// whose run sent it; existing messages to the operator); hops is
		// the length of the chain of messages caused by one another, and
		// code says why a message is DEAD at a bound (HANDOFF_LIMIT). The
		// per-task bound counts a task's messages of one owner.
		{Version: 3, Name: "owner, hops and limits", SQL: `ALTER TABLE handoff_messages ADD COLUMN owner TEXT NOT NULL DEFAULT 'operator';
ALTER TABLE handoff_messages ADD COLUMN hops INTEGER NOT NULL DEFAULT 1;
ALTER TABLE handoff_messages ADD COLUMN code TEXT NOT NULL DEFAULT '';
CREATE INDEX handoff_messages_owner_task ON handoff_messages (owner, task_id)`},
		// The job of a message (issue 28): the River job that runs it now,
		// set when a job claims it and when an interrupted run is taken
		// back with a new job, so that the job of the interrupted run,
		// rescued later by River, does not run the message again (0: any
		// job, as before).
		{Version: 4, Name: "job of a message", SQL: `ALTER TABLE handoff_messages ADD COLUMN job_id INTEGER NOT NULL DEFAULT 0`},
	}
	postgresMigrations = []dbconn.Migration{
		{Version: 1, Name: "handoff_messages", SQL: `CREATE TABLE handoff_messages (
	seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id              TEXT NOT NULL UNIQUE,
	task_id         TEXT NOT NULL DEFAULT '',
	correlation_id  TEXT NOT NULL DEFAULT '',
	recipient       TEXT NOT NULL DEFAULT '',
	priority        BIGINT NOT NULL,
	expires_at      BIGINT NOT NULL DEFAULT 0,
	retry_count     BIGINT NOT NULL DEFAULT 0,
	escalate_to     TEXT NOT NULL DEFAULT '',
	fallback_action TEXT NOT NULL DEFAULT '',
	payload         TEXT NOT NULL DEFAULT '',
	escalated_from  TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL,
	result          TEXT NOT NULL DEFAULT '',
	error           TEXT NOT NULL DEFAULT '',
	attempts        BIGINT NOT NULL DEFAULT 0,
	failures        BIGINT NOT NULL DEFAULT 0,
	interruptions   BIGINT NOT NULL DEFAULT 0,
	escalated_to    TEXT NOT NULL DEFAULT '',
	fallback_ran    BIGINT NOT NULL DEFAULT 0,
	run_token       TEXT NOT NULL DEFAULT '',
	lease_until     BIGINT NOT NULL DEFAULT 0,
	created_at      BIGINT NOT NULL,
	updated_at      BIGINT NOT NULL,
	started_at      BIGINT NOT NULL DEFAULT 0,
	finished_at     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX handoff_messages_task ON handoff_messages (task_id, seq)`},
		// Stats counts the messages of a status and finds the oldest at
		// each metrics scrape: an index, not a scan of every message ever.
		{Version: 2, Name: "status index", SQL: `CREATE INDEX handoff_messages_status ON handoff_messages (status, created_at)`},
		// Owner, hops and code (issue 24): every message belongs to the
		// owner that sent it over the API (or to the task of the message
		// whose run sent it; existing messages to the operator); hops is
		// the length of the chain of messages caused by one another, and
		// code says why a message is DEAD at a bound (HANDOFF_LIMIT). The
		// per-task bound counts a task's messages of one owner.
		{Version: 3, Name: "owner, hops and limits", SQL: `ALTER TABLE handoff_messages ADD COLUMN owner TEXT NOT NULL DEFAULT 'operator';
ALTER TABLE handoff_messages ADD COLUMN hops BIGINT NOT NULL DEFAULT 1;
ALTER TABLE handoff_messages ADD COLUMN code TEXT NOT NULL DEFAULT '';
CREATE INDEX handoff_messages_owner_task ON handoff_messages (owner, task_id)`},
		// The job of a message (issue 28): the River job that runs it now,
		// set when a job claims it and when an interrupted run is taken
		// back with a new job, so that the job of the interrupted run,
		// rescued later by River, does not run the message again (0: any
		// job, as before).
		{Version: 4, Name: "job of a message", SQL: `ALTER TABLE handoff_messages ADD COLUMN job_id BIGINT NOT NULL DEFAULT 0`},
	}
)

// migrationLock is the Postgres advisory lock key of migrating the queue
// (River's steps and ours): "handoff" in ASCII, not the store's key, so
// that the two never wait for each other.
const migrationLock int64 = 0x68_61_6e_64_6f_66_66

// schema is the queue's own table for dbconn's migration runner.
var schema = dbconn.Schema{
	Table:    "handoff_migrations",
	Lock:     migrationLock,
	SQLite:   sqliteMigrations,
	Postgres: postgresMigrations,
}

// migrateSQLite applies River's steps and the queue's in the runner's one
// transaction, which holds the file's write lock from its start: of
// several processes starting at once one migrates, the others wait
// (busy_timeout) and then find every step recorded. SQLite's DDL is
// transactional, so River's steps can share the transaction (rivermigrate's
// MigrateTx, which River deprecates because some of its Postgres steps
// cannot share one; none of its SQLite steps is such).
func migrateSQLite(ctx context.Context, db *sql.DB, log *slog.Logger) error {
	river := func(ctx context.Context, tx *sql.Tx) error {
		m, err := rivermigrate.New(riversqlite.New(db), &rivermigrate.Config{Logger: riverLogger(log)})
		if err != nil {
			return fmt.Errorf("River's migrator: %w", err)
		}
		//lint:ignore SA1019 SQLite's steps can share a transaction; see above.
		if _, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("River's migrations: %w", err)
		}
		return nil
	}
	return schema.MigrateSQLite(ctx, db, dbconn.MigrateOptions{Log: log, BeforeSQLite: river})
}

// migratePostgres applies River's steps (each in its own transaction, as
// rivermigrate does: a step that adds an enum value cannot share one with
// a step that uses it) on the pool's other connections while the runner's
// transaction holds the queue's advisory lock, then the queue's steps in
// that transaction: of several replicas starting at once one migrates,
// the others wait for the lock and then find every step recorded. A
// replica that dies holding the lock releases it with its connection.
func migratePostgres(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	river := func(ctx context.Context) error {
		m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: riverLogger(log)})
		if err != nil {
			return fmt.Errorf("River's migrator: %w", err)
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
			return fmt.Errorf("River's migrations: %w", err)
		}
		return nil
	}
	return schema.MigratePostgres(ctx, pool, dbconn.MigrateOptions{Log: log, BeforePostgres: river})
}
