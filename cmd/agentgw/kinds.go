package main

import (
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/collab/askstep"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/handoff/hub"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// stepKinds are the step kinds agents may use: the runner's own (reply,
// llm, action, set, call), then those of the gateway's other parts, in the
// order lint lists them. A new kind is one line here. repos (nil when none)
// backs git steps, handoffs (nil: none) the handoff steps, and ask is the
// ask kind, made by newLoader with the Asker that gets the runner once
// serve has built it.
func stepKinds(repos *gitrepo.Manager, handoffs *hub.Hub, ask *askstep.Kind) *stepkind.Registry {
	kinds := runner.NewKinds()
	for _, k := range []stepkind.Kind{
		gitstep.New(repos),
		toolstep.Kind{},
		handoffstep.New(sender(handoffs)),
		ask,
	} {
		if err := kinds.Register(k); err != nil {
			panic(err) // names are fixed in the code: a clash is a programming error
		}
	}
	return kinds
}
