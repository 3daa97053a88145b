// Package pgstore is the store.Store in a PostgreSQL database, which
// replicas on any hosts share. Its schema is versioned and migrated when a
// store opens (see schema). It is apart from package store so that the
// packages that only use a store.Store do not link the PostgreSQL driver.
package pgstore

import "github.com/agentgw/agentgw/internal/dbconn"

// schema is the store's table for dbconn's migration runner: applied once
// and in order when a store opens, each step recorded in schema_migrations
// (version, name, applied_at) in the same transaction as its statements,
// so that a database is never left with a step half applied or applied
// unrecorded. The rules of the list (postgresMigrations) are
// dbconn.Migration's. Replicas starting at once on an empty database
// migrate one at a time under the runner's lock, the advisory lock
// migrationLock.
//
// A database made before the store used dbconn's runner has the same
// schema_migrations, with applied_at a TIMESTAMPTZ rather than text; the
// runner reads only version and name, so it carries on with that table as
// it is (TestLegacyDatabase).
var schema = dbconn.Schema{
	Table:    "schema_migrations",
	Lock:     migrationLock,
	Postgres: postgresMigrations,
}
