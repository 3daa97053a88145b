package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
)

const testChunk = `{"id":"up","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`

func TestStreamConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Config{BaseURL: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), simpleRequest, &recordSink{})
	e := asError(t, err, KindUnavailable)
	if !e.Recoverable() || e.Code() != "UPSTREAM_UNAVAILABLE" {
		t.Errorf("Recoverable() = %v, Code() = %s", e.Recoverable(), e.Code())
	}
}

func TestStreamTimeouts(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		reply   llmtest.Reply
		relayed int
		message string
	}{
		{"first byte, nothing sent", Config{FirstByteTimeout: 50 * time.Millisecond, IdleTimeout: time.Hour},
			llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}, 0, "first-byte timeout of 50ms exceeded"},
		{"first byte, headers but no event", Config{FirstByteTimeout: 50 * time.Millisecond},
			llmtest.Stream(llmtest.Raw(": still thinking\n\n"), llmtest.Stall()), 0, "first-byte timeout of 50ms exceeded"},
		{"idle after two chunks", Config{FirstByteTimeout: time.Hour, IdleTimeout: 50 * time.Millisecond},
			llmtest.Stream(append(chunks(2), llmtest.Stall())...), 2, "idle timeout of 50ms exceeded"},
		{"idle without first-byte timeout", Config{IdleTimeout: 50 * time.Millisecond},
			llmtest.Stream(append(chunks(2), llmtest.Stall())...), 2, "idle timeout of 50ms exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, llmtest.Repeat(tt.reply))
			sink := &recordSink{}
			res, err := newTestClient(t, u, tt.cfg).Stream(context.Background(), simpleRequest, sink)
			e := asError(t, err, KindTimeout)
			if e.Message != tt.message || !e.Recoverable() || e.Code() != "UPSTREAM_TIMEOUT" {
				t.Errorf("got %q (recoverable %v, code %s), want message %q", e.Message, e.Recoverable(), e.Code(), tt.message)
			}
			if res.Chunks != tt.relayed || len(sink.list()) != tt.relayed {
				t.Errorf("relayed %d chunks (sink %d), want %d", res.Chunks, len(sink.list()), tt.relayed)
			}
			u.Ended(t) // the upstream saw the call end
		})
	}
}

// TestSlowButSteadyStreamIsNotIdle sends chunks more often than the idle
// timeout for longer than it: the stream must complete.
func TestSlowButSteadyStreamIsNotIdle(t *testing.T) {
	var events []llmtest.Event
	for range 8 {
		events = append(events, llmtest.Data(testChunk), llmtest.Sleep(10*time.Millisecond))
	}
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(append(events, llmtest.DoneEvent())...)))
	res, err := newTestClient(t, u, Config{IdleTimeout: 200 * time.Millisecond}).
		Stream(context.Background(), simpleRequest, &recordSink{})
	if err != nil || res.Chunks != 8 {
		t.Fatalf("Stream = %+v, %v", res, err)
	}
}

func TestStreamCallerCancel(t *testing.T) {
	canceled := make(chan time.Time, 1)
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(llmtest.Data(testChunk), llmtest.Stall())))
	go func() {
		u.Ended(t)
		canceled <- time.Now()
	}()
	c := newTestClient(t, u, Config{})
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	sink := &recordSink{got: make(chan struct{}, 1)}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, simpleRequest, sink)
		errc <- err
	}()
	<-sink.got
	canceledAt := time.Now()
	cancel()
	e := asError(t, <-errc, KindCanceled)
	if !errors.Is(e, context.Canceled) || e.Code() != "CANCELED" || e.Recoverable() {
		t.Errorf("error %v: code %s, recoverable %v", e, e.Code(), e.Recoverable())
	}
	// The one timed assertion the task asks for: the upstream handler sees
	// its request context end promptly.
	if seen := (<-canceled).Sub(canceledAt); seen > 100*time.Millisecond {
		t.Errorf("the upstream saw the cancellation after %v, want within 100ms", seen)
	}
	c.http.CloseIdleConnections()
	settleGoroutines(t, before)
}

// settleGoroutines waits for the goroutine count to come back to before.
func settleGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStreamSinkErrorStops(t *testing.T) {
	// The stream never ends the body by itself.
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(append(chunks(5), llmtest.Stall())...)))
	sink := &recordSink{failAt: 3}
	res, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink)
	e := asError(t, err, KindCanceled)
	if !errors.Is(e, errSinkTest) {
		t.Errorf("error %v does not wrap the sink's error", e)
	}
	if sink.calls != 3 || res.Chunks != 2 {
		t.Errorf("sink called %d times, Result.Chunks %d; want 3 and 2", sink.calls, res.Chunks)
	}
	u.Ended(t) // the upstream call was abandoned
}

func TestStreamBrokenBody(t *testing.T) {
	// The body is shorter than its Content-Length says.
	u := newUpstream(t, llmtest.Repeat(llmtest.Reply{Header: http.Header{"Content-Type": {"text/event-stream"}, "Content-Length": {"100000"}},
		Body: llmtest.Frame(testChunk) + `data: {"id":`}))
	sink := &recordSink{}
	res, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink)
	e := asError(t, err, KindStream)
	if res.Chunks != 1 || !strings.Contains(e.Error(), "unexpected EOF") {
		t.Errorf("got %d chunks, error %v", res.Chunks, e)
	}
}

// TestStreamReusesConnectionAfterCallerEnds checks that the background drain
// outlives the caller's context: an HTTP handler returns, and net/http
// cancels its request's context, as soon as Stream has relayed the
// terminator, usually before the upstream's end of body arrives. The drain
// must still read to that end so that the connection goes back to the pool.
func TestStreamReusesConnectionAfterCallerEnds(t *testing.T) {
	// The end of body comes late.
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(append(chunks(2), llmtest.DoneEvent(), llmtest.Sleep(20*time.Millisecond))...)))
	c := newTestClient(t, u, Config{})
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := c.Stream(ctx, simpleRequest, &recordSink{})
		cancel() // the handler returned
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // the drain ends
	}
	var remotes []string
	for _, r := range u.Requests() {
		remotes = append(remotes, r.RemoteAddr)
	}
	if len(remotes) != 3 || remotes[0] != remotes[1] || remotes[1] != remotes[2] {
		t.Errorf("calls came from %v, want one connection", remotes)
	}
}

// TestStreamReusesConnection checks that the body is drained after the
// terminator so that the next call reuses the connection.
func TestStreamReusesConnection(t *testing.T) {
	u := newUpstream(t, llmtest.Repeat(llmtest.Frames(testChunk, testChunk)))
	c := newTestClient(t, u, Config{})
	for range 3 {
		if _, err := c.Stream(context.Background(), simpleRequest, &recordSink{}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := u.Requests()
	if len(reqs) != 3 || reqs[0].RemoteAddr != reqs[1].RemoteAddr || reqs[1].RemoteAddr != reqs[2].RemoteAddr {
		t.Errorf("calls used connections %v, want one", reqs)
	}
}
