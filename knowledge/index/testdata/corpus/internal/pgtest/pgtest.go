// Package pgtest gives tests a PostgreSQL database of their own. Only tests
// import it.
//
// The server is the one AGENTGW_TEST_POSTGRES names (a postgres:// URL of a
// role that may create databases), else DefaultURL. When it cannot be
// reached the tests that need it skip, saying so, unless
// AGENTGW_REQUIRE_POSTGRES=1 (which .ci/run sets): then they fail. A test
// binary creates one database, agentgw_test_<random>, the first time a
// test asks, and Main drops it at the end; each test gets a fresh schema
// in it, so parallel tests and parallel runs never see each other's rows.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server tried when AGENTGW_TEST_POSTGRES is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Env and RequireEnv are the variables that choose the server and make
// its absence a failure.
const (
	Env        = "AGENTGW_TEST_POSTGRES"
	RequireEnv = "AGENTGW_REQUIRE_POSTGRES"
)

var (
	once     sync.Once
	dbURL    string // the run's database, or ""
	dbName   string
	adminURL string
	setupErr error
)

// setup creates the run's database on the server.
func setup() {
	adminURL = os.Getenv(Env)
	if adminURL == "" {
		adminURL = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		setupErr = fmt.Errorf("cannot reach PostgreSQL at %s: %w", redact(adminURL), err)
		return
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "agentgw_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		setupErr = fmt.Errorf("creating database %s on %s: %w", name, redact(adminURL), err)
		return
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		setupErr = err
		return
	}
	u.Path = "/" + name
	dbName, dbURL = name, u.String()
}

func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}

// Database returns the URL of the run's database, creating it on first
// use. Without a server it skips t, or fails it when RequireEnv is 1.
func Database(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if setupErr != nil {
		msg := fmt.Sprintf("PostgreSQL TESTS NOT RUN: %v. Set %s to a server's URL (default %s)", setupErr, Env, DefaultURL)
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s; %s=1 requires them", msg, RequireEnv)
		}
		t.Skip(msg)
	}
	return dbURL
}

var schemas struct {
	sync.Mutex
	n int
}

// Schema returns the URL of a new, empty schema in the run's database (its
// search_path), for one test. Without a server it skips or fails t as
// Database does.
func Schema(t testing.TB) string {
	t.Helper()
	db := Database(t)
	schemas.Lock()
	schemas.n++
	name := fmt.Sprintf("t%d", schemas.n)
	schemas.Unlock()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	return WithParam(db, "search_path", name)
}

// WithParam is rawURL with the query parameter key set to value.
func WithParam(rawURL, key, value string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// Main runs the tests and drops the run's database if one was created. A
// package whose tests use Database or Schema calls it from TestMain:
// os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if dbName != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: dropping database %s: %v\n", dbName, err)
		}
	}
	if setupErr != nil && os.Getenv(RequireEnv) != "1" {
		fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL TESTS SKIPPED: %v (set %s; %s=1 makes this a failure)\n", setupErr, Env, RequireEnv)
	}
	return code
}

func drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+dbName+" WITH (FORCE)")
	return err
}
