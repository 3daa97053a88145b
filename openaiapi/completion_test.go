package openaiapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestCompletion: stream false answers one chat.completion with the whole
// content and its usage.
func TestCompletion(t *testing.T) {
	gw := start(t, setup{})
	resp, body := gw.post(t, "/v1/chat/completions", `{"model":"hello","messages":[{"role":"user","content":"hi"}]}`)
	want := `{"id":"chatcmpl-ID","object":"chat.completion","created":1735689600,"model":"hello","choices":[{"index":0,"message":{"role":"assistant",` +
		`"content":"Hello, there!\nWelcome to agent hello!\n\n**Get version**: Shows the version of agent hello (runs the command ` + "`version`: the model `hello/version`" + ` here)\n",` +
		`"refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":38,"total_tokens":39}}` + "\n"
	if got := chunkID.ReplaceAllString(body, `"id":"chatcmpl-ID"`); resp.StatusCode != 200 || got != want || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %s\n%s\nwant\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), got, want)
	}
}

// upstreamStream is a model platform's answer with a usage chunk, as
// OpenAI streams it when asked for usage.
var upstreamStream = llmtest.SSE(
	`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"It <prints> "},"finish_reason":null}]}`,
	`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"3."},"finish_reason":null}]}`,
	`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	`{"id":"up-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":4,"total_tokens":35}}`,
)

func replay(stream string) llmtest.Option {
	return llmtest.Repeat(llmtest.Stream(llmtest.Raw(stream)))
}

// TestRunThroughUpstream: the model gets the command's prompt built from
// the chat: the system template, the earlier turns, the system messages as
// globalPrompts, the last user message; the client's sampling fields pass
// through, its tools and stream options do not. The upstream's text comes
// back under the answer's id, its usage as the answer's.
func TestRunThroughUpstream(t *testing.T) {
	gw := start(t, setup{upstream: replay(upstreamStream)})
	req := `{"model":"coder","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,"max_tokens":50,` +
		`"tools":[{"type":"function","function":{"name":"x"}}],"tool_choice":"auto","n":1,"contextId":"c1",` +
		`"messages":[{"role":"system","content":"Answer in English."},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},` +
		`{"role":"user","content":[{"type":"text","text":"What does"},{"type":"image_url","image_url":{"url":"data:,"}},{"type":"text","text":"main.go print?"}]}]}`
	resp, body := gw.post(t, "/v1/chat/completions", req, "Authorization", "Bearer sk-client")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	u := func(s string) string { return strings.TrimSuffix(s, "}") + `,"usage":null}` }
	want := []string{
		u(chunk("coder", `{"role":"assistant","content":""}`, "null")),
		u(chunk("coder", `{"content":"It <prints> "}`, "null")),
		u(chunk("coder", `{"content":"3."}`, "null")),
		u(chunk("coder", `{}`, "stop")),
		`data: {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"coder","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":4,"total_tokens":35}}`,
		"data: [DONE]",
	}
	if got := events(t, body); strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
		t.Errorf("stream:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
	}
	up := gw.up.Only(t)
	wantUp := `{"max_tokens":50,"temperature":0.2,"model":"test-model","messages":[{"role":"system","content":"You are terse."},` +
		`{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"system","content":"Answer in English."},` +
		`{"role":"user","content":"What does\nmain.go print?"}],"stream":true}`
	if string(up.Body) != wantUp {
		t.Errorf("the upstream got\n%s\nwant\n%s", up.Body, wantUp)
	}
	if a := up.Header.Get("Authorization"); a != "Bearer sk-client" {
		t.Errorf("the upstream got Authorization %q, want the client's (forward mode)", a)
	}
}

// TestCompletionUsageOfThePrompt: an upstream that reports no usage (the
// built-in model) gets the usage the gateway counted for its call: the
// prompt it really sent (the agent's templates, not only the client's
// messages) and a token a relayed chunk; the same whether another observer
// watches the request or none does.
func TestCompletionUsageOfThePrompt(t *testing.T) {
	for _, observed := range []bool{false, true} {
		s := setup{}
		if observed {
			s.observers = observe.Observers{&observetest.Recorder{}}
		}
		gw := start(t, s)
		resp, body := gw.post(t, "/v1/chat/completions", `{"model":"coder","messages":[{"role":"user","content":"hi"}]}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		var sent struct{ Messages []struct{ Content string } }
		if err := json.Unmarshal(gw.up.Only(t).Body, &sent); err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, m := range sent.Messages {
			want += llm.EstimateTokens(m.Content) + 4
		}
		var got struct {
			Usage struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
				TotalTokens      int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		u := got.Usage
		if len(sent.Messages) < 2 || u.PromptTokens != want || u.CompletionTokens == 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
			t.Errorf("observed=%v: usage %+v, want %d prompt tokens for %d messages sent", observed, u, want, len(sent.Messages))
		}
	}
}

// TestFinishReasonKept: the upstream's finish reason ("length": its
// max_tokens cut the answer) ends the answer, streamed and not, in the
// one last chunk (issue 29 item 5).
func TestFinishReasonKept(t *testing.T) {
	cut := strings.Replace(upstreamStream, `"finish_reason":"stop"`, `"finish_reason":"length"`, 1)
	gw := start(t, setup{upstream: replay(cut)})
	_, body := gw.post(t, "/v1/chat/completions", `{"model":"coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	got := events(t, body)
	if n := strings.Count(body, `"finish_reason":"`); n != 1 {
		t.Errorf("%d chunks with a finish reason, want 1:\n%s", n, body)
	}
	if len(got) < 2 || got[len(got)-2] != chunk("coder", `{}`, "length") {
		t.Errorf("the last chunk is not the one with the upstream's reason length:\n%s", strings.Join(got, "\n\n"))
	}
	_, body = gw.post(t, "/v1/chat/completions", `{"model":"coder","messages":[{"role":"user","content":"hi"}]}`)
	if !strings.Contains(body, `"finish_reason":"length"`) {
		t.Errorf("the completion does not keep the upstream's reason length: %s", body)
	}
}

// TestFinishReasonFrames: a streamed answer cut by the upstream's
// max_tokens is, frame for frame, the role chunk, the text chunks, one
// finish chunk with the upstream's reason and an empty delta, the usage
// chunk when asked for, and the terminator (issue 29 item 5).
func TestFinishReasonFrames(t *testing.T) {
	cut := strings.Replace(upstreamStream, `"finish_reason":"stop"`, `"finish_reason":"length"`, 1)
	gw := start(t, setup{upstream: replay(cut)})
	withUsage := func(c string) string { return strings.TrimSuffix(c, "}") + `,"usage":null}` }
	tests := []struct {
		name, body string
		want       []string
	}{
		{"no usage", `{"model":"coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`, []string{
			chunk("coder", `{"role":"assistant","content":""}`, "null"),
			chunk("coder", `{"content":"It <prints> "}`, "null"),
			chunk("coder", `{"content":"3."}`, "null"),
			chunk("coder", `{}`, "length"),
			"data: [DONE]",
		}},
		{"usage", `{"model":"coder","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, []string{
			withUsage(chunk("coder", `{"role":"assistant","content":""}`, "null")),
			withUsage(chunk("coder", `{"content":"It <prints> "}`, "null")),
			withUsage(chunk("coder", `{"content":"3."}`, "null")),
			withUsage(chunk("coder", `{}`, "length")),
			`data: {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"coder","choices":[],"usage":{"prompt_tokens":31,"completion_tokens":4,"total_tokens":35}}`,
			"data: [DONE]",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, body := gw.post(t, "/v1/chat/completions", tc.body)
			if got := events(t, body); strings.Join(got, "\n\n") != strings.Join(tc.want, "\n\n") {
				t.Errorf("frames\n%s\nwant\n%s", strings.Join(got, "\n\n"), strings.Join(tc.want, "\n\n"))
			}
		})
	}
}
