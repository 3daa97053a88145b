package program

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/requestdef"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
)

// DefinitionCache keeps compiled request-carried definitions by content, so
// a plugin that sends the same definition with every request pays once.
type DefinitionCache struct {
	mu    sync.Mutex
	max   int
	kinds *stepkind.Registry
	items map[[32]byte]*Agent
}

// NewDefinitionCache returns a cache of at most max compiled definitions,
// whose steps may use kinds.
func NewDefinitionCache(max int, kinds *stepkind.Registry) *DefinitionCache {
	return &DefinitionCache{max: max, kinds: kinds, items: map[[32]byte]*Agent{}}
}

// Get compiles the safe part of a request's agentDefinition: message
// templates, context strategy and the model name. Replies, actions,
// parameters and context lengths never come from a client; a definition
// naming a network target, a tool or a step is refused (requestdef.Check).
// self is the gateway's address as the request reached it (request.Request.Origin).
func (c *DefinitionCache) Get(name, self string, raw []byte) (*Agent, error) {
	key := sha256.Sum256(append([]byte(name+"\x00"+self+"\x00"), raw...))
	c.mu.Lock()
	a, ok := c.items[key]
	c.mu.Unlock()
	if ok {
		return a, nil
	}
	if err := requestdef.Check(raw, self); err != nil {
		return nil, err
	}
	a, err := compileRequestDefinition(c.kinds, name, raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.items) >= c.max {
		clear(c.items)
	}
	c.items[key] = a
	c.mu.Unlock()
	return a, nil
}

// compileRequestDefinition compiles a request's agentDefinition; kinds are
// the step kinds its steps may name (the steps are dropped: sanitize).
func compileRequestDefinition(kinds *stepkind.Registry, name string, raw []byte) (*Agent, error) {
	var diags agent.Diagnostics
	def := &agent.Definition{}
	if err := (&agent.NodeDecoder{File: "agentDefinition", Diags: &diags, Kinds: kinds}).DecodeYAML(raw, def, "agent"); err != nil {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "agentDefinition: %v", err)
	}
	if def.Name == "" {
		def.Name = name
	}
	if def.Name != name {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "agentDefinition names agent %q, but the request is for %q", def.Name, name)
	}
	sanitize(def)
	// sanitize dropped the tools: nothing here needs a tool manager.
	a := compile(def, &diags, &LoadOptions{Kinds: kinds}, "")
	if diags.Errors() > 0 {
		return nil, invalidDefinition(diags)
	}
	for _, c := range a.Commands {
		for _, t := range c.Templates() {
			if err := tmpl.CheckRestricted(t); err != nil {
				return nil, apierr.Errorf(apierr.CodeBadRequest, "agentDefinition: command %q: template %s: %v", c.Def.Name, t.Name(), err)
			}
		}
	}
	return a, nil
}

// sanitize keeps only what is safe to take from a client. requestdef.Check
// refused what names a target; what it let through and the run does not
// use is dropped here, the service too (its endpoint may only name this
// gateway, and a run of a request-carried definition is never forwarded).
func sanitize(def *agent.Definition) {
	def.Service = nil
	def.Tools = nil
	def.Handoffs = nil
	def.Schedules = nil
	def.ModelConfiguration = modelNameOnly(def.ModelConfiguration)
	for _, c := range def.Commands {
		if c == nil {
			continue
		}
		c.Reply = nil
		c.Actions = nil
		c.Steps = nil
		c.Tools = nil
		c.Timeout = 0
		c.ModelConfiguration = modelNameOnly(c.ModelConfiguration)
	}
}

func modelNameOnly(m *agent.ModelConfig) *agent.ModelConfig {
	if m == nil {
		return nil
	}
	return &agent.ModelConfig{ModelName: m.ModelName}
}

// maxListedProblems is how many of a request-carried definition's errors
// its BAD_REQUEST lists; the rest are counted.
const maxListedProblems = 10

// invalidDefinition is the BAD_REQUEST for a request-carried definition
// with errors: each listed with its line, each clipped on its own (it may
// quote the client's text), so that a long one does not hide the others.
func invalidDefinition(diags agent.Diagnostics) *apierr.Error {
	var msgs []string
	more := 0
	for _, d := range diags {
		if d.Severity != agent.SeverityError {
			continue
		}
		if len(msgs) == maxListedProblems {
			more++
			continue
		}
		msgs = append(msgs, fmt.Sprintf("line %d: %s", d.Pos.Line, apierr.Clip(d.Message)))
	}
	msg := "agentDefinition is invalid: " + strings.Join(msgs, "; ")
	if more > 0 {
		msg += fmt.Sprintf(" (and %d more)", more)
	}
	return apierr.New(apierr.CodeBadRequest, msg)
}
