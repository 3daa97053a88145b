package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// send makes a request with an explicit Content-Type ("" for none) and
// header pairs.
func send(t testing.TB, method, url, contentType string, body io.Reader, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

// onlyReader hides the length of a body so that it is sent chunked.
type onlyReader struct{ io.Reader }

// TestPreStreamErrors: everything refused before the stream starts is an
// ERROR_RESPONSE with the right status, code and a useful message.
func TestPreStreamErrors(t *testing.T) {
	t.Parallel()
	big := `{"agent":"hello","userInputPrompt":"` + strings.Repeat("x", 300) + `"}`
	const editor = `{"agent":"chat","command":"explain","contextVariables":[{"name":"activeEditor","value":{"filePath":"a.go","content":"x","startLine":"1"}}]}`
	tests := []struct {
		name, method, path, contentType string
		body                            io.Reader
		status                          int
		code                            string
		msg                             []string
	}{
		{"not JSON", "POST", "/agent", "text/plain", strings.NewReader(helloBody), 415, apierr.CodeUnsupportedMediaType, []string{"application/json"}},
		{"no content type", "POST", "/agent", "", strings.NewReader(helloBody), 415, apierr.CodeUnsupportedMediaType, nil},
		{"over the limit with Content-Length", "POST", "/agent", "application/json", strings.NewReader(big), 413, apierr.CodePayloadTooLarge, []string{"256"}},
		{"over the limit chunked", "POST", "/agent", "application/json", onlyReader{strings.NewReader(big)}, 413, apierr.CodePayloadTooLarge, []string{"256"}},
		{"malformed JSON", "POST", "/agent", "application/json", strings.NewReader(`{"agent":`), 400, apierr.CodeBadRequest, []string{"JSON"}},
		{"not an object", "POST", "/agent", "application/json", strings.NewReader(`["hello"]`), 400, apierr.CodeBadRequest, nil},
		{"wrong field type", "POST", "/agent", "application/json", strings.NewReader(`{"agent":"hello","command":5}`), 400, apierr.CodeBadRequest, []string{"command", "string", "number"}},
		{"path and body differ", "POST", "/agents/hello", "application/json", strings.NewReader(`{"agent":"chat"}`), 400, apierr.CodeBadRequest, []string{`"hello"`, `"chat"`}},
		{"no agent", "POST", "/agent", "application/json", strings.NewReader(`{}`), 400, apierr.CodeBadRequest, []string{"agent"}},
		{"unknown agent", "POST", "/agent", "application/json", strings.NewReader(`{"agent":"helo"}`), 404, apierr.CodeAgentNotFound, []string{`"helo"`, `did you mean "hello"`}},
		{"unknown command", "POST", "/agents/hello", "application/json", strings.NewReader(`{"command":"versoin"}`), 404, apierr.CodeCommandNotFound, []string{`"versoin"`, `did you mean "version"`}},
		{"wrong variable shape", "POST", "/agent", "application/json", strings.NewReader(editor), 422, apierr.CodeInvalidContext, []string{"activeEditor", "startLine"}},
		{"required variable missing", "POST", "/agents/chat", "application/json", strings.NewReader(`{"command":"explain"}`), 422, apierr.CodeInvalidContext, []string{"activeEditor"}},
		{"malformed action", "POST", "/agents/hello", "application/json", strings.NewReader(`{"action":{"action":"confirm"}}`), 400, apierr.CodeBadRequest, []string{"action"}},
		{"unknown route", "GET", "/nope", "", nil, 404, apierr.CodeNotFound, nil},
		{"unknown route under agents", "POST", "/agents/hello/extra", "application/json", strings.NewReader(helloBody), 404, apierr.CodeNotFound, nil},
		{"wrong method", "DELETE", "/agents/hello", "", nil, 405, apierr.CodeMethodNotAllowed, nil},
	}
	gw := newGateway(t, withBodyLimit(256))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := send(t, tt.method, gw.URL+tt.path, tt.contentType, tt.body)
			c := errorResponse(t, r, tt.status, tt.code)
			for _, m := range tt.msg {
				if !strings.Contains(c.Message, m) {
					t.Errorf("message %q does not mention %q", c.Message, m)
				}
			}
			if c.Details.RequestID != r.header.Get("X-Request-Id") {
				t.Errorf("requestId %q, X-Request-Id %q", c.Details.RequestID, r.header.Get("X-Request-Id"))
			}
			if c.Recoverable {
				t.Errorf("%s is marked recoverable", tt.code)
			}
		})
	}
}

// TestMediaTypeParameters: JSON with parameters is accepted.
func TestMediaTypeParameters(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	for _, ct := range []string{"application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
		readStream(t, send(t, "POST", gw.URL+"/agent", ct, strings.NewReader(helloBody)), "[DONE]")
	}
}

// TestRequestID: a sane X-Request-Id is echoed and used; another is replaced.
func TestRequestID(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	r := post(t, gw.URL+"/agent", `{"agent":"helo"}`, "X-Request-Id", "plugin-req.42:a_b")
	if got := r.header.Get("X-Request-Id"); got != "plugin-req.42:a_b" {
		t.Errorf("X-Request-Id %q, want the client's", got)
	}
	if c := errorResponse(t, r, 404, apierr.CodeAgentNotFound); c.Details.RequestID != "plugin-req.42:a_b" {
		t.Errorf("requestId %q, want the client's", c.Details.RequestID)
	}
	for _, bad := range []string{"has space", strings.Repeat("a", 129), "a/b", "é", "a\tb"} {
		r := post(t, gw.URL+"/agent", helloBody, "X-Request-Id", bad)
		if got := r.header.Get("X-Request-Id"); got == bad || got == "" {
			t.Errorf("X-Request-Id %q came back as %q, want a fresh id", bad, got)
		}
	}
	r = post(t, gw.URL+"/agent", helloBody)
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id made for a request without one")
	}
}

// TestRateLimit: over the limit is 429 RATE_LIMITED, recoverable; health
// checks are not limited.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withRateLimit(0.001, 1))
	readStream(t, post(t, gw.URL+"/agent", helloBody), "[DONE]")
	c := errorResponse(t, post(t, gw.URL+"/agent", helloBody), 429, apierr.CodeRateLimited)
	if !c.Recoverable {
		t.Error("RATE_LIMITED is not recoverable")
	}
	for range 3 {
		if r := get(t, gw.URL+"/healthz"); r.status != 200 {
			t.Errorf("/healthz: %d", r.status)
		}
	}
}

// TestRateLimitForwardedFor: a client cannot dodge the limit by sending a
// made-up X-Forwarded-For; only proxies on private addresses are believed.
func TestRateLimitForwardedFor(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, withRateLimit(0.001, 1))
	for i, xff := range []string{"", "198.51.100.1", "198.51.100.2, 198.51.100.3"} {
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(helloBody))
		req.RemoteAddr = "203.0.113.7:4711"
		req.Header.Set("Content-Type", "application/json")
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if want := map[bool]int{true: 200, false: 429}[i == 0]; rec.Code != want {
			t.Errorf("request %d (X-Forwarded-For %q): status %d, want %d", i, xff, rec.Code, want)
		}
	}
	// Behind a proxy on a private address, clients are told apart.
	for _, xff := range []string{"198.51.100.1", "198.51.100.2"} {
		req := httptest.NewRequest(http.MethodPost, "/agent", strings.NewReader(helloBody))
		req.RemoteAddr = "10.0.0.2:4711"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", xff)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Errorf("client %s behind a proxy: status %d, want 200", xff, rec.Code)
		}
	}
}
