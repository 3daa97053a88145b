package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file splits a middle process's share of the latency by its system
// calls: `perf trace` records the reads and writes of the proxy and of
// agentgw while more latency rounds run, one stream at a time, and each
// stream's time inside the process is cut at its sockets' reads and writes.

// traceSeconds is how long -perf-trace traces each process: the first 2 s
// let perf attach, the rest carry the extra rounds.
const traceSeconds = 10

// inProcess is a middle process's own time in a stream, from its system
// calls: from the end of a read to the start of the write it causes.
type inProcess struct {
	// Request is from the read of the client's request to the first write
	// of the upstream request: what the process does before asking.
	Request quantiles `json:"request"`
	// FirstChunk is from the first read of the upstream response to the
	// first write to the client: what it does with the response's start.
	FirstChunk quantiles `json:"first_chunk"`
	// Chunk is from a later upstream read to the client write it causes.
	Chunk quantiles `json:"chunk"`
}

// sysEvent is one read or write of a `perf trace` log.
type sysEvent struct {
	start, end time.Duration // since the trace began
	write      bool
	fd, ret    int
}

// The lines of `perf trace -e read,write` this reads: a whole call, or,
// when calls of two threads overlap, its start and, later, its end.
//
//	41.518 ( 0.023 ms): agentgw/14906 read(fd: 9, buf: 0x10e0e54c4000, count: 4096)   = 3874
//	2205.424 (         ): refproxy/14891 write(fd: 9, buf: 0x23a8af259000, count: 647)   ...
//	2205.424 ( 0.019 ms): refproxy/14891  ... [continued]: write())   = 647
var (
	perfTraceCall  = regexp.MustCompile(`^\s*([\d.]+) \(\s*([\d.]+) ms\): .*?/(\d+) (read|write)\(fd: (\d+),.*\)\s+= (-?\d+)`)
	perfTraceStart = regexp.MustCompile(`^\s*([\d.]+) \(\s*\): .*?/(\d+) (read|write)\(fd: (\d+),.*\.\.\.\s*$`)
	perfTraceEnd   = regexp.MustCompile(`^\s*([\d.]+) \(\s*([\d.]+) ms\): .*?/(\d+)\s+\.\.\. \[continued\]: (read|write)\(\)\)\s+= (-?\d+)`)
)

// parsePerfTrace returns the reads and writes of a `perf trace` log in
// time order. Lines of other kinds are skipped, and so is the end of a call
// whose start is not in the log.
func parsePerfTrace(r io.Reader) ([]sysEvent, error) {
	var evs []sysEvent
	started := map[string]sysEvent{} // by thread: calls whose end is to come
	ms := func(s string) (time.Duration, error) {
		f, err := strconv.ParseFloat(s, 64)
		return time.Duration(f * float64(time.Millisecond)), err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		var start, dur time.Duration
		var fd, ret int
		var errs [4]error
		if m := perfTraceCall.FindStringSubmatch(line); m != nil {
			start, errs[0] = ms(m[1])
			dur, errs[1] = ms(m[2])
			fd, errs[2] = strconv.Atoi(m[5])
			ret, errs[3] = strconv.Atoi(m[6])
			evs = append(evs, sysEvent{start: start, end: start + dur, write: m[4] == "write", fd: fd, ret: ret})
		} else if m := perfTraceStart.FindStringSubmatch(line); m != nil {
			start, errs[0] = ms(m[1])
			fd, errs[1] = strconv.Atoi(m[4])
			started[m[2]] = sysEvent{start: start, write: m[3] == "write", fd: fd}
		} else if m := perfTraceEnd.FindStringSubmatch(line); m != nil {
			dur, errs[0] = ms(m[2])
			ret, errs[1] = strconv.Atoi(m[5])
			e, ok := started[m[3]]
			delete(started, m[3])
			if ok && e.write == (m[4] == "write") {
				e.end, e.ret = e.start+dur, ret
				evs = append(evs, e)
			}
		}
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("perf trace line %d: %w", n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading perf trace output: %w", err)
	}
	slices.SortStableFunc(evs, func(a, b sysEvent) int { return int(a.start - b.start) })
	return evs, nil
}

// streamGaps cuts sequential streams (one at a time, as in the latency
// scenario) at their sockets' reads and writes; client and upstream are
// the process's sockets to its clients and to the upstream. perf trace -p
// does not follow threads started after it attached: a stream whose calls
// it partly missed yields fewer gaps, and if the missed call was the
// response's first read, its next chunk counts as the first.
func streamGaps(evs []sysEvent, client, upstream map[int]bool) (request, first, chunk []time.Duration) {
	var reqAt, upAt time.Duration = -1, -1
	awaitingFirst := false
	for _, e := range evs {
		if e.ret <= 0 {
			continue // EAGAIN and friends: nothing moved
		}
		switch {
		case !e.write && client[e.fd]:
			if reqAt < 0 {
				reqAt = e.end
			}
		case e.write && upstream[e.fd]:
			if reqAt >= 0 {
				request = append(request, e.start-reqAt)
				reqAt, upAt, awaitingFirst = -1, -1, true
			}
		case !e.write && upstream[e.fd]:
			if upAt < 0 {
				upAt = e.end
			}
		case e.write && client[e.fd]:
			if upAt < 0 {
				continue
			}
			if awaitingFirst {
				first = append(first, e.start-upAt)
				awaitingFirst = false
			} else {
				chunk = append(chunk, e.start-upAt)
			}
			upAt = -1
		}
	}
	return request, first, chunk
}

// socketFDs returns the process's TCP sockets to its clients (local port
// listen) and to the upstream (remote port upstream), by file descriptor.
func socketFDs(pid, listen, upstream int) (client, up map[int]bool, err error) {
	inodes := map[string]int{} // socket inode → fd
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("listing the sockets of %d: %w", pid, err)
	}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue // closed meanwhile
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			fd, _ := strconv.Atoi(e.Name())
			inodes[strings.TrimSuffix(inode, "]")] = fd
		}
	}
	client, up = map[int]bool{}, map[int]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue // no IPv6
		}
		err = tcpSockets(f, func(local, remote int, inode string) {
			if fd, ok := inodes[inode]; ok {
				if local == listen {
					client[fd] = true
				} else if remote == upstream {
					up[fd] = true
				}
			}
		})
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", table, err)
		}
	}
	return client, up, nil
}

// tcpSockets calls fn with the local and remote port and the inode of
// every socket of a /proc/net/tcp table.
func tcpSockets(r io.Reader, fn func(local, remote int, inode string)) error {
	sc := bufio.NewScanner(r)
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		local, err1 := hexPort(f[1])
		remote, err2 := hexPort(f[2])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("socket line %q: bad address", sc.Text())
		}
		fn(local, remote, f[9])
	}
	return sc.Err()
}

// hexPort is the port of a /proc/net/tcp address, "0100007F:1F90".
func hexPort(addr string) (int, error) {
	_, port, ok := strings.Cut(addr, ":")
	if !ok {
		return 0, fmt.Errorf("address %q has no port", addr)
	}
	n, err := strconv.ParseUint(port, 16, 16)
	return int(n), err
}

// traceWhile runs `perf trace` on the process of every target with a debug
// endpoint (the proxy and agentgw) for secs seconds while load runs, and
// cuts their streams at their sockets; upstreamPort is the mock's port.
func traceWhile(ctx context.Context, targets []*target, secs, upstreamPort int, load func(time.Duration) (int, error), log io.Writer) (map[string]*inProcess, error) {
	dir, err := os.MkdirTemp("", "agentgw-bench-trace")
	if err != nil {
		return nil, fmt.Errorf("creating the trace directory: %w", err)
	}
	defer os.RemoveAll(dir)
	logs := make([]string, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		if t.dbg == nil {
			continue
		}
		logs[i] = filepath.Join(dir, "."+t.name+".perf-trace")
		wg.Go(func() { errs[i] = perfAttach(ctx, t.pid, secs, logs[i], "trace", "-e", "read,write") })
	}
	// perf trace takes a moment to attach: give it that before the load.
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
	streams, err := load(time.Duration(secs-2) * time.Second)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	out := map[string]*inProcess{}
	for i, t := range targets {
		if t.dbg == nil {
			continue
		}
		if errs[i] != nil {
			return nil, fmt.Errorf("tracing %s: %w", t.name, errs[i])
		}
		res, err := traceResult(t, logs[i], upstreamPort)
		if err != nil {
			return nil, fmt.Errorf("tracing %s: %w", t.name, err)
		}
		fmt.Fprintf(log, "latency: traced %s: %d requests, %d first chunks, %d chunks in %d streams per path\n",
			t.name, res.Request.N, res.FirstChunk.N, res.Chunk.N, streams)
		out[t.name] = res
	}
	return out, nil
}

// traceResult cuts the streams of one process's trace log.
func traceResult(t *target, path string, upstreamPort int) (*inProcess, error) {
	listen, err := urlPort(t.url)
	if err != nil {
		return nil, err
	}
	client, up, err := socketFDs(t.pid, listen, upstreamPort)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	defer f.Close()
	evs, err := parsePerfTrace(f)
	if err != nil {
		return nil, err
	}
	request, first, chunk := streamGaps(evs, client, up)
	if len(request) == 0 || len(chunk) == 0 {
		return nil, fmt.Errorf("no streams in %d reads and writes (client sockets %v, upstream %v)", len(evs), client, up)
	}
	return &inProcess{Request: summarize(request), FirstChunk: summarize(first), Chunk: summarize(chunk)}, nil
}

// urlPort is the port of an http://host:port/... URL.
func urlPort(rawURL string) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, fmt.Errorf("parsing %s: %w", rawURL, err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return 0, fmt.Errorf("%s names no port", rawURL)
	}
	return port, nil
}
