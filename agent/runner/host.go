package runner

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
)

// host is what the built-in step kinds need of the run that runs them,
// beyond stepkind.Run: the run's step (stepRun) implements it.
type host interface {
	// SendAction renders an action with the step's data, signs its state
	// and sends it.
	SendAction(a *compiledAction) (*actions.Action, error)
	// Ask asks the model: the messages with the step's model settings
	// over the command's, through the tool loop when it has tools,
	// relaying the answer when it streams. It returns the answer's text.
	Ask(ctx context.Context, call modelCall) (string, error)
	// Call runs command of agent ("" for the run's own) as a sub-run and
	// returns its transcript, relaying its output when stream is set.
	Call(ctx context.Context, agent, command string, stream bool) (string, error)
	// SetState writes v at p: the plan's state, or under context.state the
	// run's conversation's (nothing without a conversation).
	SetState(p plan.Path, v any) error
}

// modelCall is what an llm step asks the model.
type modelCall struct {
	messages []llm.Message
	model    agent.ModelConfig
	stream   bool
	tools    map[string]stepkind.Tool
}

var _ host = (*stepRun)(nil)

// SendAction implements host.
func (sr *stepRun) SendAction(a *compiledAction) (*actions.Action, error) {
	return sr.run.emitAction(sr.em, a, sr.env)
}

// Ask implements host.
func (sr *stepRun) Ask(ctx context.Context, c modelCall) (string, error) {
	run := sr.run
	if run.cfg.LLM == nil {
		return "", notConfigured(run.cmd.def.Name)
	}
	model := firstNonEmpty(c.model.ModelName, run.model)
	fallbacks := c.model.FallbackModels
	if fallbacks == nil {
		fallbacks = run.fallbacks
	}
	if len(c.tools) > 0 {
		l := &toolLoop{run: run, tools: c.tools, model: model, fallbacks: fallbacks, params: c.model.Parameters, msgs: c.messages, stream: c.stream}
		return l.converse(ctx, sr.em)
	}
	req := &llm.ChatRequest{Model: model, Messages: c.messages, Extra: withDefaults(run.extra, c.model.Parameters), Header: run.req.Header,
		FallbackModels: fallbacks}
	if c.stream {
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

// Call implements host.
func (sr *stepRun) Call(ctx context.Context, agentName, command string, stream bool) (string, error) {
	run := sr.run
	if run.depth >= maxCallDepth {
		return "", fmt.Errorf("calls are nested deeper than %d", maxCallDepth)
	}
	target := run.agent
	if agentName != "" {
		a, ok := run.reg.Get(agentName)
		if !ok {
			return "", fmt.Errorf("call: no agent named %q", agentName)
		}
		target = a
	}
	cmd, ok := target.commands[command]
	if !ok {
		return "", fmt.Errorf("call: agent %q has no command %q", target.Name(), command)
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
