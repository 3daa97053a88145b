package remote_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: remote is a client, below the runner: of the project it
// imports the error type (apierr), actions,
// llm (header policy, redaction), sse and observe (trace headers), and the
// runner's plug-in interface it implements (agent/stage, with the context
// variables), never the runner, the server or a store.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/remote", append([]string{
		deptest.Module + "/apierr",
		deptest.Module + "/actions",
		deptest.Module + "/llm",
		deptest.Module + "/sse",
		deptest.Module + "/observe",
		deptest.Module + "/agent/stage",
		deptest.Module + "/contextvars",
		"github.com/sashabaranov/go-openai/...",
	}, deptest.Leaf...)...)
}
