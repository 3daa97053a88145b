package guard_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the guard links the upstream client's package, the observer
// seam, the content guard's own packages and the Prometheus client: no
// runner, store, queue or server.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/guard", append([]string{
		deptest.Module + "/guard/...",
		deptest.Module + "/llm",
		deptest.Module + "/observe",
		deptest.Module + "/sse",
		deptest.Module + "/agent/stage",
		deptest.Module + "/contextvars",
		deptest.Module + "/actions",
		deptest.Module + "/apierr",
		"github.com/prometheus/...",
		"github.com/sashabaranov/go-openai/...",
		"google.golang.org/protobuf/...",
		"github.com/beorn7/perks/...",
		"github.com/cespare/xxhash/v2",
		"github.com/munnerz/goautoneg",
		"golang.org/x/sys/...",
	}, deptest.Leaf...)...)
}
