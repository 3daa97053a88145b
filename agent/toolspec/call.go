package toolspec

import (
	"context"
	"net/http"
)

// Caller is who calls a tool: the agent whose run calls it, the
// conversation that run continues, the hand-off it received and the
// plugin's header. The runner sets it for the tools a model or a tool step
// calls, so that built-in tools acting on the run's behalf (sending a
// hand-off, asking another agent) know whom they act for.
type Caller struct {
	// Agent names the calling agent.
	Agent string
	// ContextID and Owner name the stored conversation the run continues
	// and its owner; without one, ContextID is "" and Owner the caller the
	// run acts for ("" when none is known).
	ContextID, Owner string
	// Handoff is the hand-off message the run received, nil without one.
	Handoff map[string]any
	// Header is the plugin's request header, for the forward auth policy
	// of what the builtin runs for the request. Never keep it.
	Header http.Header
}

// callerKey carries the Caller of a tool call.
type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf returns the caller ctx carries, and whether it carries one.
func CallerOf(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
