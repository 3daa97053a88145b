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
	// The raw samples, in nanoseconds.
	TTFBSamples  []time.Duration `json:"ttfb_samples_ns"`
	ChunkSamples []time.Duration `json:"chunk_samples_ns"`
}

// latencyStream is the latency scenario's stream: 20 chunks of 100 bytes,
// 1 ms apart, so that no two chunks share a write.
func latencyStream() streamSpec {
	return streamSpec{chunks: 20, size: 100, gap: time.Millisecond, usage: true}
}

// latencyProfileSeconds is how long -profile profiles the paths serving
// more latency rounds: one stream at a time, a path's process is busy for
// a few percent of the time, and the profiler samples at 100 Hz.
const latencyProfileSeconds = 60

// runLatency runs n sequential single streams per path, interleaved: each
// round runs one stream on every path, starting with a different path each
// round. A few warm-up rounds come first and are not counted. With a
// profile directory, more rounds follow for latencyProfileSeconds, not
// counted either, while every path with a debug endpoint is profiled.
func runLatency(ctx context.Context, targets []*target, n, warmup int, prof profiling, log io.Writer) (map[string]*latencyResult, error) {
	out := make(map[string]*latencyResult, len(targets))
	for _, t := range targets {
		out[t.name] = &latencyResult{}
	}
	spec := latencyStream()
	var lat []time.Duration
	for round := -warmup; round < n; round++ {
		for i := range targets {
			t := targets[(i+max(round, 0))%len(targets)]
			res, err := t.stream(ctx, spec, lat[:0])
			lat = res.lat
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if round < 0 {
				continue
			}
			r := out[t.name]
			if err != nil {
				r.Errors++
				if r.Errors <= 3 {
					fmt.Fprintf(log, "latency: %v\n", err)
				}
				continue
			}
			r.TTFBSamples = append(r.TTFBSamples, res.ttfb)
			r.ChunkSamples = append(r.ChunkSamples, res.lat...)
		}
		if round > 0 && round%100 == 0 {
			fmt.Fprintf(log, "latency: %d/%d rounds\n", round, n)
		}
	}
	if prof.dir != "" {
		load := func(d time.Duration) (int, error) {
			rounds := 0
			for deadline := time.Now().Add(d); time.Now().Before(deadline); rounds++ {
				for _, t := range targets {
					res, err := t.stream(ctx, spec, lat[:0])
					lat = res.lat
					if ctx.Err() != nil {
						return 0, ctx.Err()
					}
					if err != nil {
						return 0, fmt.Errorf("latency profile round: %w", err)
					}
				}
			}
			return rounds, nil
		}
		if err := profileWhile(ctx, targets, prof, "latency", latencyProfileSeconds, load, log); err != nil {
			return nil, err
		}
	}
	for _, r := range out {
		r.TTFB = summarize(r.TTFBSamples)
		r.Chunk = summarize(r.ChunkSamples)
	}
	return out, nil
}
