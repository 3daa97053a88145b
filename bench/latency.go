package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// latencyResult is one path's latency figures.
type latencyResult struct {
	TTFB   quantiles `json:"ttfb"`
	Chunk  quantiles `json:"chunk"`
	Errors int       `json:"errors"`
	// InProcess is the process's own share, from -perf-trace.
	InProcess *inProcess `json:"in_process,omitempty"`
	// The raw samples, in nanoseconds.
	TTFBSamples  []time.Duration `json:"ttfb_samples_ns"`
	ChunkSamples []time.Duration `json:"chunk_samples_ns"`
}

// latencyStream is the latency scenario's stream: 20 chunks of 100 bytes,
// 1 ms apart, so that no two chunks share a write.
func latencyStream() streamSpec {
	return streamSpec{chunks: 20, size: 100, gap: time.Millisecond, usage: true}
}

// latencyOptions are the latency scenario's settings.
type latencyOptions struct {
	streams, warmup int // per path, counted and not
	prof            profiling
	// trace has perf trace cut the middle processes' streams at their
	// sockets (-perf-trace); upstreamPort is the mock's port.
	trace        bool
	upstreamPort int
}

// latencyProfileSeconds is how long -profile profiles the paths serving
// more latency rounds: one stream at a time, a path's process is busy for
// a few percent of the time, and the profiler samples at 100 Hz.
const latencyProfileSeconds = 60

// runLatency runs n sequential single streams per path, interleaved: each
// round runs one stream on every path, starting with a different path each
// round. A few warm-up rounds come first and are not counted. With a
// profile directory, more rounds follow for latencyProfileSeconds, not
// counted either, while every path with a debug endpoint is profiled; with
// o.trace, more again for traceSeconds while those paths are traced.
func runLatency(ctx context.Context, targets []*target, o latencyOptions, log io.Writer) (map[string]*latencyResult, error) {
	n, warmup := o.streams, o.warmup
	out := make(map[string]*latencyResult, len(targets))
	for _, t := range targets {
		out[t.name] = &latencyResult{}
	}
	spec := latencyStream()
	var lat []time.Duration
	// runRound runs one stream on every path, starting with targets[first],
	// and hands each result to fn.
	runRound := func(first int, fn func(t *target, res streamResult, err error) error) error {
		for i := range targets {
			t := targets[(i+first)%len(targets)]
			res, err := t.stream(ctx, spec, lat[:0])
			lat = res.lat
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(t, res, err); err != nil {
				return err
			}
		}
		return nil
	}
	for round := -warmup; round < n; round++ {
		err := runRound(max(round, 0), func(t *target, res streamResult, err error) error {
			r := out[t.name]
			switch {
			case round < 0:
			case err != nil:
				if r.Errors++; r.Errors <= 3 {
					fmt.Fprintf(log, "latency: %v\n", err)
				}
			default:
				r.TTFBSamples = append(r.TTFBSamples, res.ttfb)
				r.ChunkSamples = append(r.ChunkSamples, res.lat...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if round > 0 && round%100 == 0 {
			fmt.Fprintf(log, "latency: %d/%d rounds\n", round, n)
		}
	}
	// load runs uncounted rounds while the paths are profiled or traced;
	// a failed stream ends it.
	load := func(d time.Duration) (int, error) {
		rounds := 0
		for deadline := time.Now().Add(d); time.Now().Before(deadline); rounds++ {
			err := runRound(rounds, func(t *target, _ streamResult, err error) error {
				if err != nil {
					return fmt.Errorf("latency round while profiling or tracing %s: %w", t.name, err)
				}
				return nil
			})
			if err != nil {
				return 0, err
			}
		}
		return rounds, nil
	}
	if o.prof.dir != "" {
		if err := profileWhile(ctx, targets, o.prof, "latency", latencyProfileSeconds, load, log); err != nil {
			return nil, err
		}
	}
	if o.trace {
		in, err := traceWhile(ctx, targets, traceSeconds, o.upstreamPort, load, log)
		if err != nil {
			return nil, err
		}
		for name, r := range in {
			out[name].InProcess = r
		}
	}
	for _, r := range out {
		r.TTFB = summarize(r.TTFBSamples)
		r.Chunk = summarize(r.ChunkSamples)
	}
	return out, nil
}
