// Package runner compiles agent definitions into runnable agents (commands,
// plans, step kinds, tools), keeps them in a registry with atomic swap, and
// runs one command of one agent: it re-applies the context resolver options,
// runs the request stages the gateway's parts register (package stage: the
// knowledge bases' recall, for one), renders the templates, assembles the prompt within the model's budget,
// calls the upstream model, pauses for the user or the IDE and resumes, and
// writes everything the user sees to an emit.Emitter.
package runner
