// Package remote is the client side of remote agents: agents whose
// definition names the service.endpoint of another service that speaks the
// agent protocol (another agentgw, or any agent service such as the
// seed-003 sample server). Forward sends a plugin's agent request there and
// relays the remote's stream to a Sink, the runner's emitter, which
// answers the plugin as for a model: under the gateway's own id,
// terminator and error rules. PostHandoff forwards a hand-off message to
// another agentgw's POST /handoffs.
//
// It is the one home of remote agents: Forwarder and Sink (collab's
// questions to remote agents use them), HandoffPoster (the hand-off hub's
// deliveries to other gateways), both implemented by *Client, and Agents,
// the runner's stage.RemoteAgents over a Forwarder: what the remote gets
// of a plugin's request (the body less the gateway's contextId, the
// remote's own action state put back) and how the state of the remote's
// actions is wrapped in the gateway's signed state, so that their feedback
// comes back here, verified, and goes on there. The runner only notices
// that an agent is remote, verifies the action's state and binds the
// conversation.
//
// Where a request goes: AgentURL and HandoffURL. Which headers go:
// ForwardHeaders. How failures map to the gateway's error codes: Forward.
package remote
