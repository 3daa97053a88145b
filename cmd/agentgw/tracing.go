package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/tracing"
)

// tracingFlushTimeout bounds the export of the spans left at shutdown.
const tracingFlushTimeout = 5 * time.Second

// newTracing starts the OpenTelemetry tracer when the OTEL_* variables ask
// for it (see tracing.FromEnv): it returns the observers to add (none when
// tracing is off) and stop, which exports the spans left, to call once the
// server has stopped.
func newTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (observe.Observers, func(), error) {
	o, shutdown, err := tracing.FromEnv(ctx, getenv, versionString(), log)
	if err != nil {
		return nil, func() {}, err
	}
	if o == nil {
		return nil, func() {}, nil
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tracingFlushTimeout)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			log.Warn("tracing: flushing the spans at shutdown", "err", err)
		}
	}
	return observe.Observers{o}, stop, nil
}
