package keys

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases every store test runs over; newDB makes a
// fresh one: a SQLite file's path or a Postgres URL (a schema of its own).
var backends = []struct {
	name  string
	newDB func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "keys.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.Schema(t) }},
}

func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDB(t)) })
	}
}

// openStore opens a Store on db through the gateway's store, as the
// gateway does: each call is a pool of its own, as another replica's or
// another process's (`agentgw keys`) would be.
func openStore(t testing.TB, db string, opts Options) *Store {
	t.Helper()
	ctx := context.Background()
	var c io.Closer
	var st *Store
	var err error
	if store.IsPostgresURL(db) {
		p, perr := pgstore.Open(ctx, db)
		if perr != nil {
			t.Fatal(perr)
		}
		c = p
		st, err = NewPostgres(ctx, p.Pool(), opts)
	} else {
		s, serr := sqlitestore.Open(db)
		if serr != nil {
			t.Fatal(serr)
		}
		c = s
		if opts.ReadDB == nil {
			opts.ReadDB = s.ReadDB()
		}
		st, err = NewSQLite(ctx, s.DB(), opts)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// TestStore: create, look up, list, rotate and revoke, with the rows as
// they are stored (hashed), on both backends.
func TestStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})

		k, secret, err := st.Create(ctx, Key{Name: "alice's laptop", User: "alice", Team: "platform",
			Agents: []string{"reviewer", "fixer/explain"}, Models: []string{"gpt-4o*"}}, "operator")
		if err != nil {
			t.Fatal(err)
		}
		if !LooksLikeSecret(secret) || len(secret) != 47 || k.Hint != secret[:8] {
			t.Fatalf("secret %d bytes, hint %q", len(secret), k.Hint)
		}
		want := Key{ID: k.ID, Hint: k.Hint, Name: "alice's laptop", User: "alice", Team: "platform",
			Agents: []string{"reviewer", "fixer/explain"}, Models: []string{"gpt-4o*"}, CreatedBy: "operator", CreatedAt: t0}
		if !reflect.DeepEqual(k, want) {
			t.Errorf("Create = %+v, want %+v", k, want)
		}
		got, ok, err := st.Lookup(ctx, secret)
		if err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Lookup = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		if c := got.Caller(); c.Owner != access.MemberOwner("alice") || c.KeyID != k.ID || c.User != "alice" || c.Team != "platform" || c.Admin {
			t.Errorf("Caller = %+v", c)
		}

		// Only the digest is stored: the secret is in no column.
		assertNotStored(t, st, secret)

		clock.Advance(time.Second)
		team, _, err := st.Create(ctx, Key{Team: "ci", Agents: []string{"*"}, Admin: true}, "member:root")
		if err != nil {
			t.Fatal(err)
		}
		if c := team.Caller(); c.Owner != access.TeamOwner("ci") || !c.Admin {
			t.Errorf("team key's Caller = %+v", c)
		}
		list, err := st.List(ctx)
		if err != nil || len(list) != 2 || list[0].ID != k.ID || list[1].ID != team.ID || !reflect.DeepEqual(list[1].Models, []string{}) {
			t.Errorf("List = %+v, %v", list, err)
		}

		clock.Advance(time.Minute)
		rotated, secret2, err := st.Rotate(ctx, k.ID)
		if err != nil || secret2 == secret || rotated.ID != k.ID || !rotated.RotatedAt.Equal(t0.Add(time.Minute+time.Second)) || rotated.Hint != secret2[:8] {
			t.Fatalf("Rotate = %+v, %v", rotated, err)
		}
		if _, ok, _ := st.Lookup(ctx, secret); ok {
			t.Error("the secret before rotation still works")
		}
		if got, ok, _ := st.Lookup(ctx, secret2); !ok || got.Caller().Owner != access.MemberOwner("alice") {
			t.Errorf("the rotated key: %+v, %v", got, ok)
		}
		// By id: the key is live through its rotation (a schedule made
		// with it keeps running).
		if got, ok, err := st.LookupID(ctx, k.ID); err != nil || !ok || got.ID != k.ID || got.Hint != secret2[:8] {
			t.Errorf("LookupID(rotated) = %+v, %v, %v", got, ok, err)
		}

		clock.Advance(time.Minute)
		revoked, err := st.Revoke(ctx, k.ID)
		if err != nil || !revoked.RevokedAt.Equal(t0.Add(2*time.Minute+time.Second)) {
			t.Fatalf("Revoke = %+v, %v", revoked, err)
		}
		if _, ok, _ := st.Lookup(ctx, secret2); ok {
			t.Error("a revoked key still works")
		}
		if _, ok, err := st.LookupID(ctx, k.ID); ok || err != nil {
			t.Errorf("LookupID(revoked) = %v, %v; want not live", ok, err)
		}
		if got, ok, err := st.LookupID(ctx, team.ID); err != nil || !ok || got.ID != team.ID {
			t.Errorf("LookupID(another, live) = %+v, %v, %v", got, ok, err)
		}
		if _, ok, err := st.LookupID(ctx, "nope"); ok || err != nil {
			t.Errorf("LookupID(unknown) = %v, %v", ok, err)
		}
		clock.Advance(time.Minute)
		if again, err := st.Revoke(ctx, k.ID); err != nil || !again.RevokedAt.Equal(revoked.RevokedAt) {
			t.Errorf("revoking again = %+v, %v; want the first revocation kept", again, err)
		}
		if _, _, err := st.Rotate(ctx, k.ID); !errors.Is(err, ErrRevoked) {
			t.Errorf("Rotate(revoked) = %v, want ErrRevoked", err)
		}
		for _, f := range []func() error{
			func() error { _, err := st.Get(ctx, "nope"); return err },
			func() error { _, err := st.Revoke(ctx, "nope"); return err },
			func() error { _, _, err := st.Rotate(ctx, "nope"); return err },
		} {
			if err := f(); !errors.Is(err, ErrNotFound) {
				t.Errorf("on an unknown id: %v, want ErrNotFound", err)
			}
		}
		for _, s := range []string{"", "agw_", secret2 + "x", strings.Replace(secret2, "agw_", "agx_", 1), "token"} {
			if _, ok, err := st.Lookup(ctx, s); ok || err != nil {
				t.Errorf("Lookup(%q) = %v, %v", s, ok, err)
			}
		}
	})
}

// assertNotStored fails t when secret is in any column of api_keys.
func assertNotStored(t *testing.T, st *Store, secret string) {
	t.Helper()
	rs, err := st.db.Query(context.Background(), `SELECT id, secret_hash, hint, name, user_name, team, agents, models, created_by FROM api_keys`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		cols := make([]string, 9)
		ptrs := make([]any, len(cols))
		for i := range cols {
			ptrs[i] = &cols[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			if strings.Contains(c, secret[len(Prefix):]) {
				t.Errorf("a column holds the secret: %q", c)
			}
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.db.QueryRow(context.Background(), `SELECT count(*) FROM api_keys WHERE secret_hash = ?`, Digest(secret)).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows hold the secret's digest (%v), want 1", n, err)
	}
}

// TestValidate: what Create refuses, before any write.
func TestValidate(t *testing.T) {
	long := strings.Repeat("a", 65)
	for _, tc := range []struct {
		k     Key
		field string
	}{
		{Key{}, "user"},
		{Key{User: "has space"}, "user"},
		{Key{User: long}, "user"},
		{Key{User: "-x"}, "user"},
		{Key{Team: "a/b"}, "team"},
		{Key{User: "a", Name: "line\nbreak"}, "name"},
		{Key{User: "a", Agents: []string{"[a"}}, "agents"},
		{Key{User: "a", Agents: []string{"a/b/c"}}, "agents"},
		{Key{User: "a", Agents: []string{""}}, "agents"},
		{Key{User: "a", Models: []string{strings.Repeat("m", 129)}}, "models"},
		{Key{User: "a", Models: make([]string, MaxPatterns+1)}, "models"},
	} {
		var ve *ValidationError
		if err := tc.k.Validate(); !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("Validate(%+v) = %v, want an error on %s", tc.k, err, tc.field)
		}
	}
	for _, k := range []Key{
		{User: "alice@example.com"}, {Team: "platform"}, {User: "a", Team: "b", Agents: []string{"*", "x/*"}, Models: []string{"*"}},
	} {
		if err := k.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", k, err)
		}
	}
}

// TestSharedDatabase: two stores on one database, as two replicas (or a
// replica and `agentgw keys`, another process on the same SQLite file):
// a key made by one works on the other at once, and once revoked or
// rotated by one is refused by the other on its very next lookup.
func TestSharedDatabase(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		a, b := openStore(t, db, Options{}), openStore(t, db, Options{})
		k, secret, err := a.Create(ctx, Key{Team: "ci", Agents: []string{"*"}}, "operator")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := b.Lookup(ctx, secret); !ok || err != nil {
			t.Fatalf("the other store does not know the key: %v", err)
		}
		_, secret2, err := b.Rotate(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.Lookup(ctx, secret); ok {
			t.Error("the old secret still works on the other store")
		}
		if _, ok, _ := a.Lookup(ctx, secret2); !ok {
			t.Error("the new secret does not work on the other store")
		}
		if _, err := b.Revoke(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := a.Lookup(ctx, secret2); ok {
			t.Error("a key revoked on one store still works on the other")
		}
	})
}

// TestLookupDoesNotWaitForWriters (as sqlitestore's
// TestReadsDoNotWaitForWriters): with every connection of the SQLite
// store's write pool taken, one of them holding the write lock in an
// uncommitted transaction that revokes the key, Lookup still answers at
// once, with the committed row (the key live): it reads on the store's
// read pool. Once the revocation commits, the next Lookup refuses the
// key. The deadline only bounds the failure.
func TestLookupDoesNotWaitForWriters(t *testing.T) {
	ctx := context.Background()
	db, err := sqlitestore.Open(filepath.Join(t.TempDir(), "busy.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	st, err := NewSQLite(ctx, db.DB(), Options{ReadDB: db.ReadDB()})
	if err != nil {
		t.Fatal(err)
	}
	k, secret, err := st.Create(ctx, Key{User: "alice", Agents: []string{"*"}}, "operator")
	if err != nil {
		t.Fatal(err)
	}
	var conns []*sql.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range db.DB().Stats().MaxOpenConnections {
		c, err := db.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, err := conns[0].ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conns[0].ExecContext(ctx, `UPDATE api_keys SET revoked_at = 1 WHERE id = ?`, k.ID); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if got, ok, err := st.Lookup(rctx, secret); err != nil || !ok || got.ID != k.ID {
		t.Fatalf("Lookup while the writers hold every write connection = %v, %v; want the committed (live) key", ok, err)
	}
	if _, err := conns[0].ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.Lookup(ctx, secret); ok || err != nil {
		t.Fatalf("Lookup after the revocation committed = %v, %v; want no key", ok, err)
	}
}

// TestConcurrentCreate: keys made at once from two stores are all
// stored, each with its own secret.
func TestConcurrentCreate(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		stores := []*Store{openStore(t, db, Options{}), openStore(t, db, Options{})}
		var wg sync.WaitGroup
		secrets := make([]string, 20)
		errs := make([]error, len(secrets))
		for i := range secrets {
			wg.Go(func() { _, secrets[i], errs[i] = stores[i%2].Create(ctx, Key{User: "u"}, "operator") })
		}
		wg.Wait()
		seen := map[string]bool{}
		for i, s := range secrets {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if _, ok, _ := stores[(i+1)%2].Lookup(ctx, s); !ok || seen[s] {
				t.Errorf("key %d: found %v, duplicate %v", i, ok, seen[s])
			}
			seen[s] = true
		}
	})
}

// BenchmarkLookup is the cost a request with a key pays: one read of the
// shared database.
func BenchmarkLookup(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := openStore(b, be.newDB(b), Options{})
			ctx := context.Background()
			_, secret, err := st.Create(ctx, Key{User: "alice", Agents: []string{"*"}, Models: []string{"*"}}, "operator")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := st.Lookup(ctx, secret); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

// BenchmarkLookupID is the check a schedule made with a key makes before
// each run: the live key of an id.
func BenchmarkLookupID(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			st := openStore(b, be.newDB(b), Options{})
			ctx := context.Background()
			k, _, err := st.Create(ctx, Key{User: "alice", Agents: []string{"*"}, Models: []string{"*"}}, "operator")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := st.LookupID(ctx, k.ID); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
