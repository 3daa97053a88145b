package tools

import (
	"context"
	"net/http"
)

// callerKey carries the Caller of a tool call.
type callerKey struct{}

// Caller is whose run calls a tool: the runner sets it for the tools a
// model or a tool step calls, so that a builtin acting on the run's behalf
// (ask_agent, which sends a request from the agent to another) knows who
// it acts for.
type Caller struct {
	// Agent is the agent whose command runs.
	Agent string
	// Header is the plugin's request header, for the forward auth policy
	// of what the builtin runs for the request. Never keep it.
	Header http.Header
}

// WithCaller returns ctx naming c as the caller of the tools called with it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerOf is the Caller WithCaller put in ctx, zero when none did.
func CallerOf(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}
