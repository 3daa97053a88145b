package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/server"
)

// discardWriter is an http.ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// benchGateway is the gateway with the bench/ harness's agents and upstream
// as its model platform, as an http.Handler.
func benchGateway(b *testing.B, upstream string) http.Handler {
	b.Helper()
	agents, diags := agent.Load("../bench/agents")
	if diags.Errors() > 0 {
		b.Fatal(diags)
	}
	client, err := llm.New(llm.Config{BaseURL: upstream})
	if err != nil {
		b.Fatal(err)
	}
	return server.New(server.Config{Runner: agent.NewRunner(agent.NewRegistry(agents), agent.RunnerConfig{LLM: client})}).Handler()
}

// BenchmarkModelStream runs one model command end to end in process: the
// request through the middleware, decoding, options, prompt, the upstream
// call to a loopback fake that answers 20 chunks at once, and the relay.
func BenchmarkModelStream(b *testing.B) {
	var stream strings.Builder
	for i := range 20 {
		fmt.Fprintf(&stream, "data: {\"id\":\"up-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %02d of the answer, some text\"},\"finish_reason\":null}]}\n\n", i)
	}
	stream.WriteString("data: [DONE]\n\n")
	frames := []byte(stream.String())
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(frames)
	}))
	defer up.Close()
	h := benchGateway(b, up.URL)
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
