package remote_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: remote is a client, below the runner: of the project it
// imports the error type (agent, with what agent itself needs), actions,
// llm (header policy, redaction), sse and observe (trace headers), never
// the runner, the server or a store.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/remote", append([]string{
		deptest.Module + "/agent",
		deptest.Module + "/tools/toolspec",
		deptest.Module + "/actions",
		deptest.Module + "/llm",
		deptest.Module + "/sse",
		deptest.Module + "/observe",
		"github.com/sashabaranov/go-openai/...",
		"go.yaml.in/yaml/v3",
	}, deptest.Leaf...)...)
}
