// Package agent holds agent definitions (the YAML model, the loader that keeps
// file positions, the registry with atomic swap) and the runner that executes
// one command of one agent: it re-applies the context resolver options,
// renders the templates, assembles the prompt within the model's budget, calls
// the upstream model and writes everything the user sees to an Emitter.
package agent
