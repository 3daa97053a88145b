package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// The statements of the queue's hand-written migration (handoff/queue/
// migrate.go at b3adcc7): River's steps by River's migrator, then
// handoff_migrations and the queue's three steps, each recorded. The
// records' applied_at is set rather than the default, so that the rows
// can be compared byte for byte. legacyMessage is a message the old code
// stored.
const (
	legacyCreate = `CREATE TABLE IF NOT EXISTS handoff_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
)`
	legacyRecord  = `INSERT INTO handoff_migrations (version, name, applied_at) VALUES (%d, '%s', '2026-01-02 03:04:0%d')`
	legacyMessage = `INSERT INTO handoff_messages (id, task_id, recipient, priority, payload, status, result, created_at, updated_at, owner, hops)
	VALUES ('old-1', 'task-1', 'reviewer', 2, '{"a":1}', 'COMPLETED', '{"ok":true}', 100, 200, 'alice', 2)`
	// legacyDump is handoff_migrations's first three steps (the
	// hand-written runner's) and the message, before and after the current
	// code opens the database (which applies the steps added since).
	legacyDump = `1|handoff_messages|2026-01-02 03:04:01
2|status index|2026-01-02 03:04:02
3|owner, hops and limits|2026-01-02 03:04:03
message: old-1|task-1|reviewer|COMPLETED|{"ok":true}|alice|2`
	dumpQuery = `SELECT version || '|' || name || '|' || applied_at FROM handoff_migrations WHERE version <= 3
UNION ALL SELECT 'message: ' || id || '|' || task_id || '|' || recipient || '|' || status || '|' || result || '|' || owner || '|' || hops FROM handoff_messages
ORDER BY 1`
	riverDumpQuery = `SELECT line || '|' || version FROM river_migration ORDER BY line, version`
)

// legacyStepCount is how many steps the hand-written runner had.
const legacyStepCount = 3

// legacySteps are the queue's old steps with their records: the SQL is
// the lists' (a published step is never edited).
func legacySteps(list []dbconn.Migration) []string {
	var out []string
	for _, m := range list {
		out = append(out, m.SQL, fmt.Sprintf(legacyRecord, m.Version, m.Name, m.Version))
	}
	return out
}

// TestLegacyDatabases: a database migrated by the queue's hand-written
// runner, before dbconn's, opens with the current code, which recognises
// handoff_migrations and River's records: both stay byte for byte and
// the old message is there.
func TestLegacyDatabases(t *testing.T) {
	ctx := context.Background()
	handler := Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }}
	eachBackend(t, func(t *testing.T, db string) {
		var dump func(query string) string
		if store.IsPostgresURL(db) {
			conn, err := pgx.Connect(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			pool := openPool(t, db)
			m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
				t.Fatal(err)
			}
			for _, stmt := range append(append([]string{legacyCreate}, legacySteps(postgresMigrations[:legacyStepCount])...), legacyMessage) {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			dump = func(query string) string {
				rows, err := conn.Query(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				var lines []string
				var line string
				if _, err := pgx.ForEachRow(rows, []any{&line}, func() error { lines = append(lines, line); return nil }); err != nil {
					t.Fatal(err)
				}
				return strings.Join(lines, "\n")
			}
		} else {
			s, err := sqlitestore.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tx, err := s.DB().BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := rivermigrate.New(riversqlite.New(s.DB()), nil)
			if err != nil {
				t.Fatal(err)
			}
			//lint:ignore SA1019 as the old code did
			if _, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
				t.Fatal(err)
			}
			for _, stmt := range append(append([]string{legacyCreate}, legacySteps(sqliteMigrations[:legacyStepCount])...), legacyMessage) {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			dump = func(query string) string {
				rows, err := s.DB().QueryContext(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				return joinRows(t, rows)
			}
		}
		if got := dump(dumpQuery); got != legacyDump {
			t.Fatalf("the fixture:\n%s\nwant:\n%s", got, legacyDump)
		}
		river := dump(riverDumpQuery)
		if river == "" {
			t.Fatal("River's migrations are not recorded")
		}
		for range 2 {
			q := openQueue(t, db, handler)
			rec, err := q.Get(ctx, "old-1")
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != StatusCompleted || string(rec.Result) != `{"ok":true}` || rec.Owner != "alice" {
				t.Errorf("the old message: %+v", rec)
			}
			if got := dump(dumpQuery); got != legacyDump {
				t.Errorf("after opening:\n%s\nwant:\n%s", got, legacyDump)
			}
			if got, want := dump(`SELECT count(*) || '' FROM handoff_migrations`), fmt.Sprint(len(sqliteMigrations)); got != want {
				t.Errorf("after opening: %s steps recorded, want %s", got, want)
			}
			if got := dump(riverDumpQuery); got != river {
				t.Errorf("river_migration after opening:\n%s\nwant:\n%s", got, river)
			}
		}
	})
}

func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
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
