package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// answer is an upstream that answers status with an OpenAI error body.
func answer(status int, message string) llmtest.Reply {
	return llmtest.JSON(status, fmt.Sprintf(`{"error":{"message":%q,"type":"requests","param":null,"code":"x"}}`, message))
}

// dropAfter is an upstream that sends the first n events of normal.sse in
// a chunked body and then closes the connection without ending the body.
func dropAfter(t *testing.T, n int) llmtest.Reply {
	return replayFirst(t, "normal.sse", n, llmtest.Abort())
}

// TestUpstreamFailures: every upstream failure is reported inside a 200
// stream after the text so far, and the stream still ends properly.
func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	const serverError = "The server had an error while processing your request. Sorry about that!"
	tests := []struct {
		name        string
		opts        []option
		text        string
		code        string // "" means no error frame
		status      int
		msg         string
		recoverable bool
		ping        bool
	}{
		{name: "mid-stream error object", opts: []option{withUpstream(replay(t, "midstream_error.sse"))},
			text: "Par", code: apierr.CodeUpstreamError, msg: serverError},
		{name: "error event", opts: []option{withUpstream(replay(t, "event_error.sse"))},
			text: "Par", code: apierr.CodeUpstreamError, msg: "Overloaded"},
		{name: "429", opts: []option{withUpstream(answer(429, "Rate limit reached for gpt-4o"))},
			code: apierr.CodeUpstreamError, status: 429, msg: "Rate limit reached for gpt-4o", recoverable: true},
		{name: "500", opts: []option{withUpstream(answer(500, "the engine broke"))},
			code: apierr.CodeUpstreamError, status: 500, msg: "the engine broke", recoverable: true},
		{name: "stall before the first byte", opts: []option{
			withUpstream(stall), withTimeouts(200*time.Millisecond, 0), withKeepAlive(50 * time.Millisecond)},
			code: apierr.CodeUpstreamTimeout, msg: "first-byte", recoverable: true, ping: true},
		{name: "idle stall", opts: []option{
			withUpstream(replayFirst(t, "normal.sse", 2, llmtest.Stall())), withTimeouts(0, 200*time.Millisecond)},
			text: "Hello", code: apierr.CodeUpstreamTimeout, msg: "idle", recoverable: true},
		{name: "connection dropped", opts: []option{withUpstream(dropAfter(t, 2))},
			text: "Hello", code: apierr.CodeUpstreamError},
		{name: "ended cleanly without finish_reason or terminator", opts: []option{withUpstream(replayFirst(t, "normal.sse", 2))},
			text: "Hello", code: apierr.CodeUpstreamError, msg: "the answer is incomplete", recoverable: true},
		{name: "connection refused", opts: []option{withUpstreamURL(closedURL(t))},
			code: apierr.CodeUpstreamUnavailable, recoverable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, tt.opts...)
			r := post(t, gw.URL+"/agents/chat", `{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`, "X-Request-Id", "req-"+strings.ReplaceAll(tt.name, " ", "-"))
			s := readStream(t, r, "[DONE]")
			if got := s.text(); got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
			errs := s.of("error")
			if len(errs) != 1 {
				t.Fatalf("%d error frames, want 1:\n%s", len(errs), r.body)
			}
			e := errs[0].err
			if e.ErrorCode != tt.code || e.UpstreamStatus != tt.status || e.Recoverable != tt.recoverable {
				t.Errorf("error frame %s: want code %s, upstreamStatus %d, recoverable %v", errs[0].data, tt.code, tt.status, tt.recoverable)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msg)
			}
			if e.RequestID != r.header.Get("X-Request-Id") || e.RequestID == "" {
				t.Errorf("requestId %q, want the response's X-Request-Id %q", e.RequestID, r.header.Get("X-Request-Id"))
			}
			// The error comes after all text and right before the end frames.
			if k := s.kinds(); k[len(k)-3] != "error" {
				t.Errorf("frames %v: the error is not right before the end frames", k)
			}
			ping := bytes.Index(r.body, []byte(": ping\n\n"))
			if tt.ping && (ping < 0 || ping > bytes.Index(r.body, []byte("event: copilot_error"))) {
				t.Errorf("no keep-alive comment before the error:\n%s", r.body)
			}
		})
	}
}

// TestUsageChunk relays a usage-only chunk (choices: []) with our id; the
// upstream's finish chunk before it is not relayed (the final chunk is the
// one with the finish reason).
func TestUsageChunk(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withUpstream(replay(t, "usage.sse")))
	s := readStream(t, post(t, gw.URL+"/agents/chat", `{}`), "[DONE]")
	if got := s.kinds(); strings.Join(got, " ") != "chunk chunk chunk done" {
		t.Fatalf("frames %v", got)
	}
	u := s.frames[1]
	if len(u.chunk.Choices) != 0 || !jsonEqual(u.chunk.Usage, []byte(`{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}`)) {
		t.Errorf("usage chunk not relayed as is: %s", u.data)
	}
	if u.chunk.ID != s.frames[0].chunk.ID || u.chunk.ID == "chatcmpl-up2" {
		t.Errorf("usage chunk id %q, want the response's %q", u.chunk.ID, s.frames[0].chunk.ID)
	}
	if s.text() != "Hi" {
		t.Errorf("text %q, want Hi", s.text())
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(u.data), &raw); err != nil || string(raw["choices"]) != "[]" {
		t.Errorf("choices of the usage chunk: %s", raw["choices"])
	}
}

// TestNoUpstream: a model command on a gateway without an upstream says in
// the stream how to configure one.
func TestNoUpstream(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	s := readStream(t, post(t, gw.URL+"/agents/chat", `{}`), "[DONE]")
	if got := s.kinds(); strings.Join(got, " ") != "error chunk done" {
		t.Fatalf("frames %v", got)
	}
	e := s.frames[0].err
	if e.ErrorCode != apierr.CodeUpstreamNotConfigured {
		t.Fatalf("code %q, want UPSTREAM_NOT_CONFIGURED", e.ErrorCode)
	}
	if !strings.Contains(e.Message, "no upstream") || !strings.Contains(e.SuggestedAction, "--upstream") {
		t.Errorf("the error does not say how to configure an upstream: %+v", e)
	}
}
