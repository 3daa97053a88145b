package openaiapi_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/internal/jsonlog"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/metrics"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools/toolload"
)

// discardResponse is an http.ResponseWriter that keeps nothing.
type discardResponse struct{ h http.Header }

func (d *discardResponse) Header() http.Header         { return d.h }
func (d *discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardResponse) WriteHeader(int)             {}
func (d *discardResponse) Flush()                      {}

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

// benchUpstream is the upstream answer of BenchmarkChatCompletionOwn, the
// one of server.BenchmarkGatewayOwn: 20 content events of about a hundred
// bytes of text, a stop chunk, a usage chunk and [DONE].
func benchUpstream() []byte {
	a := llmtest.Answer{Model: "m", Usage: &llmtest.Usage{PromptTokens: 900, CompletionTokens: 20, TotalTokens: 920}}
	for i := range 20 {
		a.Text = append(a.Text, fmt.Sprintf("token %02d of the answer: some text of about a hundred bytes, as a model streams it to the IDE", i))
	}
	var b bytes.Buffer
	for _, d := range a.Chunks() {
		b.WriteString(llmtest.Frame(d))
	}
	b.WriteString(llmtest.Done)
	return b.Bytes()
}

// BenchmarkChatCompletionOwn is the OpenAI endpoint's own work per
// streamed chat completion, with no sockets: the bench harness's request
// (testdata/bench_chat_request.json, model bench/chat, 2.4 KB: a system
// message and a user message holding a file) through the server's
// middleware, decoded, made an agent request, prepared and run, the
// upstream request handed to a transport that answers 23 events at once,
// and the answer's chunks written to a response writer that discards. It
// is the endpoint's counterpart of server.BenchmarkGatewayOwn.
func BenchmarkChatCompletionOwn(b *testing.B) { benchChatCompletionOwn(b, nil) }

// BenchmarkChatCompletionOwnObserved is BenchmarkChatCompletionOwn with
// the observers of server.BenchmarkGatewayOwnObserved/defaults: the
// Prometheus metrics and the access log at info as serve writes it (JSON
// through internal/jsonlog, to a writer that discards), the gateway as a
// user starts it and the bench/ harness runs it. Its instructions per
// stream compare with that benchmark's, the agent route's.
func BenchmarkChatCompletionOwnObserved(b *testing.B) {
	b.Run("defaults", func(b *testing.B) {
		benchChatCompletionOwn(b, slog.New(jsonlog.NewHandler(io.Discard, nil)), metrics.New(metrics.Options{NoRuntime: true}))
	})
}

func benchChatCompletionOwn(b *testing.B, log *slog.Logger, obs ...observe.Observer) {
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, filepath.Join("..", "bench", "agents"))
	if diags.Errors() > 0 {
		b.Fatal(diags)
	}
	client, err := llm.New(llm.Config{BaseURL: "http://upstream.invalid", HTTPClient: &http.Client{Transport: cannedTransport{benchUpstream()}}})
	if err != nil {
		b.Fatal(err)
	}
	run := runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: client})
	h := server.New(server.Config{Runner: run, Observers: obs, Logger: log, OpenAI: openaiapi.New(openaiapi.Config{Runner: run,
		Now: func() time.Time { return time.Unix(created, 0) }})}).Handler()
	body, err := os.ReadFile(filepath.Join("testdata", "bench_chat_request.json"))
	if err != nil {
		b.Fatal(err)
	}
	// Once outside the loop, to check that it answers.
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
	if out := rec.Body.String(); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"finish_reason":"stop"`)) {
		b.Fatalf("status %d, answer %s", rec.Code, out)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(&discardResponse{h: http.Header{}}, req)
	}
}
