package tools

import (
	"context"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// Caller is who calls a tool (toolspec.Caller, kept with the spec so that
// the runner sets it without importing the runtimes).
type Caller = toolspec.Caller

// WithCaller returns ctx carrying c (toolspec.WithCaller).
func WithCaller(ctx context.Context, c Caller) context.Context { return toolspec.WithCaller(ctx, c) }

// CallerOf returns the caller ctx carries, and whether it carries one
// (toolspec.CallerOf).
func CallerOf(ctx context.Context) (Caller, bool) { return toolspec.CallerOf(ctx) }
