// Package dispatch is how a feature that runs inside a run reaches the
// gateway's own agents without holding the runner: the runner puts itself
// (as a Local) into the context of every run it executes, and what runs in
// that run (the ask step, the ask_agent tool) takes it from there with
// LocalFrom. The gateway builds the step kinds and tools before the runner
// that runs them (the runner needs the step kinds), so they cannot be
// given the runner when they are made, and giving it to them afterwards
// would be a late bind (issue 27). A call that comes from no run (a tool an
// MCP client or a schedule calls) gets the runner from whoever calls it,
// who is built after the runner (WithLocal).
//
// The package is a leaf: it links the request and the emitter, nothing of
// the runner or of any feature.
package dispatch
