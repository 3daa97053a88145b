package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// target is one measured path: where to send what, and which process the
// path's CPU is charged to.
type target struct {
	name   string // direct, proxy, agentgw, agentgw-warn, target
	url    string
	body   []byte
	client *http.Client
	pid    int
	dbg    *debugClient // the pprof endpoint of the path's process, if any
	// prepare, when set, gives the body of each request instead of body,
	// before the clock starts (the stateful path seeds a conversation).
	prepare func(ctx context.Context) ([]byte, error)
	// header is sent with every request (the governed path's key).
	header http.Header
	// token, when set, is sent as X-Agentgw-Token (the usage path's key).
	token string
	// readers recycles the SSE line readers, so that the client's own
	// garbage does not differ between paths.
	readers sync.Pool
}

// newTarget returns a target with its own client allowing conns
// connections to stay open for reuse.
func newTarget(name, url string, body []byte, pid, conns int) *target {
	return &target{name: name, url: url, body: body, pid: pid, client: newClient(conns)}
}

// newClient is an HTTP/1.1 client without compression keeping up to conns
// idle connections to one host.
func newClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
}

// streamSpec is the shape the mock gives a stream (X-Mock-* headers).
type streamSpec struct {
	chunks int
	size   int
	gap    time.Duration
	usage  bool
	hold   bool
}

// events is the number of upstream events of a full stream: the content
// chunks, the stop chunk and the usage chunk.
func (s streamSpec) events() int {
	if s.usage {
		return s.chunks + 2
	}
	return s.chunks + 1
}

// streamResult is what the client saw of one stream.
type streamResult struct {
	ttfb    time.Duration   // until the first content chunk arrived
	content int             // content chunks seen
	lat     []time.Duration // delivery latency of each content chunk
	done    bool            // the terminator arrived
}

// post sends the path's request for s.
func (t *target) post(ctx context.Context, s streamSpec) (*http.Response, time.Time, error) {
	body := t.body
	if t.prepare != nil {
		var err error
		if body, err = t.prepare(ctx); err != nil {
			return nil, time.Time{}, fmt.Errorf("%s: preparing the request: %w", t.name, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("building the request: %w", err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("X-Mock-Chunks", strconv.Itoa(s.chunks))
	h.Set("X-Mock-Size", strconv.Itoa(s.size))
	h.Set("X-Mock-Gap", s.gap.String())
	h.Set("X-Mock-Usage", strconv.FormatBool(s.usage))
	h.Set("X-Mock-Hold", strconv.FormatBool(s.hold))
	for k, v := range t.header {
		h[k] = v
	}
	if t.token != "" {
		h.Set("X-Agentgw-Token", t.token)
	}
	start := time.Now()
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, start, fmt.Errorf("%s: %w", t.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		return nil, start, fmt.Errorf("%s: status %d: %s", t.name, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return resp, start, nil
}

// stream runs one full stream, appending the chunk latencies to lat.
func (t *target) stream(ctx context.Context, s streamSpec, lat []time.Duration) (streamResult, error) {
	res := streamResult{lat: lat}
	resp, start, err := t.post(ctx, s)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	br := t.reader(resp.Body)
	defer func() {
		br.Reset(nil)
		t.readers.Put(br)
	}()
	err = readEvents(br, func(data []byte, at time.Time) bool {
		res.record(data, at, start)
		return true
	})
	switch {
	case err != nil:
		return res, fmt.Errorf("%s: reading the stream: %w", t.name, err)
	case res.content != s.chunks || !res.done:
		return res, fmt.Errorf("%s: got %d of %d content chunks (terminator seen: %v)", t.name, res.content, s.chunks, res.done)
	}
	return res, nil
}

// hold starts a stream whose upstream holds it open after one chunk, and
// returns its body once that chunk arrived; the caller closes it.
func (t *target) hold(ctx context.Context, s streamSpec) (io.Closer, error) {
	s.hold = true
	resp, start, err := t.post(ctx, s)
	if err != nil {
		return nil, err
	}
	var res streamResult
	err = readEvents(bufio.NewReaderSize(resp.Body, 1024), func(data []byte, at time.Time) bool {
		res.record(data, at, start)
		return res.content == 0
	})
	if err == nil && res.content == 0 {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("%s: waiting for the first chunk: %w", t.name, err)
	}
	return resp.Body, nil
}

// reader returns a pooled line reader over r.
func (t *target) reader(r io.Reader) *bufio.Reader {
	if br, ok := t.readers.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, 16<<10)
}
