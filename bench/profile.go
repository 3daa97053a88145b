package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// profiling is where and how the scenarios profile the paths' processes.
type profiling struct {
	// dir receives the profiles; "" profiles nothing.
	dir string
	// perfHz, when positive, also has Linux perf sample the processes at
	// this frequency (the latency scenario only).
	perfHz int
}

// profileWhile takes a CPU profile of the process of every target with a
// debug endpoint, all over the same secs seconds, while load runs for a
// little longer, and writes them to <dir>/<path>-<scenario>.cpu.pprof.
// With prof.perfHz, perf samples the same processes over the same seconds,
// converted to <dir>/<path>-<scenario>.perf.pprof. load returns how many
// streams each path served.
func profileWhile(ctx context.Context, targets []*target, prof profiling, scenario string, secs int, load func(time.Duration) (int, error), log io.Writer) error {
	if err := os.MkdirAll(prof.dir, 0o755); err != nil {
		return fmt.Errorf("creating the profile directory: %w", err)
	}
	profs := make([][]byte, len(targets))
	errs := make([]error, len(targets))
	perfErrs := make([]error, len(targets))
	perfData := func(t *target) string { return filepath.Join(prof.dir, "."+t.name+"-"+scenario+".perf.data") }
	var wg sync.WaitGroup
	for i, t := range targets {
		if t.dbg == nil {
			continue
		}
		wg.Go(func() { profs[i], errs[i] = t.dbg.get(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs)) })
		if prof.perfHz > 0 {
			wg.Go(func() {
				perfErrs[i] = perfAttach(ctx, t.pid, secs, perfData(t), "record", "-q", "-F", strconv.Itoa(prof.perfHz), "-g")
			})
		}
	}
	streams, err := load(time.Duration(secs)*time.Second + 500*time.Millisecond)
	wg.Wait()
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "%s: %d streams per path while profiling\n", scenario, streams)
	for i, t := range targets {
		if t.dbg == nil {
			continue
		}
		if errs[i] != nil {
			return fmt.Errorf("profiling %s: %w", t.name, errs[i])
		}
		path := filepath.Join(prof.dir, t.name+"-"+scenario+".cpu.pprof")
		if err := os.WriteFile(path, profs[i], 0o644); err != nil {
			return fmt.Errorf("writing a profile: %w", err)
		}
		fmt.Fprintf(log, "%s: CPU profile of %s written to %s\n", scenario, t.name, path)
		if prof.perfHz <= 0 {
			continue
		}
		if perfErrs[i] != nil {
			return fmt.Errorf("perf profile of %s: %w", t.name, perfErrs[i])
		}
		path = filepath.Join(prof.dir, t.name+"-"+scenario+".perf.pprof")
		p := perfProfile{hz: prof.perfHz, duration: time.Duration(secs) * time.Second, comments: []string{
			fmt.Sprintf("perf record -F %d -g of %s over %d s of %s rounds, %d streams per path", prof.perfHz, t.name, secs, scenario, streams),
		}}
		n, err := perfConvert(ctx, perfData(t), path, p)
		if err != nil {
			return fmt.Errorf("perf profile of %s: %w", t.name, err)
		}
		fmt.Fprintf(log, "%s: perf profile of %s (%d samples) written to %s\n", scenario, t.name, n, path)
	}
	return nil
}

// perfAttach runs `perf <args> -p pid -o out -- sleep secs`: a perf
// command (record, trace) attached to the process pid for secs seconds,
// writing to out.
func perfAttach(ctx context.Context, pid, secs int, out string, args ...string) error {
	args = append(args, "-p", strconv.Itoa(pid), "-o", out, "--", "sleep", strconv.Itoa(secs))
	if b, err := exec.CommandContext(ctx, "perf", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("perf %s: %w: %s", args[0], err, b)
	}
	return nil
}

// perfConvert writes the samples of the perf data file in as the pprof
// profile out, removing in; it returns the number of samples.
func perfConvert(ctx context.Context, in, out string, p perfProfile) (int64, error) {
	defer os.Remove(in)
	cmd := exec.CommandContext(ctx, "perf", "script", "-i", in, "-F", perfScriptFields)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("perf script: %w", err)
	}
	f, err := os.Create(out)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0, fmt.Errorf("creating the profile: %w", err)
	}
	n, convErr := perfToPprof(stdout, f, p)
	if convErr != nil {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	closeErr := f.Close()
	switch {
	case convErr != nil:
		return 0, convErr
	case waitErr != nil:
		return 0, fmt.Errorf("perf script: %w: %s", waitErr, stderr.Bytes())
	case closeErr != nil:
		return 0, fmt.Errorf("writing the profile: %w", closeErr)
	}
	return n, nil
}
