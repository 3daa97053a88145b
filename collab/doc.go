// Package collab is collaboration between agents (seed 004 section 3): one
// agent sends another a REQUEST and waits for its RESPONSE, seeing its
// PROGRESS on the way, and sends a CANCEL when the caller goes away or the
// timeout passes. An Asker carries the exchange to an agent of this
// gateway (through its runner) or to a remote one (through a Forwarder);
// the ask step kind (collab/askstep) and the ask_agent builtin tool
// (Builtins) use it.
package collab
