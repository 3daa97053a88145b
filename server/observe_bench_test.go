package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/cputime"
	"github.com/agentgw/agentgw/internal/jsonlog"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/metrics"
)

// BenchmarkObserverCost is what the observers of a gateway with its
// defaults (the access log at info, as JSON, and the Prometheus metrics)
// cost one agent request, and nothing else: the Watch begun as the
// server's middleware begins it, the events of a request answered by one
// model call in the order observe_test.go's TestObservedRequests sees them
// (the body decoded, the agent then the command routed, the prompt
// rendered, the streamed model call started and ended as the llm client
// reports it), the request ended and its access log line
// written to a JSON handler that discards. Issue 29's budget is 5 µs and
// 5 allocations; see bench/README.md, "Observer cost (issue 29)". On
// Linux cpu-ns/op is the process's CPU time per request (getrusage: the
// garbage collector's share included), steadier than ns/op on a busy host.
//
// The log is the gateway's JSON handler (internal/jsonlog); the
// "slog-json" cases write the same line through slog's own, to show what
// that handler saves.
func BenchmarkObserverCost(b *testing.B) {
	info, warn := &slog.HandlerOptions{Level: slog.LevelInfo}, &slog.HandlerOptions{Level: slog.LevelWarn}
	newMetrics := func() observe.Observer { return metrics.New(metrics.Options{NoRuntime: true}) }
	b.Run("log+metrics", func(b *testing.B) { benchObserverCost(b, jsonlog.NewHandler(io.Discard, info), newMetrics()) })
	b.Run("log", func(b *testing.B) { benchObserverCost(b, jsonlog.NewHandler(io.Discard, info)) })
	b.Run("metrics", func(b *testing.B) { benchObserverCost(b, jsonlog.NewHandler(io.Discard, warn), newMetrics()) })
	b.Run("slog-json+metrics", func(b *testing.B) { benchObserverCost(b, slog.NewJSONHandler(io.Discard, info), newMetrics()) })
	b.Run("slog-json", func(b *testing.B) { benchObserverCost(b, slog.NewJSONHandler(io.Discard, info)) })
}

func benchObserverCost(b *testing.B, h slog.Handler, obs ...observe.Observer) {
	log := slog.New(h)
	var observers observe.Observers
	if log.Enabled(context.Background(), slog.LevelInfo) {
		observers = append(observers, accessLog{log})
	}
	observers = append(observers, obs...)
	header := http.Header{"Content-Type": {"application/json"}}
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		start := time.Now()
		rctx, w := observers.Begin(ctx, &observe.Request{Source: observe.SourceHTTP, Route: "/agents/:name",
			Method: http.MethodPost, Path: "/agents/bench", RequestID: "0123456789abcdef0123456789abcdef",
			Remote: "192.0.2.1", Header: header, Start: start})
		w = observe.From(rctx)
		_, decoded := w.Phase(rctx, observe.PhaseDecode)
		decoded(nil)
		w.Routed("bench", "", true)
		w.Routed("bench", "default", true)
		_, rendered := w.Phase(rctx, observe.PhasePrompt)
		rendered(nil)
		_, end := w.Upstream(rctx, observe.Upstream{Model: "gpt-4o-mini", Stream: true, Messages: 3})
		end(observe.UpstreamResult{Model: "gpt-4o-mini", Status: http.StatusOK, Attempts: 1, FirstByte: time.Millisecond,
			Chunks: 22, Usage: observe.Usage{In: 900, Out: 20}, FinishReason: "stop"})
		w.End(observe.Outcome{Status: http.StatusOK, Bytes: 4096, TTFB: 2 * time.Millisecond, Duration: time.Since(start)})
	}
	if cpu := cputime.Process() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
