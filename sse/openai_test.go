package sse_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentgw/agentgw/sse"
)

// TestGoOpenAIReadsOurStream serves frames written by a Writer to
// go-openai's stream reader, as a plugin built on it would read them.
func TestGoOpenAIReadsOurStream(t *testing.T) {
	const id = "chatcmpl-ours"
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/event-stream")
		w := sse.NewWriter(rw, sse.Options{ID: id, Model: "happy", Created: 1700000000})
		steps := []func() error{
			func() error { return w.Text("Hello") },
			func() error { return w.Comment("ping") },
			func() error {
				return w.Chunk([]byte(`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",` +
					`"choices":[{"index":0,"delta":{"content":", \"world\""},"finish_reason":null}]}`))
			},
			func() error {
				return w.Chunk([]byte(`{"object":"chat.completion.chunk","choices":[],"usage":{"total_tokens":3}}`))
			},
			func() error { return w.Text("\n世界 😀") },
			w.End,
		}
		for _, step := range steps {
			if err := step(); err != nil {
				t.Error(err)
			}
		}
	}))
	defer srv.Close()

	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL
	client := openai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Model: "happy"})
	if err != nil {
		t.Fatalf("CreateChatCompletionStream: %v", err)
	}
	defer stream.Close()
	var content string
	var chunks int
	finish := openai.FinishReason("")
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Recv after %d chunks: %v", chunks, err)
		}
		chunks++
		if resp.ID != id {
			t.Errorf("chunk %d has id %q, want %q", chunks, resp.ID, id)
		}
		for _, c := range resp.Choices {
			content += c.Delta.Content
			finish = c.FinishReason
		}
	}
	if want := "Hello, \"world\"\n世界 😀"; content != want {
		t.Errorf("content = %q, want %q", content, want)
	}
	if chunks != 5 || finish != openai.FinishReasonStop {
		t.Errorf("read %d chunks ending with %q, want 5 ending with stop", chunks, finish)
	}
	if _, err := stream.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("Recv after the end = %v, want io.EOF", err)
	}
}

// TestGoOpenAIReadsAnErrorEnd: a stream that reports an error inside the
// stream and ends with finish_reason "error" (and the model that answered)
// still reads to io.EOF with go-openai's stream reader; the error event's
// data line reaches it as a chunk without choices, and the final chunk
// tells it the answer is not complete.
func TestGoOpenAIReadsAnErrorEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/event-stream")
		w := sse.NewWriter(rw, sse.Options{ID: "chatcmpl-ours", Model: "happy", Created: 1700000000})
		for _, err := range []error{
			w.Chunk([]byte(`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06",` +
				`"choices":[{"index":0,"delta":{"content":"Par"},"finish_reason":null}]}`)),
			w.Event("copilot_error", []byte(`{"errorCode":"UPSTREAM_ERROR","message":"the model platform failed",`+
				`"recoverable":false,"suggestedAction":"try again","requestId":"r1","source":"upstream"}`)),
			w.EndWith(sse.FinishError),
		} {
			if err != nil {
				t.Error(err)
			}
		}
	}))
	defer srv.Close()

	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL
	stream, err := openai.NewClientWithConfig(cfg).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Model: "happy"})
	if err != nil {
		t.Fatalf("CreateChatCompletionStream: %v", err)
	}
	defer stream.Close()
	var content string
	var finish openai.FinishReason
	var model string
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Recv after %q: %v", content, err)
		}
		for _, c := range resp.Choices {
			content += c.Delta.Content
			finish, model = c.FinishReason, resp.Model
		}
	}
	if content != "Par" || finish != "error" || model != "gpt-4o-2024-08-06" {
		t.Errorf("read %q ending with %q from %q, want \"Par\" ending with error from gpt-4o-2024-08-06", content, finish, model)
	}
}
