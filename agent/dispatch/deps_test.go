package dispatch_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: dispatch is a leaf between the runner and the features that
// run inside its runs: it links neither.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/dispatch", append(deptest.Heavy,
		deptest.Module+"/agent/runner", deptest.Module+"/collab/...", deptest.Module+"/handoff/...",
		deptest.Module+"/store/...", deptest.Module+"/tools")...)
}
