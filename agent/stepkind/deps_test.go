package stepkind_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the plug-in interface every step kind imports links none of
// the gateway's runtimes: no tool runtime (WASM), database, queue, git or
// HTTP framework. It still links the expression engine, through the
// template engine's references (agent/tmpl → steps).
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/stepkind", deptest.HeavyBut("github.com/expr-lang/expr/...")...)
}
