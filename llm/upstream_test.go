package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstream is an httptest model platform that records the requests it gets.
type upstream struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recorded
}

type recorded struct {
	header http.Header
	body   []byte
	path   string
	remote string
}

func newUpstream(t testing.TB, handler http.HandlerFunc) *upstream {
	t.Helper()
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.requests = append(u.requests, recorded{header: r.Header.Clone(), body: body, path: r.URL.Path, remote: r.RemoteAddr})
		u.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// last returns the last request received.
func (u *upstream) last(t testing.TB) recorded {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.requests) == 0 {
		t.Fatal("the upstream received no request")
	}
	return u.requests[len(u.requests)-1]
}

// all returns the requests received so far.
func (u *upstream) all() []recorded {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]recorded(nil), u.requests...)
}

// waitCanceled blocks a handler until its request context ends, then sends
// the time it saw that on seen.
func waitCanceled(r *http.Request, seen chan<- time.Time) {
	<-r.Context().Done()
	seen <- time.Now()
}

// replayFile serves testdata/name as an event stream, flushing after each
// blank line as a live upstream would.
func replayFile(t testing.TB, name string) http.HandlerFunc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		replay(w, data)
	}
}

func replay(w http.ResponseWriter, data []byte) {
	rd := bufio.NewReader(bytes.NewReader(data))
	for {
		line, err := rd.ReadBytes('\n')
		_, _ = w.Write(line)
		if s := string(line); s == "\n" || s == "\r\n" || err != nil {
			w.(http.Flusher).Flush()
		}
		if err != nil {
			return
		}
	}
}

// chunkLines returns the JSON chunks of a testdata stream, read without the
// package's reader: every "data: {" line, line end removed.
func chunkLines(t testing.TB, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var chunks []string
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: {"); ok {
			chunks = append(chunks, "{"+rest)
		}
	}
	return chunks
}

// recordSink keeps copies of the chunks it gets; with failAt > 0 the
// failAt-th call fails.
type recordSink struct {
	mu     sync.Mutex
	chunks []string
	failAt int
	calls  int
	// got is signalled after each chunk.
	got chan struct{}
}

var errSinkTest = errors.New("client went away")

func (s *recordSink) Chunk(raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == s.failAt {
		return errSinkTest
	}
	s.chunks = append(s.chunks, string(raw))
	if s.got != nil {
		s.got <- struct{}{}
	}
	return nil
}

func (s *recordSink) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.chunks...)
}

// newTestClient returns a client of u with its own transport, so that no
// connection is shared between tests.
func newTestClient(t testing.TB, u *upstream, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = u.URL + "/v1/"
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient(false)
		t.Cleanup(cfg.HTTPClient.CloseIdleConnections)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// asError asserts that err is an *Error of kind.
func asError(t testing.TB, err error, kind ErrorKind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("error kind %v, want %v (%v)", e.Kind, kind, err)
	}
	return e
}

// okOrTruncated reports whether err is nil or the KindTruncated error of a
// stream that ended its body without a finish_reason or terminator, as the
// batching tests' streams do.
func okOrTruncated(err error) bool {
	var e *Error
	return err == nil || errors.As(err, &e) && e.Kind == KindTruncated
}
