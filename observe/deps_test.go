package observe

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the seam is the standard library only, so that every package
// that reports to it (llm, tools, gitrepo) can import it without pulling in
// a metrics or tracing library.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/observe")
}
