// Package agentpart compiles an agent file's contentExclusion patterns
// (program.Part), kept on the agent as its *exclude.Policy: a package of
// its own so that the content guard's policy, stage and guard do not link
// the agent compiler.
package agentpart

import (
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/guard/exclude"
)

// Name is the part's name: the key of an agent's *Policy
// (program.Agent.Part).
const Name = "contentExclusion"

// Part compiles an agent's contentExclusion patterns, kept on the agent as
// a *Policy; it is given to loading in program.LoadOptions.Parts.
type Part struct{}

var _ program.Part = Part{}

// Name implements program.Part.
func (Part) Name() string { return Name }

// Compile implements program.Part: a malformed pattern drops the agent.
// Its result is nil when the agent declares none.
func (Part) Compile(c program.PartCompiler) any {
	def := c.Definition()
	if len(def.ContentExclusion) == 0 {
		return nil
	}
	p, err := exclude.Compile(def.ContentExclusion)
	if err != nil {
		c.Errorf(def.Pos, "contentExclusion: %v", err)
		return nil
	}
	return p
}

// Of returns agent a's own policy: nil when it declares none or was
// loaded without the part.
func Of(a *program.Agent) *exclude.Policy {
	p, _ := a.Part(Name).(*exclude.Policy)
	return p
}
