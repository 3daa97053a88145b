package main

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// sample is one gateway's resources at one moment.
type sample struct {
	at         time.Duration // since the load started
	gw         string
	pid        int
	rss        int64
	goroutines int
	fds        int
}

// sampler reads each gateway's RSS and open files from /proc and its
// goroutines from go_goroutines on its /metrics, at the start, every
// interval and at the end.
type sampler struct {
	mu      sync.Mutex
	samples []sample
}

func (s *sampler) loop(ctx context.Context, reps []*replica, every time.Duration, start time.Time) {
	for {
		for _, r := range reps {
			s.take(ctx, r, time.Since(start))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// take samples one gateway (nothing while it is down).
func (s *sampler) take(ctx context.Context, r *replica, at time.Duration) {
	if r.gw.down.Load() {
		return
	}
	pid := r.proc.Pid()
	sm := sample{at: at, gw: r.gw.name, pid: pid}
	var err error
	if sm.rss, err = harness.RSS(pid); err != nil {
		return
	}
	if sm.fds, err = harness.FDs(pid); err != nil {
		return
	}
	sm.goroutines = goroutines(context.WithoutCancel(ctx), r.proc.DebugAddr)
	s.mu.Lock()
	s.samples = append(s.samples, sm)
	s.mu.Unlock()
}

// goroutines reads go_goroutines from the debug listener's /metrics (-1
// when it cannot: the table shows it).
func goroutines(ctx context.Context, addr string) int {
	// Under full load /metrics can take seconds to answer.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return -1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return int(n)
			}
		}
	}
	return -1
}

// summarize writes the samples as a table, one row per gateway and time.
func (s *sampler) summarize(rep *report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep.add("| t | gateway (pid) | RSS MiB | goroutines | open fds |")
	rep.add("| ---: | --- | ---: | ---: | ---: |")
	for _, sm := range s.samples {
		rep.add("| %s | %s (%d) | %.1f | %d | %d |", sm.at.Round(time.Second), sm.gw, sm.pid, float64(sm.rss)/(1<<20), sm.goroutines, sm.fds)
	}
}
