package remote_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

// refusedURL is the address of a listener that was closed: connecting is
// refused.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// wantCode fails unless err is an *apierr.Error with code.
func wantCode(t *testing.T, err error, code string) *apierr.Error {
	t.Helper()
	e := asAgentError(err)
	if e == nil {
		t.Fatalf("error %v (%T) is not an *apierr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code %s (%v), want %s", e.Code, e, code)
	}
	if code != apierr.CodeCanceled && e.Origin() != apierr.SourceUpstream && code != apierr.CodeUpstreamUnavailable {
		t.Errorf("source %s, want upstream", e.Origin())
	}
	return e
}

func TestForwardRefused(t *testing.T) {
	c := newClient(t, remote.Config{})
	rec := &recorder{}
	e := wantCode(t, forward(t, c, refusedURL(t), rec), apierr.CodeUpstreamUnavailable)
	if !e.Recoverable || e.Status != http.StatusBadGateway || e.Origin() != apierr.SourceUpstream {
		t.Errorf("got %s", describe(e))
	}
	if !strings.Contains(e.Message, "could not be reached") {
		t.Errorf("message %q", e.Message)
	}
	var op *net.OpError
	if !errors.As(e, &op) {
		t.Errorf("the cause %v does not unwrap to the *net.OpError", e.Err)
	}
}

// dnsFailing is a transport whose every lookup fails.
type dnsFailing struct{}

func (dnsFailing) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), IsNotFound: true}}
}

func TestForwardDNS(t *testing.T) {
	c := newClient(t, remote.Config{HTTPClient: &http.Client{Transport: dnsFailing{}}})
	e := wantCode(t, forward(t, c, "http://agents.example.invalid", &recorder{}), apierr.CodeUpstreamUnavailable)
	var dns *net.DNSError
	if !errors.As(e, &dns) || !strings.Contains(e.Error(), "no such host") {
		t.Errorf("cause %v: want the DNS error", e.Err)
	}
}

// stalled is a remote that reads the request, then never answers: it
// waits for its request to end (Model.Ended sees it). (Go's server
// notices a closed connection once the request body was read, as any
// agent service reads it before it starts; llmtest reads it whole.)
var stalled = llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}

func TestForwardFirstByteTimeout(t *testing.T) {
	srv := remoteServer(t, stalled)
	c := newClient(t, remote.Config{FirstByteTimeout: 20 * time.Millisecond, IdleTimeout: time.Hour})
	rec := &recorder{}
	e := wantCode(t, forward(t, c, srv.URL(), rec), apierr.CodeUpstreamTimeout)
	if !strings.Contains(e.Message, "first-byte timeout") || !e.Recoverable {
		t.Errorf("got %s", describe(e))
	}
	srv.Ended(t) // the remote saw its request end
	if len(rec.lines) != 0 {
		t.Errorf("sink got %q", rec.lines)
	}
}

func TestForwardIdleTimeout(t *testing.T) {
	srv := remoteServer(t, agentStream(chunk("first")).Then(llmtest.Stall()))
	c := newClient(t, remote.Config{FirstByteTimeout: time.Hour, IdleTimeout: 20 * time.Millisecond})
	rec := &recorder{}
	e := wantCode(t, forward(t, c, srv.URL(), rec), apierr.CodeUpstreamTimeout)
	if !strings.Contains(e.Message, "idle timeout") {
		t.Errorf("got %s", describe(e))
	}
	srv.Ended(t)
	if len(rec.chunks) != 1 {
		t.Errorf("%d chunks relayed before the timeout, want 1", len(rec.chunks))
	}
}

// TestForwardCommentsBounded: keep-alive comments are read and dropped,
// but what comes before a frame counts toward its size limit, so a remote
// that sends nothing but comments cannot grow the gateway's buffers.
func TestForwardCommentsBounded(t *testing.T) {
	srv := remoteServer(t, llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		for range 200 {
			send(w, ": ping\n\n")
		}
		send(w, chunk("done"))
		send(w, endChunk+llmtest.Done)
	}))
	err := forward(t, newClient(t, remote.Config{IdleTimeout: time.Minute, MaxFrameSize: 512}), srv.URL(), &recorder{})
	wantCode(t, err, apierr.CodeUpstreamError)
	rec := &recorder{}
	if err := forward(t, newClient(t, remote.Config{IdleTimeout: time.Minute}), srv.URL(), rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.chunks) != 1 {
		t.Errorf("%d chunks, want 1", len(rec.chunks))
	}
}

func TestForwardCancel(t *testing.T) {
	srv := remoteServer(t, agentStream(chunk("first")).Then(llmtest.Stall()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{onChunk: func(int) error { cancel(); return nil }}
	c := newClient(t, remote.Config{})
	err := c.Forward(ctx, srv.URL(), "security", []byte(agentBody), nil, rec)
	e := wantCode(t, err, apierr.CodeCanceled)
	if !errors.Is(e, context.Canceled) {
		t.Errorf("cause %v, want context.Canceled", e.Err)
	}
	srv.Ended(t) // the remote's request context ended: its run stops
}

func TestForwardCanceledBeforeCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := remoteServer(t, llmtest.Handle(func(w http.ResponseWriter, r *http.Request) { t.Error("the remote was called") }))
	err := newClient(t, remote.Config{}).Forward(ctx, srv.URL(), "a", []byte(agentBody), nil, &recorder{})
	wantCode(t, err, apierr.CodeCanceled)
}

// TestForwardSinkFails: a sink error (the plugin went away) abandons the
// remote's request at once.
func TestForwardSinkFails(t *testing.T) {
	for _, tt := range []struct {
		name  string
		frame string
	}{
		{"chunk", chunk("first")},
		{"action", "event: copilot_action\ndata: {\"action\":\"confirm\",\"data\":{\"title\":\"t\",\"message\":\"m\"}}\n\n"},
		{"error", "event: copilot_error\ndata: {\"errorCode\":\"X\",\"message\":\"m\"}\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := remoteServer(t, agentStream(tt.frame).Then(llmtest.Stall()))
			gone := errors.New("write: broken pipe")
			err := forward(t, newClient(t, remote.Config{}), srv.URL(), failingSink{gone})
			e := wantCode(t, err, apierr.CodeCanceled)
			if !errors.Is(e, gone) {
				t.Errorf("cause %v, want the sink's error", e.Err)
			}
			srv.Ended(t)
		})
	}
}

// failingSink fails every call with err.
type failingSink struct{ err error }

func (s failingSink) Chunk([]byte) error           { return s.err }
func (s failingSink) Action(*actions.Action) error { return s.err }
func (s failingSink) Error(*apierr.Error) error    { return s.err }

func TestForwardBadEndpoint(t *testing.T) {
	for _, ep := range []string{"", "ftp://x", "/agents/x", "http://", "http://u:hunter22@host/x#frag", "http://[::1"} {
		err := newClient(t, remote.Config{}).Forward(context.Background(), ep, "a", []byte(agentBody), nil, &recorder{})
		e := asAgentError(err)
		if e == nil || e.Code != apierr.CodeUpstreamUnavailable || e.Origin() != apierr.SourceServer {
			t.Errorf("%q: %v", ep, err)
		}
		if e != nil && strings.Contains(e.Error(), "hunter22") {
			t.Errorf("%q: the error repeats the password: %v", ep, e)
		}
	}
}

func TestNewRefusesBadLimits(t *testing.T) {
	for _, cfg := range []remote.Config{
		{FirstByteTimeout: -1}, {IdleTimeout: -1}, {MaxFrameSize: -1}, {MaxFrameSize: 1 << 30}, {MaxResponseSize: -1},
	} {
		if _, err := remote.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}
