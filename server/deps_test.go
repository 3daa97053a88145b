package server_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the server's consumer interfaces (Handoffs, Schedules,
// Knowledge) speak in the server's own types, the parts wired in by
// cmd/agentgw's adapters, and the store it reaches through agent/runner
// and conversation is the interface of package store, whose drivers are
// the subpackages sqlitestore and pgstore that cmd/agentgw picks (issue
// 27 item 3). So server links neither the hand-off hub and its queue
// (River), the knowledge bases and their index (go-git), the scheduler,
// nor a SQL driver (pgx, sqlite).
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/server",
		deptest.Module+"/handoff/hub/...",
		deptest.Module+"/knowledge/...",
		deptest.Module+"/schedule/...",
		deptest.Module+"/store/sqlitestore",
		deptest.Module+"/store/pgstore",
		"github.com/go-git/go-git/v5/...",
		"github.com/riverqueue/river/...",
		"github.com/jackc/pgx/v5/...",
		"modernc.org/sqlite/...")
}
