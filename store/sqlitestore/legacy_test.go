package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/store"
)

// The statements of the store's own migration runner as it was before
// it moved to dbconn's (store/migrate.go, sqlite.go and postgres.go at
// b3adcc7), with the row of its step 1 and a stored key: a database
// created by that code. applied_at is set rather than the default, so
// that the rows can be compared byte for byte.
var (
	legacySQLite = []string{
		`BEGIN IMMEDIATE`,
		`CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
)`,
		`CREATE TABLE IF NOT EXISTS store (
	key     TEXT PRIMARY KEY,
	value   BLOB NOT NULL,
	expires INTEGER NOT NULL -- unix nanoseconds
);
CREATE INDEX IF NOT EXISTS store_expires ON store (expires)`,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'store table', '2026-01-02 03:04:05')`,
		`INSERT INTO store (key, value, expires) VALUES ('run-1', X'00ff7061757365', 9223372036854775807)`,
		`COMMIT`,
	}
)

// The legacy database as the queries below dump it (its step 1), before
// and after the current code opens it: nothing is re-applied, re-recorded
// or changed; only the steps after 1 are applied, once.
const (
	legacySQLiteDump = `schema_migrations: 1|store table|2026-01-02 03:04:05|text
store: run-1|00FF7061757365|9223372036854775807
schema: CREATE TABLE schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
)`
)

const (
	dumpSQLite = `SELECT 'schema_migrations: ' || group_concat(version || '|' || name || '|' || applied_at || '|' || typeof(applied_at), ',') FROM schema_migrations WHERE version = 1
UNION ALL SELECT 'store: ' || group_concat(key || '|' || hex(value) || '|' || expires, ',') FROM store
UNION ALL SELECT 'schema: ' || sql FROM sqlite_master WHERE name = 'schema_migrations'`
)

// TestLegacyDatabase: a database made by the store's own migration
// runner, before dbconn's, opens with the current code, which recognises
// its schema_migrations: the rows and the table stay byte for byte, no
// step is applied again, the later ones (2, the claims) are applied once,
// and the stored key is there.
func TestLegacyDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "legacy.db")
	dsn, err := sqliteDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // BEGIN and COMMIT on one connection
	for _, stmt := range legacySQLite {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	dump := func() string {
		rows, err := db.Query(dumpSQLite)
		if err != nil {
			t.Fatal(err)
		}
		return joinRows(t, rows)
	}
	if got := dump(); got != legacySQLiteDump {
		t.Fatalf("the fixture:\n%s\nwant:\n%s", got, legacySQLiteDump)
	}
	var log bytes.Buffer
	for range 2 {
		s, err := Open(path, store.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		if err != nil {
			t.Fatal(err)
		}
		if v, err := s.Get(ctx, "run-1"); err != nil || string(v) != "\x00\xffpause" {
			t.Errorf("Get(run-1) = %q, %v", v, err)
		}
		_ = s.Close()
		if got := dump(); got != legacySQLiteDump {
			t.Errorf("after opening:\n%s\nwant:\n%s", got, legacySQLiteDump)
		}
	}
	if got := log.String(); strings.Count(got, "migration applied") != 1 ||
		!strings.Contains(got, `msg="migration applied" table=schema_migrations version=2 name="store claims"`) {
		t.Errorf("migrations applied:\n%s\nwant step 2 once", got)
	}
}

// TestMigrationLog: a fresh database logs its store's steps, once.
func TestMigrationLog(t *testing.T) {
	var log bytes.Buffer
	s, err := Open(filepath.Join(t.TempDir(), "s.db"), store.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const want = "level=INFO msg=\"migration applied\" table=schema_migrations version=1 name=\"store table\"\n" +
		"level=INFO msg=\"migration applied\" table=schema_migrations version=2 name=\"store claims\"\n"
	if got := log.String(); got != want {
		t.Errorf("log:\n%s\nwant:\n%s", got, want)
	}
}

func joinRows(t *testing.T, rows *sql.Rows) string {
	t.Helper()
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
