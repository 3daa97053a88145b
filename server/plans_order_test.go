package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// planUpstream is a model platform for the planner: "slow" streams only
// once "mark" (asked by a step that runs after the fast reply) has arrived,
// so the fast step has finished before the slow one writes; "mark" answers
// a chat.completion; "boom" fails with 503. It counts the requests.
func planUpstream(t *testing.T) (string, *atomic.Int32) {
	marked := make(chan struct{})
	var once sync.Once
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		var body struct {
			Stream   bool                       `json:"stream"`
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		switch prompt := body.Messages[len(body.Messages)-1].Content; prompt {
		case "mark":
			once.Do(func() { close(marked) })
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"marked"},"finish_reason":"stop"}]}`)
		case "boom":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"the model is overloaded","type":"server_error"}}`)
		default:
			select {
			case <-marked:
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for _, part := range []string{"slow ", "text|"} {
				fmt.Fprintf(w, "data: {\"id\":\"up\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":null}]}\n\n", part)
				w.(http.Flusher).Flush()
			}
			fmt.Fprint(w, "data: {\"id\":\"up\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// TestPlanOutputInStepOrder: steps run in parallel, their output arrives
// in step order: the slow model step's text before the fast reply's, with
// every chunk carrying the response's one id.
func TestPlanOutputInStepOrder(t *testing.T) {
	t.Parallel()
	up, requests := planUpstream(t)
	gw := newGateway(t, withUpstreamURL(up))
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
	if len(ids) != 1 || ids["up"] {
		t.Errorf("chunk ids %v, want one id of the gateway's", ids)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("the upstream got %d requests, want 2", n)
	}
}

// TestPlanStepFails: a failing step with onError fail ends the plan with
// an in-stream error, after the output of the steps before it and before
// the end frames; the steps after it do not run.
func TestPlanStepFails(t *testing.T) {
	t.Parallel()
	up, _ := planUpstream(t)
	gw := newGateway(t, withUpstreamURL(up))
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
