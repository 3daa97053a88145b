package program

import (
	"github.com/agentgw/agentgw/agent"
)

// Part is a part of agent definitions that a feature of the gateway
// compiles, the way step kinds plug into plans: which hand-off messages an
// agent accepts is package handoff/accept's, for one. Parts are given to
// loading (LoadOptions.Parts), registered in cmd/agentgw; the runner knows
// this interface, not the features behind it.
type Part interface {
	// Name names the part: the key of its result on the Agent
	// (Agent.Part). It is unique among the parts given to loading.
	Name() string
	// Compile compiles the agent's definition as the part reads it, once
	// the agent's commands are compiled, reporting problems through c (an
	// error drops the agent). Its result, nil for none, is kept on the
	// Agent.
	Compile(c PartCompiler) any
}

// PartCompiler is what a part compiling an agent's definition sees.
type PartCompiler interface {
	// Definition is the agent's definition.
	Definition() *agent.Definition
	// CommandNames lists the agent's commands in definition order.
	CommandNames() []string
	// HasCommand reports whether the agent has the command name.
	HasCommand(name string) bool
	// Errorf reports a problem at pos.
	Errorf(pos agent.Position, format string, args ...any)
}

// Summarizer is a part's result that shows in the agent's summary, as
// GET /agents lists it (Agent.Summary).
type Summarizer interface {
	// Summarize adds the part's fields to s.
	Summarize(s *agent.Summary)
}

// partResult is a part's result on an agent.
type partResult struct {
	name  string
	value any
}

// Part returns the result of the part name for the agent (Part.Compile),
// nil when the agent was loaded without the part or the part kept none.
func (a *Agent) Part(name string) any {
	for _, p := range a.parts {
		if p.name == name {
			return p.value
		}
	}
	return nil
}

// partCompiler is the compiler as a part sees it.
type partCompiler struct {
	c *compiler
	a *Agent
}

var _ PartCompiler = partCompiler{}

// Definition implements PartCompiler.
func (p partCompiler) Definition() *agent.Definition { return p.c.def }

// CommandNames implements PartCompiler.
func (p partCompiler) CommandNames() []string { return p.a.CommandNames() }

// HasCommand implements PartCompiler.
func (p partCompiler) HasCommand(name string) bool {
	_, ok := p.a.Commands[name]
	return ok
}

// Errorf implements PartCompiler.
func (p partCompiler) Errorf(pos agent.Position, format string, args ...any) {
	p.c.errorf(pos, format, args...)
}

// compileParts compiles the parts of the agent's definition the loading's
// parts read, in their order, and keeps their results on the agent.
func (c *compiler) compileParts(a *Agent) {
	for _, p := range c.opts.Parts {
		a.parts = append(a.parts, partResult{name: p.Name(), value: p.Compile(partCompiler{c: c, a: a})})
	}
}
