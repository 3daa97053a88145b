package main

import (
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/guard/exclude"
	"github.com/agentgw/agentgw/knowledge/recallstage"
)

// requestStages are the phases of preparing a request that the gateway's
// parts own, in the order they run: after the runner binds the
// conversation and applies the context, before it picks the model and
// builds the prompt (package stage). A new stage is one line here. The
// stages take what they use from svc.
func requestStages(svc services) *stage.Registry {
	return stageRegistry(
		recallstage.New(svc.recaller()),
		exclude.Stage{Policies: svc.content.policies, Withheld: svc.content.withheld()},
	)
}

// stageRegistry is stages in order.
func stageRegistry(stages ...stage.Stage) *stage.Registry {
	reg, err := stage.NewRegistry(stages...)
	if err != nil {
		panic(err) // names are fixed in the code: a clash is a programming error
	}
	return reg
}

// recaller is the knowledge bases as the recall stage recalls from them;
// nil (lint, export, no knowledge bases) recalls nothing.
func (s services) recaller() recallstage.Recaller {
	if s.knowledge == nil {
		return nil
	}
	return s.knowledge
}
