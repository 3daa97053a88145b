package openaiapi_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/internal/cputime"
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
// client made with cfg.
func benchHandler(tb testing.TB, cfg llm.Config) http.Handler {
	tb.Helper()
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, filepath.Join("..", "bench", "agents"))
	if diags.Errors() > 0 {
		tb.Fatal(diags)
	}
	client, err := llm.New(cfg)
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
	h := benchHandler(t, llm.Config{BaseURL: "http://upstream.invalid", HTTPClient: &http.Client{Transport: cannedTransport{benchUpstream()}}})
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

// BenchmarkLoopbackRoutes is the same answer through the agent route and
// through the OpenAI endpoint, over real loopback sockets, to 50
// concurrent clients: the bench/ harness's two requests (the plugin's
// 3.6 KB one to /agents/bench, the 2.4 KB chat completion to
// /v1/chat/completions, model bench/chat), the upstream a loopback server
// that flushes its 20 content chunks one by one, then a stop chunk, a
// usage chunk and [DONE] (server.BenchmarkLoopback's). cpu-µs/op is the
// process's CPU time per stream (client and upstream included, the same
// for both), writes/op the writes to the gateway's side of the client
// connections per stream, each a system call: compare the two
// sub-benchmarks of one run.
func BenchmarkLoopbackRoutes(b *testing.B) {
	var events [][]byte
	for ev := range bytes.SplitAfterSeq(benchUpstream(), []byte("\n\n")) {
		events = append(events, ev)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for i, ev := range events {
			_, _ = w.Write(ev)
			if i < 20 {
				f.Flush()
			}
		}
	}))
	defer up.Close()
	h := benchHandler(b, llm.Config{BaseURL: up.URL})
	plugin, chat := benchRequests(b)
	b.Run("agent", func(b *testing.B) { benchRoute(b, h, "/agents/bench", plugin) })
	b.Run("openai", func(b *testing.B) { benchRoute(b, h, "/v1/chat/completions", chat) })
}

// countingListener counts the writes to the connections it accepts.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{Conn: c, writes: l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

func benchRoute(b *testing.B, h http.Handler, path string, body []byte) {
	srv := httptest.NewUnstartedServer(h)
	var writes atomic.Int64
	srv.Listener = countingListener{Listener: srv.Listener, writes: &writes}
	srv.Start()
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256}}
	b.SetParallelism(25) // 50 clients on 2 cores
	b.ReportAllocs()
	writes.Store(0)
	cpu0 := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			data, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err != nil || !bytes.HasSuffix(data, []byte("data: [DONE]\n\n")) {
				b.Errorf("the stream did not end with [DONE] (%v): %q", err, data)
				return
			}
		}
	})
	// CPU time, unlike wall time, does not count what a busy host's other
	// guests take (steal time).
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
	b.ReportMetric(float64(writes.Load())/float64(b.N), "writes/op")
}
