package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// saturationStream is the saturation scenario's stream: 22 events (20
// content chunks of 100 bytes, the stop chunk, the usage chunk), no gap.
func saturationStream() streamSpec {
	return streamSpec{chunks: 20, size: 100, usage: true}
}

// satRound is one round of one path.
type satRound struct {
	Streams  int64         `json:"streams"`
	Errors   int64         `json:"errors"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	CPU      time.Duration `json:"cpu_ns"` // of the path's process
	PerSec   float64       `json:"streams_per_sec"`
	CPUPer1K float64       `json:"cpu_ms_per_1000_chunks"`
}

// satResult is one path's saturation figures: medians over the rounds.
type satResult struct {
	PerSec   float64    `json:"streams_per_sec"`
	CPUPer1K float64    `json:"cpu_ms_per_1000_chunks"`
	Errors   int64      `json:"errors"`
	Rounds   []satRound `json:"rounds"`
}

// satOptions are the saturation scenario's settings.
type satOptions struct {
	conc   int           // concurrent workers
	rounds int           // measured rounds per path
	dur    time.Duration // one round of one path
	// prof.dir, when set, receives a CPU profile of every path that has a
	// debug endpoint, taken during one extra round that is not counted.
	prof profiling
}

// runSaturation runs o.rounds rounds per path, interleaved (the first, a
// warm-up of half a round per path, is not counted), each with o.conc
// workers looping full streams.
func runSaturation(ctx context.Context, targets []*target, o satOptions, log io.Writer) (map[string]*satResult, error) {
	out := make(map[string]*satResult, len(targets))
	for _, t := range targets {
		out[t.name] = &satResult{}
	}
	for round := -1; round < o.rounds; round++ {
		d := o.dur
		if round < 0 {
			d = o.dur / 2
		}
		for i := range targets {
			t := targets[(i+max(round, 0))%len(targets)]
			r, err := saturate(ctx, t, o.conc, d, log)
			if err != nil {
				return nil, err
			}
			if round >= 0 {
				out[t.name].Rounds = append(out[t.name].Rounds, r)
			}
		}
		if round >= 0 {
			fmt.Fprintf(log, "saturation: round %d/%d done\n", round+1, o.rounds)
		}
	}
	if o.prof.dir != "" {
		if err := profileRound(ctx, targets, o, log); err != nil {
			return nil, err
		}
	}
	for _, r := range out {
		var perSec, cpu []float64
		for _, rd := range r.Rounds {
			perSec = append(perSec, rd.PerSec)
			cpu = append(cpu, rd.CPUPer1K)
			r.Errors += rd.Errors
		}
		r.PerSec, r.CPUPer1K = median(perSec), median(cpu)
	}
	return out, nil
}

// saturate runs conc workers looping streams on t for dur and measures the
// rate and the CPU the path's process used per 1,000 relayed chunks.
func saturate(ctx context.Context, t *target, conc int, dur time.Duration, log io.Writer) (satRound, error) {
	spec := saturationStream()
	var streams, errs atomic.Int64
	// cpu reads the path's process CPU time; 0 without a process (another
	// gateway given by URL alone).
	cpu := func() (time.Duration, error) {
		if t.pid == 0 {
			return 0, nil
		}
		return harness.CPU(t.pid)
	}
	cpu0, err := cpu()
	if err != nil {
		return satRound{}, err
	}
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			var lat []time.Duration
			for time.Now().Before(deadline) && ctx.Err() == nil {
				res, err := t.stream(ctx, spec, lat[:0])
				lat = res.lat
				if err == nil {
					streams.Add(1)
				} else if errs.Add(1) <= 3 && ctx.Err() == nil {
					fmt.Fprintf(log, "saturation: %v\n", err)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := cpu()
	if err != nil {
		return satRound{}, err
	}
	if ctx.Err() != nil {
		return satRound{}, ctx.Err()
	}
	r := satRound{Streams: streams.Load(), Errors: errs.Load(), Elapsed: elapsed, CPU: cpu1 - cpu0}
	r.PerSec = float64(r.Streams) / elapsed.Seconds()
	if chunks := r.Streams * int64(spec.events()); chunks > 0 {
		r.CPUPer1K = float64(r.CPU) / float64(time.Millisecond) / float64(chunks) * 1000
	}
	return r, nil
}

// profileRound runs one more round on every path with a debug endpoint
// while taking its CPU profile.
func profileRound(ctx context.Context, targets []*target, o satOptions, log io.Writer) error {
	secs := max(int(o.dur.Seconds())-1, 1)
	for _, t := range targets {
		if t.dbg == nil {
			continue
		}
		load := func(d time.Duration) (int, error) {
			r, err := saturate(ctx, t, o.conc, d, log)
			return int(r.Streams), err
		}
		if err := profileWhile(ctx, []*target{t}, o.prof, "saturation", secs, load, log); err != nil {
			return err
		}
	}
	return nil
}
