package schedule

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the scheduler knows nothing of agents, HTTP or the hand-off
// queue (a Runner is given), and does not pull River in: of the project it
// imports nothing but the leaf packages, internal/access (owners) and internal/dbconn (which needs
// nothing but pgx), of the world the cron parser, uuid and pgx (with what
// pgx itself needs).
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/schedule", append([]string{
		"github.com/robfig/cron/v3",
		"github.com/google/uuid",
		"github.com/jackc/pgx/v5/...",
		"github.com/jackc/pgpassfile",
		"github.com/jackc/pgservicefile",
		"github.com/jackc/puddle/v2/...",
		"golang.org/x/text/...",
		"golang.org/x/sync/...",
		deptest.Module + "/internal/dbconn",
		deptest.Module + "/internal/access",
	}, deptest.Leaf...)...)
}
