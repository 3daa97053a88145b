package main

import (
	"slices"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/runner"
)

// TestRemoteTokensAll: the passthrough's redaction knows every remote
// agent's token, read from its service.tokenEnv, and nothing when no
// agent is loaded yet.
func TestRemoteTokensAll(t *testing.T) {
	tokens := &remoteTokens{}
	env := envOf(map[string]string{"REMOTE_TOKEN": "remote-token-1234", "OTHER": "x"})
	if got := tokens.all(env); len(got) != 0 {
		t.Errorf("before the agents are loaded: %q", got)
	}
	tokens.reg.Store(runner.NewRegistry([]*runner.Agent{
		{Def: &agent.Definition{Name: "far", Service: &agent.Service{Endpoint: "http://127.0.0.1:1/", TokenEnv: "REMOTE_TOKEN"}}},
		{Def: &agent.Definition{Name: "unset", Service: &agent.Service{Endpoint: "http://127.0.0.1:2/", TokenEnv: "UNSET"}}},
		{Def: &agent.Definition{Name: "local"}},
	}))
	if got := tokens.all(env); !slices.Equal(got, []string{"remote-token-1234"}) {
		t.Errorf("tokens %q, want the remote agent's", got)
	}
}
