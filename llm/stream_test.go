package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

var simpleRequest = &ChatRequest{Model: "gpt-4o", Messages: []Message{{Role: "user", Content: "hi"}}}

func TestStreamReplays(t *testing.T) {
	tests := []struct {
		file string
		// relayed is how many of the file's chunks reach the sink.
		relayed int
		// kind and message describe the expected error, kind 0 for none.
		kind    ErrorKind
		message string
	}{
		{file: "normal.sse", relayed: 4},
		{file: "usage.sse", relayed: 3},
		{file: "noid.sse", relayed: 2},
		{file: "tool_calls.sse", relayed: 3},
		{file: "done_seed.sse", relayed: 1},
		{file: "crlf.sse", relayed: 4},
		// A finish_reason makes the answer complete without the terminator,
		// even before a usage chunk; without either it was cut short.
		{file: "no_done.sse", relayed: 2},
		{file: "finish_then_usage.sse", relayed: 3},
		{file: "truncated.sse", relayed: 2, kind: KindTruncated,
			message: "the upstream ended the stream before the answer's end (no finish_reason, no [DONE]): the answer is incomplete"},
		{file: "error_null.sse", relayed: 1},
		{file: "midstream_error.sse", relayed: 1, kind: KindStream,
			message: "The server had an error while processing your request. Sorry about that!"},
		// The key "error" spelled with escapes is the same key (JSON
		// decodes keys): an error chunk, not a chunk to relay.
		{file: "midstream_error_escaped.sse", relayed: 1, kind: KindStream,
			message: "The server had an error while processing your request. Sorry about that!"},
		{file: "midstream_error_escaped_all.sse", relayed: 1, kind: KindStream,
			message: "The server had an error while processing your request. Sorry about that!"},
		// Escaped, but null, nested, or another key: chunks to relay.
		{file: "error_escaped_not.sse", relayed: 3},
		{file: "event_error.sse", relayed: 1, kind: KindStream, message: "Overloaded"},
		{file: "empty.sse", relayed: 0, kind: KindStream, message: "the upstream ended the stream without sending anything"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			u := newUpstream(t, replayFile(t, tt.file))
			sink := &recordSink{}
			res, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink)
			if tt.kind == 0 && err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if tt.kind != 0 {
				if e := asError(t, err, tt.kind); e.Message != tt.message {
					t.Errorf("message %q, want %q", e.Message, tt.message)
				}
			}
			want := chunkLines(t, tt.file)[:tt.relayed]
			if got := sink.list(); !slices.Equal(got, want) {
				t.Errorf("sink got\n%q\nwant\n%q", got, want)
			}
			if res.Chunks != tt.relayed {
				t.Errorf("Result.Chunks = %d, want %d", res.Chunks, tt.relayed)
			}
			if tt.relayed > 0 && res.FirstByte <= 0 {
				t.Errorf("Result.FirstByte = %v", res.FirstByte)
			}
			if p := u.Last(t).Path; p != "/v1/chat/completions" {
				t.Errorf("request path %q", p)
			}
		})
	}
}

// TestStreamThroughWriter relays a stream into an sse.Writer, as the agent
// runner does, and compares the bytes the plugin gets with a golden file.
func TestStreamThroughWriter(t *testing.T) {
	u := newUpstream(t, replayFile(t, "normal.sse"))
	var out bytes.Buffer
	w := sse.NewWriter(&out, sse.Options{ID: "chatcmpl-gw", Model: "gpt-4o", Created: 1700000000})
	if _, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, w); err != nil {
		t.Fatal(err)
	}
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/normal.out.sse", out.Bytes())
}

func TestStreamStatusErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		message     string
		recoverable bool
	}{
		{"429 OpenAI JSON", 429, "application/json",
			`{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			"Rate limit reached for gpt-4o", true},
		{"500 plain text", 500, "text/plain", "  upstream exploded\n", "upstream exploded", true},
		{"503 empty body", 503, "text/plain", "", "Service Unavailable", true},
		{"401 message only", 401, "application/json", `{"message":"bad token"}`, "bad token", false},
		{"400 error string", 400, "application/json", `{"error":"model is required"}`, "model is required", false},
		{"413 long body", 413, "text/plain", strings.Repeat("x", 5000), strings.Repeat("x", maxMessage) + "…", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, llmtest.Repeat(llmtest.Reply{Status: tt.status, Header: http.Header{"Content-Type": {tt.contentType}}, Body: tt.body}))
			sink := &recordSink{}
			_, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink)
			e := asError(t, err, KindStatus)
			if e.Status != tt.status || e.Message != tt.message {
				t.Errorf("got status %d message %q, want %d %q", e.Status, e.Message, tt.status, tt.message)
			}
			if e.Recoverable() != tt.recoverable || e.Code() != "UPSTREAM_ERROR" {
				t.Errorf("Recoverable() = %v, Code() = %s", e.Recoverable(), e.Code())
			}
			if len(sink.list()) != 0 {
				t.Error("an error response reached the sink")
			}
		})
	}
}

func TestStreamNonStreamingUpstream(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "completion.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := newUpstream(t, llmtest.Repeat(llmtest.Reply{Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}}, Body: string(answer)}))
	sink := &recordSink{}
	res, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sink)
	if err != nil || res.Chunks != 1 {
		t.Fatalf("Stream = %+v, %v", res, err)
	}
	want := `{"id":"chatcmpl-json1","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o-2024-08-06",` +
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant",` +
		`"content":"Hello from a non-streaming upstream","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}`
	if got := sink.list(); len(got) != 1 || got[0] != want {
		t.Errorf("chunk\n got %s\nwant %s", got, want)
	}
}

func TestCompletionToChunkErrors(t *testing.T) {
	for _, body := range []string{`not json`, `{"error":{"message":"quota exceeded"}}`, `[1]`} {
		if _, err := completionToChunk([]byte(body)); err == nil {
			t.Errorf("completionToChunk(%s) accepted", body)
		} else {
			asError(t, err, KindStream)
		}
	}
	out, err := completionToChunk([]byte(`{"id":"x","choices":[{"index":0,"message":null}]}`))
	if err != nil || !json.Valid(out) || !bytes.Contains(out, []byte(`"delta":{}`)) {
		t.Errorf("message null: %s, %v", out, err)
	}
}

// TestStreamWithSSEWriterRejectsGarbage relays a non-JSON data line into an
// sse.Writer: the writer refuses it, which is a stream error, not a client
// that went away.
func TestStreamWithSSEWriterRejectsGarbage(t *testing.T) {
	u := newUpstream(t, llmtest.Repeat(llmtest.Stream(llmtest.Data("hello"))))
	var out bytes.Buffer
	_, err := newTestClient(t, u, Config{}).Stream(context.Background(), simpleRequest, sse.NewWriter(&out, sse.Options{}))
	asError(t, err, KindStream)
	if out.Len() != 0 {
		t.Errorf("garbage reached the client: %q", out.String())
	}
}

func FuzzCompletionToChunk(f *testing.F) {
	if answer, err := os.ReadFile(filepath.Join("testdata", "completion.json")); err == nil {
		f.Add(answer)
	}
	for _, s := range []string{`{}`, `{"choices":[{"message":null}]}`, `{"error":{"message":"x"}}`, `null`, `{"choices":[{"finish_reason":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := completionToChunk(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindStream {
				t.Fatalf("error %v is not a stream *Error", err)
			}
			return
		}
		if _, ok := sse.Field(out, "choices"); !ok || !json.Valid(out) {
			t.Fatalf("completionToChunk(%q) = %q: not a chunk", raw, out)
		}
	})
}
