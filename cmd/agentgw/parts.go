package main

import (
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/guard/exclude/agentpart"
	"github.com/agentgw/agentgw/handoff/accept"
)

// definitionParts are the parts of agent definitions that the gateway's
// features compile, in the order they compile, after each agent's
// commands (program.Part): which hand-off messages an agent accepts, which
// files' content never reaches the model. A new
// part is one line here.
func definitionParts() []program.Part {
	return []program.Part{
		accept.Part{},
		agentpart.Part{},
	}
}
