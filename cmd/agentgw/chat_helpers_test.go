package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// The tests of `agentgw chat` against `agentgw serve` live here, where the
// gateway is wired; chat's own tests (package chat) use fake gateways.

const calcGo = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"

// newCalcDir is a workspace holding calc.go.
func newCalcDir(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "calc.go", calcGo)
	return dir
}

// chatRequest is an agent request as chat sent it.
type chatRequest struct {
	Agent            string `json:"agent"`
	Command          string `json:"command"`
	Model            string `json:"model"`
	ContextVariables []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"contextVariables"`
}

// names lists the context variables in request order.
func (r chatRequest) names() []string {
	var out []string
	for _, v := range r.ContextVariables {
		out = append(out, v.Name)
	}
	return out
}

// value decodes the context variable name into v; false when it is absent.
func (r chatRequest) value(t *testing.T, name string, v any) bool {
	t.Helper()
	for _, cv := range r.ContextVariables {
		if cv.Name == name {
			if err := json.Unmarshal(cv.Value, v); err != nil {
				t.Fatalf("context variable %s: %v", name, err)
			}
			return true
		}
	}
	return false
}

// recorder keeps the agent requests (POST bodies) it saw.
type recorder struct {
	mu       sync.Mutex
	requests []chatRequest
}

// record reads r's body, keeps it and puts it back.
func (rec *recorder) record(t *testing.T, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading the request: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var cr chatRequest
	if err := json.Unmarshal(data, &cr); err != nil {
		t.Errorf("chat sent invalid JSON %q: %v", data, err)
	}
	rec.mu.Lock()
	rec.requests = append(rec.requests, cr)
	rec.mu.Unlock()
}

// last returns the last request, failing when there is none.
func (rec *recorder) last(t *testing.T) chatRequest {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.requests) == 0 {
		t.Fatal("chat sent no agent request")
	}
	return rec.requests[len(rec.requests)-1]
}

// newRecordingProxy forwards to target, recording every agent request.
func newRecordingProxy(t *testing.T, target string) (string, *recorder) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			rec.record(t, r)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// runChat runs `agentgw chat args...` with stdin as its input.
func runChat(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"chat"}, args...), envOf(nil), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// jsonOf renders v for a failure message.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
