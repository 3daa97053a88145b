package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/sse"
)

// batchSink records how chunks reach it: "buffer", "chunk" (which flushes)
// and "flush" calls, in order.
type batchSink struct {
	mu     sync.Mutex
	calls  []string
	chunks []string
	// held is the number of chunks taken by BufferChunk and not flushed yet.
	held int
	// onFlush, if set, is called with the number of chunks sent so far at
	// each flush point (Chunk, or Flush with chunks held).
	onFlush func(sent int)
	// failBuffer and failFlush make those calls fail.
	failBuffer, failFlush error
}

func (s *batchSink) BufferChunk(raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failBuffer != nil {
		return s.failBuffer
	}
	if !json.Valid(raw) {
		return fmt.Errorf("batchSink: %w", sse.ErrMalformedChunk)
	}
	s.calls = append(s.calls, "buffer")
	s.chunks = append(s.chunks, string(raw))
	s.held++
	return nil
}

func (s *batchSink) Chunk(raw []byte) error {
	if !json.Valid(raw) {
		return fmt.Errorf("batchSink: %w", sse.ErrMalformedChunk)
	}
	s.mu.Lock()
	s.calls = append(s.calls, "chunk")
	s.chunks = append(s.chunks, string(raw))
	s.held = 0
	sent, onFlush := len(s.chunks), s.onFlush
	s.mu.Unlock()
	if onFlush != nil {
		onFlush(sent)
	}
	return nil
}

func (s *batchSink) Flush() error {
	s.mu.Lock()
	if s.failFlush != nil {
		s.mu.Unlock()
		return s.failFlush
	}
	s.calls = append(s.calls, "flush")
	held := s.held
	s.held = 0
	sent, onFlush := len(s.chunks), s.onFlush
	s.mu.Unlock()
	if onFlush != nil && held > 0 {
		onFlush(sent)
	}
	return nil
}

// state returns the calls and chunks so far and how many chunks are held.
func (s *batchSink) state() (calls, chunks []string, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls), slices.Clone(s.chunks), s.held
}

// pipeTransport answers every request with an event stream whose body is
// the read end of a pipe, so that a test decides exactly what each read of
// the body returns. As with a real transport, the request's context ending
// breaks the body.
type pipeTransport struct{ body *io.PipeReader }

func (p pipeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	ctx := r.Context()
	context.AfterFunc(ctx, func() { p.body.CloseWithError(context.Cause(ctx)) })
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: p.body, Request: r,
	}, nil
}

// pipeClient returns a client whose upstream is the returned pipe writer.
func pipeClient(t *testing.T) (*Client, *io.PipeWriter) {
	t.Helper()
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	c, err := New(Config{BaseURL: "http://upstream.test/v1", HTTPClient: &http.Client{Transport: pipeTransport{pr}}})
	if err != nil {
		t.Fatal(err)
	}
	return c, pw
}

// burstClient returns a client whose upstream answers the recorded stream
// testdata/file in one write, as an upstream faster than its reader.
func burstClient(t *testing.T, file string) *Client {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	c, pw := pipeClient(t)
	go func() {
		_, _ = pw.Write(data)
		pw.Close()
	}()
	return c
}

// events returns n chunk events, the i-th with content "c<i>".
func events(n int) (stream string, chunks []string) {
	var b strings.Builder
	for i := range n {
		chunk := strings.Replace(testChunk, `"content":"x"`, fmt.Sprintf(`"content":"c%d"`, i), 1)
		chunks = append(chunks, chunk)
		fmt.Fprintf(&b, "data: %s\n\n", chunk)
	}
	return b.String(), chunks
}

// countFlusher is a buffer that counts its flushes.
type countFlusher struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	flushes int
}

func (c *countFlusher) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *countFlusher) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushes++
}

// waitSent waits until a flush reports at least n chunks sent; it gives up
// after a generous deadline (a hang, not a timing assertion).
func waitSent(flushed <-chan int, n int) bool {
	deadline := time.After(10 * time.Second)
	for {
		select {
		case sent := <-flushed:
			if sent >= n {
				return true
			}
		case <-deadline:
			return false
		}
	}
}
