package openaiapi_test

import (
	"strings"
	"testing"
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
			up := gw.up.only(t)
			if up.body != req {
				t.Errorf("the upstream got\n%s\nwant\n%s", up.body, req)
			}
			if a := up.header.Get("Authorization"); a != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", a, tc.wantAuth)
			}
			if up.header.Get("X-Agentgw-Token") != "" {
				t.Error("the gateway token went upstream")
			}
			if got, want := up.header.Get("X-Team"), map[bool]string{true: "", false: "a"}[tc.key != ""]; got != want {
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
