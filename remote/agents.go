package remote

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
)

// stateKey is the claim that carries a remote action's own state.
const stateKey = "remote"

// Agents forwards the requests of the registry's remote agents through a
// Forwarder (the gateway's *Client): it is the runner's
// stage.RemoteAgents, wired in cmd/agentgw.
type Agents struct {
	fw Forwarder
}

var _ stage.RemoteAgents = (*Agents)(nil)

// NewAgents returns the remote agents that fw forwards to.
func NewAgents(fw Forwarder) *Agents { return &Agents{fw: fw} }

// Owns implements stage.RemoteAgents: the state of a remote's action
// carries the remote's own state.
func (a *Agents) Owns(data map[string]string) bool {
	_, ok := data[stateKey]
	return ok
}

// Forward implements stage.RemoteAgents: it runs the request at the remote
// agent: the plugin's body as it came, less the gateway's own fields
// (contextId: a conversation here, not there), with the remote's own state
// put back into feedback.
func (a *Agents) Forward(ctx context.Context, r *stage.RemoteRequest) error {
	body, err := requestBody(r)
	if err != nil {
		return err
	}
	return a.fw.Forward(ctx, r.Endpoint, r.Agent, body, r.Header, stateSink{r: r})
}

// requestBody is the body sent to the remote agent: the plugin's, or, for
// a request the gateway made (an ask, a hand-off, a schedule), one made of
// its command and context.
func requestBody(r *stage.RemoteRequest) ([]byte, error) {
	body := r.Body
	if body == nil {
		vars, err := r.Context.MarshalJSON()
		if err != nil {
			return nil, apierr.Internal(fmt.Errorf("encoding a request for a remote agent: %w", err))
		}
		return json.Marshal(map[string]any{"agent": r.Agent, "command": r.Command, "contextVariables": json.RawMessage(vars)})
	}
	if r.ContextID == "" && r.Feedback == nil {
		return body, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, apierr.Internal(fmt.Errorf("re-reading a request for a remote agent: %w", err))
	}
	delete(fields, "contextId")
	if r.Feedback != nil {
		var act map[string]json.RawMessage
		if err := json.Unmarshal(fields["action"], &act); err != nil {
			return nil, apierr.Internal(fmt.Errorf("re-reading an action for a remote agent: %w", err))
		}
		act["state"] = json.RawMessage(r.Feedback[stateKey])
		fields["action"], _ = json.Marshal(act)
	}
	return json.Marshal(fields)
}

// stateSink passes a remote's stream to the request's sink; the state of
// each action is wrapped in the gateway's signed state (the remote's kept
// in it), so that its feedback comes back here, verified, and goes on
// there.
type stateSink struct {
	r *stage.RemoteRequest
}

// Chunk implements Sink.
func (s stateSink) Chunk(raw []byte) error { return s.r.Sink.Chunk(raw) }

// Error implements Sink.
func (s stateSink) Error(e *apierr.Error) error { return s.r.Sink.Error(e) }

// Action implements Sink.
func (s stateSink) Action(a *actions.Action) error {
	state := a.State
	if !a.StateIsJSON {
		data, _ := json.Marshal(a.State)
		state = string(data)
	}
	claims := actions.Claims{Agent: s.r.Agent, Command: s.r.Command, Kind: a.Kind,
		Data: map[string]string{stateKey: state}}
	if a.Tree != nil {
		claims.TreeID = a.Tree.TreeID
	}
	token, err := s.r.Signer.Sign(claims)
	if err != nil {
		return s.r.Sink.Error(apierr.New(apierr.CodeActionInvalid, fmt.Sprintf("the remote agent's %s action cannot be offered: its state is too large to carry (%v)", a.Kind, err)).
			From(apierr.SourceUpstream))
	}
	b := *a
	b.State, b.StateIsJSON = token, false
	return s.r.Sink.Action(&b)
}
