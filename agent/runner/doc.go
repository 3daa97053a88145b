// Package runner runs one command of one agent (package program compiled
// it): it resolves the agent and command, verifies an action's state or
// the tool results a paused run waits for, binds the conversation
// (stage.Conversations), re-applies the context resolver options, runs
// the request stages the gateway's parts register (package stage: the
// knowledge bases' recall, for one), builds the prompt within the model's
// budget (package prompt), calls the upstream model with its tool loop,
// runs the command's plan, pauses for the user or the IDE and resumes
// (package runstate keeps what waits), forwards a remote agent's requests
// (stage.RemoteAgents), and writes everything the user sees to an
// emit.Emitter. It orchestrates; the features behind those interfaces
// are registered in cmd/agentgw.
package runner
