package usage

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// pgtestSchema is pgtest.Schema.
func pgtestSchema(b *testing.B) string { return pgtest.Schema(b) }

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases every store test runs over: a fresh SQLite
// file or a fresh PostgreSQL schema, opened as the gateway opens its store.
var backends = []struct {
	name  string
	newDB func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "usage.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

// eachBackend runs test over each backend.
func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDB(t)) })
	}
}

// openStore opens a Store on db through the gateway's store, closed when
// the test ends.
func openStore(t testing.TB, db string) *Store {
	t.Helper()
	ctx := context.Background()
	var c io.Closer
	var st *Store
	var err error
	if store.IsPostgresURL(db) {
		var p *pgstore.Postgres
		if p, err = pgstore.Open(ctx, db); err != nil {
			t.Fatal(err)
		}
		c = p
		st, err = NewPostgres(ctx, p.Pool(), nil)
	} else {
		var s *sqlitestore.SQLite
		if s, err = sqlitestore.Open(db); err != nil {
			t.Fatal(err)
		}
		c = s
		st, err = NewSQLite(ctx, s.DB(), nil)
	}
	if err != nil {
		_ = c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return st
}

// storedRecords are the usage records in st, largest input first, as
// rows of the table (At and Cost left out).
func storedRecords(t *testing.T, st *Store) []Record {
	t.Helper()
	rows, err := st.pool.Query(context.Background(), `SELECT request_id, source, key_id, user_name, team, agent, model, tokens_in, tokens_out
FROM usage_records ORDER BY tokens_in DESC`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var r Record
		if err := rows.Scan(&r.RequestID, &r.Source, &r.Key, &r.User, &r.Team, &r.Agent, &r.Model, &r.In, &r.Out); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
