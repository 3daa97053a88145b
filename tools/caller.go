package tools

import "context"

// callerKey carries the name of the agent whose run calls a tool.
type callerKey struct{}

// WithCaller returns ctx naming agent as the one whose run calls a tool:
// the runner sets it for the tools a model or a tool step calls, so that a
// builtin acting on the agent's behalf (ask_agent, which sends a request
// from it to another agent) knows who it acts for.
func WithCaller(ctx context.Context, agent string) context.Context {
	return context.WithValue(ctx, callerKey{}, agent)
}

// CallerOf is the agent WithCaller named in ctx, "" when none did.
func CallerOf(ctx context.Context) string {
	s, _ := ctx.Value(callerKey{}).(string)
	return s
}
