package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
)

// planStates runs the planner's default and tree commands and returns the
// states of their confirm and tree.
func planStates(t *testing.T, gw *gateway) (confirm, tree json.RawMessage) {
	t.Helper()
	c := onlyAction(t, readStream(t, post(t, gw.URL+"/agents/planner", `{}`), "[DONE]"))
	tr := onlyAction(t, readStream(t, post(t, gw.URL+"/agents/planner", `{"command":"tree"}`), "[DONE]"))
	return c.action.State, tr.action.State
}

// TestPlanStateRefused: feedback whose state is forged, expired, for
// another agent, for another action kind or another tree, or tampered with,
// is a 400 STATE_INVALID before any stream starts, and runs no handler.
func TestPlanStateRefused(t *testing.T) {
	t.Parallel()
	clock := &testClock{}
	clock.set(1_700_000_000)
	gw := newGateway(t, withStore(), withSigner(actions.NewSigner(testSecret, time.Hour).WithClock(clock.now)))
	confirm, tree := planStates(t, gw)
	forged, err := actions.NewSigner([]byte("another-secret"), time.Hour).Sign(actions.Claims{
		Agent: "planner", Command: "default", Step: "steps.ask", Kind: "confirm"})
	if err != nil {
		t.Fatal(err)
	}
	var confirmStr string
	if err := json.Unmarshal(confirm, &confirmStr); err != nil {
		t.Fatal(err)
	}
	tampered := []byte(confirmStr)
	tampered[len(tampered)/3] ^= 0x01
	srcNode := `{"id":"src","pId":"0","type":"dir","name":"src"}`
	tests := []struct {
		name, path, body, msg string
	}{
		{"forged", "/agents/planner", confirmFeedback(quote(forged), true), "invalid"},
		{"tampered", "/agents/planner", confirmFeedback(quote(string(tampered)), true), "invalid"},
		{"replayed to another agent", "/agents/hello", confirmFeedback(confirm, true), "another agent"},
		{"replayed to another agent in the body", "/agent", `{"agent":"chat",` + confirmFeedback(confirm, true)[1:], "another agent"},
		{"a confirm's state as tree feedback", "/agents/planner", treeFeedback(confirm, "files", "src", "expand", srcNode), "confirm"},
		{"a tree's state as confirm feedback", "/agents/planner", confirmFeedback(tree, true), "tree"},
		{"another treeId", "/agents/planner", treeFeedback(tree, "other", "src", "expand", srcNode), `"files"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := errorResponse(t, post(t, gw.URL+tt.path, tt.body), http.StatusBadRequest, apierr.CodeStateInvalid)
			if !strings.Contains(c.Message, tt.msg) {
				t.Errorf("message %q does not mention %q", c.Message, tt.msg)
			}
			if c.Source != apierr.SourceClient {
				t.Errorf("source %q", c.Source)
			}
		})
	}
	// The genuine states work until they expire.
	if got := readStream(t, post(t, gw.URL+"/agents/planner", confirmFeedback(confirm, true)), "[DONE]").text(); !strings.HasPrefix(got, "accepted:") {
		t.Fatalf("genuine confirm: %q", got)
	}
	readStream(t, post(t, gw.URL+"/agents/planner", treeFeedback(tree, "files", "src", "expand", srcNode)), "[DONE]")
	clock.set(1_700_000_000 + int64(time.Hour/time.Second) + 1)
	for _, body := range []string{confirmFeedback(confirm, true), treeFeedback(tree, "files", "src", "expand", srcNode)} {
		c := errorResponse(t, post(t, gw.URL+"/agents/planner", body), http.StatusBadRequest, apierr.CodeStateInvalid)
		if !strings.Contains(c.Message, "expired") {
			t.Errorf("message %q does not say the state expired", c.Message)
		}
	}
}

// quote makes a JSON string of s.
func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// testClock is a settable clock in Unix seconds.
type testClock struct {
	mu   sync.Mutex
	unix int64
}

func (c *testClock) set(unix int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unix = unix
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(c.unix, 0)
}
