package usage

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: usage knows the request only through the observer seam
// (observe) and the caller (internal/access); it links no HTTP server,
// runner or agent, and of the world only pgx and the Prometheus client.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/usage",
		deptest.Module+"/server",
		deptest.Module+"/agent/...",
		deptest.Module+"/llm/...",
		deptest.Module+"/openaiapi",
		"github.com/labstack/echo/v4/...",
		"github.com/riverqueue/river/...",
		"modernc.org/sqlite/...")
}
