package remote_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/remote"
)

// fakeForwarder records the one forward it gets and sends acts to its
// sink.
type fakeForwarder struct {
	endpoint, agent string
	body            string
	header          http.Header
	acts            []*actions.Action
}

func (f *fakeForwarder) Forward(_ context.Context, endpoint, agent string, body []byte, header http.Header, sink remote.Sink) error {
	f.endpoint, f.agent, f.body, f.header = endpoint, agent, string(body), header
	for _, a := range f.acts {
		if err := sink.Action(a); err != nil {
			return err
		}
	}
	return sink.Chunk([]byte(`{"c":1}`))
}

// TestAgentsBody: the remote gets the plugin's body as it came, or less
// the contextId and with its own action state put back; a request the
// gateway made gets one made of its command and context.
func TestAgentsBody(t *testing.T) {
	vars, err := contextvars.Decode([]byte(`[{"name":"userInputPrompt","value":"hi"}]`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  stage.RemoteRequest
		want string
	}{
		{"as it came", stage.RemoteRequest{Body: []byte(`{"agent":"a", "contextId":"",  "x":1}`)},
			`{"agent":"a", "contextId":"",  "x":1}`},
		{"less contextId", stage.RemoteRequest{Body: []byte(`{"agent":"a","contextId":"c1","x":1}`), ContextID: "c1"},
			`{"agent":"a","x":1}`},
		{"state put back", stage.RemoteRequest{Body: []byte(`{"agent":"a","action":{"action":"confirm","state":"signed"}}`),
			Feedback: map[string]string{"remote": `{"page":2}`}},
			`{"action":{"action":"confirm","state":{"page":2}},"agent":"a"}`},
		{"made by the gateway", stage.RemoteRequest{Command: "ask", Context: vars},
			`{"agent":"r","command":"ask","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fw := &fakeForwarder{}
			r := tt.req
			r.Agent, r.Endpoint, r.Header, r.Sink = "r", "http://remote", http.Header{"X": {"y"}}, &recorder{}
			if err := remote.NewAgents(fw).Forward(t.Context(), &r); err != nil {
				t.Fatal(err)
			}
			if fw.body != tt.want || fw.endpoint != "http://remote" || fw.agent != "r" || fw.header.Get("X") != "y" {
				t.Errorf("forwarded %s %s %s %v, want %s", fw.endpoint, fw.agent, fw.body, fw.header, tt.want)
			}
		})
	}
}

// TestAgentsState: each action of the remote reaches the sink with the
// gateway's signed state, which holds the remote's own; Owns knows it.
func TestAgentsState(t *testing.T) {
	signer := actions.NewSigner(nil, 0)
	fw := &fakeForwarder{acts: []*actions.Action{
		{Kind: actions.KindConfirm, State: `{"page":2}`, StateIsJSON: true, Confirm: &actions.Confirm{Title: "Next"}},
		{Kind: actions.KindTree, State: "plain", Tree: &actions.Tree{TreeID: "t1"}},
	}}
	rec := &recorder{}
	a := remote.NewAgents(fw)
	r := &stage.RemoteRequest{Agent: "r", Command: "c", Endpoint: "http://remote", Body: []byte(`{}`), Signer: signer, Sink: rec}
	if err := a.Forward(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if len(rec.lines) != 3 || !strings.HasPrefix(rec.lines[2], "chunk ") {
		t.Fatalf("sink got %q", rec.lines)
	}
	for i, want := range []struct{ kind, tree, state string }{
		{actions.KindConfirm, "", `{"page":2}`},
		{actions.KindTree, "t1", `"plain"`},
	} {
		line := rec.lines[i]
		start := strings.Index(line, `"state":"`) + len(`"state":"`)
		token := line[start : start+strings.IndexByte(line[start:], '"')]
		claims, err := signer.Verify(token)
		if err != nil {
			t.Fatalf("action %d: %s: %v", i, line, err)
		}
		if claims.Agent != "r" || claims.Command != "c" || claims.Kind != want.kind || claims.TreeID != want.tree || claims.Data["remote"] != want.state {
			t.Errorf("action %d: claims %+v, want a %s action of tree %q with the remote's state %s", i, claims, want.kind, want.tree, want.state)
		}
		if !a.Owns(claims.Data) {
			t.Errorf("action %d: Owns(%v) = false", i, claims.Data)
		}
	}
	if a.Owns(map[string]string{"agent": "r"}) || a.Owns(nil) {
		t.Error("Owns accepts the state of a local action")
	}
}
