package actions

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: actions imports nothing of the project but its leaf packages,
// and no third-party module.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/actions", deptest.Leaf...)
}
