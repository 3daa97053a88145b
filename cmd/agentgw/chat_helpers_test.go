package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
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

// newRecordingProxy forwards to target, recording every agent request.
func newRecordingProxy(t *testing.T, target string) (string, *chattest.Recorder) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	rec := &chattest.Recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			rec.Record(t, r)
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
