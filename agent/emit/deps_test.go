package emit_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: what a run writes for the user links only the protocol's
// vocabulary (actions, errors, the SSE writer, the model's chunk types):
// no runner, store, tool runtime or heavy driver.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/emit", append(deptest.Heavy,
		deptest.Module+"/agent/runner", deptest.Module+"/store/...", deptest.Module+"/tools")...)
}
