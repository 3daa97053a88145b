package stage

import (
	"context"
	"net/http"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
)

// RemoteAgents forwards the requests of remote agents: agents whose
// definition names a service.endpoint and whose commands do nothing here
// (package remote's Agents is the gateway's). The runner notices that an
// agent is remote, verifies the signature of an action's state, binds the
// conversation, and hands the rest to RemoteAgents: building the body the
// remote gets and wrapping the state of the remote's actions in the
// gateway's signed state.
type RemoteAgents interface {
	// Owns reports whether data, of an action's state whose signature the
	// runner verified, is the state of an action a remote agent sent
	// through Forward. The runner refuses the action's feedback before the
	// request's stream when it is not.
	Owns(data map[string]string) bool
	// Forward runs r at the remote agent and relays its stream to r.Sink.
	// Its error (an *apierr.Error) ends the stream.
	Forward(ctx context.Context, r *RemoteRequest) error
}

// RemoteRequest is what the runner knows of a request to a remote agent.
type RemoteRequest struct {
	// Agent names the remote agent.
	Agent string
	// Command names the command: the request's, the one its action's
	// state names, or the default one.
	Command string
	// Endpoint is the agent's service.endpoint.
	Endpoint string
	// Body is the request body as the plugin sent it; nil for a request
	// the gateway made (an ask, a hand-off, a schedule).
	Body []byte
	// Header is the plugin's header.
	Header http.Header
	// Context is the request's context variables (nil when it sent none),
	// the body of a request the gateway made.
	Context *contextvars.Set
	// ContextID is the request's contextId, "" when it sent none: a
	// conversation of this gateway, not of the remote's.
	ContextID string
	// Feedback is the data of the verified state of the action the
	// request answers (Owns accepted it), nil when it answers none.
	Feedback map[string]string
	// Signer signs the state of the actions the remote sends, as the
	// runner verifies it when their feedback comes back.
	Signer *actions.Signer
	// Sink receives what the remote streams: the request's emitter.
	Sink RemoteSink
}

// RemoteSink receives what a remote agent streams, in order: the runner's
// emitter. An error from it means the client went away.
type RemoteSink interface {
	// Chunk relays one chat.completion.chunk JSON object.
	Chunk(raw []byte) error
	// Action sends a confirm or tree action.
	Action(a *actions.Action) error
	// Error reports a failure.
	Error(e *apierr.Error) error
}
