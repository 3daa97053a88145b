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

// TestOpenAIClient: go-openai's stream reader, pointed at an agent as if it
// were an OpenAI base URL, reads the whole stream (a reply and relayed
// upstream chunks) and gets the exact text, then io.EOF.
func TestOpenAIClient(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, withUpstream(replay(t, "normal.sse")))
	// BaseURL+"/chat/completions" is rewritten to /agents/greeter.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = "/agents/greeter"
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	cfg := openai.DefaultConfig("plugin-key")
	cfg.BaseURL = ts.URL + "/v1"
	client := openai.NewClientWithConfig(cfg)
	st, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}},
		Stream:   true,
	})
	if err != nil {
		t.Fatalf("opening the stream: %v", err)
	}
	defer st.Close()
	var text strings.Builder
	ids := map[string]bool{}
	for {
		resp, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("go-openai could not read the stream after %q: %v", text.String(), err)
		}
		ids[resp.ID] = true
		for _, c := range resp.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
	if got, want := text.String(), "Let me ask the model.\nHello, \"world\"\n"; got != want {
		t.Errorf("go-openai read %q, want %q", got, want)
	}
	if len(ids) != 1 {
		t.Errorf("chunk ids %v, want one", ids)
	}
	// Reading again after the end stays at io.EOF.
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("Recv after the end: %v, want io.EOF", err)
	}
}
