// Package collab is collaboration between agents (seed 004 section 3): one
// agent sends another a REQUEST and waits for its RESPONSE, seeing its
// PROGRESS on the way, and sends a CANCEL when the caller goes away or the
// timeout passes. An Asker carries the exchange to an agent of this
// gateway (through its runner) or to a remote one (through a Forwarder);
// the ask step kind (collab/askstep) and the ask_agent builtin tool
// (Builtins) use it.
//
// An Asker holds no runner: the gateway builds the step kinds and tools
// that hold it before the runner that runs them, and gives nothing to a
// part after it is made (issue 27). An ask from a run goes through the
// runner running it, which the run's context carries (agent/dispatch);
// one from no run (a tool called over MCP or by a schedule) through the
// runner its caller puts there, or Config.Local.
package collab
