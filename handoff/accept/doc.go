// Package accept owns which hand-off messages an agent accepts: the types
// its definition declares under handoffs, the command each runs, and the
// validator of the message compiled from the agent's own data schema, with
// the load-time diagnostics of bad declarations.
//
// It plugs into loading as a definition part (program.Part, registered in
// cmd/agentgw), so that the runner compiles it without knowing hand-offs:
// Part compiles an agent's declarations once its commands are compiled and
// keeps a Set on the agent, which Of, Accepts and Types read back for the
// hand-off hub (package hub), and which adds the accepted types to the
// agent's summary (GET /agents). It lives apart from package handoff, the
// message, which knows nothing of agents.
package accept
