package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/observe"
)

// Result is what delivering a message produced: what the receiving
// command showed (its text, its actions), or, for a remote agent, what its
// gateway answered.
type Result struct {
	Agent   string            `json:"agent"`
	Command string            `json:"command,omitempty"`
	Text    string            `json:"text,omitempty"`
	Actions []*actions.Action `json:"actions,omitempty"`
	// Endpoint and Response are a remote delivery's: where it went and
	// what that gateway answered (its status of the message).
	Endpoint string          `json:"endpoint,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// deliver is the queue's handler: it runs the message at its recipient,
// a local one through local, once the key it was sent with (if any) is
// found live (checkKey).
func (h *Hub) deliver(ctx context.Context, local dispatch.Local, budget observe.Budget, env queue.Envelope) (json.RawMessage, error) {
	if _, err := h.ready(); err != nil {
		return nil, err
	}
	p, msg, err := queued(env)
	if err != nil {
		return nil, err
	}
	// Sent with a stored key: only while the key lives.
	if err := h.checkKey(ctx, env, p); err != nil {
		return nil, err
	}
	// What the run sends is in this message's task and its owner's, and
	// what it asks or calls within the message's scope.
	ctx = withScope(context.WithValue(ctx, parentKey{}, env), env, p)
	a, err := h.pick(h.expand(strings.Split(env.Recipient, ",")), msg.Payload.Type)
	if err != nil {
		return nil, err
	}
	if endpoint, ok := a.RemoteEndpoint(); ok {
		return h.forward(ctx, a.Name(), endpoint, p.Message)
	}
	acc, ok := accept.Accepts(a, msg.Payload.Type)
	if !ok {
		return nil, fmt.Errorf("agent %q no longer accepts %s hand-offs", a.Name(), msg.Payload.Type)
	}
	return h.runLocal(ctx, local, budget, env.Owner, a.Name(), acc.Command, msg, p)
}

// queued decodes a queued message: its payload and the message, checked
// against the schemas again unless it was when it was queued.
func queued(env queue.Envelope) (payload, *handoff.Message, error) {
	var p payload
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return p, nil, fmt.Errorf("decoding queued hand-off %s: %w", env.ID, err)
	}
	decode := handoff.Decode
	if p.Checked {
		decode = handoff.DecodeChecked
	}
	msg, err := decode(p.Message)
	if err != nil {
		return p, nil, fmt.Errorf("decoding queued hand-off %s: %w", env.ID, err)
	}
	return p, msg, nil
}

// pick chooses the agent of recipients that runs the message: the one
// named, or, of a pool, the next (round-robin) of those that take its
// type.
func (h *Hub) pick(recipients []string, t handoff.Type) (*program.Agent, error) {
	var able []*program.Agent
	for _, name := range recipients {
		a, ok := h.reg.Get(name)
		if !ok {
			continue
		}
		_, remote := a.RemoteEndpoint()
		if _, accepts := accept.Accepts(a, t); remote || accepts {
			able = append(able, a)
		}
	}
	if len(able) == 0 {
		return nil, fmt.Errorf("no agent of %s takes %s hand-offs now", strings.Join(recipients, ", "), t)
	}
	return able[int(h.next.Add(1)-1)%len(able)], nil
}

// errTimeLimit is the cause of a run stopped at its message's
// constraints.time_limit.
var errTimeLimit = errors.New("the hand-off's constraints.time_limit was reached")

// runLocal runs command of agent name with the message as .handoff and
// returns what it showed. Its errors (a failed command) are failed runs,
// tried again. The run is held to the budgets of the message's owner
// (owner; budget, nil none): one over them fails before it calls the
// model, with the budget's code (BUDGET_EXCEEDED, RATE_LIMITED), and is
// tried again as any failure.
func (h *Hub) runLocal(ctx context.Context, local dispatch.Local, budget observe.Budget, owner, name, command string, msg *handoff.Message, p payload) (json.RawMessage, error) {
	var data map[string]any
	if err := json.Unmarshal(p.Message, &data); err != nil {
		return nil, fmt.Errorf("decoding hand-off %s: %w", msg.Metadata.MessageID, err)
	}
	req := &request.Request{ID: "handoff-" + msg.Metadata.MessageID, Agent: name, Command: command,
		Context: &contextvars.Set{UserInputPrompt: promptOf(msg)}, Handoff: data,
		ContextID: p.Origin.ContextID, Owner: p.Origin.Owner}
	if budget != nil {
		bctx, release, err := budget.Reserve(ctx, observe.SourceHandoff, owner, req.ID, int64(len(p.Message)))
		if err != nil {
			return nil, fmt.Errorf("agent %q, command %q: %w", name, command, err)
		}
		defer release()
		ctx = bctx
	}
	limit, limited, err := msg.Instructions.TimeLimit()
	if err != nil {
		h.log.Warn("hand-off time limit ignored", "message", msg.Metadata.MessageID, "err", err)
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if limited { // constraints.time_limit bounds the receiving run
		runCtx, cancel = context.WithTimeoutCause(ctx, limit, errTimeLimit)
	}
	defer cancel()
	rec := &emit.Recorder{}
	err = local.Dispatch(runCtx, req, rec)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.CodeContextNotFound {
		// The conversation was deleted meanwhile: run without it.
		req.ContextID, req.Owner = "", ""
		err = local.Dispatch(runCtx, req, rec)
	}
	if err != nil {
		return nil, fmt.Errorf("agent %q, command %q: %w", name, command, err)
	}
	if limited && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errTimeLimit) {
		return nil, fmt.Errorf("agent %q, command %q: stopped at constraints.time_limit (%s)", name, command, limit)
	}
	if e := rec.Err(); e != nil {
		return nil, fmt.Errorf("agent %q, command %q: %s: %s", name, command, e.Code, e.Message)
	}
	res := Result{Agent: name, Command: command, Text: rec.Transcript()}
	for _, f := range rec.Frames() {
		if f.Kind == "action" {
			res.Actions = append(res.Actions, f.Action)
		}
	}
	return json.Marshal(res)
}

// promptOf is the user input of a run for msg (handoff.Message.Prompt):
// what the message asks, for commands whose templates do not read .handoff
// themselves.
func promptOf(msg *handoff.Message) string { return msg.Prompt() }

// forward hands the message to a remote agent's gateway: DELIVERED when it
// took it.
func (h *Hub) forward(ctx context.Context, name, endpoint string, message []byte) (json.RawMessage, error) {
	if h.remote == nil {
		return nil, fmt.Errorf("agent %q is remote (%s) and this gateway has no client for remote agents", name, endpoint)
	}
	status, body, err := h.remote.PostHandoff(ctx, endpoint, message, nil)
	if err != nil {
		return nil, fmt.Errorf("forwarding to agent %q: %w", name, err)
	}
	if status < 200 || status > 299 {
		return nil, fmt.Errorf("forwarding to agent %q: its gateway answered %d: %s", name, status, apierr.Clip(string(body)))
	}
	queue.MarkDelivered(ctx)
	res := Result{Agent: name, Endpoint: endpoint}
	if json.Valid(body) {
		res.Response = body
	}
	return json.Marshal(res)
}

// fallback is the queue's Fallback: a message's fallback_action names an
// agent ("agent" or "agent/command") that runs the message when its
// recipients failed it.
func (h *Hub) fallback(ctx context.Context, local dispatch.Local, budget observe.Budget, env queue.Envelope, lastErr error) (json.RawMessage, error) {
	if _, err := h.ready(); err != nil {
		return nil, err
	}
	p, msg, err := queued(env)
	if err != nil {
		return nil, err
	}
	if err := h.checkKey(ctx, env, p); err != nil {
		return nil, err
	}
	ctx = withScope(context.WithValue(ctx, parentKey{}, env), env, p)
	name, command, _ := strings.Cut(env.FallbackAction, "/")
	a, ok := h.reg.Get(name)
	if !ok {
		return nil, fmt.Errorf("fallback_action %q names no agent of this gateway (after: %v)", env.FallbackAction, lastErr)
	}
	if command == "" {
		command = program.DefaultCommand
		if acc, ok := accept.Accepts(a, msg.Payload.Type); ok {
			command = acc.Command
		}
	}
	return h.runLocal(ctx, local, budget, env.Owner, name, command, msg, p)
}
