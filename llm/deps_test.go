package llm

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: llm knows nothing of agents: of the project it imports sse,
// observe (the seam its calls are watched through, itself standard library
// only) and the leaf packages, of the world go-openai's model types.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/llm", append([]string{
		deptest.Module + "/sse",
		deptest.Module + "/observe",
		"github.com/sashabaranov/go-openai/...",
	}, deptest.Leaf...)...)
}
