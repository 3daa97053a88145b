package runner

import (
	"cmp"
	"context"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
)

var _ program.Host = (*stepRun)(nil)

// SendAction implements host.
func (sr *stepRun) SendAction(a *program.Action) (*actions.Action, error) {
	return sr.run.emitAction(sr.em, a, sr.env)
}

// Ask implements host.
func (sr *stepRun) Ask(ctx context.Context, c program.ModelCall) (string, error) {
	run := sr.run
	if run.cfg.LLM == nil {
		return "", notConfigured(run.cmd.Def.Name)
	}
	model := cmp.Or(c.Model.ModelName, run.model)
	fallbacks := c.Model.FallbackModels
	if fallbacks == nil {
		fallbacks = run.fallbacks
	}
	if len(c.Tools) > 0 {
		l := &toolLoop{run: run, tools: c.Tools, model: model, fallbacks: fallbacks, params: c.Model.Parameters, msgs: c.Messages, stream: c.Stream}
		return l.converse(ctx, sr.em)
	}
	req := &llm.ChatRequest{Model: model, Messages: c.Messages, Extra: withDefaults(run.extra, c.Model.Parameters), Header: run.req.Header,
		FallbackModels: fallbacks}
	if c.Stream {
		sink := &captureSink{em: sr.em}
		if _, err := run.cfg.LLM.Stream(ctx, req, sink); err != nil {
			return "", upstreamError(err)
		}
		return sink.text.String(), nil
	}
	text, err := run.cfg.LLM.Complete(ctx, req)
	if err != nil {
		return "", upstreamError(err)
	}
	return text, nil
}

// Call implements host. A run of a request with a stored key's scope (or
// of a schedule or hand-off that carries one: access.FromContext) calls
// only what the key could call by request: the called command of the
// agent, this agent's own included (checkScope); nothing runs otherwise.
func (sr *stepRun) Call(ctx context.Context, agentName, command string, stream bool) (string, error) {
	run := sr.run
	if run.depth >= program.MaxCallDepth {
		return "", fmt.Errorf("calls are nested deeper than %d", program.MaxCallDepth)
	}
	target := run.agent
	if agentName != "" {
		a, ok := run.reg.Get(agentName)
		if !ok {
			return "", fmt.Errorf("call: no agent named %q", agentName)
		}
		target = a
	}
	cmd, ok := target.Commands[command]
	if !ok {
		return "", fmt.Errorf("call: agent %q has no command %q", target.Name(), command)
	}
	if err := checkScope(ctx, target.Name(), command); err != nil {
		return "", err
	}
	sub := run.sub(target, cmd)
	sub.called = true
	rec := &emit.Recorder{}
	var em emit.Emitter = rec
	if stream {
		em = &teeEmitter{Emitter: sr.em, rec: rec}
	}
	if err := sub.execute(ctx, em); err != nil {
		return "", err
	}
	if e := rec.Err(); e != nil {
		return "", e
	}
	return rec.Transcript(), nil
}

// SetState implements host.
func (sr *stepRun) SetState(p plan.Path, v any) error {
	if p[0] == plan.RootContext {
		// context.state.x: the conversation's state; without a
		// conversation there is nothing to keep it in.
		if c := sr.run.conv; c != nil {
			c.SetState(p[2:], v)
		}
		return nil
	}
	return sr.inv.Scope.State.Set(p, v)
}

// checkScope refuses, FORBIDDEN, a call of command of agent that the
// stored key's scope ctx carries does not admit: the refusal a request
// for it would get (server's notInScope). No scope, no check.
func checkScope(ctx context.Context, agent, command string) error {
	who, ok := access.FromContext(ctx)
	if !ok || who.MayCall(agent, command) {
		return nil
	}
	return apierr.Errorf(apierr.CodeForbidden, "this key may not call command %q of agent %q", command, agent).
		Suggest("GET /agents lists what this key may call; ask an admin to widen the key's agents")
}
