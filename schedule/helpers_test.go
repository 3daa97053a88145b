package schedule

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases every store and scheduler test runs over.
// newDB makes a fresh database and returns its name: a SQLite file's path
// or a Postgres URL (a schema of its own).
var backends = []struct {
	name  string
	newDB func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "schedule.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

// eachBackend runs test over each backend, on a fresh database.
func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDB(t)) })
	}
}

// opened is a Store on a database opened through the gateway's store, as
// the gateway opens it; close closes both (the Store has nothing to
// close of its own).
type opened struct {
	*Store
	close func()
}

// tryOpen opens a Store on database db.
func tryOpen(db string, opts Options) (opened, error) {
	ctx := context.Background()
	var c io.Closer
	var st *Store
	var err error
	if store.IsPostgresURL(db) {
		var p *pgstore.Postgres
		if p, err = pgstore.Open(ctx, db); err != nil {
			return opened{}, err
		}
		c = p
		st, err = NewPostgres(ctx, p.Pool(), opts)
	} else {
		var s *sqlitestore.SQLite
		if s, err = sqlitestore.Open(db); err != nil {
			return opened{}, err
		}
		c = s
		st, err = NewSQLite(ctx, s.DB(), opts)
	}
	if err != nil {
		_ = c.Close()
		return opened{}, err
	}
	return opened{st, func() { _ = c.Close() }}, nil
}

// openStore opens a Store on database db, closed when the test ends.
func openStore(t testing.TB, db string, opts Options) *Store {
	t.Helper()
	o, err := tryOpen(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(o.close)
	return o.Store
}

// t0 is the fake clocks' start.
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) // a Monday

func every(d string) Spec {
	s, err := Parse(SpecText{Every: d})
	if err != nil {
		panic(err)
	}
	return s
}

func cronSpec(expr, tz string) Spec {
	s, err := Parse(SpecText{Cron: expr, Timezone: tz})
	if err != nil {
		panic(err)
	}
	return s
}

func create(t testing.TB, st *Store, sc Schedule) Schedule {
	t.Helper()
	out, err := st.Create(context.Background(), sc)
	if err != nil {
		t.Fatalf("Create(%s): %v", sc.Name, err)
	}
	return out
}

func get(t testing.TB, st *Store, id string) Schedule {
	t.Helper()
	sc, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return sc
}
