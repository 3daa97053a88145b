package jsonlog

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the handler is the standard library only (a leaf: see
// deptest.Leaf), so that any package may log with it.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/internal/jsonlog")
}
