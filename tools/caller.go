package tools

import "context"

// Caller is who calls a tool: the agent whose run calls it and the
// conversation that run continues. Built-in tools that act for the agent
// (sending a hand-off, asking another agent) read it from their context.
type Caller struct {
	// Agent names the calling agent.
	Agent string
	// ContextID and Owner name the stored conversation the run continues,
	// "" without one.
	ContextID, Owner string
	// Handoff is the hand-off message the run received, nil without one.
	Handoff map[string]any
}

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
