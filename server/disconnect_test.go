package server_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/sse"
)

// TestClientDisconnect: a plugin that goes away after the first relayed
// chunk cancels the upstream request within 100 ms (the bound the issue
// asks for), and nothing is left running afterwards. It does not run in
// parallel, so that the goroutine count is its own.
func TestClientDisconnect(t *testing.T) {
	before := runtime.NumGoroutine()
	canceled := make(chan time.Time, 1)
	h, up := newHandler(t, withUpstream(replayFirst(t, "normal.sse", 2, llmtest.Stall())))
	go func() {
		up.Ended(t)
		canceled <- time.Now()
	}()
	gw := httptest.NewServer(h)
	t.Cleanup(up.Release) // should the test fail, the stalled upstream ends
	transport := &http.Transport{}
	client := &http.Client{Transport: transport}

	req, err := http.NewRequest(http.MethodPost, gw.URL+"/agents/chat", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sse.NewReader(resp.Body).Next()
	if err != nil || !bytes.Contains(ev.Data, []byte(`"chat.completion.chunk"`)) {
		t.Fatalf("first event %q, %v: want a relayed chunk", ev.Data, err)
	}
	closed := time.Now()
	resp.Body.Close()

	select {
	case at := <-canceled:
		if d := at.Sub(closed); d > 100*time.Millisecond {
			t.Errorf("the upstream request ended %v after the client went away, want within 100ms", d)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the upstream request was not canceled after the client went away")
	}

	closeWithin(t, gw, 2*time.Second)
	closeWithin(t, up, 2*time.Second)
	transport.CloseIdleConnections()
	settleGoroutines(t, before)
}

// closeWithin closes a test server, failing with a goroutine dump when a
// request it serves does not end in time.
func closeWithin(t *testing.T, s interface{ Close() }, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("a handler is still running %v after the client went away:\n%s", d, goroutineDump())
	}
}

// settleGoroutines waits up to 2s for the goroutine count to come back to
// before, failing with a dump of all goroutines when it does not.
func settleGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left behind (%d before, %d now):\n%s", n-before, before, n, goroutineDump())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func goroutineDump() string {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return b.String()
}

// goneWriter takes every write, as a connection's buffers do for a while
// after the client went away, and fails every flush.
type goneWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (w *goneWriter) Header() http.Header         { return w.header }
func (w *goneWriter) WriteHeader(int)             {}
func (w *goneWriter) Write(p []byte) (int, error) { return w.body.Write(p) }
func (w *goneWriter) FlushError() error           { return errors.New("connection reset by peer") }

// TestFlushErrorStopsStream: a flush that fails ends the stream and cancels
// the upstream request, even while writes still succeed (echo's own Flush
// drops the error; the stream flushes the writer beneath it), with the
// access log's writer in between or not.
func TestFlushErrorStopsStream(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelWarn, slog.LevelInfo} {
		t.Run(level.String(), func(t *testing.T) {
			canceled := make(chan struct{})
			log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: level}))
			h, up := newHandler(t, withServer(func(c *server.Config) { c.Logger = log }),
				withUpstream(replayFirst(t, "normal.sse", 2, llmtest.Stall())))
			go func() {
				up.Ended(t)
				close(canceled)
			}()
			t.Cleanup(up.Release)
			req := httptest.NewRequest(http.MethodPost, "/agents/chat", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			w := &goneWriter{header: http.Header{}}
			served := make(chan struct{})
			go func() {
				defer close(served)
				h.ServeHTTP(w, req)
			}()
			for _, c := range []struct {
				what string
				ch   chan struct{}
			}{{"the upstream request was not canceled", canceled}, {"the handler did not return", served}} {
				select {
				case <-c.ch:
				case <-time.After(2 * time.Second):
					t.Fatalf("%s after the flush failed:\n%s", c.what, goroutineDump())
				}
			}
		})
	}
}

// plainWriter is a response writer that cannot flush. wrote, if set, is
// closed at its first write.
type plainWriter struct {
	header http.Header
	body   bytes.Buffer
	wrote  chan struct{}
}

func (w *plainWriter) Header() http.Header { return w.header }
func (w *plainWriter) WriteHeader(int)     {}
func (w *plainWriter) Write(p []byte) (int, error) {
	if w.wrote != nil && w.body.Len() == 0 {
		close(w.wrote)
	}
	return w.body.Write(p)
}

// TestStreamWithoutFlusher: behind a response writer that cannot flush (a
// middleware's wrapper, say) the stream still runs to its end. The upstream
// sends the rest of its events only once the first reached the writer, so
// the stream flushes at least twice.
func TestStreamWithoutFlusher(t *testing.T) {
	w := &plainWriter{header: http.Header{}, wrote: make(chan struct{})}
	wrote := llmtest.NewGate()
	go func() {
		<-w.wrote
		wrote.Release()
	}()
	h, up := newHandler(t, withUpstream(replayFirst(t, "normal.sse", 2, append([]llmtest.Event{llmtest.Wait(wrote)}, replayRest(t, "normal.sse", 2)...)...)))
	t.Cleanup(up.Release)
	req := httptest.NewRequest(http.MethodPost, "/agents/chat", strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, req)
	body := w.body.String()
	if !strings.Contains(body, `"finish_reason":"stop"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") || strings.Contains(body, "copilot_error") {
		t.Fatalf("stream without a flusher:\n%s", body)
	}
}
