package main

import (
	"context"
	"log/slog"

	"github.com/agentgw/agentgw/observe"
)

// newObservers builds the observers that watch every request besides the
// access log (the server adds that one): the metrics and the tracer, as
// configured. The returned stop flushes them; it is never nil.
func newObservers(ctx context.Context, _ *Config, getenv func(string) string, log *slog.Logger) (observe.Observers, func(), error) {
	var obs observe.Observers
	tracer, stopTracing, err := newTracing(ctx, getenv, log)
	if err != nil {
		return nil, func() {}, err
	}
	obs = append(obs, tracer...)
	return obs, stopTracing, nil
}
