package pgstore

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store"
)

// The statements of the store's own migration runner as it was before
// it moved to dbconn's (store/migrate.go, sqlite.go and postgres.go at
// b3adcc7), with the row of its step 1 and a stored key: a database
// created by that code. applied_at is set rather than the default, so
// that the rows can be compared byte for byte.
var (
	legacyPostgres = []string{
		`BEGIN`,
		`SELECT pg_advisory_xact_lock(27416758083413879)`, // 0x61_67_65_6e_74_67_77
		legacyPostgresTable,
		`CREATE TABLE store (
	key     BYTEA PRIMARY KEY,
	value   BYTEA NOT NULL,
	expires BIGINT NOT NULL -- unix nanoseconds
);
CREATE INDEX store_expires ON store (expires)`,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'store table', '2026-01-02 03:04:05+00')`,
		`INSERT INTO store (key, value, expires) VALUES ('run-1', '\x00ff7061757365', 9223372036854775807)`,
		`COMMIT`,
	}
)

// legacyPostgresTable is the old runner's schema_migrations on Postgres.
const legacyPostgresTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
)`

// The legacy database as the queries below dump it (its step 1), before
// and after the current code opens it: nothing is re-applied, re-recorded
// or changed; only the steps after 1 are applied, once.
const (
	legacyPostgresDump = `schema_migrations: 1|store table|2026-01-02 03:04:05
store: run-1|00ff7061757365|9223372036854775807
schema: applied_at timestamp with time zone,name text,version integer`
)

const (
	dumpPostgres = `SELECT 'schema_migrations: ' || string_agg(version || '|' || name || '|' || to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), ',' ORDER BY version) FROM schema_migrations WHERE version = 1
UNION ALL SELECT 'store: ' || string_agg(convert_from(key, 'UTF8') || '|' || encode(value, 'hex') || '|' || expires, ',') FROM store
UNION ALL SELECT 'schema: ' || string_agg(column_name || ' ' || data_type, ',' ORDER BY column_name) FROM information_schema.columns
	WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
)

// TestLegacyDatabase: a database made by the store's own migration
// runner, before dbconn's, opens with the current code, which recognises
// its schema_migrations: the rows and the table stay byte for byte, no
// step is applied again, the later ones (2, the claims) are applied once,
// and the stored key is there.
func TestLegacyDatabase(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range legacyPostgres {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	dump := func() string {
		var lines []string
		rows, err := conn.Query(ctx, dumpPostgres)
		if err != nil {
			t.Fatal(err)
		}
		var line string
		if _, err := pgx.ForEachRow(rows, []any{&line}, func() error { lines = append(lines, line); return nil }); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	if got := dump(); got != legacyPostgresDump {
		t.Fatalf("the fixture:\n%s\nwant:\n%s", got, legacyPostgresDump)
	}
	var log bytes.Buffer
	for range 2 {
		s, err := Open(ctx, url, store.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		if err != nil {
			t.Fatal(err)
		}
		if v, err := s.Get(ctx, "run-1"); err != nil || string(v) != "\x00\xffpause" {
			t.Errorf("Get(run-1) = %q, %v", v, err)
		}
		_ = s.Close()
		if got := dump(); got != legacyPostgresDump {
			t.Errorf("after opening:\n%s\nwant:\n%s", got, legacyPostgresDump)
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
	s, err := Open(context.Background(), pgtest.Schema(t), store.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
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
