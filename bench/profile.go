package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// profileWhile takes a CPU profile of the process of every target with a
// debug endpoint, all over the same secs seconds, while load runs for a
// little longer, and writes them to <dir>/<path>-<scenario>.cpu.pprof.
func profileWhile(ctx context.Context, targets []*target, dir, scenario string, secs int, load func(time.Duration) error, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating the profile directory: %w", err)
	}
	profs := make([][]byte, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		if t.dbg != nil {
			wg.Go(func() { profs[i], errs[i] = t.dbg.get(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs)) })
		}
	}
	err := load(time.Duration(secs)*time.Second + 500*time.Millisecond)
	wg.Wait()
	if err != nil {
		return err
	}
	for i, t := range targets {
		if t.dbg == nil {
			continue
		}
		if errs[i] != nil {
			return fmt.Errorf("profiling %s: %w", t.name, errs[i])
		}
		path := filepath.Join(dir, t.name+"-"+scenario+".cpu.pprof")
		if err := os.WriteFile(path, profs[i], 0o644); err != nil {
			return fmt.Errorf("writing a profile: %w", err)
		}
		fmt.Fprintf(log, "%s: CPU profile of %s written to %s\n", scenario, t.name, path)
	}
	return nil
}
