package contextvars

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: contextvars, the server's core context package, imports nothing
// of the project but its leaf packages and no third-party module (the chat
// client's collectors, which need go-git, live with the client).
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/contextvars", deptest.Leaf...)
}
