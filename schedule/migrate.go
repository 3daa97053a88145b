package schedule

import (
	"github.com/agentgw/agentgw/internal/dbconn"
)

// sqliteMigrations and postgresMigrations are the schema, step by step.
// Times are unix nanoseconds, 0 meaning none (next_run 0: the schedule
// will not run); text and numbers are NOT NULL, ” or 0 meaning none, so
// that both drivers scan them into plain Go values. owner is the schedule's
// owner (access). def_hash is the hash
// of a static schedule's definition as last synced (Sync). seq orders a
// schedule's runs.
//
// A step of the package's schema (the tables schedules and schedule_runs)
// is applied once and in order by dbconn's runner (schema), recorded in
// schedule_migrations (version, name, applied_at) in the same transaction
// as its statements. As in the store and the hand-off queue: versions start
// at 1 and go up by one, a published step is never edited, steps are
// additive, and a database with versions beyond a binary's list is
// accepted (a replica of the previous release keeps working beside a newer
// one).
var (
	sqliteMigrations = []dbconn.Migration{
		{Version: 1, Name: "schedules and runs", SQL: `CREATE TABLE schedules (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	source     TEXT NOT NULL DEFAULT '',
	def_hash   TEXT NOT NULL DEFAULT '',
	spec       TEXT NOT NULL,
	enabled    INTEGER NOT NULL,
	target     TEXT NOT NULL DEFAULT '',
	timeout    INTEGER NOT NULL DEFAULT 0,
	missed     TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	last_run   INTEGER NOT NULL DEFAULT 0,
	next_run   INTEGER NOT NULL DEFAULT 0,
	run_count  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX schedules_due ON schedules (next_run);
CREATE INDEX schedules_source ON schedules (source);
CREATE TABLE schedule_runs (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	id          TEXT NOT NULL UNIQUE,
	schedule_id TEXT NOT NULL,
	due         INTEGER NOT NULL DEFAULT 0,
	manual      INTEGER NOT NULL DEFAULT 0,
	status      TEXT NOT NULL,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER NOT NULL DEFAULT 0,
	lease_until INTEGER NOT NULL DEFAULT 0,
	result      TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	replica     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule_id, seq);
CREATE INDEX schedule_runs_status ON schedule_runs (status, lease_until)`},
		{Version: 2, Name: "schedule owners", SQL: ownerMigration},
		{Version: 3, Name: "why a schedule was disabled", SQL: disabledReasonMigration},
	}
	postgresMigrations = []dbconn.Migration{
		{Version: 1, Name: "schedules and runs", SQL: `CREATE TABLE schedules (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	source     TEXT NOT NULL DEFAULT '',
	def_hash   TEXT NOT NULL DEFAULT '',
	spec       TEXT NOT NULL,
	enabled    BIGINT NOT NULL,
	target     TEXT NOT NULL DEFAULT '',
	timeout    BIGINT NOT NULL DEFAULT 0,
	missed     TEXT NOT NULL DEFAULT '',
	created_at BIGINT NOT NULL,
	updated_at BIGINT NOT NULL,
	last_run   BIGINT NOT NULL DEFAULT 0,
	next_run   BIGINT NOT NULL DEFAULT 0,
	run_count  BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX schedules_due ON schedules (next_run);
CREATE INDEX schedules_source ON schedules (source);
CREATE TABLE schedule_runs (
	seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	schedule_id TEXT NOT NULL,
	due         BIGINT NOT NULL DEFAULT 0,
	manual      BIGINT NOT NULL DEFAULT 0,
	status      TEXT NOT NULL,
	started_at  BIGINT NOT NULL,
	finished_at BIGINT NOT NULL DEFAULT 0,
	lease_until BIGINT NOT NULL DEFAULT 0,
	result      TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	replica     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule_id, seq);
CREATE INDEX schedule_runs_status ON schedule_runs (status, lease_until)`},
		{Version: 2, Name: "schedule owners", SQL: ownerMigration},
		{Version: 3, Name: "why a schedule was disabled", SQL: disabledReasonMigration},
	}
)

// ownerMigration adds the owner of each schedule (step 2, the same SQL on
// both databases). The schedules there before it, static or made at run
// time when schedules had no owner, become the operator's ('operator' is
// access.Operator): only an admin sees them over the API.
const ownerMigration = `ALTER TABLE schedules ADD COLUMN owner TEXT NOT NULL DEFAULT '';
UPDATE schedules SET owner = 'operator';
CREATE INDEX schedules_owner ON schedules (owner, source)`

// disabledReasonMigration adds why the gateway disabled a schedule (step
// 3, the same SQL on both databases): a run's Runner said the schedule
// may not run any more (DisableError: the key that made it is revoked).
// It is empty for a schedule enabled, or disabled by its owner; a replica
// of the previous release leaves it empty.
const disabledReasonMigration = `ALTER TABLE schedules ADD COLUMN disabled_reason TEXT NOT NULL DEFAULT ''`

// schema is the package's tables for dbconn's migration runner.
var schema = dbconn.Schema{
	Table:    "schedule_migrations",
	Lock:     migrationLock,
	SQLite:   sqliteMigrations,
	Postgres: postgresMigrations,
}

// Postgres advisory lock keys, in ASCII: migrating ("schedule") and
// syncing static schedules ("schedsyn"). Neither is the store's or the
// queue's key, so that the packages never wait for each other.
const (
	migrationLock int64 = 0x73_63_68_65_64_75_6c_65
	syncLock      int64 = 0x73_63_68_65_64_73_79_6e
	// ownerLockSeed seeds the hash of an owner that CreateLimited locks
	// ("schedown").
	ownerLockSeed int64 = 0x73_63_68_65_64_6f_77_6e
)
