package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUIMount: the playground's files are served without a token (a
// browser cannot send one to load a page); the API it calls is not. GET /
// redirects to the playground when it is on, and is 404 when it is not.
func TestUIMount(t *testing.T) {
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("page " + r.URL.Path))
	})
	tests := []struct {
		name   string
		cfg    Config
		path   string
		status int
		body   string
	}{
		{"page without a token", Config{UI: ui, AuthTokens: []string{"tok"}}, "/ui/", 200, "page /ui/"},
		{"bare path", Config{UI: ui, AuthTokens: []string{"tok"}}, "/ui", 200, "page /ui"},
		{"a file", Config{UI: ui, AuthTokens: []string{"tok"}}, "/ui/app.js", 200, "page /ui/app.js"},
		{"the API still needs one", Config{UI: ui, AuthTokens: []string{"tok"}}, "/agents", 401, ""},
		{"no UI configured", Config{AuthTokens: []string{"tok"}}, "/ui/", 401, ""},
		{"no UI, no auth", Config{}, "/ui/", 404, ""},
		{"root to the playground", Config{UI: ui}, "/", 302, ""},
		{"root to the playground without a token", Config{UI: ui, AuthTokens: []string{"tok"}}, "/", 302, ""},
		{"root without the playground", Config{}, "/", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			New(tt.cfg).Handler().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if loc := rec.Header().Get("Location"); (tt.status == 302) != (loc == "ui/") {
				t.Errorf("Location %q, want %q on a redirect only", loc, "ui/")
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body %q, want %q", rec.Body, tt.body)
			}
		})
	}
}
