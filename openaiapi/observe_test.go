package openaiapi_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/metrics"
)

// scrape is the lines of the metrics m holds whose names start with one
// of prefixes.
func scrape(t *testing.T, m *metrics.Metrics, prefixes ...string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var out []string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestObserveErrors: each answer of /v1 is counted with its route, its
// real outcome and code, and its access-log line carries the code (they
// were all outcome="ok", code="", route="/v1/*").
func TestObserveErrors(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		want, log                string
	}{
		{"unknown model", http.MethodPost, "/v1/chat/completions", `{"model":"helo","messages":[{"role":"user","content":"hi"}]}`, 404,
			`agentgw_requests_total{agent="",code="AGENT_NOT_FOUND",command="",outcome="error",route="/v1/chat/completions",source="http"} 1`,
			`code=AGENT_NOT_FOUND`},
		{"missing context", http.MethodPost, "/v1/chat/completions", `{"model":"coder/explain","messages":[{"role":"user","content":"hi"}]}`, 422,
			`agentgw_requests_total{agent="coder",code="INVALID_CONTEXT_VARIABLE",command="explain",outcome="error",route="/v1/chat/completions",source="http"} 1`,
			`code=INVALID_CONTEXT_VARIABLE`},
		{"bad body", http.MethodPost, "/v1/chat/completions", `[]`, 400,
			`agentgw_requests_total{agent="",code="BAD_REQUEST",command="",outcome="error",route="/v1/chat/completions",source="http"} 1`,
			`code=BAD_REQUEST`},
		{"unknown model id", http.MethodGet, "/v1/models/helo", "", 404,
			`agentgw_requests_total{agent="",code="AGENT_NOT_FOUND",command="",outcome="error",route="/v1/models/*",source="http"} 1`,
			`code=AGENT_NOT_FOUND`},
		{"models", http.MethodGet, "/v1/models", "", 200,
			`agentgw_requests_total{agent="",code="",command="",outcome="ok",route="/v1/models",source="http"} 1`,
			`status=200`},
		{"no endpoint", http.MethodGet, "/v1/embeddings", "", 404,
			`agentgw_requests_total{agent="",code="NOT_FOUND",command="",outcome="error",route="/v1/*",source="http"} 1`,
			`code=NOT_FOUND`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := metrics.New(metrics.Options{})
			var logs bytes.Buffer
			gw := start(t, setup{observers: observe.Observers{m}, logger: slog.New(slog.NewTextHandler(&logs, nil))})
			var resp *http.Response
			if tc.method == http.MethodGet {
				resp, _ = gw.get(t, tc.path)
			} else {
				resp, _ = gw.post(t, tc.path, tc.body)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			gw.settled()
			if got := scrape(t, m, "agentgw_requests_total{"); got != tc.want {
				t.Errorf("metrics:\n%s\nwant\n%s", got, tc.want)
			}
			var line string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "msg=request ") {
					line = l
				}
			}
			if !strings.Contains(line, tc.log) {
				t.Errorf("access log line %q lacks %q", line, tc.log)
			}
		})
	}
}

// TestObservePassthrough: a model passed through is counted as an
// upstream call, and an upstream's error answer as the request's error.
func TestObservePassthrough(t *testing.T) {
	m := metrics.New(metrics.Options{})
	fail := llmtest.Repeat(llmtest.JSON(http.StatusTooManyRequests, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`))
	gw := start(t, setup{upstream: fail, passthrough: true, observers: observe.Observers{m}})
	resp, _ := gw.post(t, "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want the upstream's 429", resp.StatusCode)
	}
	gw.settled()
	want := `agentgw_requests_total{agent="",code="UPSTREAM_ERROR",command="",outcome="error",route="/v1/chat/completions",source="http"} 1
agentgw_upstream_requests_total{code="UPSTREAM_ERROR",model="gpt-4o",status="429"} 1`
	if got := scrape(t, m, "agentgw_requests_total{", "agentgw_upstream_requests_total{"); got != want {
		t.Errorf("metrics:\n%s\nwant\n%s", got, want)
	}
}

// TestObservePassthroughTokens: the upstream's usage of a passed-through
// answer, streamed or not, counts in agentgw_tokens_total.
func TestObservePassthroughTokens(t *testing.T) {
	tests := []struct {
		name, stream, contentType, answer string
	}{
		{"json", "false", "application/json",
			`{"id":"up-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`},
		{"stream", "true", "text/event-stream",
			llmtest.SSE(`{"id":"up-1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}],"usage":null}`,
				`{"id":"up-1","object":"chat.completion.chunk","model":"gpt-4o","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := metrics.New(metrics.Options{})
			up := llmtest.Repeat(llmtest.Reply{Header: http.Header{"Content-Type": {tc.contentType}}, Body: tc.answer})
			gw := start(t, setup{upstream: up, passthrough: true, observers: observe.Observers{m}})
			resp, body := gw.post(t, "/v1/chat/completions", `{"model":"gpt-4o","stream":`+tc.stream+`,"messages":[{"role":"user","content":"hi"}]}`)
			if resp.StatusCode != http.StatusOK || body != tc.answer {
				t.Fatalf("%d %s, want the upstream's answer", resp.StatusCode, body)
			}
			gw.settled()
			want := `agentgw_requests_total{agent="",code="",command="",outcome="ok",route="/v1/chat/completions",source="http"} 1
agentgw_tokens_total{agent="",estimated="false",model="gpt-4o",type="input"} 7
agentgw_tokens_total{agent="",estimated="false",model="gpt-4o",type="output"} 3
agentgw_upstream_requests_total{code="",model="gpt-4o",status="200"} 1`
			if got := scrape(t, m, "agentgw_requests_total{", "agentgw_tokens_total{", "agentgw_upstream_requests_total{"); got != want {
				t.Errorf("metrics:\n%s\nwant\n%s", got, want)
			}
		})
	}
}
