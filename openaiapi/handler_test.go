package openaiapi_test

import (
	"net/http"
	"strings"
	"testing"
)

// chunk is a text chunk of the test streams, with its id replaced.
func chunk(model, delta string, finish string) string {
	if finish != "null" {
		finish = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"` + model +
		`","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
}

func TestModels(t *testing.T) {
	gw := start(t, setup{})
	tests := []struct {
		path       string
		wantStatus int
		want       string
	}{
		{"/v1/models", 200, `{"object":"list","data":[` +
			`{"id":"coder","object":"model","created":1735689600,"owned_by":"agentgw"},` +
			`{"id":"files","object":"model","created":1735689600,"owned_by":"agentgw"},` +
			`{"id":"hello","object":"model","created":1735689600,"owned_by":"agentgw"},` +
			`{"id":"hello/version","object":"model","created":1735689600,"owned_by":"agentgw"},` +
			`{"id":"reader","object":"model","created":1735689600,"owned_by":"agentgw"}]}` + "\n"},
		{"/v1/models/hello/version", 200, `{"id":"hello/version","object":"model","created":1735689600,"owned_by":"agentgw"}` + "\n"},
		// coder/explain requires activeEditor, which an OpenAI client
		// cannot send: it is no model of the list.
		{"/v1/models/coder/explain", 404, `{"error":{"message":"the model \"coder/explain\" does not exist: this endpoint's models are the gateway's agents (GET /v1/models lists them)","type":"invalid_request_error","param":null,"code":"model_not_found"}}` + "\n"},
		{"/v1/models/gpt-4o", 404, `{"error":{"message":"the model \"gpt-4o\" does not exist: this endpoint's models are the gateway's agents (GET /v1/models lists them)","type":"invalid_request_error","param":null,"code":"model_not_found"}}` + "\n"},
		{"/v1/embeddings", 404, `{"error":{"message":"no such endpoint: GET /v1/embeddings (GET /v1/models, GET /v1/models/{model}, POST /v1/chat/completions)","type":"invalid_request_error","param":null,"code":"not_found"}}` + "\n"},
	}
	for _, tc := range tests {
		resp, body := gw.get(t, tc.path)
		if resp.StatusCode != tc.wantStatus || body != tc.want || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s\n%s\nwant %d\n%s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.wantStatus, tc.want)
		}
	}
}

// TestStream: a streamed answer is OpenAI's: chunks with one id, the role
// in the first delta, the text, the actions as Markdown, finish_reason in
// the last, the usage chunk asked for, the terminator.
func TestStream(t *testing.T) {
	gw := start(t, setup{})
	tests := []struct {
		name, body string
		want       []string
	}{
		{
			name: "a reply and a confirm",
			body: `{"model":"hello","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			want: []string{
				chunk("hello", `{"role":"assistant","content":""}`, "null"),
				chunk("hello", `{"content":"Hello, there!\nWelcome to agent hello!"}`, "null"),
				chunk("hello", `{"content":"\n\n**Get version**: Shows the version of agent hello (runs the command `+"`version`: the model `hello/version`"+` here)\n"}`, "null"),
				chunk("hello", `{}`, "stop"),
				"data: [DONE]",
			},
		},
		{
			name: "another command, with usage",
			body: `{"model":"hello/version","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"which?"}]}`,
			want: []string{
				strings.TrimSuffix(chunk("hello/version", `{"role":"assistant","content":""}`, "null"), "}") + `,"usage":null}`,
				strings.TrimSuffix(chunk("hello/version", `{"content":"The current version is v1.0.0\n"}`, "null"), "}") + `,"usage":null}`,
				strings.TrimSuffix(chunk("hello/version", `{}`, "stop"), "}") + `,"usage":null}`,
				`data: {"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1735689600,"model":"hello/version","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":8,"total_tokens":10}}`,
				"data: [DONE]",
			},
		},
		{
			name: "a tree and a prompt confirm",
			body: `{"model":"files","stream":true,"messages":[{"role":"user","content":"ls"}]}`,
			want: []string{
				chunk("files", `{"role":"assistant","content":""}`, "null"),
				chunk("files", `{"content":"Here are the files:"}`, "null"),
				chunk("files", `{"content":"\n\n- **src**: the sources\n  - **main.go** `+"`go` `*main*`"+`\n  - **util**\n    - **a.go**\n- **README.md**\n\n**Explain main.go**: Asks for an explanation (asks: Explain src/main.go)\n"}`, "null"),
				chunk("files", `{}`, "stop"),
				"data: [DONE]",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := gw.post(t, "/v1/chat/completions", tc.body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			got := events(t, body)
			if strings.Join(got, "\n\n") != strings.Join(tc.want, "\n\n") {
				t.Errorf("stream:\n%s\nwant:\n%s", strings.Join(got, "\n\n"), strings.Join(tc.want, "\n\n"))
			}
			if !strings.HasSuffix(body, "data: [DONE]\n\n") {
				t.Errorf("the stream does not end with the terminator: %q", body)
			}
		})
	}
}
