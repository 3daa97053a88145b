package hub_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the hub holds no runner (issue 27: no late binds): its
// sending side is built over the registry and the queue, its receiving
// side runs messages through a dispatch.Local given as the queue starts.
// It links no runner.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/handoff/hub", deptest.Module+"/agent/runner")
}
