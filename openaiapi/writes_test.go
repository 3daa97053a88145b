package openaiapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools/toolload"
)

// countingResponse is an http.ResponseWriter that keeps what is written
// and counts the writes and flushes: each flush of a real connection is a
// write to its socket.
type countingResponse struct {
	h               http.Header
	body            bytes.Buffer
	writes, flushes int
}

func (c *countingResponse) Header() http.Header { return c.h }
func (c *countingResponse) Write(b []byte) (int, error) {
	c.writes++
	return c.body.Write(b)
}
func (c *countingResponse) WriteHeader(int) {}
func (c *countingResponse) Flush()          { c.flushes++ }

// benchHandler is the gateway of the bench/ harness's agents, both the
// agent protocol's routes and the OpenAI endpoint, its model platform
// client made with transport.
func benchHandler(tb testing.TB, transport http.RoundTripper) http.Handler {
	tb.Helper()
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, filepath.Join("..", "bench", "agents"))
	if diags.Errors() > 0 {
		tb.Fatal(diags)
	}
	client, err := llm.New(llm.Config{BaseURL: "http://upstream.invalid", HTTPClient: &http.Client{Transport: transport}})
	if err != nil {
		tb.Fatal(err)
	}
	run := runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: client})
	return server.New(server.Config{Runner: run, OpenAI: openaiapi.New(openaiapi.Config{Runner: run,
		Now: func() time.Time { return time.Unix(created, 0) }})}).Handler()
}

// benchRequests are the bench/ harness's requests: the plugin's to the
// agent route and the chat completion to the OpenAI endpoint.
func benchRequests(tb testing.TB) (plugin, chat []byte) {
	tb.Helper()
	plugin, err1 := os.ReadFile(filepath.Join("..", "server", "testdata", "bench_request.json"))
	chat, err2 := os.ReadFile(filepath.Join("testdata", "bench_chat_request.json"))
	if err1 != nil || err2 != nil {
		tb.Fatal(err1, err2)
	}
	return plugin, chat
}

// TestStreamWritesPerBurst: upstream chunks that arrived together leave
// the OpenAI endpoint together, as they leave the agent route (the relay's
// llm.BatchSink): with the bench's 23 upstream events at hand at once, the
// endpoint flushes its answer no more often than the agent route flushes
// the same stream, rather than once per chunk. Each flush is a write to
// the client's socket, the largest part of a relayed chunk's CPU; the
// frames written between two flushes wait in net/http's buffers.
func TestStreamWritesPerBurst(t *testing.T) {
	h := benchHandler(t, cannedTransport{benchUpstream()})
	plugin, chat := benchRequests(t)
	serve := func(path string, body []byte) *countingResponse {
		t.Helper()
		w := &countingResponse{h: http.Header{}}
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(w, req)
		if !bytes.HasSuffix(w.body.Bytes(), []byte("data: [DONE]\n\n")) {
			t.Fatalf("%s: the stream did not end with [DONE]: %q", path, w.body.String())
		}
		return w
	}
	agent := serve("/agents/bench", plugin)
	oa := serve("/v1/chat/completions", chat)
	if n := bytes.Count(oa.body.Bytes(), []byte("\n\ndata: ")) + 1; n != 23 {
		t.Errorf("the OpenAI stream has %d events, want 23 (the role chunk, 20 content chunks, the finish chunk, [DONE])", n)
	}
	t.Logf("agent route: %d writes, %d flushes; OpenAI endpoint: %d writes, %d flushes", agent.writes, agent.flushes, oa.writes, oa.flushes)
	if oa.flushes > agent.flushes {
		t.Errorf("the OpenAI endpoint flushed %d times, the agent route %d for the same upstream stream", oa.flushes, agent.flushes)
	}
}
