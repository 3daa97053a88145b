package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm"
)

// TestUpstreamConfigReachesTheClient: the upstream section's retry policy
// and fallback models shape the calls, and the gateway's other credentials
// (inbound tokens, state secret, git tokens, the state secret kept in the
// data directory) are redacted from upstream messages.
func TestUpstreamConfigReachesTheClient(t *testing.T) {
	var mu sync.Mutex
	var models []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &b)
		mu.Lock()
		models = append(models, b.Model)
		mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"message":"down; tokens seen: inbound-tok-1111 state-sec-2222 git-tok-3333 sk-key-4444 kept-sec-6666"}}`)
	}))
	t.Cleanup(srv.Close)
	file := writeFile(t, t.TempDir(), "gw.yaml", fmt.Sprintf(`
upstream:
  url: %s
  auth: key
  retries: 1
  retryBackoff: 1ms
  retryMaxBackoff: 1ms
  fallbackModels: [fb]
git:
  repositories:
    - name: r
      url: https://git.example/r
      auth: {tokenEnv: GIT_TOKEN}
`, srv.URL))
	env := map[string]string{"OPENAI_API_KEY": "sk-key-4444", "AGENTGW_TOKENS": "inbound-tok-1111,other-tok-5555",
		"AGENTGW_STATE_SECRET": "state-sec-2222", "GIT_TOKEN": "git-tok-3333"}
	cfg, err := loadConfig(t, env, "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	c, err := newLLM(cfg, envOf(env), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), "kept-sec-6666", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), &llm.ChatRequest{Model: "m"}, sinkFunc(func([]byte) error { return nil }))
	if err == nil {
		t.Fatal("no error")
	}
	if want := []string{"m", "m", "fb", "fb"}; !slices.Equal(models, want) {
		t.Errorf("the upstream was asked for %q, want %q", models, want)
	}
	for _, secret := range []string{"inbound-tok-1111", "state-sec-2222", "git-tok-3333", "sk-key-4444", "kept-sec-6666"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("%s leaked: %v\n%s", secret, err, logs.String())
		}
	}
}

type sinkFunc func([]byte) error

func (f sinkFunc) Chunk(raw []byte) error { return f(raw) }
