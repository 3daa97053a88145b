// Package remote is the client side of remote agents: agents whose
// definition names the service.endpoint of another service that speaks the
// agent protocol (another agentgw, or any agent service such as the
// seed-003 sample server). Forward sends a plugin's agent request there and
// relays the remote's stream to a Sink, the runner's emitter, which
// answers the plugin as for a model: under the gateway's own id,
// terminator and error rules. PostHandoff forwards a hand-off message to
// another agentgw's POST /handoffs.
//
// It is the one home of remote agents' interfaces: Forwarder and Sink (the
// runner's remote agents and collab's questions to remote agents use them)
// and HandoffPoster (the hand-off hub's deliveries to other gateways);
// *Client implements both.
//
// Where a request goes: AgentURL and HandoffURL. Which headers go:
// ForwardHeaders. How failures map to the gateway's error codes: Forward.
package remote
