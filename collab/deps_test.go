package collab_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: an Asker holds no runner (issue 27: no late binds): an ask
// from a run reaches the gateway's agents through the runner its context
// carries (agent/dispatch), so collab and its ask step link no runner.
func TestDeps(t *testing.T) {
	for _, pkg := range []string{deptest.Module + "/collab", deptest.Module + "/collab/askstep"} {
		deptest.Forbid(t, pkg, deptest.Module+"/agent/runner")
	}
}
