package llm_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestObservedCalls: an observed call reports the model, status,
// attempts, chunks, usage (the upstream's, else estimated) and finish
// reason, streamed or not, a retried 503 included.
func TestObservedCalls(t *testing.T) {
	completion, err := os.ReadFile(filepath.Join("testdata", "completion.json"))
	if err != nil {
		t.Fatal(err)
	}
	stream := llmtest.Frames(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":null}`,
		`{"id":"c","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`)
	bare := llmtest.Frames(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	// The usage key spelled with an escape is the same key.
	escaped := llmtest.Frames(`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}`,
		`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":null}`,
		`{"id":"c","choices":[],"\u0075sage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`)
	tests := []struct {
		name     string
		streamed bool
		answers  []llmtest.Reply
		want     string
	}{
		{"usage", true, []llmtest.Reply{stream},
			"upstream end model=m status=200 attempts=1 chunks=3 in=7 out=2 estimated=false finish=length code="},
		{"usage escaped", true, []llmtest.Reply{escaped},
			"upstream end model=m status=200 attempts=1 chunks=3 in=7 out=2 estimated=false finish=length code="},
		{"estimated", true, []llmtest.Reply{bare},
			"upstream end model=m status=200 attempts=1 chunks=2 in=7 out=2 estimated=true finish=stop code="},
		{"retried", true, []llmtest.Reply{status(503), bare},
			"upstream end model=m status=200 attempts=2 chunks=2 in=7 out=2 estimated=true finish=stop code="},
		{"refused", true, []llmtest.Reply{status(400)},
			"upstream end model=m status=400 attempts=1 chunks=0 in=7 out=0 estimated=true finish= code=UPSTREAM_ERROR"},
		{"whole", false, []llmtest.Reply{llmtest.JSON(http.StatusOK, string(completion))}, "upstream end model=m status=200 attempts=1 chunks=1 in=9 out=6 estimated=false finish=stop code="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			last := len(tt.answers) - 1
			up := llmtest.New(t, llmtest.Replies(tt.answers[:last]...), llmtest.Repeat(tt.answers[last]))
			c, err := llm.New(llm.Config{BaseURL: up.URL(), Retry: llm.RetryPolicy{Retries: 1}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &observetest.Recorder{}
			ctx, w := observe.Observers{rec}.Begin(context.Background(), &observe.Request{Source: observe.SourceInternal})
			req := &llm.ChatRequest{Model: "m", Messages: []llm.Message{{Role: "user", Content: "hello there"}}}
			if tt.streamed {
				_, _ = c.Stream(ctx, req, discard{})
			} else if _, err := c.Complete(ctx, req); err != nil {
				t.Fatal(err)
			}
			w.End(observe.Outcome{})
			ev := rec.Events()
			if ev[1] != "upstream m stream="+map[bool]string{true: "true", false: "false"}[tt.streamed]+" messages=1" {
				t.Errorf("start %q", ev[1])
			}
			if ev[2] != tt.want {
				t.Errorf("end\n%s\nwant\n%s", ev[2], tt.want)
			}
		})
	}
}

// status is http.Error's answer: code, a JSON error as plain text.
func status(code int) llmtest.Reply {
	return llmtest.Reply{Status: code, Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"}},
		Body: `{"error":{"message":"no"}}` + "\n"}
}

type discard struct{}

func (discard) Chunk([]byte) error { return nil }
