package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// newClock starts at the real time: a store opened later with the real
// clock (a second instance, a reopened database) must agree on what is
// live.
func newClock() *testclock.Clock { return testclock.New(time.Now()) }

// openTestPostgres opens the Postgres store at url, closed when the test
// ends.
func openTestPostgres(t testing.TB, url string) *Postgres {
	t.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestContract: Postgres keeps the contract of every backend, two
// instances on one database too.
func TestContract(t *testing.T) {
	storetest.Contract(t, storetest.Backend{
		Open: func(t *testing.T, now func() time.Time) store.Store {
			s := openTestPostgres(t, pgtest.Schema(t))
			s.now = now
			return s
		},
		Another: func(t *testing.T, s store.Store) store.Store {
			p := s.(*Postgres)
			other := openTestPostgres(t, p.pool.Config().ConnString())
			other.now = p.now
			return other
		},
		DoesIO: true,
	})
}

// TestAcrossProcesses: two processes share one database (storetest's
// AcrossProcesses).
func TestAcrossProcesses(t *testing.T) {
	storetest.AcrossProcesses(t,
		func(t *testing.T) string { return pgtest.Schema(t) },
		func(t testing.TB, db string) store.Store { return openTestPostgres(t, db) })
}

// pgExec runs statements on the database at url with a connection of its
// own.
func pgExec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// migrationRows reads schema_migrations as "version name" lines.
func migrationRows(t *testing.T, p *Postgres) []string {
	t.Helper()
	rows, err := p.pool.Query(context.Background(), `SELECT version, name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var v int32
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&v, &name}, func() error {
		out = append(out, fmt.Sprint(v, " ", name))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPostgresMigrationsAtOnce: replicas starting together on an empty
// database all open it; the schema is made once and recorded once.
func TestPostgresMigrationsAtOnce(t *testing.T) {
	url := pgtest.Schema(t)
	const replicas = 6
	stores := make([]*Postgres, replicas)
	errs := make([]error, replicas)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = Open(context.Background(), url)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
			continue
		}
		t.Cleanup(func() { _ = stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	if got, want := strings.Join(migrationRows(t, stores[0]), "\n"), "1 store table\n2 store claims"; got != want {
		t.Errorf("schema_migrations:\n%s\nwant:\n%s", got, want)
	}
	ctx := context.Background()
	if err := stores[1].Put(ctx, "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, err := stores[replicas-1].Take(ctx, "k"); err != nil || string(v) != "v" {
		t.Errorf("Take on another replica = %q, %v", v, err)
	}
}

// TestPostgresRows: what Put writes, column by column: the key's bytes,
// the value's, the expiry in unix nanoseconds (the largest when now+ttl
// overflows).
func TestPostgresRows(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	s := openTestPostgres(t, pgtest.Schema(t))
	s.now = c.Now
	now := c.Now().UnixNano()
	must(t, s.Put(ctx, "k\x00é", []byte("\x00\xff"), time.Minute))
	must(t, s.Put(ctx, "forever", []byte("x"), math.MaxInt64))
	must(t, s.Put(ctx, "past", nil, -time.Hour))
	rows, err := s.pool.Query(ctx, `SELECT key, value, expires FROM store ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var key, value []byte
	var expires int64
	if _, err := pgx.ForEachRow(rows, []any{&key, &value, &expires}, func() error {
		got = append(got, fmt.Sprintf("%q %q %d", key, value, expires))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf(`"forever" "x" %d`, int64(math.MaxInt64)),
		fmt.Sprintf(`"k\x00é" "\x00\xff" %d`, now+int64(time.Minute)),
		fmt.Sprintf(`"past" "" %d`, now-int64(time.Hour)),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPostgresDatabaseClock: without a clock of its own the store uses the
// server's: an expiry is the server's now plus the ttl, and a row past it
// is neither got nor taken (and taking deletes it).
func TestPostgresDatabaseClock(t *testing.T) {
	ctx := context.Background()
	s := openTestPostgres(t, pgtest.Schema(t))
	dbNow := func() int64 {
		var n int64
		if err := s.pool.QueryRow(ctx, `SELECT `+pgNow).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := dbNow()
	must(t, s.Put(ctx, "live", []byte("v"), time.Hour))
	after := dbNow()
	must(t, s.Put(ctx, "gone", []byte("v"), -time.Nanosecond))
	var expires int64
	if err := s.pool.QueryRow(ctx, `SELECT expires FROM store WHERE key = 'live'`).Scan(&expires); err != nil {
		t.Fatal(err)
	}
	if e := expires - int64(time.Hour); e < before || e > after {
		t.Errorf("expiry %d - 1h is not between the server's times %d and %d", expires, before, after)
	}
	if v, err := s.Get(ctx, "live"); err != nil || string(v) != "v" {
		t.Errorf("Get(live) = %q, %v", v, err)
	}
	if _, err := s.Get(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(gone) = %v", err)
	}
	if _, err := s.Take(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Take(gone) = %v", err)
	}
	if n := pgCount(t, s); n != 1 {
		t.Errorf("%d rows, want 1: taking the expired row deletes it", n)
	}
}

func pgCount(t *testing.T, s *Postgres) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM store`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresSweep: expired rows are deleted every store.SweepEvery puts and
// when a store is opened; live ones stay.
func TestPostgresSweep(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Schema(t)
	c := newClock()
	s := openTestPostgres(t, url)
	s.now = c.Now
	for i := range 10 {
		must(t, s.Put(ctx, fmt.Sprint("old", i), nil, time.Second))
	}
	c.Advance(time.Second)
	for i := range store.SweepEvery - 11 {
		must(t, s.Put(ctx, fmt.Sprint("new", i), nil, time.Minute))
	}
	if n := pgCount(t, s); n != store.SweepEvery-1 {
		t.Fatalf("%d rows before the sweep, want %d", n, store.SweepEvery-1)
	}
	must(t, s.Put(ctx, "last", nil, time.Minute)) // the store.SweepEvery-th put
	if n := pgCount(t, s); n != store.SweepEvery-10 {
		t.Errorf("%d rows after the sweep, want the %d live ones", n, store.SweepEvery-10)
	}
	for i := range 5 { // expired for the server's clock too
		must(t, s.Put(ctx, fmt.Sprint("gone", i), nil, -time.Hour))
	}
	reopened := openTestPostgres(t, url)
	if n := pgCount(t, reopened); n != store.SweepEvery-10 {
		t.Errorf("%d rows after opening, want %d", n, store.SweepEvery-10)
	}
}

// TestOpenSchemaMigrations: a schema_migrations of another program
// is refused with a clear error, before anything is written; one recording
// steps beyond this binary's (a newer replica migrated) is accepted.
func TestOpenSchemaMigrations(t *testing.T) {
	tests := []struct {
		name  string
		setup []string
		want  string // "" opens
	}{
		{"another tool's table", []string{`CREATE TABLE schema_migrations (version bigint PRIMARY KEY, dirty boolean NOT NULL)`,
			`INSERT INTO schema_migrations VALUES (3, false)`},
			`reading schema_migrations: ERROR: column "name" does not exist`},
		{"another schema's step 1", []string{legacyPostgresTable,
			`INSERT INTO schema_migrations (version, name) VALUES (1, 'users')`},
			`schema_migrations records version 1 as "users", not "store table"`},
		{"a newer binary's steps", []string{legacyPostgresTable,
			postgresMigrations[0].SQL, postgresMigrations[1].SQL,
			`INSERT INTO schema_migrations (version, name) VALUES (1, 'store table'), (2, 'store claims'), (3, 'from the future')`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url := pgtest.Schema(t)
			pgExec(t, url, tc.setup...)
			s, err := Open(context.Background(), url)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if got := strings.Join(migrationRows(t, s), ","); got != "1 store table,2 store claims,3 from the future" {
					t.Errorf("schema_migrations: %s", got)
				}
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "store: migrating PostgreSQL database ") {
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestOpenErrors: a URL that is not Postgres's, or a server that
// cannot be reached, fails the open with an error naming the URL without
// its password.
func TestOpenErrors(t *testing.T) {
	tests := []struct{ url, want string }{
		{"", "store: the PostgreSQL URL is empty"},
		{"host=db password=hunter2", "store: (a URL that does not parse) is not a postgres:// URL"},
		{"mysql://u:hunter2@h/db", "store: mysql://u:xxxxx@h/db is not a postgres:// URL"},
		{"postgres://u:hunter2@127.0.0.1:1/db?sslmode=disable&connect_timeout=5",
			"store: migrating PostgreSQL database postgres://u:xxxxx@127.0.0.1:1/db?sslmode=disable&connect_timeout=5: "},
		{"postgres://u@127.0.0.1:1/db?sslmode=disable&password=hunter2",
			"store: migrating PostgreSQL database postgres://u@127.0.0.1:1/db?password=xxxxx&sslmode=disable: "},
		{"postgres://u:hunter2@127.0.0.1:1/db?sslmode=nonsense", "store: PostgreSQL URL postgres://u:xxxxx@127.0.0.1:1/db?sslmode=nonsense: "},
	}
	for _, tc := range tests {
		s, err := Open(context.Background(), tc.url)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) opened", tc.url)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q) = %v\nwant it to begin %q and not hold the password", tc.url, err, tc.want)
		}
	}
}

func BenchmarkPostgresPutTake(b *testing.B) {
	s := openTestPostgres(b, pgtest.Schema(b))
	ctx := context.Background()
	value := []byte(strings.Repeat("x", 512))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Put(ctx, "run", value, time.Minute); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Take(ctx, "run"); err != nil {
			b.Fatal(err)
		}
	}
}
