package server_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// TestStreamEndAfterUpstreamError: an upstream that fails after a chunk
// gives, byte for byte, its text, an error frame with every field
// (suggestedAction and source included), and a final chunk whose
// finish_reason is "error" (it said "stop") and whose model is the one the
// upstream answered with (it said the gateway's).
func TestStreamEndAfterUpstreamError(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withUpstream(replay(t, "midstream_error.sse")))
	r := post(t, gw.URL+"/agents/chat", `{"model":"gpt-4o","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`,
		"X-Request-Id", "req-midstream")
	checkGolden(t, "midstream_error.sse", r.body)
}

// TestStreamEndAfterEscapedUpstreamError: an upstream error chunk whose
// key is spelled with an escape ({"\u0065rror":…}, the same key to any JSON
// reader) ends the stream as the plain one does, byte for byte: it used to
// be relayed as a normal chunk.
func TestStreamEndAfterEscapedUpstreamError(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withUpstream(replay(t, "midstream_error_escaped.sse")))
	r := post(t, gw.URL+"/agents/chat", `{"model":"gpt-4o","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`,
		"X-Request-Id", "req-midstream")
	checkGolden(t, "midstream_error.sse", r.body)
}

// TestOpenAIClientReadsAnErrorEnd: go-openai's stream reader reads the
// stream of an upstream failure to io.EOF: the text, then a final chunk
// with finish_reason "error" from the model that answered.
func TestOpenAIClientReadsAnErrorEnd(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, withUpstream(replay(t, "midstream_error.sse")))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = "/agents/chat"
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cfg := openai.DefaultConfig("plugin-key")
	cfg.BaseURL = ts.URL + "/v1"
	st, err := openai.NewClientWithConfig(cfg).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "gpt-4o", Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}}, Stream: true,
	})
	if err != nil {
		t.Fatalf("opening the stream: %v", err)
	}
	defer st.Close()
	var text strings.Builder
	var finish openai.FinishReason
	var model string
	for {
		resp, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("go-openai could not read the stream after %q: %v", text.String(), err)
		}
		for _, c := range resp.Choices {
			text.WriteString(c.Delta.Content)
			if c.FinishReason != "" {
				finish, model = c.FinishReason, resp.Model
			}
		}
	}
	if text.String() != "Par" || finish != "error" || model != "gpt-4o-2024-08-06" {
		t.Errorf("read %q ending with %q from %q, want \"Par\" ending with error from gpt-4o-2024-08-06", text.String(), finish, model)
	}
}
