package pgstore

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
)

// TestPostgresReconnects: the store's connections to the database are
// terminated by the server between two requests (as a database restart or
// failover does), and the next request succeeds on a new connection; the
// row written before is still there.
func TestPostgresReconnects(t *testing.T) {
	url := pgtest.Schema(t)
	// Only this store's connections are terminated: the test binary's
	// other tests share its database.
	app := "agentgw_reconnect_test"
	s := openTestPostgres(t, pgtest.WithParam(url, "application_name", app))
	ctx := context.Background()
	if err := s.Put(ctx, "k", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	pgExec(t, url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = '`+app+`'`)
	got, err := s.Get(ctx, "k")
	if err != nil {
		t.Fatalf("the request after the connections were terminated: %v", err)
	}
	if !bytes.Equal(got, []byte("v")) {
		t.Fatalf("got %q, want %q", got, "v")
	}
}
