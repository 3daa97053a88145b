package recallstage_test

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/knowledge/recallstage"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// okModel is the model of the tests: it answers every request "ok".
func okModel(t *testing.T) *llmtest.Model {
	return llmtest.New(t, llmtest.Repeat(llmtest.Text("ok")))
}

// testRunner builds a runner over the agents in yaml whose one request
// stage is the recall stage over rec, its model up, logging into logs.
func testRunner(t *testing.T, yaml string, up *llmtest.Model, rec recallstage.Recaller) (*runner.Runner, *bytes.Buffer) {
	t.Helper()
	agents, diags := program.Parse("test.yaml", []byte(yaml))
	if diags.Errors() > 0 {
		t.Fatalf("test agents do not load:\n%s", diags)
	}
	c, err := llm.New(llm.Config{BaseURL: up.URL(), FirstByteTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	stages, err := stage.NewRegistry(recallstage.New(rec))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: c, Stages: stages, Logger: log}), &logs
}

// runRequest decodes body, prepares and executes it into a recorder.
func runRequest(t *testing.T, r *runner.Runner, body string) (*emit.Recorder, error) {
	t.Helper()
	req, err := request.Decode([]byte(body))
	if err != nil {
		return nil, err
	}
	run, err := r.Prepare(req)
	if err != nil {
		return nil, err
	}
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	return rec, nil
}
