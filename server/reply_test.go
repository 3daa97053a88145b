package server_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/internal/golden"
)

// helloBody asks the hello agent's default command.
const helloBody = `{"agent":"hello","contextVariables":[{"name":"userInfo","value":{"id":"u1","name":"Ada","nickname":"ada"}}]}`

// TestReplyAgent runs the hello agent through both endpoints and both
// terminators: text, a signed confirm, the stop chunk, one terminator.
func TestReplyAgent(t *testing.T) {
	t.Parallel()
	body := `{"contextVariables":[{"name":"userInfo","value":{"id":"u1","name":"Ada","nickname":"ada"}}]}`
	tests := []struct {
		name, path, body, terminator string
	}{
		{"agent in body", "/agent", helloBody, "[DONE]"},
		{"agent in path", "/agents/hello", body, "[DONE]"},
		{"agent in path and body", "/agents/hello", helloBody, "[DONE]"},
		{"seed terminator", "/agents/hello", body, "[Done]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, withTerminator(tt.terminator))
			r := post(t, gw.URL+tt.path, tt.body)
			s := readStream(t, r, tt.terminator)
			checkHello(t, s)
			checkGolden(t, "hello"+map[string]string{"[DONE]": "", "[Done]": "_seed"}[tt.terminator]+".sse", r.body)
		})
	}
}

// checkHello checks the frames of the hello agent's answer.
func checkHello(t *testing.T, s stream) {
	t.Helper()
	want := []string{"chunk", "action", "chunk", "done"}
	if got := s.kinds(); !slices.Equal(got, want) {
		t.Fatalf("frames %v, want %v", got, want)
	}
	if got, want := s.text(), "Hello, ada!\nWelcome to agent hello!"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	first := s.frames[0].chunk
	if first.Object != "chat.completion.chunk" || first.Choices[0].Delta.Role != "assistant" || first.Choices[0].FinishReason != nil {
		t.Errorf("text chunk %q is not an assistant delta", s.frames[0].data)
	}
	if first.ID == "" || s.frames[2].chunk.ID != first.ID {
		t.Errorf("ids %q and %q, want one non-empty id", first.ID, s.frames[2].chunk.ID)
	}
	a := s.frames[1].action
	if a.Action != "confirm" {
		t.Errorf("action %q, want confirm", a.Action)
	}
	var state string
	if err := json.Unmarshal(a.State, &state); err != nil || state == "" {
		t.Fatalf("state %s is not a non-empty string", a.State)
	}
	claims, err := actions.NewSigner(testSecret, 0).Verify(state)
	if err != nil {
		t.Fatalf("the state does not verify with the gateway's secret: %v", err)
	}
	if claims.Agent != "hello" || claims.Command != "default" || claims.Kind != "confirm" {
		t.Errorf("claims %+v, want hello/default/confirm", claims)
	}
	wantData := `{"title":"Get version","message":"Shows the version of agent hello","command":"version"}`
	if !jsonEqual(a.Data, []byte(wantData)) {
		t.Errorf("data %s, want %s", a.Data, wantData)
	}
}

var (
	idPattern      = regexp.MustCompile(`"id":"chatcmpl-[^"]+"`)
	createdPattern = regexp.MustCompile(`"created":\d+`)
	statePattern   = regexp.MustCompile(`"state":"v1\.[^"]+"`)
)

// checkGolden compares a stream, its id, times and state masked, with
// testdata/golden/name; -update rewrites it.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	got := idPattern.ReplaceAll(body, []byte(`"id":"chatcmpl-ID"`))
	got = createdPattern.ReplaceAll(got, []byte(`"created":0`))
	got = statePattern.ReplaceAll(got, []byte(`"state":"STATE"`))
	golden.Check(t, "testdata/golden/"+name, got)
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
