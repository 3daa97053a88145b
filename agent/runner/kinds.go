package runner

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

var _ stepkind.Run = (*stepRun)(nil)

// StepID implements stepkind.Run.
func (sr *stepRun) StepID() string { return sr.step.Def.ID }

// Env implements stepkind.Run.
func (sr *stepRun) Env() *tmpl.Env { return sr.env }

// With implements stepkind.Run.
func (sr *stepRun) With() map[string]any {
	with, _ := sr.env.Data["with"].(map[string]any)
	return with
}

// String implements stepkind.Run: it renders a string parameter.
func (sr *stepRun) String(v *tmpl.Value) (string, error) {
	x, err := v.Render(sr.env)
	if err != nil {
		return "", tmpl.RenderError(err)
	}
	if x == nil {
		return "", nil
	}
	s, ok := x.(string)
	if !ok {
		return "", fmt.Errorf("expected text, got %T", x)
	}
	return s, nil
}

// VCS implements stepkind.Run.
func (sr *stepRun) VCS() *contextvars.VCS { return sr.run.req.Context.VCS }

// Logger implements stepkind.Run.
func (sr *stepRun) Logger() *slog.Logger { return sr.run.logger() }

// Approval implements stepkind.Run.
func (sr *stepRun) Approval() stepkind.Approval { return sr.run.approval(sr.step.Def.ID) }

// Text implements stepkind.Run.
func (sr *stepRun) Text(s string) error {
	if err := sr.em.Text(s); err != nil {
		return apierr.Canceled(err)
	}
	return nil
}

// Agent implements stepkind.Run.
func (sr *stepRun) Agent() string { return sr.run.agent.Name() }

// caller is who the run's tool calls are made for.
func (run *Run) caller() toolspec.Caller {
	c := toolspec.Caller{Agent: run.agent.Name(), Handoff: run.req.Handoff, Header: run.req.Header}
	c.ContextID, c.Owner = run.conversation()
	return c
}

// conversation is the stored conversation the run continues and its
// owner; without one, "" and the caller the run acts for (the request's
// Owner), so that what it creates (hand-offs) belongs to that caller.
func (run *Run) conversation() (id, owner string) {
	if c := run.conv; c != nil {
		return c.ID(), c.Owner()
	}
	return "", run.req.Owner
}

// Header implements stepkind.Run.
func (sr *stepRun) Header() http.Header { return sr.run.req.Header }

// Conversation implements stepkind.Run.
func (sr *stepRun) Conversation() (id, owner string) { return sr.run.conversation() }

// AskConsent implements stepkind.Run.
func (sr *stepRun) AskConsent(t stepkind.Tool, args string) error {
	return sr.run.waitForConsent(sr.step.Def.ID, consentQuestion(t.ToolSpec(), llm.ToolCall{Name: t.ToolSpec().Name, Arguments: args}))
}
