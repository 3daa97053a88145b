package llm

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// newUpstream starts a fake model platform (llmtest) with the options.
func newUpstream(t testing.TB, opts ...llmtest.Option) *llmtest.Model {
	t.Helper()
	return llmtest.New(t, opts...)
}

// plain is an answer with the status and the body as text/plain, as a
// server that does not label its answers sends them (net/http sniffs
// them as text).
func plain(status int, body string) llmtest.Reply {
	return llmtest.Reply{Status: status, Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, Body: body}
}

// chunks are n events of testChunk.
func chunks(n int) []llmtest.Event {
	out := make([]llmtest.Event, n)
	for i := range out {
		out[i] = llmtest.Data(testChunk)
	}
	return out
}

// replayFile serves testdata/name as an event stream to every request,
// flushing after each blank line as a live upstream would.
func replayFile(t testing.TB, name string) llmtest.Option {
	t.Helper()
	return llmtest.Repeat(llmtest.Replay(t, filepath.Join("testdata", name)))
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
func newTestClient(t testing.TB, u *llmtest.Model, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = u.URL() + "/v1/"
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
