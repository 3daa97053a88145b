package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/store/sqlitestore"
)

// TestSearchDoesNotWaitForWriters: on the gateway's SQLite store a search
// reads on the store's read pool, so writers holding every write
// connection (one of them in a write transaction) do not keep it waiting
// (soak finding F4); before, it failed with "taking a connection: context
// deadline exceeded".
func TestSearchDoesNotWaitForWriters(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "busy.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ix, err := Open(ctx, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustReplace(t, ix, "kb", testCorpus()...)
	var conns []*sql.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	for range s.DB().Stats().MaxOpenConnections {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, err := conns[0].ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hits, err := ix.Search(rctx, Query{KB: []string{"kb"}, Text: "parseHTTPRequest"})
	if err != nil || len(hits) == 0 {
		t.Fatalf("Search while the writers hold every write connection = %d hits, %v; want hits", len(hits), err)
	}
	if _, err := conns[0].ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
}
