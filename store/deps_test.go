package store_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: package store is the interface, its errors and the memory
// backend; the database drivers are its subpackages sqlitestore and
// pgstore, so that the packages that only use a Store (server,
// agent/runner, conversation) link no SQL driver (issue 27 item 3).
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/store")
}
