package main

import (
	"bytes"
	"compress/zlib"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestRemoteTokensAll: the passthrough's redaction knows every remote
// agent's token, read from its service.tokenEnv, and nothing when no
// agent is loaded yet.
func TestRemoteTokensAll(t *testing.T) {
	reg := program.NewRegistry(nil)
	tokens := &remoteTokens{reg: reg}
	env := envOf(map[string]string{"REMOTE_TOKEN": "remote-token-1234", "OTHER": "x"})
	if got := tokens.all(env); len(got) != 0 {
		t.Errorf("before the agents are loaded: %q", got)
	}
	reg.Swap([]*program.Agent{
		{Def: &agent.Definition{Name: "far", Service: &agent.Service{Endpoint: "http://127.0.0.1:1/", TokenEnv: "REMOTE_TOKEN"}}},
		{Def: &agent.Definition{Name: "unset", Service: &agent.Service{Endpoint: "http://127.0.0.1:2/", TokenEnv: "UNSET"}}},
		{Def: &agent.Definition{Name: "local"}},
	})
	if got := tokens.all(env); !slices.Equal(got, []string{"remote-token-1234"}) {
		t.Errorf("tokens %q, want the remote agent's", got)
	}
}

// TestPassthroughRedactsGatewayCredentials runs the gateway with the
// OpenAI passthrough, inbound and admin tokens, a state secret and an
// upstream key, before an upstream that echoes every one of them in a
// header and in a deflate error body: the client gets none of them.
func TestPassthroughRedactsGatewayCredentials(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY":       "sk-upstream-key-0123456789",
		"AGENTGW_TOKENS":       "inbound-token-aaaa1111",
		"AGENTGW_ADMIN_TOKENS": "admin-token-bbbb2222",
		"AGENTGW_STATE_SECRET": "state-secret-cccc3333",
	}
	all := make([]string, 0, len(secrets))
	for _, v := range secrets {
		all = append(all, v)
	}
	echo := strings.Join(all, " ")
	var deflated bytes.Buffer
	zw := zlib.NewWriter(&deflated)
	_, _ = zw.Write([]byte(`{"error":{"message":"bad key; I know ` + echo + `"}}`))
	_ = zw.Close()
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Status: http.StatusUnauthorized, Body: deflated.String(), Header: http.Header{
			"X-Echo-Auth":      {r.Header.Get("Authorization") + " " + echo},
			"Content-Encoding": {"deflate"},
			"Content-Type":     {"application/json"},
		}}
	}))
	cfg := testConfig(t, up.URL())
	cfg.Upstream.Auth = "key"
	cfg.OpenAI.Passthrough = true
	gw := startGateway(t, cfg, secrets)
	req, err := http.NewRequest(http.MethodPost, gw+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secrets["AGENTGW_TOKENS"])
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	_ = resp.Header.Write(&seen)
	seen.Write(body)
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Content-Encoding") != "" || !strings.Contains(seen.String(), "bad key; I know [REDACTED]") {
		t.Errorf("status %d; the client saw\n%s\nwant the upstream's 401, decoded and redacted", resp.StatusCode, seen.String())
	}
	for name, v := range secrets {
		if strings.Contains(seen.String(), v) {
			t.Errorf("the client got %s:\n%s", name, seen.String())
		}
	}
}
