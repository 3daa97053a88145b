package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
)

// remoteStateKey is the claim that carries a remote action's own state.
const remoteStateKey = "remote"

// prepareRemote prepares a request to a remote agent: any command, for the
// remote knows its own; feedback verified here and its state unwrapped for
// the remote.
func (r *Runner) prepareRemote(run *Run, endpoint string) (*Run, error) {
	req := run.req
	if r.cfg.Remote == nil {
		return nil, apierr.Errorf(apierr.CodeUpstreamNotConfigured, "agent %q runs at %s, and this gateway forwards to no remote agents", run.agent.Name(), endpoint)
	}
	name := firstNonEmpty(req.Command, DefaultCommand)
	if req.Action != nil {
		var err error
		if name, err = r.verifyFeedback(run); err != nil {
			return nil, err
		}
		if _, ok := run.feedback.Data[remoteStateKey]; !ok {
			return nil, stateInvalid("the action state is not one of this remote agent's actions", nil)
		}
	}
	run.cmd = &command{def: &agent.Command{Name: name}, actionsByKey: map[string]*compiledAction{}}
	run.remote = endpoint
	if req.Context == nil {
		return run, nil
	}
	if err := r.bindConversation(run); err != nil {
		return nil, err
	}
	return run, nil
}

// forwardRemote runs the request at the remote agent: the plugin's body
// as it came, less the gateway's own fields (contextId: a conversation
// here, not there), with the remote's own state put back into feedback.
func (run *Run) forwardRemote(ctx context.Context, em emit.Emitter) error {
	body, err := run.remoteBody()
	if err != nil {
		return err
	}
	return run.cfg.Remote.Forward(ctx, run.remote, run.agent.Name(), body, run.req.Header, remoteSink{run: run, em: em})
}

// remoteBody is the body sent to the remote agent: the plugin's, or, for
// a request the gateway made (an ask, a hand-off, a schedule), one made of
// its command and context.
func (run *Run) remoteBody() ([]byte, error) {
	body := run.req.Body
	if body == nil {
		vars, err := run.req.Context.MarshalJSON()
		if err != nil {
			return nil, apierr.Internal(fmt.Errorf("encoding a request for a remote agent: %w", err))
		}
		return json.Marshal(map[string]any{"agent": run.agent.Name(), "command": run.cmd.def.Name, "contextVariables": json.RawMessage(vars)})
	}
	if run.req.ContextID == "" && run.feedback == nil {
		return body, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, apierr.Internal(fmt.Errorf("re-reading a request for a remote agent: %w", err))
	}
	delete(fields, "contextId")
	if run.feedback != nil {
		var act map[string]json.RawMessage
		if err := json.Unmarshal(fields["action"], &act); err != nil {
			return nil, apierr.Internal(fmt.Errorf("re-reading an action for a remote agent: %w", err))
		}
		act["state"] = json.RawMessage(run.feedback.Data[remoteStateKey])
		fields["action"], _ = json.Marshal(act)
	}
	return json.Marshal(fields)
}

// remoteSink passes a remote's stream to the emitter; the state of each
// action is wrapped in the gateway's signed state (the remote's kept in
// it), so that its feedback comes back here, verified, and goes on there.
type remoteSink struct {
	run *Run
	em  emit.Emitter
}

func (s remoteSink) Chunk(raw []byte) error      { return s.em.Chunk(raw) }
func (s remoteSink) Error(e *apierr.Error) error { return s.em.Error(e) }

// Action implements remote.Sink.
func (s remoteSink) Action(a *actions.Action) error {
	state := a.State
	if !a.StateIsJSON {
		data, _ := json.Marshal(a.State)
		state = string(data)
	}
	claims := actions.Claims{Agent: s.run.agent.Name(), Command: s.run.cmd.def.Name, Kind: a.Kind,
		Data: map[string]string{remoteStateKey: state}}
	if a.Tree != nil {
		claims.TreeID = a.Tree.TreeID
	}
	token, err := s.run.cfg.Signer.Sign(claims)
	if err != nil {
		return s.em.Error(apierr.New(apierr.CodeActionInvalid, fmt.Sprintf("the remote agent's %s action cannot be offered: its state is too large to carry (%v)", a.Kind, err)).
			From(apierr.SourceUpstream))
	}
	b := *a
	b.State, b.StateIsJSON = token, false
	return s.em.Action(&b)
}
