package dispatch

import (
	"context"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/request"
)

// Local runs requests on the gateway's own agents (*runner.Runner is
// one).
type Local interface {
	// Dispatch prepares req and, when it is runnable, executes it, its
	// frames to em, ending the stream. An error is a request refused
	// before anything was written (no such agent or command, a context
	// variable the command requires): em was neither written nor ended.
	Dispatch(ctx context.Context, req *request.Request, em emit.Emitter) error
}

// localKey is the context key of a Local.
type localKey struct{}

// WithLocal returns ctx carrying l: what runs with that context reaches
// the gateway's agents through l.
func WithLocal(ctx context.Context, l Local) context.Context {
	return context.WithValue(ctx, localKey{}, l)
}

// LocalFrom returns the Local ctx carries, and whether it carries one.
func LocalFrom(ctx context.Context) (Local, bool) {
	l, ok := ctx.Value(localKey{}).(Local)
	return l, ok && l != nil
}
