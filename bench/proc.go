package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// snapshot is a process's memory and goroutines at one moment.
type snapshot struct {
	HeapInuse  int64 `json:"heap_inuse"`
	StackInuse int64 `json:"stack_inuse"`
	RSS        int64 `json:"rss"`
	Goroutines int   `json:"goroutines"`
	// PoolGoroutines are the goroutines of idle upstream client
	// connections kept for reuse (HTTP/1 persistConn read and write
	// loops, HTTP/2 ClientConn read loops): they belong to the transport's
	// connection pool, not to a stream, and go away after its idle timeout.
	PoolGoroutines int `json:"pool_goroutines"`
}

// inUse is the heap plus stack memory in use.
func (s snapshot) inUse() int64 { return s.HeapInuse + s.StackInuse }

// streamGoroutines is the goroutine count without the connection pool's.
func (s snapshot) streamGoroutines() int { return s.Goroutines - s.PoolGoroutines }

// debugClient reads a process's net/http/pprof endpoints.
type debugClient struct {
	base string // e.g. http://127.0.0.1:6060
	http *http.Client
}

// newDebugClient returns a client of the endpoints at addr. Its timeout
// leaves room for the longest CPU profile the harness takes.
func newDebugClient(addr string) *debugClient {
	return &debugClient{
		base: "http://" + addr,
		http: &http.Client{Timeout: latencyProfileSeconds*time.Second + 30*time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
	}
}

// get returns the body of a debug path.
func (d *debugClient) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", path, err)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %v", path, resp.StatusCode, err)
	}
	return body, nil
}

// snapshot reads the heap after a GC (/debug/pprof/heap?gc=1&debug=1), the
// goroutines and the RSS of pid. The heap is read twice and the second
// reading kept: the first GC only moves sync.Pool contents to the victim
// cache, the second frees them.
func (d *debugClient) snapshot(ctx context.Context, pid int) (snapshot, error) {
	var s snapshot
	if _, err := d.get(ctx, "/debug/pprof/heap?gc=1&debug=1"); err != nil {
		return s, err
	}
	heap, err := d.get(ctx, "/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		return s, err
	}
	if s.HeapInuse, err = memStat(heap, "HeapInuse"); err != nil {
		return s, err
	}
	if s.StackInuse, err = memStat(heap, "Stack"); err != nil {
		return s, err
	}
	if s.Goroutines, s.PoolGoroutines, err = d.goroutines(ctx); err != nil {
		return s, err
	}
	s.RSS, err = harness.RSS(pid)
	return s, err
}

// goroutines returns the total goroutine count and the connection pool's.
func (d *debugClient) goroutines(ctx context.Context) (total, pool int, err error) {
	body, err := d.get(ctx, "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, 0, err
	}
	return parseGoroutines(body)
}

// memStat finds "# name = N" in the runtime.MemStats part of a debug=1
// heap profile. Some lines are "# name = inuse / sys" ("# Stack = ..."):
// their first number, the memory in use, is returned.
func memStat(profile []byte, name string) (int64, error) {
	prefix := "# " + name + " = "
	for line := range strings.Lines(string(profile)) {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			v, _, _ = strings.Cut(v, "/")
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing %s: %w", name, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no %q line in the heap profile", name)
}

// poolFrames mark a goroutine of an idle client connection.
var poolFrames = []string{"ClientConn).readLoop", "persistConn).readLoop", "persistConn).writeLoop"}

// parseGoroutines reads a debug=1 goroutine profile: the total from its
// first line ("goroutine profile: total N") and the goroutines whose stack
// has a poolFrames entry, from the "N @ ..." record headers.
func parseGoroutines(profile []byte) (total, pool int, err error) {
	text := string(profile)
	first, rest, _ := strings.Cut(text, "\n")
	v, ok := strings.CutPrefix(first, "goroutine profile: total ")
	if !ok {
		return 0, 0, fmt.Errorf("goroutine profile starts with %q", first)
	}
	if total, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
		return 0, 0, fmt.Errorf("parsing goroutine total: %w", err)
	}
	for record := range strings.SplitSeq(rest, "\n\n") {
		head, _, _ := strings.Cut(strings.TrimSpace(record), " @ ")
		n, err := strconv.Atoi(head)
		if err != nil {
			continue
		}
		for _, f := range poolFrames {
			if strings.Contains(record, f) {
				pool += n
				break
			}
		}
	}
	return total, pool, nil
}
