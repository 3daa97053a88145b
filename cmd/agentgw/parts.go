package main

import (
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/handoff/accept"
)

// definitionParts are the parts of agent definitions that the gateway's
// features compile, in the order they compile, after each agent's
// commands (runner.Part): which hand-off messages an agent accepts. A new
// part is one line here.
func definitionParts() []runner.Part {
	return []runner.Part{
		accept.Part{},
	}
}
