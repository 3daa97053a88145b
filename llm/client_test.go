package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
)

func TestNew(t *testing.T) {
	tests := []struct {
		cfg     Config
		ok      bool
		baseURL string
	}{
		{Config{BaseURL: "https://api.example.com/v1"}, true, "https://api.example.com/v1"},
		{Config{BaseURL: "http://127.0.0.1:8080/v1/"}, true, "http://127.0.0.1:8080/v1"},
		{Config{BaseURL: "https://api.example.com", Auth: AuthKey, APIKey: "k"}, true, "https://api.example.com"},
		{Config{BaseURL: ""}, false, ""},
		{Config{BaseURL: "/v1"}, false, ""},
		{Config{BaseURL: "api.example.com/v1"}, false, ""},
		{Config{BaseURL: "ftp://example.com"}, false, ""},
		{Config{BaseURL: "http://"}, false, ""},
		{Config{BaseURL: "http://a b"}, false, ""},
		{Config{BaseURL: "https://api.example.com", Auth: AuthKey}, false, ""},
		{Config{BaseURL: "https://api.example.com", Auth: "oauth"}, false, ""},
	}
	for _, tt := range tests {
		c, err := New(tt.cfg)
		if (err == nil) != tt.ok {
			t.Errorf("New(%+v) error = %v, want ok=%v", tt.cfg, err, tt.ok)
			continue
		}
		if tt.ok && c.BaseURL() != tt.baseURL {
			t.Errorf("BaseURL() = %q, want %q", c.BaseURL(), tt.baseURL)
		}
	}
}

func TestNewErrorDoesNotLeakKey(t *testing.T) {
	_, err := New(Config{BaseURL: "https://x", Auth: "nope", APIKey: "sk-secret"})
	if err == nil || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("error %v", err)
	}
}

func TestComplete(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "completion.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := newUpstream(t, llmtest.Repeat(llmtest.JSON(http.StatusOK, string(answer))))
	req := &ChatRequest{
		Model:    "gpt-4o",
		Messages: []Message{{Role: "user", Content: "hi"}},
		Extra:    []Field{{Key: "vendor_flag", Value: json.RawMessage(`{"x":1}`)}},
		Header:   http.Header{"Authorization": {"Bearer plugin"}, "X-Trace": {"t"}},
	}
	got, err := newTestClient(t, u, Config{}).Complete(context.Background(), req)
	if err != nil || got != "Hello from a non-streaming upstream" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	sent := u.Last(t)
	if want := `{"vendor_flag":{"x":1},"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"stream":false}`; string(sent.Body) != want {
		t.Errorf("body %s, want %s", sent.Body, want)
	}
	if sent.Path != "/v1/chat/completions" || sent.Header.Get("Authorization") != "Bearer plugin" ||
		sent.Header.Get("X-Trace") != "t" || sent.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s with headers %v", sent.Path, sent.Header)
	}
}

func TestCompleteKeyMode(t *testing.T) {
	u := newUpstream(t, llmtest.Repeat(plain(http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`)))
	req := &ChatRequest{Header: http.Header{"Authorization": {"Bearer plugin"}, "X-Trace": {"t"}}}
	got, err := newTestClient(t, u, Config{Auth: AuthKey, APIKey: "sk-1"}).Complete(context.Background(), req)
	if err != nil || got != "ok" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	if h := u.Last(t).Header; h.Get("Authorization") != "Bearer sk-1" || h.Get("X-Trace") != "" {
		t.Errorf("headers %v", h)
	}
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name    string
		reply   llmtest.Reply
		cfg     Config
		kind    ErrorKind
		status  int
		message string
	}{
		{"429 OpenAI JSON", plain(429, `{"error":{"message":"Rate limit reached","type":"requests"}}`),
			Config{}, KindStatus, 429, "Rate limit reached"},
		{"500 plain text", plain(500, "boom\n"), Config{}, KindStatus, 500, "boom"},
		{"no choices", plain(200, `{"choices":[]}`), Config{}, KindStream, 0, "the upstream answered without any choice"},
		{"not JSON", llmtest.Reply{Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: `<html>`},
			Config{}, KindStream, 0, "the upstream answer is not a chat completion"},
		{"timeout", llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}},
			Config{FirstByteTimeout: 30 * time.Millisecond}, KindTimeout, 0, "first-byte timeout of 30ms exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, llmtest.Repeat(tt.reply))
			_, err := newTestClient(t, u, tt.cfg).Complete(context.Background(), simpleRequest)
			e := asError(t, err, tt.kind)
			if e.Status != tt.status || e.Message != tt.message {
				t.Errorf("got %d %q, want %d %q", e.Status, e.Message, tt.status, tt.message)
			}
		})
	}
}

func TestCompleteCanceled(t *testing.T) {
	u := newUpstream(t, llmtest.Repeat(llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err := newTestClient(t, u, Config{}).Complete(ctx, simpleRequest)
	if e := asError(t, err, KindCanceled); !errors.Is(e, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", e)
	}
}

func TestCompleteUnavailable(t *testing.T) {
	u := newUpstream(t)
	c := newTestClient(t, u, Config{})
	u.Close()
	_, err := c.Complete(context.Background(), simpleRequest)
	asError(t, err, KindUnavailable)
}

// TestHTTP2Cleartext: with HTTP2Cleartext the stream reaches an h2c
// upstream over HTTP/2.
func TestHTTP2Cleartext(t *testing.T) {
	var proto atomic.Value
	// Not llmtest: the server must speak h2c, which llmtest's does not.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(llmtest.SSE(`{"id":"x","choices":[{"index":0,"delta":{"content":"hi"}}]}`)))
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, HTTP2Cleartext: true})
	if err != nil {
		t.Fatal(err)
	}
	var sink recordSink
	if _, err := c.Stream(t.Context(), &ChatRequest{Model: "m"}, &sink); err != nil {
		t.Fatal(err)
	}
	if got := proto.Load(); got != "HTTP/2.0" {
		t.Fatalf("upstream saw %v, want HTTP/2.0", got)
	}
}
