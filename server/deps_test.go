package server_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the server's consumer interfaces (Handoffs, Schedules,
// Knowledge) speak in the server's own types, the parts wired in by
// cmd/agentgw's adapters (issue 27 item 3), so server links neither the
// hand-off hub and its queue (River), the knowledge bases and their index
// (go-git), nor the scheduler. It still links the SQL drivers (pgx,
// sqlite) through agent/runner and conversation, which import store: that
// is another slice of the item, and the list grows when it is done.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/server",
		deptest.Module+"/handoff/hub/...",
		deptest.Module+"/knowledge/...",
		deptest.Module+"/schedule/...",
		"github.com/go-git/go-git/v5/...",
		"github.com/riverqueue/river/...")
}
