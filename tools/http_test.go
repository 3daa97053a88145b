package tools

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// newHTTPTestServer serves the paths the http tool tests use.
func newHTTPTestServer(t *testing.T, offList string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var params any
		if err := json.Unmarshal(body, &params); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"contentType": r.Header.Get("Content-Type"), "params": params})
	})
	mux.HandleFunc("POST /api/text", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "  plain answer \n")
	})
	mux.HandleFunc("POST /api/fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "backend exploded", http.StatusBadGateway)
	})
	mux.HandleFunc("POST /api/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `"`+strings.Repeat("y", 100)+`"`)
	})
	mux.HandleFunc("POST /api/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/echo", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("POST /api/escape", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, offList, http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("POST /private", func(w http.ResponseWriter, r *http.Request) {
		t.Error("the tool reached a URL off the allow-list")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPTool(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the tool followed a redirect off the allow-list")
	}))
	defer other.Close()
	srv := newHTTPTestServer(t, other.URL+"/steal")
	m := NewManager(Config{HTTPAllow: []string{srv.URL + "/api"}})
	tests := []struct {
		name   string
		path   string
		max    int
		want   any
		code   string
		substr string
	}{
		{"json", "/api/echo", 0, map[string]any{"contentType": "application/json", "params": map[string]any{"q": "x"}}, "", ""},
		{"text", "/api/text", 0, "plain answer", "", ""},
		{"redirect inside the list", "/api/hop", 0, map[string]any{"contentType": "application/json", "params": map[string]any{"q": "x"}}, "", ""},
		{"non-2xx", "/api/fail", 0, nil, toolspec.CodeToolFailed, "HTTP 502: backend exploded"},
		{"too large", "/api/big", 50, nil, toolspec.CodeOutputTooLarge, "50 bytes"},
		{"redirect off the list", "/api/escape", 0, nil, toolspec.CodeNotAllowed, "not in the HTTP allow-list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Name: "h", Description: "d", Runtime: "http", Entry: srv.URL + tc.path, MaxOutputBytes: tc.max, Parameters: declare("q")}
			res := call(mustCompile(t, m, spec, t.TempDir()), map[string]any{"q": "x"})
			if tc.code != "" {
				wantError(t, res, toolspec.StatusError, tc.code, tc.substr)
				return
			}
			wantSuccess(t, res)
			if !reflect.DeepEqual(res.Result, tc.want) {
				t.Errorf("result %#v, want %#v", res.Result, tc.want)
			}
		})
	}
}

func TestHTTPAllowListAtLoad(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{HTTPAllow: []string{"http://127.0.0.1:9/api", "https://tools.example/v1/", "not a url"}})
	tests := []struct {
		entry string
		ok    bool
	}{
		{"http://127.0.0.1:9/api", true},
		{"http://127.0.0.1:9/api/x?y=1", true},
		{"HTTP://127.0.0.1:9/api/x", true},
		{"https://tools.example:443/v1/run", true},
		{"https://tools.example/v1", false},
		{"http://127.0.0.1:9/apix", false},
		{"http://127.0.0.1:9/api/../admin", false},
		{"http://127.0.0.1:9/", false},
		{"http://127.0.0.1:10/api", false},
		{"https://127.0.0.1:9/api", false},
		{"http://tools.example/v1/run", false},
		{"ftp://127.0.0.1:9/api", false},
		{"http://127.0.0.1:9@evil.example/api", false},
		{"http://127.0.0.1:9@127.0.0.1:10/api", false},
		{"http://127.0.0.1:9/api/%2e%2e/admin", false},
		{"http://127.0.0.1:9/api/..;/admin", false},
		{"http://127.0.0.1:9/api%2f..%2fadmin", false},
		{"http://[::ffff:127.0.0.1]:9/api/x", true},
	}
	for _, tc := range tests {
		_, _, err := m.Compile(Spec{Name: "h", Runtime: "http", Entry: tc.entry}, t.TempDir())
		if tc.ok != (err == nil) {
			t.Errorf("entry %s: err %v, want ok=%v", tc.entry, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "allow-list") {
			t.Errorf("entry %s: error %q does not name the allow-list", tc.entry, err)
		}
	}
}
