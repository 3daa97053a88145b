package collab

import (
	"context"
	"slices"
)

// chainKey carries the agents asked so far along one chain of asks.
type chainKey struct{}

// chainOf is the agents asked along the chain ctx belongs to, the first
// asked first; nil outside any ask.
func chainOf(ctx context.Context) []string {
	c, _ := ctx.Value(chainKey{}).([]string)
	return c
}

// withAsked is ctx for the run of the asked agent: its chain grows by it.
// The run's own asks (an ask step, the ask_agent tool) read it, which is
// how the depth limit sees through the runner.
func withAsked(ctx context.Context, agent string) context.Context {
	return context.WithValue(ctx, chainKey{}, append(slices.Clip(chainOf(ctx)), agent))
}

// Depth is how many asks deep ctx is: 0 outside any ask, 1 in the run of an
// agent another asked, and so on.
func Depth(ctx context.Context) int { return len(chainOf(ctx)) }
