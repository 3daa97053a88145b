package sse

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: sse, on the relay's hot path, imports nothing of the project
// but its leaf packages, and no third-party module.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/sse", deptest.Leaf...)
}
