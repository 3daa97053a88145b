package main

import (
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/collab/askstep"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/knowledge/recallstep"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// stepKinds are the step kinds agents may use: the runner's own (reply,
// llm, action, set, call), then those of the gateway's other parts
// (gatewayKinds), in the order lint lists them.
func stepKinds(svc services, ask *askstep.Kind) *stepkind.Registry {
	return kindRegistry(gatewayKinds(svc, ask))
}

// gatewayKinds are the step kinds of the gateway's parts beside the
// runner's own, in the order lint lists them. A new kind is one line here.
// The kinds take what they use from svc; ask is the ask kind, made by
// newLoader with the Asker that gets the runner once serve has built it.
func gatewayKinds(svc services, ask *askstep.Kind) []stepkind.Kind {
	return []stepkind.Kind{
		gitstep.New(svc.repos),
		toolstep.Kind{},
		handoffstep.New(svc.sender()),
		ask,
		recallstep.New(svc.searcher(), kb.Reference),
	}
}

// kindRegistry is the runner's step kinds followed by kinds.
func kindRegistry(kinds []stepkind.Kind) *stepkind.Registry {
	reg := program.NewKinds()
	for _, k := range kinds {
		if err := reg.Register(k); err != nil {
			panic(err) // names are fixed in the code: a clash is a programming error
		}
	}
	return reg
}
