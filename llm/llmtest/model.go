package llmtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Model is the fake upstream: a loopback HTTP server that answers every
// path (a client's base URL is URL()) and records what it receives.
type Model struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []Request
	script   []Reply
	next     int
	answer   func(Request) Reply

	done     chan struct{}
	stopOnce sync.Once
	// arrived is closed when the first request comes.
	arrived     chan struct{}
	arrivedOnce sync.Once
}

// Option configures a Model.
type Option func(*Model)

// Replies scripts the replies in order: the n-th request the model
// receives gets the n-th reply, while there are replies left.
func Replies(rs ...Reply) Option {
	return func(m *Model) { m.script = append(m.script, rs...) }
}

// Respond answers every request the script leaves unanswered with what f
// returns for it. f runs on the request's goroutine (guard what it shares).
func Respond(f func(Request) Reply) Option {
	return func(m *Model) { m.answer = f }
}

// Repeat answers every request the script leaves unanswered with r.
func Repeat(r Reply) Option {
	return Respond(func(Request) Reply { return r })
}

// New starts a fake model on a loopback port; it stops when t ends,
// releasing the requests that wait first. A request no reply is scripted
// for gets a 500 whose message says so.
func New(t testing.TB, opts ...Option) *Model {
	t.Helper()
	m := &Model{done: make(chan struct{}), arrived: make(chan struct{})}
	for _, o := range opts {
		o(m)
	}
	m.srv = httptest.NewServer(m)
	t.Cleanup(m.Close)
	return m
}

// URL is the model's base URL, e.g. http://127.0.0.1:PORT.
func (m *Model) URL() string { return m.srv.URL }

// Push adds replies to the end of the script.
func (m *Model) Push(rs ...Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.script = append(m.script, rs...)
}

// Requests are the requests received so far, in order.
func (m *Model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Bodies are the bodies of the requests received so far, in order,
// exactly as sent.
func (m *Model) Bodies() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([][]byte, len(m.requests))
	for i, r := range m.requests {
		out[i] = r.Body
	}
	return out
}

// Count is the number of requests received so far.
func (m *Model) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// Last is the last request received; it fails t if there is none.
func (m *Model) Last(t testing.TB) Request {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) == 0 {
		t.Fatal("llmtest: the model received no request")
	}
	return m.requests[len(m.requests)-1]
}

// Only is the one request received; it fails t unless there was exactly
// one.
func (m *Model) Only(t testing.TB) Request {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) != 1 {
		t.Fatalf("llmtest: the model received %d requests, want 1", len(m.requests))
	}
	return m.requests[0]
}

// Ended waits until a request has come and every request received by
// then has ended (see Request.Done): a client that gave up may have sent
// its request before it left, so it may still arrive. t ends it if none
// comes (go test's -timeout).
func (m *Model) Ended(t testing.TB) {
	t.Helper()
	select {
	case <-m.arrived:
	case <-t.Context().Done():
		return
	}
	for _, r := range m.Requests() {
		<-r.Done
	}
}

// Close releases the model and stops its server, waiting for the
// requests in flight to end. New's cleanup calls it too.
func (m *Model) Close() {
	m.Release()
	m.srv.Close()
}

// Release ends every wait and stall, now and to come; the requests in
// flight see their context end. New's cleanup calls it.
func (m *Model) Release() { m.stopOnce.Do(func() { close(m.done) }) }

// ServeHTTP records the request and answers it with its reply.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, readErr := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, RequestURI: r.URL.RequestURI(), Host: r.Host, RemoteAddr: r.RemoteAddr, Header: r.Header.Clone(), ContentLength: r.ContentLength, Body: body}
	req.decode()
	done := make(chan struct{})
	defer close(done)
	req.Done = done
	m.mu.Lock()
	req.N = len(m.requests)
	m.requests = append(m.requests, req)
	m.arrivedOnce.Do(func() { close(m.arrived) })
	var reply Reply
	scripted := readErr == nil && m.next < len(m.script)
	if scripted {
		reply = m.script[m.next]
		m.next++
	}
	answer := m.answer
	m.mu.Unlock()
	switch {
	case readErr != nil: // recorded all the same: the client sent it, then left
		reply = Error(http.StatusBadRequest, "llmtest: reading the request: "+readErr.Error())
	case scripted:
	case answer != nil:
		reply = answer(req)
	default:
		reply = Error(http.StatusInternalServerError, fmt.Sprintf("llmtest: no reply scripted for request %d", req.N))
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-m.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	m.serve(ctx, w, r.WithContext(ctx), req, reply)
}

// serve writes reply.
func (m *Model) serve(ctx context.Context, w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if reply.Handler != nil {
		r.Body = io.NopCloser(bytes.NewReader(req.Body))
		reply.Handler(w, r)
		return
	}
	if !req.Stream && reply.NonStream != nil && isChat(req) {
		reply = *reply.NonStream
	}
	if !run(ctx, w, reply.Before) {
		return
	}
	for k, v := range reply.Header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		if len(reply.Events) > 0 {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if len(reply.Events) == 0 {
		_, _ = io.WriteString(w, reply.Body)
		return
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	run(ctx, w, reply.Events)
}

// isChat reports whether req reads as a chat completion request (one that
// says whether it streams by its "stream" field).
func isChat(req Request) bool { return req.chat }

// run runs the events; it reports false when the request ended first. A
// write is flushed at once, but for the last event's: that one goes with
// the end of the body, as a live upstream's last frame does.
func run(ctx context.Context, w http.ResponseWriter, events []Event) bool {
	for i, e := range events {
		switch {
		case e.abort:
			panic(http.ErrAbortHandler)
		case e.write != "":
			if _, err := io.WriteString(w, e.write); err != nil {
				return false
			}
			if f, ok := w.(http.Flusher); ok && i < len(events)-1 {
				f.Flush()
			}
		case e.sleep > 0:
			t := time.NewTimer(e.sleep)
			select {
			case <-ctx.Done():
				t.Stop()
				return false
			case <-t.C:
			}
		case e.gate != nil:
			e.gate.reach()
			select {
			case <-ctx.Done():
				return false
			case <-e.gate.open:
			}
		case e.stall:
			<-ctx.Done()
			return false
		}
	}
	return true
}

// Gate holds the replies that wait at it until the test releases it.
type Gate struct {
	open        chan struct{}
	reached     chan struct{}
	openOnce    sync.Once
	reachedOnce sync.Once
}

// NewGate is a closed gate.
func NewGate() *Gate {
	return &Gate{open: make(chan struct{}), reached: make(chan struct{})}
}

// Release opens the gate: the replies waiting go on, and those to come
// pass.
func (g *Gate) Release() { g.openOnce.Do(func() { close(g.open) }) }

// Reached is closed when a reply first waits at the gate: the request
// arrived and is held.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

func (g *Gate) reach() { g.reachedOnce.Do(func() { close(g.reached) }) }
