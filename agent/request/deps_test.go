package request_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: decoding a request links only the protocol's vocabulary
// (context variables, actions, errors, tool results, the model's message
// types): no runner, store, tool runtime or heavy driver.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/request", append(deptest.Heavy,
		deptest.Module+"/agent/runner", deptest.Module+"/store/...", deptest.Module+"/tools")...)
}
