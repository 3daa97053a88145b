package server_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/internal/jsonlog"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/metrics"
	"github.com/agentgw/agentgw/server"
)

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// benchGateway is the gateway with the bench/ harness's agents and a model
// platform client made with cfg, as an http.Handler.
func benchGateway(b *testing.B, cfg llm.Config, obs ...observe.Observer) http.Handler {
	b.Helper()
	return benchGatewayLog(b, nil, cfg, obs...)
}

// benchGatewayLog is benchGateway with log as the server's logger (nil:
// none, so no access log).
func benchGatewayLog(b *testing.B, log *slog.Logger, cfg llm.Config, obs ...observe.Observer) http.Handler {
	b.Helper()
	agents, diags := loadAllKinds("../bench/agents")
	if diags.Errors() > 0 {
		b.Fatal(diags)
	}
	client, err := llm.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return server.New(server.Config{Runner: runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: client}),
		Observers: obs, Logger: log}).Handler()
}

// benchStream is the upstream answer of BenchmarkGatewayOwn and
// BenchmarkLoopback: 20 content events of about a hundred bytes of text,
// then tail, a stop chunk, a usage chunk and [DONE] in one piece.
func benchStream() (chunks [][]byte, tail []byte) {
	a := llmtest.Answer{Model: "m", Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 20, TotalTokens: 920}}
	for i := range 20 {
		a.Text = append(a.Text, fmt.Sprintf("token %02d of the answer: some text of about a hundred bytes, as a model streams it to the IDE", i))
	}
	data := a.Chunks()
	for _, d := range data[:20] {
		chunks = append(chunks, []byte(llmtest.Frame(d)))
	}
	tail = []byte(llmtest.Frame(data[20]) + llmtest.Frame(data[21]) + llmtest.Done)
	return chunks, tail
}

// BenchmarkModelStream runs one model command end to end in process: the
// request through the middleware, decoding, options, prompt, the upstream
// call to a loopback fake that answers 20 chunks at once, and the relay.
func BenchmarkModelStream(b *testing.B) {
	var data []string
	for i := range 20 {
		data = append(data, llmtest.TextChunk(fmt.Sprintf("token %02d of the answer, some text", i)))
	}
	frames := []byte(llmtest.SSE(data...))
	// A minimal handler rather than llmtest: the fake must cost nothing
	// per request (llmtest records each request and flushes each event).
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(frames)
	}))
	defer up.Close()
	h := benchGateway(b, llm.Config{BaseURL: up.URL})
	body := []byte(`{"agent":"bench","contextVariables":[{"name":"userInputPrompt","value":"What does this do?"},` +
		`{"name":"activeEditor","value":{"filePath":"/src/main.go","language":"go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",` +
		`"selectedRanges":[{"content":"func main() {","startLine":3,"startColumn":1,"endLine":3,"endColumn":14}]}}]}`)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/agent", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}

// cannedTransport answers every request with the same SSE body, without a
// socket: what it costs is the gateway's own work.
type cannedTransport struct{ body []byte }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, r.Body)
	_ = r.Body.Close()
	return &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: -1, Request: r}, nil
}

// BenchmarkGatewayOwn is the gateway's own CPU per stream, with no sockets:
// the plugin's 3.6 KB request of server.BenchmarkLoopback through the
// middleware, decoding, options and prompt, the upstream request built and
// handed to a transport that answers the same 23 events at once, and the
// relay to a response writer that discards. It is what BenchmarkLoopback's
// agentgw case adds to its proxy case, less the sockets.
func BenchmarkGatewayOwn(b *testing.B) { benchGatewayOwn(b, nil) }

// BenchmarkGatewayOwnObserved is BenchmarkGatewayOwn with observers: the
// Prometheus metrics, on by default in serve, and, in "defaults", also the
// access log at info as serve writes it (JSON through internal/jsonlog,
// here to a writer that discards): the gateway as a user starts it, the
// bench/ harness's agentgw column. BenchmarkGatewayOwn is the gateway with
// none (and the access log above info), where no observe.Watch is made.
func BenchmarkGatewayOwnObserved(b *testing.B) {
	b.Run("metrics", func(b *testing.B) { benchGatewayOwn(b, nil, metrics.New(metrics.Options{NoRuntime: true})) })
	b.Run("defaults", func(b *testing.B) {
		benchGatewayOwn(b, slog.New(jsonlog.NewHandler(io.Discard, nil)), metrics.New(metrics.Options{NoRuntime: true}))
	})
}

func benchGatewayOwn(b *testing.B, log *slog.Logger, obs ...observe.Observer) {
	chunks, tail := benchStream()
	stream := append(bytes.Join(chunks, nil), tail...)
	h := benchGatewayLog(b, log, llm.Config{BaseURL: "http://upstream.invalid", HTTPClient: &http.Client{Transport: cannedTransport{stream}}}, obs...)
	body, err := os.ReadFile("testdata/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/agents/bench", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
	}
}
