package openaiapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
	"github.com/agentgw/agentgw/openaiapi"
)

// TestPassthrough: a model that is no agent goes to the upstream as it is,
// its answer comes back as it is; the auth is the upstream policy's.
func TestPassthrough(t *testing.T) {
	req := `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"read_file"}}]}`
	tests := []struct {
		name, key, wantAuth string
	}{
		{"forward mode", "", "Bearer sk-client"},
		{"key mode", "sk-gateway", "Bearer sk-gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gw := start(t, setup{upstream: replay(upstreamStream), passthrough: true, apiKey: tc.key})
			resp, body := gw.post(t, "/v1/chat/completions", req, "Authorization", "Bearer sk-client", "X-Agentgw-Token", "secret", "X-Team", "a")
			if resp.StatusCode != 200 || body != upstreamStream {
				t.Errorf("%d\n%q\nwant the upstream's answer\n%q", resp.StatusCode, body, upstreamStream)
			}
			up := gw.up.Only(t)
			if string(up.Body) != req {
				t.Errorf("the upstream got\n%s\nwant\n%s", up.Body, req)
			}
			if a := up.Header.Get("Authorization"); a != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", a, tc.wantAuth)
			}
			if up.Header.Get("X-Agentgw-Token") != "" {
				t.Error("the gateway token went upstream")
			}
			if got, want := up.Header.Get("X-Team"), map[bool]string{true: "", false: "a"}[tc.key != ""]; got != want {
				t.Errorf("X-Team %q, want %q", got, want)
			}
		})
	}
}

// TestFrontendToolCall: a tool the IDE should run, which an OpenAI client
// cannot, ends the answer with a note saying so.
func TestFrontendToolCall(t *testing.T) {
	gw := start(t, setup{})
	resp, body := gw.post(t, "/v1/chat/completions", `{"model":"reader","messages":[{"role":"user","content":"call read_file {\"path\":\"a.go\"}"}]}`)
	want := "> The agent asked the IDE to run the tool `read_file` with `{\"path\":\"a.go\"}`; this client cannot, so the answer ends here.\n"
	if resp.StatusCode != 200 || !strings.Contains(body, `"content":`+quote(want)) {
		t.Errorf("%d %s\nwant the content %q", resp.StatusCode, body, want)
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestPassthroughRedactsEchoedKeys: an upstream whose error answer echoes
// the credential it was sent (the gateway's key, or the client's token in
// the forward mode) has it removed before the answer reaches the client.
func TestPassthroughRedactsEchoedKeys(t *testing.T) {
	echo := llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.JSON(http.StatusUnauthorized, `{"error":{"message":"invalid key: `+r.Header.Get("Authorization")+`","type":"invalid_request_error"}}`)
	})
	for _, key := range []string{"", "sk-gateway-0123456789"} {
		gw := start(t, setup{upstream: echo, passthrough: true, apiKey: key})
		resp, body := gw.post(t, "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`,
			"Authorization", "Bearer sk-client-0123456789")
		want := `{"error":{"message":"invalid key: [REDACTED]","type":"invalid_request_error"}}`
		if resp.StatusCode != http.StatusUnauthorized || body != want {
			t.Errorf("key %q: %d %s, want the upstream's 401 %s", key, resp.StatusCode, body, want)
		}
		if resp.Header.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Errorf("key %q: Content-Length %q for %d bytes", key, resp.Header.Get("Content-Length"), len(want))
		}
	}
}

// TestObserved: a chat completion that runs an agent is observed under its
// agent and command, as the agent protocol's requests are.
func TestObserved(t *testing.T) {
	rec := &observetest.Recorder{}
	gw := start(t, setup{observers: observe.Observers{rec}})
	resp, _ := gw.post(t, "/v1/chat/completions", `{"model":"hello/version","messages":[{"role":"user","content":"which?"}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := "begin http /v1/chat/completions|routed hello/version loaded=true|routed hello/version loaded=true|end ok code= status=200"
	if got := strings.Join(rec.Events(), "|"); got != want {
		t.Errorf("events %s\nwant %s", got, want)
	}
}

// TestPassthroughModels: only the models PassthroughModels admits go to
// the upstream; a typo'd one ("helo") is model_not_found, as GET
// /v1/models/helo says, and the upstream gets no request.
func TestPassthroughModels(t *testing.T) {
	const notFound = `{"error":{"message":"the model \"%s\" does not exist: this endpoint's models are the gateway's agents (GET /v1/models lists them)","type":"invalid_request_error","param":null,"code":"model_not_found"}}` + "\n"
	tests := []struct {
		name     string
		patterns []string
		model    string
		calls    int
	}{
		{"typo", []string{"gpt-4o*"}, "helo", 0},
		{"admitted", []string{"gpt-4o*"}, "gpt-4o-mini", 1},
		{"none admitted", []string{}, "gpt-4o", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gw := start(t, setup{passthrough: true, passModels: tc.patterns})
			resp, body := gw.post(t, "/v1/chat/completions", `{"model":"`+tc.model+`","messages":[{"role":"user","content":"hi"}]}`)
			calls := gw.up.Count()
			if calls != tc.calls {
				t.Errorf("the upstream got %d requests, want %d", calls, tc.calls)
			}
			if tc.calls > 0 {
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d, want the upstream's 200: %s", resp.StatusCode, body)
				}
				return
			}
			if want := fmt.Sprintf(notFound, tc.model); resp.StatusCode != http.StatusNotFound || body != want {
				t.Errorf("%d %s\nwant 404 %s", resp.StatusCode, body, want)
			}
		})
	}
}

// TestCheckPatterns: a pattern path.Match cannot use is an error.
func TestCheckPatterns(t *testing.T) {
	if err := openaiapi.CheckPatterns([]string{"gpt-*", "o[1-4]*"}); err != nil {
		t.Errorf("valid patterns: %v", err)
	}
	if err := openaiapi.CheckPatterns([]string{"gpt-["}); err == nil {
		t.Error("gpt-[: no error")
	}
}
