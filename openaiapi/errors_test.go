package openaiapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

func errJSON(message, typ, code string) string {
	return `{"error":{"message":"` + message + `","type":"` + typ + `","param":null,"code":"` + code + `"}}` + "\n"
}

// TestErrorsBeforeTheStream: what fails before the answer starts is
// OpenAI's error object with the status that fits, the middleware's
// errors on /v1/ included.
func TestErrorsBeforeTheStream(t *testing.T) {
	gw := start(t, setup{tokens: []string{"gw-token"}, bodyLimit: 4096})
	auth := []string{"Authorization", "Bearer gw-token"}
	tests := []struct {
		name, body string
		header     []string
		wantStatus int
		want       string
	}{
		{"no token", `{}`, nil, 401,
			errJSON("missing or wrong gateway token (send Authorization: Bearer \u003ctoken\u003e or X-Agentgw-Token: \u003ctoken\u003e)", "invalid_request_error", "invalid_api_key")},
		{"a wrong token", `{}`, []string{"Authorization", "Bearer sk-nope"}, 401,
			errJSON("missing or wrong gateway token (send Authorization: Bearer \u003ctoken\u003e or X-Agentgw-Token: \u003ctoken\u003e)", "invalid_request_error", "invalid_api_key")},
		{"not JSON", `{"model":`, auth, 400,
			errJSON("the body is not a JSON object (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"no model", `{"messages":[]}`, auth, 400,
			errJSON("model: expected the name of a model, one of GET /v1/models (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"an unknown model, no passthrough", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`, auth, 404,
			errJSON(`the model \"gpt-4o\" does not exist: this endpoint's models are the gateway's agents (GET /v1/models lists them)`, "invalid_request_error", "model_not_found")},
		{"an unknown command", `{"model":"hello/versoin","messages":[{"role":"user","content":"hi"}]}`, auth, 404,
			errJSON(`agent \"hello\" has no command \"versoin\"; did you mean \"version\"? (GET /agents/hello lists its commands)`, "invalid_request_error", "model_not_found")},
		{"no messages", `{"model":"hello","messages":[]}`, auth, 400,
			errJSON("messages: expected a non-empty list of {role, content} (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"the assistant last", `{"model":"hello","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yes"}]}`, auth, 400,
			errJSON("messages: the last message that is not a system message must be the user's: it is what the agent answers (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"a content of the wrong type", `{"model":"hello","messages":[{"role":"user","content":7}]}`, auth, 400,
			errJSON("messages[0].content: expected a string or a list of content parts (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"a required context variable", `{"model":"coder/explain","messages":[{"role":"user","content":"hi"}]}`, auth, 422,
			errJSON(`command \"explain\" needs the context variable \"activeEditor\", and the request has none (collect \"activeEditor\" as GET /agents/coder describes)`, "invalid_request_error", "invalid_context_variable")},
		{"n 2", `{"model":"hello","n":2,"messages":[{"role":"user","content":"hi"}]}`, auth, 400,
			errJSON("n: this endpoint answers with one choice; send n 1 or none (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"stream not a boolean", `{"model":"hello","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, auth, 400,
			errJSON("stream: a value of the wrong type (send a chat completion request (POST /v1/chat/completions, OpenAI's shape))", "invalid_request_error", "bad_request")},
		{"over the body limit", `{"model":"hello","messages":[{"role":"user","content":"` + strings.Repeat("a", 5000) + `"}]}`, auth, 413,
			errJSON("the body is over the gateway's limit of 4096 bytes (send less context, e.g. a smaller selection or fewer package files)", "invalid_request_error", "payload_too_large")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := gw.post(t, "/v1/chat/completions", tc.body, tc.header...)
			if resp.StatusCode != tc.wantStatus || body != tc.want || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%d %s\n%s\nwant %d\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.wantStatus, tc.want)
			}
			if tc.wantStatus == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="agentgw"` {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	// The token OpenAI clients send is the gateway's: accepted, and not
	// forwarded to the model.
	resp, body := gw.post(t, "/v1/chat/completions", `{"model":"coder","messages":[{"role":"user","content":"hi"}]}`, auth...)
	if resp.StatusCode != 200 || !strings.Contains(body, `"content":"echo model (test-model) got 2 messages:`) {
		t.Fatalf("with the token: %d %s", resp.StatusCode, body)
	}
	if a := gw.up.Only(t).Header.Get("Authorization"); a != "" {
		t.Errorf("the gateway token went upstream: %q", a)
	}
	// Routes outside /v1/ keep the agent protocol's error shape.
	if resp, body := gw.get(t, "/agents"); resp.StatusCode != 401 || !strings.HasPrefix(body, `{"type":"ERROR_RESPONSE"`) {
		t.Errorf("GET /agents: %d %s", resp.StatusCode, body)
	}
}

// failing is an upstream that answers 500.
var failing = llmtest.Repeat(llmtest.Error(http.StatusInternalServerError, "the model is down"))

// TestErrorsOfTheRun: a run that fails answers, streamed, with the text so
// far, then OpenAI's error object, which the SDKs raise, then the
// terminator; not streamed, with the error and its status.
func TestErrorsOfTheRun(t *testing.T) {
	gw := start(t, setup{upstream: failing})
	msg := `the model platform answered 500: the model is down (try again; if it keeps failing, the gateway's operator finds the model platform's answer in the log under this request id)`
	resp, body := gw.post(t, "/v1/chat/completions", `{"model":"coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	got := events(t, body)
	if resp.StatusCode != 200 || len(got) != 3 || got[0] != chunk("coder", `{"role":"assistant","content":""}`, "null") ||
		got[1] != `data: {"error":{"message":"`+msg+`","type":"server_error","param":null,"code":"upstream_error"}}` ||
		got[2] != "data: [DONE]" {
		t.Errorf("streamed: %d\n%s", resp.StatusCode, strings.Join(got, "\n\n"))
	}
	resp, body = gw.post(t, "/v1/chat/completions", `{"model":"coder","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 502 || body != `{"error":{"message":"`+msg+`","type":"server_error","param":null,"code":"upstream_error"}}`+"\n" {
		t.Errorf("not streamed: %d %s", resp.StatusCode, body)
	}
}

// TestUpstreamErrorChunkEscapedKey: an upstream error chunk in the middle of
// the stream ends it with OpenAI's error object, whether its key is written
// "error" or with an escape ({"\u0065rror":…}, the same key to any JSON
// reader); the escaped one used to be read as a chunk without text and the
// stream ended as if the answer were complete.
func TestUpstreamErrorChunkEscapedKey(t *testing.T) {
	msg := `the model platform failed while answering: boom (try again; if it keeps failing, the gateway's operator finds the model platform's answer in the log under this request id)`
	for _, key := range []string{`"error"`, `"\u0065rror"`, `"err\u006Fr"`} {
		t.Run(key, func(t *testing.T) {
			up := llmtest.Repeat(llmtest.Stream(llmtest.Data(llmtest.TextChunk("Par")),
				llmtest.Data(`{`+key+`:{"message":"boom","type":"server_error","param":null,"code":null}}`), llmtest.DoneEvent()))
			gw := start(t, setup{upstream: up})
			resp, body := gw.post(t, "/v1/chat/completions", `{"model":"coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			got := events(t, body)
			want := []string{chunk("coder", `{"role":"assistant","content":""}`, "null"), chunk("coder", `{"content":"Par"}`, "null"),
				`data: {"error":{"message":"` + msg + `","type":"server_error","param":null,"code":"upstream_error"}}`,
				"data: [DONE]"}
			if resp.StatusCode != 200 || !slices.Equal(got, want) {
				t.Errorf("%d\n%s\nwant\n%s", resp.StatusCode, strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
			}
		})
	}
}
