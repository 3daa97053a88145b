package observe

import (
	"context"
	"net/http"
)

// Nop is a Run that does nothing; observers embed it and implement only
// the events they use. Its start methods return nil ends (see Run).
type Nop struct{}

var _ Run = Nop{}

// Routed implements Run.
func (Nop) Routed(string, string, bool) {}

// Phase implements Run.
func (Nop) Phase(ctx context.Context, _ string) (context.Context, func(error)) { return ctx, nil }

// Upstream implements Run.
func (Nop) Upstream(ctx context.Context, _ Upstream) (context.Context, func(UpstreamResult)) {
	return ctx, nil
}

// Step implements Run.
func (Nop) Step(ctx context.Context, _ Step) (context.Context, func(StepResult)) { return ctx, nil }

// Tool implements Run.
func (Nop) Tool(ctx context.Context, _ Tool) (context.Context, func(ToolResult)) { return ctx, nil }

// Git implements Run.
func (Nop) Git(ctx context.Context, _, _ string) (context.Context, func(error)) { return ctx, nil }

// Handoff implements Run.
func (Nop) Handoff(ctx context.Context, _ Handoff) (context.Context, func(error)) { return ctx, nil }

// Paused implements Run.
func (Nop) Paused(string) {}

// Failed implements Run.
func (Nop) Failed(string) {}

// Inject implements Run.
func (Nop) Inject(context.Context, http.Header) {}

// End implements Run.
func (Nop) End(Outcome) {}
