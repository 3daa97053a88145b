package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools/toolload"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// testSecret signs action states in every test gateway.
var testSecret = []byte("test-secret")

// setup describes one test gateway; options change it before it starts.
type setup struct {
	srv server.Config
	run runner.RunnerConfig
	llm llm.Config
	// upstream configures the fake model platform; nil means no upstream
	// unless upstreamURL is set.
	upstream    []llmtest.Option
	upstreamURL string
}

// gateway is a running test gateway with its fake upstream.
type gateway struct {
	URL string
	up  *llmtest.Model
}

// loadAgents loads the test agents from testdata/agents, failing on any
// error in them.
func loadAgents(t testing.TB) *program.Registry {
	t.Helper()
	agents, diags := loadAllKinds(filepath.Join("testdata", "agents"))
	if diags.Errors() > 0 {
		t.Fatalf("test agents have errors:\n%v", diags)
	}
	return program.NewRegistry(agents)
}

// newHandler builds the gateway's handler as the options say, starting the
// fake upstream when there is one.
func newHandler(t testing.TB, opts ...option) (http.Handler, *llmtest.Model) {
	t.Helper()
	srv, up := newServer(t, opts...)
	return srv.Handler(), up
}

// newServer builds the gateway's server as the options say, starting the
// fake upstream when there is one.
func newServer(t testing.TB, opts ...option) (*server.Server, *llmtest.Model) {
	t.Helper()
	s := &setup{}
	s.run.Signer = actions.NewSigner(testSecret, time.Hour)
	s.run.DefaultModel = "default-model"
	for _, o := range opts {
		o(s)
	}
	var up *llmtest.Model
	if s.upstream != nil {
		up = llmtest.New(t, s.upstream...)
		s.upstreamURL = up.URL()
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
func serveLoopback(t testing.TB, opts ...option) (string, *llmtest.Model) {
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
			up.Release()
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
		t.Cleanup(up.Release)
	}
	return &gateway{URL: ts.URL, up: up}
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

// replay serves a recording of testdata/upstream as an event stream,
// flushing after each event as a live upstream does.
func replay(t testing.TB, name string) llmtest.Reply {
	return llmtest.Replay(t, filepath.Join("testdata", "upstream", name))
}

// replayFirst serves the first n events of a recording, then the events
// after.
func replayFirst(t testing.TB, name string, n int, after ...llmtest.Event) llmtest.Reply {
	r := replay(t, name)
	r.Events = append(r.Events[:n:n], after...)
	return r
}

// replayRest are the events of a recording after its first n.
func replayRest(t testing.TB, name string, n int) []llmtest.Event {
	return replay(t, name).Events[n:]
}

// stall is an upstream that never answers: it holds the request before
// the headers until the request ends.
var stall = llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}

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

// loadAllKinds is program.Load with every step kind the gateway registers
// (the built-ins, git without repositories, and tool) and tools compiled as
// by a manager with default settings.
func loadAllKinds(paths ...string) ([]*program.Agent, agent.Diagnostics) {
	kinds := program.NewKinds()
	for _, k := range []stepkind.Kind{gitstep.New(nil), toolstep.Kind{}} {
		if err := kinds.Register(k); err != nil {
			panic(err)
		}
	}
	return program.LoadWith(program.LoadOptions{Kinds: kinds, Tools: toolload.Default()}, paths...)
}
