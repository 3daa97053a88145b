package server_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestUpstreamEchoedCredentialsRedacted: an upstream that echoes the
// gateway's key (key mode) or the plugin's forwarded credentials in a 401,
// a 500 or a mid-stream error: neither the plugin's frames nor the
// gateway's logs (WARN and DEBUG) hold them.
func TestUpstreamEchoedCredentialsRedacted(t *testing.T) {
	t.Parallel()
	const (
		gatewayKey  = "sk-gw-KEY-0123456789abcdef"
		pluginToken = "plugin-BEARER-fedcba9876"
		pluginKey   = "plugin-APIKEY-13579"
	)
	echo := func(status int) func(secret string) option {
		return func(secret string) option {
			return withModel(llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
				return llmtest.JSON(status, fmt.Sprintf(`{"error":{"message":"Incorrect API key provided: %s (Authorization: %s)"}}`, secret, r.Header.Get("Authorization")))
			}))
		}
	}
	midStream := func(secret string) option {
		return withModel(llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
			return replayFirst(t, "normal.sse", 2, llmtest.Raw(fmt.Sprintf("data: {\"error\":{\"message\":\"token %s expired; auth %s\"}}\n\n", secret, r.Header.Get("Authorization"))))
		}))
	}
	upstreams := map[string]func(secret string) option{"401": echo(401), "500": echo(500), "mid-stream": midStream}
	modes := []struct {
		name    string
		llm     func(*llm.Config)
		echoes  string
		secrets []string
	}{
		{"key mode", func(c *llm.Config) { c.Auth, c.APIKey = llm.AuthKey, gatewayKey }, gatewayKey, []string{gatewayKey, pluginToken}},
		{"forward mode", func(c *llm.Config) {}, pluginKey, []string{pluginToken, pluginKey}},
	}
	for _, m := range modes {
		for name, up := range upstreams {
			t.Run(m.name+", "+name, func(t *testing.T) {
				t.Parallel()
				var logs syncbuf.Buffer
				gw := newGateway(t, up(m.echoes), withLLM(m.llm),
					withLLM(func(c *llm.Config) {
						c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					}),
					withRunner(func(c *runner.RunnerConfig) {
						c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					}))
				r := post(t, gw.URL+"/agents/chat", `{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`,
					"Authorization", "Bearer "+pluginToken, "X-Api-Key", pluginKey)
				s := readStream(t, r, "[DONE]")
				if errs := s.of("error"); len(errs) != 1 || !strings.Contains(errs[0].err.Message, "[REDACTED]") {
					t.Fatalf("error frames %+v, want one showing the redaction:\n%s", errs, r.body)
				}
				for _, secret := range m.secrets {
					if bytes.Contains(r.body, []byte(secret)) {
						t.Errorf("the plugin's stream holds %s:\n%s", secret, r.body)
					}
					if strings.Contains(logs.String(), secret) {
						t.Errorf("the logs hold %s:\n%s", secret, logs.String())
					}
				}
				if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "level=DEBUG") {
					t.Errorf("the test did not see WARN and DEBUG lines:\n%s", logs.String())
				}
			})
		}
	}
}
