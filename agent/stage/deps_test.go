package stage_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the plug-in interface every request stage imports links only
// the context variables, the actions and the error type (and their leaf
// packages): no runner, database, queue, git, template or expression
// engine, nor the remote agents' HTTP client.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/agent/stage", append([]string{
		deptest.Module + "/contextvars",
		deptest.Module + "/actions",
		deptest.Module + "/apierr",
	}, deptest.Leaf...)...)
}
