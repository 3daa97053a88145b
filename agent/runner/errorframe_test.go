package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
	"github.com/agentgw/agentgw/sse"
)

// runnerErrors are the errors the runner emits inside the stream, one per
// code (and per shape of the upstream's), built the way the runner builds
// them.
func runnerErrors() []struct {
	name string
	err  *apierr.Error
} {
	upstream := func(le *llm.Error) *apierr.Error { return upstreamError(le).(*apierr.Error) }
	step := func(se *plan.StepError) *apierr.Error { return stepError(se) }
	planTimeout := planError(context.Background(), fmt.Errorf("running plan: %w after 2s", plan.ErrPlanTimeout)).(*apierr.Error)
	toolFailed := &apierr.Error{Code: apierr.CodeToolFailed, Status: 500, Source: apierr.SourceServer, Message: `tool "grep": TOOL_FAILED: exit status 2`}
	return []struct {
		name string
		err  *apierr.Error
	}{
		{"UPSTREAM_ERROR status 500", upstream(&llm.Error{Kind: llm.KindStatus, Status: 500, Message: "the engine broke"})},
		{"UPSTREAM_ERROR status 429", upstream(&llm.Error{Kind: llm.KindStatus, Status: 429, Message: "Rate limit reached"})},
		{"UPSTREAM_ERROR status 400", upstream(&llm.Error{Kind: llm.KindStatus, Status: 400, Message: "no such model"})},
		{"UPSTREAM_ERROR mid-stream", upstream(&llm.Error{Kind: llm.KindStream, Message: "The server had an error"})},
		{"UPSTREAM_TIMEOUT", upstream(&llm.Error{Kind: llm.KindTimeout, Message: "no first byte within 30s"})},
		{"UPSTREAM_UNAVAILABLE", upstream(&llm.Error{Kind: llm.KindUnavailable, Message: "cannot connect"})},
		{"UPSTREAM_NOT_CONFIGURED", notConfigured("default")},
		{"TEMPLATE_ERROR", tmpl.RenderError(errors.New(`template: x:1: function "nope" not defined`)).(*apierr.Error)},
		{"STEP_FAILED", step(&plan.StepError{ID: "fetch", Status: plan.Failed, Err: errors.New("boom")})},
		{"TOOL_FAILED of a failed tool step", step(&plan.StepError{ID: "grep", Status: plan.Failed, Err: toolFailed})},
		{"STEP_TIMEOUT of a tool step", step(&plan.StepError{ID: "grep", Status: plan.Timeout, Err: toolFailed})},
		{"STEP_NOT_READY", step(&plan.StepError{ID: "render", Status: plan.Skipped,
			Err: &plan.NotReadyError{Missing: []string{"with.p needs state.perms", "with.q needs state.profile"}}})},
		{"PLAN_TIMEOUT", planTimeout},
		{"TOOL_FAILED", toolFailed},
		{"TOOL_ROUNDS_EXCEEDED", &apierr.Error{Code: apierr.CodeToolRoundsExceeded, Status: 500, Source: apierr.SourceServer,
			Message: "the model kept calling tools for 8 rounds without answering"}},
		{"DECLINED", &apierr.Error{Code: apierr.CodeDeclined, Status: 403, Source: apierr.SourceClient, Message: `the user declined to run tool "deploy"`}},
		{"ACTION_INVALID", &apierr.Error{Code: apierr.CodeActionInvalid, Status: 500, Source: apierr.SourceServer, Message: "a tree node's pId names no node"}},
		{"COMMAND_EMPTY", &apierr.Error{Code: apierr.CodeCommandEmpty, Status: 500, Source: apierr.SourceServer, Message: "nothing to answer"}},
		{"INTERNAL", apierr.Internal(errors.New("a bug"))},
		{"a code of tomorrow, bare", &apierr.Error{Code: "SOMETHING_NEW", Message: "m"}},
	}
}

// TestErrorFramesGolden: every error frame the runner can emit carries
// errorCode, message, recoverable, suggestedAction, requestId and source
// (UPSTREAM_ERROR and STEP_FAILED frames had no suggestedAction, and none
// had a source), whatever built the error; the golden file holds the exact
// frames, and the final chunk after them says finish_reason "error".
func TestErrorFramesGolden(t *testing.T) {
	var out bytes.Buffer
	w := sse.NewWriter(&out, sse.Options{ID: "chatcmpl-42", Model: "happy", Created: 1700000000})
	em := emit.NewSSEEmitter(w, "req-7")
	for _, row := range runnerErrors() {
		if err := errors.Join(w.Comment(row.name), em.Error(row.err)); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(emit.ErrorFrame(row.err, "req-7"))
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"errorCode", "message", "suggestedAction", "requestId", "source"} {
			if s, _ := fields[k].(string); s == "" {
				t.Errorf("%s: %s is %v, want a non-empty string", row.name, k, fields[k])
			}
		}
		if _, ok := fields["recoverable"].(bool); !ok {
			t.Errorf("%s: recoverable is %v", row.name, fields["recoverable"])
		}
		if !strings.HasPrefix(row.name, row.err.Code) && row.err.Code != "SOMETHING_NEW" {
			t.Errorf("row %q builds %s", row.name, row.err.Code)
		}
	}
	if err := em.End(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/frames/errors.sse", out.Bytes())
}

// TestEndChunkAfterError: the final chunk says finish_reason "stop" after
// a run that ended well and "error" after one that sent an error frame
// (it said "stop" either way), and names the model of the upstream's
// chunks, not the one the gateway asked for.
func TestEndChunkAfterError(t *testing.T) {
	tests := []struct {
		name   string
		frames func(em *emit.SSEEmitter) error
	}{
		{"ok", func(em *emit.SSEEmitter) error { return em.Text("hi") }},
		{"error", func(em *emit.SSEEmitter) error {
			return errors.Join(em.Text("hi"), em.Error(upstreamError(&llm.Error{Kind: llm.KindStream, Message: "broke"}).(*apierr.Error)))
		}},
		{"upstream_model_error", func(em *emit.SSEEmitter) error {
			return errors.Join(
				em.Chunk([]byte(`{"id":"up","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"Par"},"finish_reason":null}]}`)),
				em.Error(upstreamError(&llm.Error{Kind: llm.KindStream, Message: "The server had an error"}).(*apierr.Error)))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			em := emit.NewSSEEmitter(sse.NewWriter(&out, sse.Options{ID: "chatcmpl-42", Model: "gpt-4o", Created: 1700000000}), "req-7")
			if err := errors.Join(tt.frames(em), em.End()); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/frames/end_"+tt.name+".sse", out.Bytes())
		})
	}
}
