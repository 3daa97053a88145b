package keys

import "github.com/agentgw/agentgw/internal/dbconn"

// The steps of the keys' table, api_keys, recorded in keys_migrations by
// dbconn's runner (the rules of handoff/queue/migrate.go: versions from
// 1 up by one, a published step never edited, steps additive). Times are
// unix nanoseconds (0: none); text and numbers are NOT NULL, "" or 0
// meaning none. secret_hash is the hex SHA-256 of the secret; hint its
// first eight characters ("agw_" and four of the random part), shown in
// listings so that a holder can tell keys apart. agents and models are
// JSON arrays of patterns; admin is 0 or 1.
var (
	sqliteMigrations = []dbconn.Migration{
		{Version: 1, Name: "api_keys", SQL: `CREATE TABLE api_keys (
	id          TEXT PRIMARY KEY,
	secret_hash TEXT NOT NULL UNIQUE,
	hint        TEXT NOT NULL,
	name        TEXT NOT NULL DEFAULT '',
	user_name   TEXT NOT NULL DEFAULT '',
	team        TEXT NOT NULL DEFAULT '',
	agents      TEXT NOT NULL DEFAULT '[]',
	models      TEXT NOT NULL DEFAULT '[]',
	admin       INTEGER NOT NULL DEFAULT 0,
	created_by  TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	rotated_at  INTEGER NOT NULL DEFAULT 0,
	revoked_at  INTEGER NOT NULL DEFAULT 0
)`},
	}
	postgresMigrations = []dbconn.Migration{
		{Version: 1, Name: "api_keys", SQL: `CREATE TABLE api_keys (
	id          TEXT PRIMARY KEY,
	secret_hash TEXT NOT NULL UNIQUE,
	hint        TEXT NOT NULL,
	name        TEXT NOT NULL DEFAULT '',
	user_name   TEXT NOT NULL DEFAULT '',
	team        TEXT NOT NULL DEFAULT '',
	agents      TEXT NOT NULL DEFAULT '[]',
	models      TEXT NOT NULL DEFAULT '[]',
	admin       BIGINT NOT NULL DEFAULT 0,
	created_by  TEXT NOT NULL DEFAULT '',
	created_at  BIGINT NOT NULL,
	rotated_at  BIGINT NOT NULL DEFAULT 0,
	revoked_at  BIGINT NOT NULL DEFAULT 0
)`},
	}
)

// migrationLock is the Postgres advisory lock key of migrating the keys'
// table: "apikeys" in ASCII, no other package's.
const migrationLock int64 = 0x61_70_69_6b_65_79_73

// schema is the keys' table for dbconn's migration runner.
var schema = dbconn.Schema{
	Table:    "keys_migrations",
	Lock:     migrationLock,
	SQLite:   sqliteMigrations,
	Postgres: postgresMigrations,
}
