package conversation_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: conversations are kept in a store.Store; the package links no
// store driver, nor a SQL driver, so that server, which imports it, does
// not either (issue 27 item 3).
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/conversation",
		deptest.Module+"/store/sqlitestore",
		deptest.Module+"/store/pgstore",
		"github.com/jackc/pgx/v5/...",
		"modernc.org/sqlite/...")
}
