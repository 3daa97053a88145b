package store

import (
	"fmt"
)

// A migration is one step of a database's schema, applied once and in
// order when a store opens, and recorded in the table schema_migrations
// (version, name, applied_at) in the same transaction as its statements:
// a database is never left with a step half applied or applied unrecorded.
//
// Each backend has its own ordered list (sqliteMigrations,
// postgresMigrations). Versions start at 1 and go up by one; a published
// migration is never edited, only followed by a new one. Steps are
// additive (new tables, columns with defaults, indexes), so a replica of
// the previous release keeps working on a database a newer one migrated:
// a database with versions beyond a binary's list is accepted.
//
// Why a list in code and not a migration library (golang-migrate, goose,
// atlas): the schema is a handful of tables; the list is some thirty lines
// of Go, adds no dependency and keeps the SQL next to the queries that use
// it, in the binary (nothing to ship beside it). What the libraries add
// that matters here is the concurrency story, and it is small: Postgres
// takes pg_advisory_xact_lock at the start of the migrating transaction, so
// of several replicas starting at once one migrates and the others wait,
// then find every step recorded; SQLite takes the database's write lock
// with BEGIN IMMEDIATE. Down migrations, which the libraries also offer,
// are not wanted: a rollback is a restore.
type migration struct {
	version int
	name    string
	sql     string
}

// createMigrationsTable makes the table of applied migrations; %s is the
// backend's type of a time.
const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at %s NOT NULL DEFAULT CURRENT_TIMESTAMP
)`

// readMigrations reads schema_migrations.
const readMigrations = `SELECT version, name FROM schema_migrations`

// recordMigration records one applied step; the placeholders are the
// backend's.
const recordMigration = `INSERT INTO schema_migrations (version, name) VALUES (%s, %s)`

// pending returns the migrations of list that applied (version → name, as
// recorded) does not hold, in order. It fails when a recorded version has
// another name than list's step of that version: the table was written by
// another program, or the list was edited after release.
func pending(list []migration, applied map[int]string) ([]migration, error) {
	var out []migration
	for i, m := range list {
		if m.version != i+1 {
			panic(fmt.Sprintf("store: migration %q has version %d, want %d", m.name, m.version, i+1))
		}
		name, ok := applied[m.version]
		switch {
		case !ok:
			out = append(out, m)
		case name != m.name:
			return nil, fmt.Errorf("schema_migrations records version %d as %q, not %q: the database belongs to another program or version of agentgw's schema", m.version, name, m.name)
		}
	}
	return out, nil
}
