package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// postCompletion posts a chat completion of model to the gateway at gw.
func postCompletion(t *testing.T, gw, model string) (int, string) {
	t.Helper()
	resp, err := http.Post(gw+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestPassthroughModelsBuiltin: with the built-in echo model as upstream
// and no openai.passthroughModels, a typo'd model ("helo") is
// model_not_found; it was answered by the echo model.
func TestPassthroughModelsBuiltin(t *testing.T) {
	cfg := testConfig(t, "builtin:echo")
	cfg.OpenAI.Passthrough = true
	gw := startGateway(t, cfg, nil)
	status, body := postCompletion(t, gw, "helo")
	if status != http.StatusNotFound || !strings.Contains(body, `"code":"model_not_found"`) {
		t.Errorf("helo: %d %s, want 404 model_not_found", status, body)
	}
}

// TestPassthroughModelsConfigured: only the models openai.passthroughModels
// admits reach the upstream; the others are model_not_found and the
// upstream gets no request.
func TestPassthroughModelsConfigured(t *testing.T) {
	up := newFakeUpstream(t, "hello")
	cfg := testConfig(t, up.URL())
	cfg.OpenAI.Passthrough = true
	cfg.OpenAI.PassthroughModels = []string{"gpt-4o*"}
	gw := startGateway(t, cfg, nil)
	status, body := postCompletion(t, gw, "helo")
	if status != http.StatusNotFound || !strings.Contains(body, `"code":"model_not_found"`) {
		t.Errorf("helo: %d %s, want 404 model_not_found", status, body)
	}
	if got := up.Requests(); len(got) != 0 {
		t.Fatalf("the upstream got %d requests for helo, want 0", len(got))
	}
	if status, body := postCompletion(t, gw, "gpt-4o-mini"); status != http.StatusOK {
		t.Errorf("gpt-4o-mini: %d %s, want the upstream's 200", status, body)
	}
	if got := up.Requests(); len(got) != 1 || got[0].Model != "gpt-4o-mini" {
		t.Errorf("the upstream got %+v, want one request for gpt-4o-mini", got)
	}
}

// TestPassthroughModelsDefault: unset, every model passes with a real
// upstream (as before) and none with the built-in one; set, the list as
// it is.
func TestPassthroughModelsDefault(t *testing.T) {
	cfg := &Config{}
	if got := passthroughModels(cfg); len(got) != 1 || got[0] != "*" {
		t.Errorf("real upstream: %q, want [*]", got)
	}
	cfg.Upstream.builtinAt = "http://127.0.0.1:1"
	if got := passthroughModels(cfg); got != nil {
		t.Errorf("built-in upstream: %q, want none", got)
	}
	cfg.OpenAI.PassthroughModels = []string{}
	cfg.Upstream.builtinAt = ""
	if got := passthroughModels(cfg); len(got) != 0 {
		t.Errorf("[]: %q, want none", got)
	}
}
