package server_test

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
)

// confirmState runs the hello agent and returns the state of its confirm.
func confirmState(t *testing.T, gw *gateway) string {
	t.Helper()
	s := readStream(t, post(t, gw.URL+"/agent", helloBody), "[DONE]")
	acts := s.of("action")
	if len(acts) != 1 {
		t.Fatalf("%d actions, want 1", len(acts))
	}
	var state string
	if err := json.Unmarshal(acts[0].action.State, &state); err != nil {
		t.Fatalf("state %s: %v", acts[0].action.State, err)
	}
	return state
}

// feedback is a confirm feedback request body.
func feedback(state string, accepted bool) string {
	st, _ := json.Marshal(state)
	return sprintf(`{"action":{"action":"confirm","state":%s,"accepted":%v}}`, st, accepted)
}

// TestFeedbackRoundTrip: the state of a confirm, echoed back as a dismissal,
// gets a polite, complete stream.
func TestFeedbackRoundTrip(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	state := confirmState(t, gw)
	for _, path := range []string{"/agents/hello", "/agent"} {
		body := feedback(state, false)
		if path == "/agent" {
			body = `{"agent":"hello",` + body[1:]
		}
		s := readStream(t, post(t, gw.URL+path, body), "[DONE]")
		if got := strings.Join(s.kinds(), " "); got != "chunk chunk done" {
			t.Fatalf("frames %s, want a text chunk and the end frames", got)
		}
		if got := s.text(); got != "OK, nothing was done." {
			t.Errorf("text %q", got)
		}
	}
}

// TestStateInvalid: a forged, tampered, expired or foreign state is refused
// with STATE_INVALID before the stream starts.
func TestStateInvalid(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	gw := newGateway(t, withSigner(actions.NewSigner(testSecret, time.Hour).WithClock(clock)))
	state := confirmState(t, gw)
	forged, err := actions.NewSigner([]byte("another-secret"), time.Hour).Sign(actions.Claims{Agent: "hello", Command: "default", Kind: "confirm"})
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte(state)
	tampered[len(tampered)/2] ^= 1
	tests := []struct {
		name, path, body string
		msg              string
	}{
		{"forged", "/agents/hello", feedback(forged, true), "invalid"},
		{"tampered", "/agents/hello", feedback(string(tampered), true), "invalid"},
		{"not a state", "/agents/hello", `{"action":{"action":"confirm","state":{"x":1},"accepted":true}}`, "not one this gateway issued"},
		{"another agent", "/agents/chat", feedback(state, true), "another agent"},
		{"another kind", "/agents/hello", sprintf(`{"action":{"action":"tree","state":%q,"treeId":"t","nodeId":"n","nodeAction":"click"}}`, state), "confirm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := errorResponse(t, post(t, gw.URL+tt.path, tt.body), 400, apierr.CodeStateInvalid)
			if !strings.Contains(c.Message, tt.msg) {
				t.Errorf("message %q does not mention %q", c.Message, tt.msg)
			}
		})
	}
	// The genuine state works until it expires.
	readStream(t, post(t, gw.URL+"/agents/hello", feedback(state, true)), "[DONE]")
	now.Add(int64(2 * time.Hour))
	c := errorResponse(t, post(t, gw.URL+"/agents/hello", feedback(state, true)), 400, apierr.CodeStateInvalid)
	if !strings.Contains(c.Message, "expired") {
		t.Errorf("message %q does not say the state expired", c.Message)
	}
}
