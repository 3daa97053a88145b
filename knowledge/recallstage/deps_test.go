package recallstage_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the recall stage plugs into the runner through agent/stage
// alone (and the protocol's vocabulary it speaks: actions, errors, context
// variables): it links neither the runner nor the knowledge bases' index,
// database or embedders (cmd/agentgw gives it knowledge/kb.Manager).
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/knowledge/recallstage", append([]string{
		deptest.Module + "/agent/stage",
		deptest.Module + "/actions",
		deptest.Module + "/apierr",
		deptest.Module + "/contextvars",
	}, deptest.Leaf...)...)
}
