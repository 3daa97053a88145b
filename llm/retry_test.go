package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// script serves the i-th request with steps[i], the last step again for
// any further request.
func script(steps ...llmtest.Reply) []llmtest.Option {
	return []llmtest.Option{llmtest.Replies(steps[:len(steps)-1]...), llmtest.Repeat(steps[len(steps)-1])}
}

// status answers code with an OpenAI error body and the headers kv.
func status(code int, kv ...string) llmtest.Reply {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return llmtest.Reply{Status: code, Header: h, Body: fmt.Sprintf(`{"error":{"message":"status %d"}}`, code)}
}

// hangUp closes the connection without an answer: a connection failure.
var hangUp = llmtest.Reply{Before: []llmtest.Event{llmtest.Abort()}}

// success streams two chunks, the last with a finish_reason, and [DONE];
// to a request that does not stream it answers a chat.completion.
var success = llmtest.Reply{
	Header:    http.Header{"Content-Type": {"text/event-stream"}},
	Events:    llmtest.Frames(testChunk, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`).Events,
	NonStream: &llmtest.Reply{Body: `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`},
}

// modelsAsked returns the "model" of each request the upstream received.
func modelsAsked(t *testing.T, u *llmtest.Model) []string {
	t.Helper()
	var models []string
	for _, r := range u.Requests() {
		var b struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatalf("request body %s: %v", r.Body, err)
		}
		models = append(models, b.Model)
	}
	return models
}

// fakeClock replaces a client's sleep and jitter: sleeps are recorded and
// return at once, and the jitter is none (each wait is its whole backoff).
type fakeClock struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (f *fakeClock) install(c *Client) {
	c.jitter = func(d time.Duration) time.Duration { return d }
	c.sleep = func(ctx context.Context, d time.Duration) error {
		f.mu.Lock()
		f.sleeps = append(f.sleeps, d)
		f.mu.Unlock()
		return ctx.Err()
	}
}

func (f *fakeClock) slept() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sleeps)
}

// TestRetries asserts the exact attempts an upstream receives (the model
// of each) and the waits between them, for the streamed and the
// non-streamed call.
func TestRetries(t *testing.T) {
	policy := RetryPolicy{Retries: 2, Backoff: 100 * time.Millisecond, MaxBackoff: 150 * time.Millisecond}
	tests := []struct {
		name      string
		steps     []llmtest.Reply
		cfg       Config
		fallbacks []string // the request's; nil: the config's
		models    []string
		sleeps    []time.Duration
		status    int // of the error returned, 0 for success
		kind      ErrorKind
	}{
		{name: "429 then success", steps: []llmtest.Reply{status(429), success},
			models: []string{"m", "m"}, sleeps: []time.Duration{100 * time.Millisecond}},
		{name: "Retry-After in seconds", steps: []llmtest.Reply{status(429, "Retry-After", "3"), success},
			cfg: Config{FirstByteTimeout: time.Minute}, models: []string{"m", "m"}, sleeps: []time.Duration{3 * time.Second}},
		{name: "retry-after-ms", steps: []llmtest.Reply{status(503, "Retry-After-Ms", "1500"), success},
			cfg: Config{FirstByteTimeout: time.Minute}, models: []string{"m", "m"}, sleeps: []time.Duration{1500 * time.Millisecond}},
		{name: "Retry-After shorter than the backoff", steps: []llmtest.Reply{status(429, "Retry-After", "0"), success},
			models: []string{"m", "m"}, sleeps: []time.Duration{100 * time.Millisecond}},
		{name: "connection failure then success", steps: []llmtest.Reply{hangUp, success},
			models: []string{"m", "m"}, sleeps: []time.Duration{100 * time.Millisecond}},
		{name: "retries spent, then the config's fallbacks in order",
			steps: []llmtest.Reply{status(500), status(502), status(503), status(500), success},
			cfg:   Config{FallbackModels: []string{"f1", "m", "f2"}},
			// the backoff doubles up to MaxBackoff; a fallback is tried
			// at once, and the model asked for is not tried again
			models: []string{"m", "m", "m", "f1", "f1"},
			sleeps: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 100 * time.Millisecond}},
		{name: "every model fails", steps: []llmtest.Reply{status(500)},
			cfg:    Config{FallbackModels: []string{"f1"}},
			models: []string{"m", "m", "m", "f1", "f1", "f1"}, status: 500, kind: KindStatus,
			sleeps: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond}},
		// without a first-byte timeout a wait is at most MaxBackoff: 1s is
		// too long, the fallback goes at once
		{name: "the request's fallbacks win over the config's", steps: []llmtest.Reply{status(429, "Retry-After", "1"), success},
			cfg: Config{FallbackModels: []string{"g"}}, fallbacks: []string{"r"},
			models: []string{"m", "r"}},
		{name: "an empty request list means no fallback", steps: []llmtest.Reply{status(429)},
			cfg: Config{FallbackModels: []string{"g"}}, fallbacks: []string{},
			models: []string{"m", "m", "m"}, status: 429, kind: KindStatus,
			sleeps: []time.Duration{100 * time.Millisecond, 150 * time.Millisecond}},
		{name: "Retry-After past the first-byte deadline: the fallback at once",
			steps:  []llmtest.Reply{status(429, "Retry-After", "120"), success},
			cfg:    Config{FirstByteTimeout: time.Minute, FallbackModels: []string{"f1"}},
			models: []string{"m", "f1"}},
		{name: "Retry-After past the deadline, no fallback", steps: []llmtest.Reply{status(429, "Retry-After", "120"), success},
			cfg:    Config{FirstByteTimeout: time.Minute},
			models: []string{"m"}, status: 429, kind: KindStatus},
		{name: "400 is not retried", steps: []llmtest.Reply{status(400)},
			cfg:    Config{FallbackModels: []string{"f1"}},
			models: []string{"m"}, status: 400, kind: KindStatus},
		{name: "401 is not retried", steps: []llmtest.Reply{status(401)},
			models: []string{"m"}, status: 401, kind: KindStatus},
	}
	for _, tt := range tests {
		for _, streamed := range []bool{true, false} {
			name := tt.name + map[bool]string{true: ", streamed", false: ", complete"}[streamed]
			t.Run(name, func(t *testing.T) {
				u := newUpstream(t, script(tt.steps...)...)
				cfg := tt.cfg
				cfg.Retry = policy
				c := newTestClient(t, u, cfg)
				clock := &fakeClock{}
				clock.install(c)
				req := &ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}, FallbackModels: tt.fallbacks}
				var err error
				if streamed {
					var res Result
					res, err = c.Stream(context.Background(), req, &recordSink{})
					if err == nil && (res.Model != tt.models[len(tt.models)-1] || res.Attempts != len(tt.models)) {
						t.Errorf("Result model %q after %d attempts, want %q after %d", res.Model, res.Attempts, tt.models[len(tt.models)-1], len(tt.models))
					}
				} else {
					var text string
					text, err = c.Complete(context.Background(), req)
					if err == nil && text != "ok" {
						t.Errorf("Complete = %q", text)
					}
				}
				if tt.kind == 0 && err != nil {
					t.Fatalf("error %v", err)
				}
				if tt.kind != 0 {
					if e := asError(t, err, tt.kind); e.Status != tt.status {
						t.Errorf("error %v, want status %d", e, tt.status)
					}
				}
				if got := modelsAsked(t, u); !slices.Equal(got, tt.models) {
					t.Errorf("the upstream was asked for %q, want %q", got, tt.models)
				}
				if got := clock.slept(); !slices.Equal(got, tt.sleeps) {
					t.Errorf("waits %v, want %v", got, tt.sleeps)
				}
			})
		}
	}
}

// TestNoRetryAfterFirstChunk: a stream that fails after a chunk reached
// the sink is not tried again, whatever the failure.
func TestNoRetryAfterFirstChunk(t *testing.T) {
	for _, tail := range []string{
		"data: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n",
		"", // the body ends: truncated
	} {
		u := newUpstream(t, llmtest.Repeat(llmtest.Stream(llmtest.Data(testChunk), llmtest.Raw(tail))))
		c := newTestClient(t, u, Config{Retry: RetryPolicy{Retries: 3}, FallbackModels: []string{"f"}})
		clock := &fakeClock{}
		clock.install(c)
		sink := &recordSink{}
		if _, err := c.Stream(context.Background(), simpleRequest, sink); err == nil {
			t.Fatal("no error")
		}
		if n := len(u.Requests()); n != 1 || len(sink.list()) != 1 || len(clock.slept()) != 0 {
			t.Errorf("%d upstream requests, %d chunks relayed, waits %v; want 1, 1, none", n, len(sink.list()), clock.slept())
		}
	}
}

// TestRetryLogs: each retry and fallback is logged at WARN with the model
// and the failure.
func TestRetryLogs(t *testing.T) {
	u := newUpstream(t, script(status(503), status(503), success)...)
	var logs syncbuf.Buffer
	c := newTestClient(t, u, Config{Retry: RetryPolicy{Retries: 1}, FallbackModels: []string{"f"},
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	(&fakeClock{}).install(c)
	if _, err := c.Stream(context.Background(), &ChatRequest{Model: "m"}, &recordSink{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	want := []string{
		`level=WARN msg="upstream call failed; retrying" model=m retry=1 wait=500ms error="upstream status 503: status 503"`,
		`level=WARN msg="upstream call failed; trying a fallback model" model=m fallback=f error="upstream status 503: status 503"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s", logs.String())
	}
	for i, l := range lines {
		if _, rest, _ := strings.Cut(l, " "); rest != want[i] { // the time first
			t.Errorf("log line %q, want %q", rest, want[i])
		}
	}
}

// TestRetryWaitEndsWithTheCaller: the caller going away during a wait ends
// the call as canceled, without another attempt.
func TestRetryWaitEndsWithTheCaller(t *testing.T) {
	u := newUpstream(t, llmtest.Repeat(status(429)))
	c := newTestClient(t, u, Config{Retry: RetryPolicy{Retries: 3}})
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepContext(ctx, d)
	}
	_, err := c.Stream(ctx, simpleRequest, &recordSink{})
	asError(t, err, KindCanceled)
	if n := len(u.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{cfg: Config{Retry: RetryPolicy{Backoff: time.Second, MaxBackoff: 5 * time.Second}}}
	c.jitter = func(d time.Duration) time.Duration { return 0 } // the least wait: half
	var got []time.Duration
	for n := range 5 {
		got = append(got, c.backoff(n, 0))
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 2500 * time.Millisecond, 2500 * time.Millisecond}
	if !slices.Equal(got, want) {
		t.Errorf("least waits %v, want %v", got, want)
	}
	if got := c.backoff(0, 7*time.Second); got != 7*time.Second {
		t.Errorf("with Retry-After 7s: %v", got)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"x"}, "Retry-After": {"9"}}, 9 * time.Second},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h, now); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestRetryPolicyChecked(t *testing.T) {
	for _, p := range []RetryPolicy{{Retries: -1}, {Retries: MaxRetries + 1}, {Backoff: -time.Second}, {MaxBackoff: -1}} {
		if _, err := New(Config{BaseURL: "http://x", Retry: p}); err == nil {
			t.Errorf("New accepted %+v", p)
		}
	}
}
