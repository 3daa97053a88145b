package ui

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	h := Handler()
	index, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
		location           string
		body               string
	}{
		{"the page", "GET", "/ui/", 200, "text/html; charset=utf-8", "", string(index)},
		{"no slash redirects, relatively", "GET", "/ui", 301, "", "ui/", ""},
		{"script", "GET", "/ui/app.js", 200, "text/javascript; charset=utf-8", "", ""},
		{"markdown renderer", "GET", "/ui/markdown.js", 200, "text/javascript; charset=utf-8", "", ""},
		{"style", "GET", "/ui/app.css", 200, "text/css; charset=utf-8", "", ""},
		{"icon", "GET", "/ui/favicon.svg", 200, "image/svg+xml", "", ""},
		{"head", "HEAD", "/ui/app.css", 200, "text/css; charset=utf-8", "", ""},
		{"unknown file", "GET", "/ui/nope.js", 404, "", "", ""},
		{"no directory listing", "GET", "/ui/static/", 404, "", "", ""},
		{"no escape", "GET", "/ui/../go.mod", 404, "", "", ""},
		{"elsewhere", "GET", "/uix", 404, "", "", ""},
		{"post refused", "POST", "/ui/", 405, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if got := rec.Header().Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			if tt.status != 200 {
				return
			}
			hd := rec.Header()
			if got := hd.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := hd.Get("Content-Security-Policy"); got != contentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q", got)
			}
			if hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("ETag") == "" {
				t.Errorf("headers %v", hd)
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body differs from the embedded file")
			}
			if tt.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD has a body")
			}
		})
	}
}

// TestHandlerNotModified: the ETag saves sending a file again.
func TestHandlerNotModified(t *testing.T) {
	h := Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/app.js", nil))
	req := httptest.NewRequest("GET", "/ui/app.js", nil)
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec2 := httptest.NewRecorder()
	h.ServeHTTP(rec2, req)
	if rec2.Code != http.StatusNotModified {
		t.Errorf("status %d, want 304", rec2.Code)
	}
}

// TestPageLoadsNothingElse: the page names only its own files (no CDN).
func TestPageLoadsNothingElse(t *testing.T) {
	for _, name := range []string{"static/index.html", "static/app.js", "static/app.css", "static/markdown.js"} {
		data, err := static.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "<script>", "style=\"", "eval("} {
			if strings.Contains(string(data), bad) && !(bad == "https://" && allowedHTTPS(name)) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}

// allowedHTTPS: placeholders and the link-scheme check mention https://.
func allowedHTTPS(name string) bool {
	return name == "static/index.html" || name == "static/markdown.js"
}

var update = flag.Bool("update", false, "rewrite testdata/markdown/*.html")

// TestMarkdown renders testdata/markdown/*.md with the page's renderer in
// Node and compares with the .html beside each (go test -update rewrites
// them). Skipped without node.
func TestMarkdown(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node to run the renderer")
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "markdown", "*.md"))
	if len(files) == 0 {
		t.Fatal("no markdown cases")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, err := exec.Command(node, "-e",
				`process.stdout.write(require("./static/markdown.js")(require("fs").readFileSync(process.argv[1], "utf8")))`, f).Output()
			if err != nil {
				t.Fatalf("node: %v", err)
			}
			golden := strings.TrimSuffix(f, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(want) {
				t.Errorf("rendered\n%s\nwant\n%s", out, want)
			}
		})
	}
}
