// Package toolstep is the tool step kind: `tool: name` runs one of the
// agent's or the gateway's tools (package tools) with the step's inputs as
// its parameters. Register it with Kind{}.
package toolstep

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/plan"
	"github.com/agentgw/agentgw/tools"
)

// Kind is the tool step kind.
type Kind struct{}

var _ stepkind.Kind = Kind{}

// Spec implements stepkind.Kind: the kind is configured by the tool's name.
func (Kind) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "tool", Doc: "runs a tool by name, its parameters from the step's with", Config: new(string)}
}

// toolKind runs a tool with the step's inputs as its parameters. A tool
// that needs the user's consent pauses the plan the first time.
type toolKind struct {
	tool    stepkind.Tool
	consent bool
}

// Compile implements stepkind.Kind.
func (Kind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	name, sd, where := *config.(*string), c.Step(), c.Where()
	ts := c.Tools(where, sd.Pos, []string{name})
	t := ts[name]
	if t == nil {
		return nil
	}
	// A command's own plan can pause for a consent; a handler's cannot.
	if t.NeedsConsent() && c.CanPause() {
		if sd.OnError == "continue" {
			c.Errorf(sd.Pos, "%s: a tool step that asks for consent stops the plan while it waits; onError continue would run its dependents without it", where)
		}
		return &toolKind{tool: t, consent: true}
	}
	c.NoPause(where, sd.Pos, ts)
	return &toolKind{tool: t}
}

// Run implements stepkind.Step.
func (k *toolKind) Run(ctx context.Context, sr stepkind.Run) (any, error) {
	if k.consent {
		switch sr.Approval() {
		case stepkind.Declined:
			return nil, apierr.New(apierr.CodeDeclined, fmt.Sprintf("the user declined to run tool %q", k.tool.ToolSpec().Name))
		case stepkind.Unasked:
			return nil, sr.AskConsent(k.tool, argsJSON(sr))
		}
	}
	with := sr.With()
	// A tool gets its parameters as JSON, as when a model calls it.
	params := map[string]any{}
	if data, err := json.Marshal(with); err != nil || json.Unmarshal(data, &params) != nil {
		return nil, fmt.Errorf("tool %q: the step's inputs are not JSON", k.tool.ToolSpec().Name)
	}
	r := k.tool.Call(tools.WithCaller(ctx, CallerOf(sr)), toolspec.Call{ID: tools.NewCallID(), Parameters: params})
	sr.Logger().Info("tool called", "tool", k.tool.ToolSpec().Name, "status", r.Status, "ms", r.ExecutionTime)
	if r.Status != toolspec.StatusSuccess {
		msg := r.Status
		if r.Error != nil {
			msg = r.Error.Code + ": " + r.Error.Message
		}
		e := apierr.New(apierr.CodeToolFailed, fmt.Sprintf("tool %q: %s", k.tool.ToolSpec().Name, msg))
		if r.Status == toolspec.StatusTimeout {
			// The tool's own deadline: the step timed out (STEP_TIMEOUT).
			e.Err = plan.ErrTimeout
		}
		return nil, e
	}
	return stepkind.ToPlain(r.Result)
}

// argsJSON is a step's inputs as the JSON a consent question shows.
func argsJSON(sr stepkind.Run) string {
	data, _ := json.Marshal(sr.With())
	return string(data)
}

// Waits implements stepkind.Waiter: a tool that needs consent pauses.
func (k *toolKind) Waits() bool { return k.consent }

// CallerOf is who a step's tool calls are made for: the run's agent, its
// conversation and the hand-off it received.
func CallerOf(sr stepkind.Run) tools.Caller {
	c := tools.Caller{Agent: sr.Agent(), Header: sr.Header()}
	c.ContextID, c.Owner = sr.Conversation()
	if env := sr.Env(); env != nil && env.Scope != nil {
		c.Handoff = env.Scope.Handoff
	}
	return c
}
