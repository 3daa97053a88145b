package llm

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm/llmtest"
)

const (
	gatewayKey  = "sk-gateway-KEY-0123456789"
	pluginToken = "plugin-TOKEN-abcdef"
	pluginAPI   = "xk-plugin-API-98765"
	extraSecret = "inbound-SECRET-55555"
)

// echoes are upstreams that echo what they were sent (the Authorization,
// X-Api-Key) in their failures.
func echoes() map[string]func(echo string) llmtest.Option {
	plain := http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	return map[string]func(echo string) llmtest.Option{
		"401": func(echo string) llmtest.Option {
			return llmtest.Repeat(llmtest.JSON(401, fmt.Sprintf(`{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://x/keys?k=%s"}}`, echo, echo)))
		},
		"500 text": func(echo string) llmtest.Option {
			return llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Status: 500, Header: plain,
					Body: fmt.Sprintf("internal error; request headers: Authorization: %s", r.Header.Get("Authorization")+" "+echo)}
			})
		},
		"mid-stream error": func(echo string) llmtest.Option {
			return llmtest.Repeat(llmtest.Stream(llmtest.Data(testChunk), llmtest.Data(fmt.Sprintf(`{"error":{"message":"bad credential %s"}}`, echo))))
		},
		"error event": func(echo string) llmtest.Option {
			return llmtest.Repeat(llmtest.Stream(llmtest.Data(testChunk), llmtest.Raw(fmt.Sprintf("event: error\ndata: {\"message\":\"auth %s rejected\"}\n\n", echo))))
		},
		"deflate 401": func(echo string) llmtest.Option {
			var b bytes.Buffer
			zw := zlib.NewWriter(&b)
			fmt.Fprintf(zw, `{"error":{"message":"Incorrect API key provided: %s"}}`, echo)
			_ = zw.Close()
			return llmtest.Repeat(llmtest.Reply{Status: 401, Header: http.Header{"Content-Encoding": {"deflate"}, "Content-Type": {"application/octet-stream"}}, Body: b.String()})
		},
		"long message cut within the key": func(echo string) llmtest.Option {
			return llmtest.Repeat(llmtest.Reply{Status: 403, Header: plain, Body: strings.Repeat("x", maxMessage-5) + echo})
		},
	}
}

// leaks returns the secrets, or their 6-byte prefixes, found in text.
func leaks(text string, secrets ...string) []string {
	var found []string
	for _, s := range secrets {
		if strings.Contains(text, s[:6]) {
			found = append(found, s)
		}
	}
	return found
}

// TestUpstreamErrorsRedacted: a credential the upstream echoes in a failure
// is neither in the error (its message, its text, the cause's text) nor in
// the client's logs, in key and in forward mode, streamed and not.
func TestUpstreamErrorsRedacted(t *testing.T) {
	header := http.Header{
		"Authorization": {"Bearer " + pluginToken},
		"X-Api-Key":     {pluginAPI},
		"X-Trace":       {"trace-1"},
	}
	modes := []struct {
		name    string
		cfg     Config
		echo    string
		secrets []string
	}{
		{"key mode", Config{Auth: AuthKey, APIKey: gatewayKey}, gatewayKey, []string{gatewayKey}},
		{"forward mode, the token", Config{}, pluginToken, []string{pluginToken, pluginAPI}},
		{"forward mode, another credential header", Config{}, pluginAPI, []string{pluginToken, pluginAPI}},
		{"configured secret", Config{Secrets: []string{extraSecret}}, extraSecret, []string{extraSecret}},
	}
	for _, m := range modes {
		for name, handler := range echoes() {
			for _, streamed := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s, %s, streamed %v", m.name, name, streamed), func(t *testing.T) {
					u := newUpstream(t, handler(m.echo))
					var logs syncbuf.Buffer
					cfg := m.cfg
					cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					cfg.Retry = RetryPolicy{Retries: 1}
					c := newTestClient(t, u, cfg)
					(&fakeClock{}).install(c)
					req := &ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}, Header: header}
					var err error
					if streamed {
						_, err = c.Stream(context.Background(), req, &recordSink{})
					} else {
						_, err = c.Complete(context.Background(), req)
					}
					if err == nil {
						t.Fatal("no error")
					}
					e := err.(*Error)
					for what, text := range map[string]string{"message": e.Message, "error": e.Error(), "log": logs.String()} {
						if found := leaks(text, m.secrets...); len(found) > 0 {
							t.Errorf("%s holds %q:\n%s", what, found, text)
						}
					}
					// (a non-streamed call does not read an event stream's
					// error: its message is ours)
					echoed := streamed || !strings.Contains(name, "stream") && !strings.Contains(name, "event")
					if echoed && name != "long message cut within the key" && !strings.Contains(e.Message, redacted) {
						t.Errorf("message %q does not show the redaction", e.Message)
					}
				})
			}
		}
	}
}

func TestHeaderSecrets(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:pa55word"))
	h := http.Header{
		"Authorization": {"Basic " + basic},
		"Cookie":        {"session=s3ss10n-id; theme=dark"},
		"X-Auth-Token":  {"tok-123456"},
		"User-Agent":    {"ide/1.0"},
		"X-Trace":       {"not-a-secret"},
	}
	// every cookie's value counts (theme=dark too: the gateway cannot
	// tell a session cookie by its name)
	in := "basic " + basic + " alice:pa55word pa55word s3ss10n-id tok-123456 dark ide/1.0 not-a-secret " +
		"url tok%2F1 json tok\\\"2"
	want := "basic [REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED] ide/1.0 not-a-secret url [REDACTED] json [REDACTED]"
	r := newRedactor(append(headerSecrets(nil, h), `tok/1`, `tok"2`))
	if got := r.redact(in); got != want {
		t.Errorf("redact:\n got %q\nwant %q", got, want)
	}
	if got := newRedactor([]string{"abc", ""}); got != nil {
		t.Errorf("values under %d bytes made a redactor", minSecret)
	}
}
