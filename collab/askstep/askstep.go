// Package askstep is the ask step kind: `ask: {agent, question}` sends a
// REQUEST to another agent (package collab) and waits for its RESPONSE,
// showing its progress as lines of the plan's output. Register it with
// New.
package askstep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/collab"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/plan"
)

// Config is an ask step as written: `ask: {agent: reviewer, question:
// "...", timeout: 1m}`. Agent and question are references, templates or
// literals.
type Config struct {
	Agent    string        `yaml:"agent" doc:"the agent to ask: one of this gateway's, or a remote one"`
	Command  string        `yaml:"command" doc:"the asked agent's command" default:"default"`
	Question string        `yaml:"question" doc:"what to ask, the asked command's user input: a reference, a template or text" default:"$input.prompt"`
	Timeout  time.Duration `yaml:"timeout" doc:"how long to wait for the answer; when it passes a cancel is sent and the step times out" default:"30s"`
}

// defaultQuestion is the question of a step that gives none: what the
// user asked.
const defaultQuestion = "$input.prompt"

// Kind is the ask step kind.
type Kind struct {
	asker *collab.Asker
	// targets are the literal agents of the ask steps compiled since the
	// last CheckAgents, for the check of the whole set loaded.
	mu      sync.Mutex
	targets []target
}

// target is the agent an ask step names, where.
type target struct {
	agent, where string
	pos          agent.Position
}

var _ stepkind.Kind = (*Kind)(nil)

// New returns the ask step kind asking through asker. The gateway builds
// its step kinds before its runner: a step asks a local agent through the
// runner running the step, which its context carries (package
// agent/dispatch).
func New(asker *collab.Asker) *Kind { return &Kind{asker: asker} }

// Spec implements stepkind.Kind.
func (k *Kind) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "ask", Doc: "asks another agent a question and waits for its answer, showing its progress", Config: &Config{}}
}

// askStep is a compiled ask step.
type askStep struct {
	asker           *collab.Asker
	agent, question *tmpl.Value
	command         string
	timeout         time.Duration
}

// Compile implements stepkind.Kind.
func (k *Kind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	cfg, sd, where := config.(*Config), c.Step(), c.Where()
	if strings.TrimSpace(cfg.Agent) == "" {
		c.Errorf(sd.Pos, "%s: ask.agent is required: the agent to ask", where)
		return nil
	}
	// The decoder refuses negative durations.
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = collab.DefaultTimeout
	}
	if sd.Timeout > 0 && sd.Timeout < timeout {
		c.Warnf(sd.Pos, "%s: the step's timeout %s ends the ask before ask.timeout %s", where, sd.Timeout, timeout)
	}
	question := cfg.Question
	if question == "" {
		question = defaultQuestion
	}
	s := &askStep{asker: k.asker, agent: c.String(where+": ask.agent", cfg.Agent, sd.Pos),
		question: c.String(where+": ask.question", question, sd.Pos), command: cfg.Command, timeout: timeout}
	if s.agent.Ref == nil && s.agent.Tmpl == nil {
		k.mu.Lock()
		k.targets = append(k.targets, target{agent: cfg.Agent, where: where, pos: sd.Pos})
		k.mu.Unlock()
	}
	return s
}

// CheckAgents warns of each ask step compiled since the last call that
// names, literally, an agent neither in names (the agents loaded) nor
// remote by remote (nil: none is), and forgets them. The gateway calls it
// once a load has compiled every agent. A warning, not an error: the
// agent may come with a later reload.
func (k *Kind) CheckAgents(names []string, remote collab.Resolver) agent.Diagnostics {
	k.mu.Lock()
	ts := k.targets
	k.targets = nil
	k.mu.Unlock()
	var ds agent.Diagnostics
	for _, t := range ts {
		if slices.Contains(names, t.agent) {
			continue
		}
		if remote != nil {
			if _, ok := remote(t.agent); ok {
				continue
			}
		}
		ds.Add(agent.SeverityWarning, t.pos, fmt.Sprintf("%s: ask.agent %q: no agent of that name is loaded, so the step fails until one is%s", t.where, t.agent, suggest.DidYouMean(t.agent, names)))
	}
	return ds
}

// Reads implements stepkind.Reader.
func (s *askStep) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	return []*tmpl.Value{s.agent, s.question}, nil
}

// Run implements stepkind.Step: the result is {response, status,
// messages}, the answer's text, "success" and the whole exchange.
func (s *askStep) Run(ctx context.Context, r stepkind.Run) (any, error) {
	if s.asker == nil {
		return nil, apierr.Internal(errors.New("ask: the step kind has no asker"))
	}
	to, err := r.String(s.agent)
	if err != nil {
		return nil, fmt.Errorf("ask.agent: %w", err)
	}
	question, err := r.String(s.question)
	if err != nil {
		return nil, fmt.Errorf("ask.question: %w", err)
	}
	show := func(m collab.Message) { _ = r.Text(fmt.Sprintf("> %s: %s\n", to, m.Text())) }
	resp, msgs, err := s.asker.Ask(ctx, r.Agent(), to, question, collab.Options{Command: s.command, Timeout: s.timeout, OnProgress: show, Header: r.Header()})
	if err != nil {
		return nil, askError(err)
	}
	c, _ := resp.Response()
	if c.Status != collab.StatusSuccess {
		return nil, responseError(to, c)
	}
	exchange, err := stepkind.ToPlain(msgs)
	if err != nil {
		return nil, fmt.Errorf("ask: the exchange: %w", err)
	}
	return map[string]any{"response": c.Result, "status": c.Status, "messages": exchange}, nil
}

// askError is the step's error for an ask without a response: a timeout
// times the step out (STEP_TIMEOUT, its status TIMEOUT), the caller going
// away ends it quietly, a refusal fails it (STEP_FAILED; FORBIDDEN when
// the run's key may not ask that agent).
func askError(err error) error {
	var refused *apierr.Error
	switch {
	case errors.As(err, &refused) && refused.Code == apierr.CodeForbidden:
		return apierr.New(apierr.CodeForbidden, "ask: "+refused.Message).Wrap(err).Suggest(refused.SuggestedAction)
	case errors.Is(err, collab.ErrTimeout):
		return apierr.New(apierr.CodeStepTimeout, "ask: "+err.Error()+"; the request was cancelled").
			Wrap(errors.Join(plan.ErrTimeout, err)).
			Suggest("try again; the agent's author may raise the step's ask.timeout")
	case errors.Is(err, collab.ErrCanceled):
		return apierr.Canceled(err)
	case errors.Is(err, collab.ErrRefused):
		return apierr.New(apierr.CodeStepFailed, "ask: "+err.Error()).Wrap(err).
			Suggest("the agent's author should make the agents' asks end: no agent asks itself, and chains of asks stay short")
	}
	return fmt.Errorf("ask: %w", err)
}

// upstreamCodes are the codes of an error response kept as the step's:
// the asked agent, or its model, could not answer, or (FORBIDDEN) an ask
// further down the chain was out of the run's key's scope, and the same
// advice holds. Any other code fails the step with STEP_FAILED.
var upstreamCodes = []string{apierr.CodeUpstreamError, apierr.CodeUpstreamTimeout, apierr.CodeUpstreamUnavailable, apierr.CodeForbidden}

// responseError is the step's error for an error response.
func responseError(to string, c collab.ResponseContent) *apierr.Error {
	code, msg := apierr.CodeStepFailed, "no error given"
	if c.Error != nil {
		msg = c.Error.Code + ": " + c.Error.Message
		if slices.Contains(upstreamCodes, c.Error.Code) {
			code = c.Error.Code
		}
	}
	e := apierr.New(code, fmt.Sprintf("ask: agent %q answered with an error: %s", to, msg))
	if code == apierr.CodeForbidden {
		e.Suggest(scopeAdvice)
	}
	return e
}

// scopeAdvice is the suggestion of an ask refused, further down a chain of
// asks, by the run's key's scope: the one collab's refusal carries.
const scopeAdvice = "GET /agents lists what this key may call; ask an admin to widen the key's agents"
