package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestAuth: with tokens configured a request needs one, in either header;
// the gateway's token is never forwarded upstream.
func TestAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		status int
		// upstreamAuth is the Authorization the upstream must see.
		upstreamAuth string
	}{
		{"no token", nil, 401, ""},
		{"wrong bearer", []string{"Authorization", "Bearer nope"}, 401, ""},
		{"wrong header token", []string{"X-Agentgw-Token", "nope"}, 401, ""},
		{"token not bearer", []string{"Authorization", "gw-token"}, 401, ""},
		{"bearer token", []string{"Authorization", "Bearer gw-token"}, 200, ""},
		{"header token", []string{"X-Agentgw-Token", "gw-token", "Authorization", "Bearer plugin-key"}, 200, "Bearer plugin-key"},
		{"second token", []string{"X-Agentgw-Token", "other-token"}, 200, ""},
		{"stale header token, right bearer", []string{"X-Agentgw-Token", "stale", "Authorization", "Bearer gw-token"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, withAuthTokens("gw-token", "other-token"), withUpstream(replay(t, "normal.sse")))
			r := post(t, gw.URL+"/agents/chat", `{}`, tt.header...)
			if tt.status == 401 {
				errorResponse(t, r, 401, apierr.CodeUnauthorized)
				if r.header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
				if gw.up.Count() != 0 {
					t.Error("an unauthenticated request reached the upstream")
				}
				return
			}
			readStream(t, r, "[DONE]")
			rec := gw.up.Only(t)
			for name, values := range rec.Header {
				for _, v := range values {
					if strings.Contains(v, "gw-token") || strings.Contains(v, "other-token") {
						t.Errorf("the upstream saw the gateway token in %s: %q", name, v)
					}
				}
			}
			if got := rec.Header.Get("X-Agentgw-Token"); got != "" {
				t.Errorf("the upstream saw X-Agentgw-Token %q", got)
			}
			if got := rec.Header.Get("Authorization"); got != tt.upstreamAuth {
				t.Errorf("the upstream saw Authorization %q, want %q", got, tt.upstreamAuth)
			}
		})
	}
	t.Run("other routes", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withAuthTokens("gw-token"))
		errorResponse(t, get(t, gw.URL+"/agents"), 401, apierr.CodeUnauthorized)
		errorResponse(t, get(t, gw.URL+"/agents/hello"), 401, apierr.CodeUnauthorized)
		if r := get(t, gw.URL+"/healthz"); r.status != 200 {
			t.Errorf("/healthz needs no token, got %d", r.status)
		}
	})
}

// pluginHeaders are what a plugin sends besides Content-Type.
var pluginHeaders = []string{
	"Authorization", "Bearer plugin-key",
	"X-Foo", "bar",
	"Accept-Encoding", "br",
	"Connection", "X-Hop",
	"X-Hop", "hop-secret",
	"Proxy-Authorization", "Basic cHJveHk6c2VjcmV0",
	"Te", "trailers",
}

// TestForwardHeaders: in forward mode the upstream sees the plugin's
// end-to-end headers and none of the hop-by-hop or transport ones; in key
// mode it sees only the gateway's key.
func TestForwardHeaders(t *testing.T) {
	t.Parallel()
	t.Run("forward", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
		readStream(t, post(t, gw.URL+"/agents/chat", `{"temperature":1}`, pluginHeaders...), "[DONE]")
		rec := gw.up.Only(t)
		want := map[string]string{
			"Authorization": "Bearer plugin-key", "X-Foo": "bar", "Content-Type": "application/json",
			"Accept-Encoding": "", "X-Hop": "", "Proxy-Authorization": "", "Te": "",
		}
		checkHeaders(t, rec.Header, want)
		checkTransport(t, gw, rec)
	})
	t.Run("key", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t, withUpstream(replay(t, "normal.sse")), withLLM(func(c *llm.Config) {
			c.Auth, c.APIKey = llm.AuthKey, "sk-gateway"
		}))
		readStream(t, post(t, gw.URL+"/agents/chat", `{}`, pluginHeaders...), "[DONE]")
		rec := gw.up.Only(t)
		checkHeaders(t, rec.Header, map[string]string{
			"Authorization": "Bearer sk-gateway", "X-Foo": "", "Accept-Encoding": "", "X-Hop": "", "Proxy-Authorization": "",
		})
		checkTransport(t, gw, rec)
	})
}

func checkHeaders(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := strings.Join(h.Values(k), ", "); got != v {
			t.Errorf("the upstream saw %s %q, want %q", k, got, v)
		}
	}
}

// checkTransport: Host and Content-Length are the upstream call's own.
func checkTransport(t *testing.T, gw *gateway, rec llmtest.Request) {
	t.Helper()
	if want := strings.TrimPrefix(gw.up.URL(), "http://"); rec.Host != want {
		t.Errorf("the upstream saw Host %q, want its own %q", rec.Host, want)
	}
	if rec.ContentLength != int64(len(rec.Body)) {
		t.Errorf("the upstream saw Content-Length %d for a body of %d bytes", rec.ContentLength, len(rec.Body))
	}
}
