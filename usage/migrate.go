package usage

import "github.com/agentgw/agentgw/internal/dbconn"

// schema is the package's tables, applied by dbconn's migration runner
// and recorded in usage_migrations. usage_records has a row per request
// that called the model (times in unix nanoseconds, cost in nano-dollars);
// usage_counters a row per budget counter and window (counterKey), with
// the end of its window (expires), after which it is deleted.
var schema = dbconn.Schema{
	Table: "usage_migrations",
	Lock:  0x75736167, // "usag"
	SQLite: []dbconn.Migration{
		{Version: 1, Name: "usage records and counters", SQL: `CREATE TABLE usage_records (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	at         INTEGER NOT NULL,
	request_id TEXT NOT NULL DEFAULT '',
	source     TEXT NOT NULL DEFAULT '',
	key_id     TEXT NOT NULL DEFAULT '',
	user_name  TEXT NOT NULL DEFAULT '',
	team       TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT '',
	model      TEXT NOT NULL DEFAULT '',
	tokens_in  INTEGER NOT NULL DEFAULT 0,
	tokens_out INTEGER NOT NULL DEFAULT 0,
	estimated  INTEGER NOT NULL DEFAULT 0,
	cost       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX usage_records_at ON usage_records (at);
CREATE TABLE usage_counters (
	counter TEXT PRIMARY KEY,
	spent   INTEGER NOT NULL,
	expires INTEGER NOT NULL
);
CREATE INDEX usage_counters_expires ON usage_counters (expires)`},
	},
	Postgres: []dbconn.Migration{
		{Version: 1, Name: "usage records and counters", SQL: `CREATE TABLE usage_records (
	id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at         BIGINT NOT NULL,
	request_id TEXT NOT NULL DEFAULT '',
	source     TEXT NOT NULL DEFAULT '',
	key_id     TEXT NOT NULL DEFAULT '',
	user_name  TEXT NOT NULL DEFAULT '',
	team       TEXT NOT NULL DEFAULT '',
	agent      TEXT NOT NULL DEFAULT '',
	model      TEXT NOT NULL DEFAULT '',
	tokens_in  BIGINT NOT NULL DEFAULT 0,
	tokens_out BIGINT NOT NULL DEFAULT 0,
	estimated  INTEGER NOT NULL DEFAULT 0,
	cost       BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX usage_records_at ON usage_records (at);
CREATE TABLE usage_counters (
	counter TEXT PRIMARY KEY,
	spent   BIGINT NOT NULL,
	expires BIGINT NOT NULL
);
CREATE INDEX usage_counters_expires ON usage_counters (expires)`},
	},
}
