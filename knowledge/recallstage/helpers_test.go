package recallstage_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/knowledge/recallstage"
	"github.com/agentgw/agentgw/llm"
)

// fakeUpstream records chat completion requests and answers each with a
// stream of one chunk, "ok".
type fakeUpstream struct {
	mu     sync.Mutex
	bodies [][]byte
	srv    *httptest.Server
}

func newFakeUpstream(t *testing.T) *fakeUpstream {
	f := &fakeUpstream{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"up-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"ok"}}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// last is the body of the last request.
func (f *fakeUpstream) last() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		return nil
	}
	return f.bodies[len(f.bodies)-1]
}

// testRunner builds a runner over the agents in yaml whose one request
// stage is the recall stage over rec, its model up, logging into logs.
func testRunner(t *testing.T, yaml string, up *fakeUpstream, rec recallstage.Recaller) (*runner.Runner, *bytes.Buffer) {
	t.Helper()
	agents, diags := runner.Parse("test.yaml", []byte(yaml))
	if diags.Errors() > 0 {
		t.Fatalf("test agents do not load:\n%s", diags)
	}
	c, err := llm.New(llm.Config{BaseURL: up.srv.URL, FirstByteTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	stages, err := stage.NewRegistry(recallstage.New(rec))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return runner.NewRunner(runner.NewRegistry(agents), runner.RunnerConfig{LLM: c, Stages: stages, Logger: log}), &logs
}

// runRequest decodes body, prepares and executes it into a recorder.
func runRequest(t *testing.T, r *runner.Runner, body string) (*runner.Recorder, error) {
	t.Helper()
	req, err := runner.DecodeRequest([]byte(body))
	if err != nil {
		return nil, err
	}
	run, err := r.Prepare(req)
	if err != nil {
		return nil, err
	}
	rec := &runner.Recorder{}
	run.Execute(t.Context(), rec)
	return rec, nil
}
