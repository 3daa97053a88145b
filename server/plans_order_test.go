package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// planUpstream is a model platform for the planner: "slow" streams only
// once "mark" (asked by a step that runs after the fast reply) has arrived,
// so the fast step has finished before the slow one writes; "mark" answers
// a chat.completion; "boom" fails with 503. It counts the requests.
func planUpstream(t *testing.T) *llmtest.Model {
	marked := llmtest.NewGate()
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch r.LastMessage().Content {
		case "mark":
			marked.Release()
			return llmtest.Text("marked")
		case "boom":
			return llmtest.JSON(http.StatusServiceUnavailable, `{"error":{"message":"the model is overloaded","type":"server_error"}}`)
		}
		return llmtest.Text("slow ", "text|").Hold(marked)
	}))
}

// TestPlanOutputInStepOrder: steps run in parallel, their output arrives
// in step order: the slow model step's text before the fast reply's, with
// every chunk carrying the response's one id.
func TestPlanOutputInStepOrder(t *testing.T) {
	t.Parallel()
	up := planUpstream(t)
	gw := newGateway(t, withUpstreamURL(up.URL()))
	s := readStream(t, post(t, gw.URL+"/agents/planner", `{"command":"parallel"}`), "[DONE]")
	if errs := s.of("error"); len(errs) > 0 {
		t.Fatalf("error: %s", errs[0].data)
	}
	if got, want := s.text(), "slow text|[fast reply][last: marked]"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	ids := map[string]bool{}
	for _, f := range s.of("chunk") {
		ids[f.chunk.ID] = true
	}
	if len(ids) != 1 || ids[llmtest.ID] {
		t.Errorf("chunk ids %v, want one id of the gateway's", ids)
	}
	if n := up.Count(); n != 2 {
		t.Errorf("the upstream got %d requests, want 2", n)
	}
}

// TestPlanStepFails: a failing step with onError fail ends the plan with
// an in-stream error, after the output of the steps before it and before
// the end frames; the steps after it do not run.
func TestPlanStepFails(t *testing.T) {
	t.Parallel()
	up := planUpstream(t)
	gw := newGateway(t, withUpstreamURL(up.URL()))
	tests := []struct {
		command, code, msg string
		status             int
	}{
		{"fails", "REPOSITORIES_NOT_CONFIGURED", `step "boom": git: this gateway has no repositories configured`, 0},
		{"upstreamfails", apierr.CodeUpstreamError, `step "ask": `, 503},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			s := readStream(t, post(t, gw.URL+"/agents/planner", sprintf(`{"command":%q}`, tt.command)), "[DONE]")
			if got := strings.Join(s.kinds(), " "); got != "chunk error chunk done" {
				t.Fatalf("frames %s, want text, the error, the end frames", got)
			}
			if got := s.text(); got != "before|" {
				t.Errorf("text %q", got)
			}
			e := s.of("error")[0].err
			if e.ErrorCode != tt.code || !strings.Contains(e.Message, tt.msg) || e.RequestID == "" {
				t.Errorf("error %+v, want %s with %q", e, tt.code, tt.msg)
			}
			if e.UpstreamStatus != tt.status {
				t.Errorf("upstreamStatus %d, want %d", e.UpstreamStatus, tt.status)
			}
		})
	}
}
