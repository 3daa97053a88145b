package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// testSecret signs action states in every test gateway.
var testSecret = []byte("test-secret")

// setup describes one test gateway; options change it before it starts.
type setup struct {
	srv server.Config
	run runner.RunnerConfig
	llm llm.Config
	// upstream serves the fake model platform; nil means no upstream
	// unless upstreamURL is set.
	upstream    http.HandlerFunc
	upstreamURL string
}

// gateway is a running test gateway with its fake upstream.
type gateway struct {
	URL string
	up  *upstream
}

// loadAgents loads the test agents from testdata/agents, failing on any
// error in them.
func loadAgents(t testing.TB) *runner.Registry {
	t.Helper()
	agents, diags := loadAllKinds(filepath.Join("testdata", "agents"))
	if diags.Errors() > 0 {
		t.Fatalf("test agents have errors:\n%v", diags)
	}
	return runner.NewRegistry(agents)
}

// newHandler builds the gateway's handler as the options say, starting the
// fake upstream when there is one.
func newHandler(t testing.TB, opts ...option) (http.Handler, *upstream) {
	t.Helper()
	srv, up := newServer(t, opts...)
	return srv.Handler(), up
}

// newServer builds the gateway's server as the options say, starting the
// fake upstream when there is one.
func newServer(t testing.TB, opts ...option) (*server.Server, *upstream) {
	t.Helper()
	s := &setup{}
	s.run.Signer = actions.NewSigner(testSecret, time.Hour)
	s.run.DefaultModel = "default-model"
	for _, o := range opts {
		o(s)
	}
	var up *upstream
	if s.upstream != nil {
		up = newUpstream(t, s.upstream)
		s.upstreamURL = up.URL
	}
	if s.upstreamURL != "" {
		s.llm.BaseURL = s.upstreamURL
		client, err := llm.New(s.llm)
		if err != nil {
			t.Fatalf("llm.New: %v", err)
		}
		s.run.LLM = client
	}
	s.srv.Runner = runner.NewRunner(loadAgents(t), s.run)
	return server.New(s.srv), up
}

// serveLoopback runs the gateway's own Serve (its http.Server and read
// bounds, not httptest's) on a loopback port and returns its address.
func serveLoopback(t testing.TB, opts ...option) (string, *upstream) {
	t.Helper()
	srv, up := newServer(t, opts...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() {
		if up != nil {
			up.release()
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String(), up
}

// newGateway starts the gateway on a loopback port.
func newGateway(t testing.TB, opts ...option) *gateway {
	t.Helper()
	h, up := newHandler(t, opts...)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	if up != nil {
		// Cleanups run last first: stalled upstream handlers end before
		// the gateway's server waits for its handlers.
		t.Cleanup(up.release)
	}
	return &gateway{URL: ts.URL, up: up}
}

// upstream is the fake model platform; it records what it receives.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recorded
	// done ends the context of every request in flight; a test that fails
	// while its handlers stall still ends instead of hanging in Close.
	done     chan struct{}
	stopOnce sync.Once
}

// release ends the requests in flight and those to come.
func (u *upstream) release() { u.stopOnce.Do(func() { close(u.done) }) }

// recorded is one request the upstream received.
type recorded struct {
	path   string
	host   string
	header http.Header
	body   []byte
	length int64
}

func newUpstream(t testing.TB, h http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{done: make(chan struct{})}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.requests = append(u.requests, recorded{path: r.URL.Path, host: r.Host, header: r.Header.Clone(), body: body, length: r.ContentLength})
		u.mu.Unlock()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-u.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		h(w, r.WithContext(ctx))
	}))
	t.Cleanup(func() {
		u.release()
		u.Close()
	})
	return u
}

// only returns the one request the upstream received.
func (u *upstream) only(t testing.TB) recorded {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.requests) != 1 {
		t.Fatalf("the upstream received %d requests, want 1", len(u.requests))
	}
	return u.requests[0]
}

// count is the number of requests the upstream received.
func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.requests)
}

// readUpstream reads an upstream recording from testdata/upstream.
func readUpstream(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// upstreamEvents splits a recording into its events, blank line included.
func upstreamEvents(data []byte) []string {
	var out []string
	for ev := range strings.SplitAfterSeq(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(ev) != "" {
			out = append(out, ev)
		}
	}
	return out
}

// replay serves a recording as an event stream, flushing after each event
// as a live upstream does.
func replay(t testing.TB, name string) http.HandlerFunc {
	return replayThen(t, name, -1, nil)
}

// replayThen serves the first n events of a recording (all when n < 0),
// then calls then, if set.
func replayThen(t testing.TB, name string, n int, then func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	events := upstreamEvents(readUpstream(t, name))
	if n >= 0 {
		events = events[:n]
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, ev := range events {
			if _, err := io.WriteString(w, ev); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
		if then != nil {
			then(w, r)
		}
	}
}

// stall blocks until the request ends.
func stall(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// closedURL is the URL of a listener that was closed: connecting is refused.
func closedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// loadAllKinds is runner.Load with every step kind the gateway registers:
// the built-ins, git (without repositories) and tool.
func loadAllKinds(paths ...string) ([]*runner.Agent, agent.Diagnostics) {
	kinds := runner.NewKinds()
	for _, k := range []stepkind.Kind{gitstep.New(nil), toolstep.Kind{}} {
		if err := kinds.Register(k); err != nil {
			panic(err)
		}
	}
	return runner.LoadWith(runner.LoadOptions{Kinds: kinds}, paths...)
}
