package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Path is where the playground is served: the page at Path+"/", its files
// beside it.
const Path = "/ui"

//go:embed static
var static embed.FS

// contentSecurityPolicy lets the page load only its own files and talk only
// to its own origin: no inline script, no CDN, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one embedded file, ready to serve.
type file struct {
	data        []byte
	contentType string
	etag        string
}

// handler serves the embedded files.
type handler struct {
	files map[string]file
}

// Handler serves the playground under Path: Path itself redirects to
// Path+"/" (so that the page's relative links also work behind a proxy
// that adds a path prefix), Path+"/" is the page, Path+"/{name}" its files.
// Only GET and HEAD are served.
func Handler() http.Handler {
	h := &handler{files: map[string]file{}}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := static.ReadFile(p)
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		sum := sha256.Sum256(data)
		h.files[strings.TrimPrefix(p, "static/")] = file{data: data, contentType: contentType(p),
			etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		// The files are compiled in: failing to read them is a build defect.
		panic(fmt.Sprintf("ui: embedded files: %v", err))
	}
	return h
}

// contentType is the type of an embedded file, by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	}
	return "application/octet-stream"
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Path)
	switch {
	case !ok:
		http.NotFound(w, r)
		return
	case rest == "":
		// Relative, so that a path prefix added by a proxy is kept.
		w.Header().Set("Location", path.Base(Path)+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	case rest == "/":
		rest = "/index.html"
	}
	f, ok := h.files[strings.TrimPrefix(rest, "/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", f.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.data))
}
