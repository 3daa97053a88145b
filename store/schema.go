package store

import (
	"log/slog"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// schema is the store's table for dbconn's migration runner: applied once
// and in order when a store opens, each step recorded in schema_migrations
// (version, name, applied_at) in the same transaction as its statements,
// so that a database is never left with a step half applied or applied
// unrecorded. Each backend has its own list (sqliteMigrations,
// postgresMigrations); the rules of the lists are dbconn.Migration's.
// Replicas starting at once on an empty database migrate one at a time
// under the runner's lock (Postgres: the advisory lock migrationLock).
//
// A database made before the store used dbconn's runner has the same
// schema_migrations, with applied_at a TIMESTAMP (TIMESTAMPTZ on
// Postgres) rather than text; the runner reads only version and name, so
// it carries on with that table as it is (TestLegacyDatabases).
var schema = dbconn.Schema{
	Table:    "schema_migrations",
	Lock:     migrationLock,
	SQLite:   sqliteMigrations,
	Postgres: postgresMigrations,
}

// An Option changes how a store is opened.
type Option func(*options)

type options struct {
	log *slog.Logger
}

// WithLogger makes the store log to log: an INFO line per migration step
// it applies when it opens (default: no lines).
func WithLogger(log *slog.Logger) Option {
	return func(o *options) { o.log = log }
}

func newOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}
