// Package sqlitestore is the store.Store in a SQLite database file, which
// the replicas of one host can share. Its schema is versioned and migrated
// when a store opens (see schema). It is apart from package store so that
// the packages that only use a store.Store do not link the SQLite driver.
package sqlitestore

import "github.com/agentgw/agentgw/internal/dbconn"

// schema is the store's table for dbconn's migration runner: applied once
// and in order when a store opens, each step recorded in schema_migrations
// (version, name, applied_at) in the same transaction as its statements,
// so that a database is never left with a step half applied or applied
// unrecorded. The rules of the list (sqliteMigrations) are
// dbconn.Migration's; the table is the one package pgstore's schema
// records its steps in. Replicas starting at once on an empty database
// migrate one at a time under the runner's lock (the file's write lock).
//
// A database made before the store used dbconn's runner has the same
// schema_migrations, with applied_at a TIMESTAMP rather than text; the
// runner reads only version and name, so it carries on with that table as
// it is (TestLegacyDatabase).
var schema = dbconn.Schema{
	Table:  "schema_migrations",
	SQLite: sqliteMigrations,
}
