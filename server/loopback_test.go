package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
)

// localRequest is httptest.NewRequest from a client on loopback (its own
// peer is 192.0.2.1, a remote host).
func localRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr = "127.0.0.1:40000"
	return req
}

// guardedRoutes are the routes a gateway without inbound auth serves only
// on loopback: every object API, /mcp and /metrics.
var guardedRoutes = []struct{ method, path, body string }{
	{"POST", "/contexts", `{}`},
	{"GET", "/contexts/c1", ""},
	{"PATCH", "/contexts/c1", `{}`},
	{"DELETE", "/contexts/c1", ""},
	{"GET", "/contexts/c1/changes", ""},
	{"POST", "/handoffs", `{}`},
	{"GET", "/handoffs/h1", ""},
	{"GET", "/tasks/t1", ""},
	{"GET", "/knowledge-bases", ""},
	{"POST", "/knowledge-bases/kb1/search", `{"query":"q"}`},
	{"GET", "/schedules", ""},
	{"POST", "/schedules", `{}`},
	{"GET", "/schedules/s1", ""},
	{"PATCH", "/schedules/s1", `{}`},
	{"DELETE", "/schedules/s1", ""},
	{"POST", "/schedules/s1/run", ""},
	{"POST", "/mcp", `{}`},
	{"GET", "/mcp", ""},
	{"GET", "/usage", ""},
	{"GET", "/metrics", ""},
}

// withEveryAPI serves every optional API: contexts in memory, /mcp and
// /metrics answering 200, and hand-offs, schedules and knowledge bases
// whose every call fails (nil implementations: reaching one is a 500
// INTERNAL, which shows the request got past the loopback guard).
func withEveryAPI() option {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	return withServer(func(c *server.Config) {
		c.Contexts = conversation.NewStoreRepo(store.NewMemory(), conversation.Config{})
		c.Handoffs = struct{ server.Handoffs }{}
		c.Schedules = struct{ server.Schedules }{}
		c.Knowledge = struct{ server.Knowledge }{}
		c.MCP, c.Metrics = ok, ok
		c.Meter = &fakeMeter{}
	})
}

// serveFrom serves one request from the peer remote, with extra headers.
func serveFrom(h http.Handler, method, path, body, remote string, header ...string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	req.RemoteAddr = remote
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// forbidden reports whether rec is the 403 FORBIDDEN of the loopback guard
// in the protocol's error shape.
func forbidden(t *testing.T, rec *httptest.ResponseRecorder) bool {
	t.Helper()
	if rec.Code != http.StatusForbidden {
		return false
	}
	var e struct {
		Type    string
		Content server.ErrorContent
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Type != "ERROR_RESPONSE" || e.Content.ErrorCode != apierr.CodeForbidden {
		t.Errorf("403 not in the protocol's error shape: %s", rec.Body)
		return false
	}
	return true
}

// TestLoopbackOnlyWithoutAuth: without inbound auth, the object APIs, /mcp
// and /metrics answer 403 FORBIDDEN to a peer that is not on loopback, or
// that a proxy on loopback relays for a remote client; a client on
// loopback gets through. The agent endpoints, /healthz and /v1/ stay open.
// Before, any peer that reached the port listed, made and ran schedules.
func TestLoopbackOnlyWithoutAuth(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, withEveryAPI())
	for _, r := range guardedRoutes {
		for _, peer := range []struct {
			remote string
			header []string
		}{
			{"203.0.113.7:4711", nil},
			{"10.0.0.2:4711", nil},
			{"[2001:db8::1]:4711", nil},
			{"10.0.0.2:4711", []string{"X-Forwarded-For", "127.0.0.1"}},
			{"127.0.0.1:4711", []string{"X-Forwarded-For", "203.0.113.7"}},
			{"127.0.0.1:4711", []string{"X-Forwarded-For", "127.0.0.1, 203.0.113.7"}},
			{"127.0.0.1:4711", []string{"X-Real-Ip", "203.0.113.7"}},
			{"127.0.0.1:4711", []string{"Forwarded", "for=203.0.113.7"}},
		} {
			if rec := serveFrom(h, r.method, r.path, r.body, peer.remote, peer.header...); !forbidden(t, rec) {
				t.Errorf("%s %s from %s %v: %d %s, want 403 FORBIDDEN", r.method, r.path, peer.remote, peer.header, rec.Code, rec.Body)
			}
		}
		for _, peer := range []string{"127.0.0.1:4711", "[::1]:4711", "127.0.0.2:4711"} {
			if rec := serveFrom(h, r.method, r.path, r.body, peer, "X-Forwarded-For", "127.0.0.1"); rec.Code == http.StatusForbidden {
				t.Errorf("%s %s from %s: 403 %s", r.method, r.path, peer, rec.Body)
			}
			if rec := serveFrom(h, r.method, r.path, r.body, peer); rec.Code == http.StatusForbidden {
				t.Errorf("%s %s from %s: 403 %s", r.method, r.path, peer, rec.Body)
			}
		}
	}
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/healthz", ""}, {"GET", "/agents", ""}, {"GET", "/agents/hello", ""}, {"POST", "/agent", helloBody},
	} {
		if rec := serveFrom(h, r.method, r.path, r.body, "203.0.113.7:4711"); rec.Code != http.StatusOK {
			t.Errorf("%s %s from a remote peer: %d %s, want 200", r.method, r.path, rec.Code, rec.Body)
		}
	}
}

// TestLoopbackGuardOffWithAuth: with inbound auth the token decides, from
// any peer: no token is a 401, a valid one gets through.
func TestLoopbackGuardOffWithAuth(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, withEveryAPI(), withAuthTokens("tok"))
	for _, r := range guardedRoutes {
		if rec := serveFrom(h, r.method, r.path, r.body, "203.0.113.7:4711"); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d, want 401", r.method, r.path, rec.Code)
		}
		if rec := serveFrom(h, r.method, r.path, r.body, "203.0.113.7:4711", "Authorization", "Bearer tok"); rec.Code == http.StatusForbidden || rec.Code == http.StatusUnauthorized {
			t.Errorf("%s %s with a token: %d %s", r.method, r.path, rec.Code, rec.Body)
		}
	}
}
