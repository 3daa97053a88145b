package remote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/sse"
)

// The runner's emitter is a Sink.
var _ remote.Sink = emit.Emitter(nil)

// recorder is a Sink that keeps what it received as text lines, in order.
type recorder struct {
	mu    sync.Mutex
	lines []string
	// chunks are the raw chunks received, copied.
	chunks [][]byte
	// onChunk, when set, runs after each chunk is recorded; its error is
	// the sink's.
	onChunk func(n int) error
}

func (r *recorder) Chunk(raw []byte) error {
	r.mu.Lock()
	r.lines = append(r.lines, "chunk "+string(raw))
	r.chunks = append(r.chunks, bytes.Clone(raw))
	n, f := len(r.chunks), r.onChunk
	r.mu.Unlock()
	if f != nil {
		return f(n)
	}
	return nil
}

func (r *recorder) Action(a *actions.Action) error {
	b, err := a.MarshalJSON()
	if err != nil {
		return err
	}
	r.add("action " + string(b))
	return nil
}

func (r *recorder) Error(e *apierr.Error) error {
	r.add("error " + describe(e))
	return nil
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, s)
}

// transcript is what the sink received, then the outcome, one item a line.
func (r *recorder) transcript(err error) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, l := range r.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString("=> ")
	if err == nil {
		b.WriteString("ok\n")
	} else {
		b.WriteString(describe(asAgentError(err)))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// describe renders what a client would see of an error, and its status.
func describe(e *apierr.Error) string {
	if e == nil {
		return "<not an *apierr.Error>"
	}
	s := fmt.Sprintf("%s status=%d source=%s recoverable=%t", e.Code, e.Status, e.Origin(), e.Recoverable)
	if e.UpstreamStatus != 0 {
		s += fmt.Sprintf(" upstreamStatus=%d", e.UpstreamStatus)
	}
	return s + fmt.Sprintf(" message=%q suggestion=%q", e.Message, e.Suggestion())
}

func asAgentError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// newClient builds a Client, failing the test on a bad config.
func newClient(t testing.TB, cfg remote.Config) *remote.Client {
	t.Helper()
	c, err := remote.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// streamHeaders sets the headers of an agent stream and writes 200.
func streamHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// send writes s and flushes it.
func send(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// chunk is a text chunk of a remote agentgw.
func chunk(content string) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-remote","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":%q},"finish_reason":null}]}`+"\n\n", content)
}

// endChunk is a remote agentgw's end chunk.
const endChunk = `data: {"id":"chatcmpl-remote","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"

// remoteServer starts a remote (an llmtest fake) that answers every
// request with r.
func remoteServer(t testing.TB, r llmtest.Reply) *llmtest.Model {
	t.Helper()
	return llmtest.New(t, llmtest.Repeat(r))
}

// agentStream is a remote agentgw's answer: the headers of an agent
// stream, then the frames, each written and flushed.
func agentStream(frames ...string) llmtest.Reply {
	events := make([]llmtest.Event, len(frames))
	for i, f := range frames {
		events[i] = llmtest.Raw(f)
	}
	r := llmtest.Stream(events...)
	r.Header = http.Header{"Content-Type": {"text/event-stream"}, "Cache-Control": {"no-cache"}}
	return r
}

// agentBody is a plugin's agent request.
const agentBody = `{"agent":"local-name","command":"default","contextVariables":[{"name":"userInputPrompt","value":"hi"}],"temperature":0.2}`

// forward runs Forward to srv's base URL with agent "security".
func forward(t testing.TB, c *remote.Client, url string, sink remote.Sink) error {
	t.Helper()
	return c.Forward(context.Background(), url, "security", []byte(agentBody), http.Header{}, sink)
}

// writerSink relays chunks to an SSE writer, as the gateway does (which
// refuses a chunk that is not a JSON object), and keeps the text of the
// errors it was given.
type writerSink struct {
	w      *sse.Writer
	errors []string
}

func newWriterSink() *writerSink {
	return &writerSink{w: sse.NewWriter(io.Discard, sse.Options{ID: "chatcmpl-ours"})}
}

func (s *writerSink) Chunk(raw []byte) error         { return s.w.Chunk(raw) }
func (s *writerSink) Action(a *actions.Action) error { return nil }
func (s *writerSink) Error(e *apierr.Error) error {
	s.errors = append(s.errors, e.Error(), e.Message, e.Suggestion())
	return nil
}
