package collab

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

// fakeForwarder is a remote agent service: it records what it was sent
// and answers through serve.
type fakeForwarder struct {
	mu              sync.Mutex
	endpoint, agent string
	body            map[string]any
	header          http.Header
	serve           func(ctx context.Context, sink remote.Sink) error
}

func (f *fakeForwarder) Forward(ctx context.Context, endpoint, agent string, body []byte, header http.Header, sink remote.Sink) error {
	f.mu.Lock()
	f.endpoint, f.agent, f.header = endpoint, agent, header
	_ = json.Unmarshal(body, &f.body)
	f.mu.Unlock()
	return f.serve(ctx, sink)
}

// chunk is a chat.completion.chunk carrying s.
func chunk(s string) []byte { return []byte(llmtest.TextChunk(s)) }

// remoteAsker asks "far" through fw at http://far.example; other agents
// are local (and there are none).
func remoteAsker(fw remote.Forwarder) *Asker {
	return New(Config{Forwarder: fw, Remote: func(agent string) (string, bool) {
		return "http://far.example/agents/far", agent == "far"
	}})
}

// TestAskRemote: a remote agent gets the agent protocol's request (the
// question as userInputPrompt) with the caller's headers and the request
// id; its chunks are progress, its actions and error the response's.
func TestAskRemote(t *testing.T) {
	fw := &fakeForwarder{serve: func(_ context.Context, sink remote.Sink) error {
		for _, s := range []string{"Checking the", " logs.\nAll ", "green."} {
			if err := sink.Chunk(chunk(s)); err != nil {
				return err
			}
		}
		return sink.Action(&actions.Action{Kind: actions.KindConfirm, Confirm: &actions.Confirm{Title: "Deploy", Message: "Deploy now?"}})
	}}
	a := remoteAsker(fw)
	hdr := http.Header{"Authorization": {"Bearer t"}}
	resp, msgs, err := a.Ask(t.Context(), "lead", "far", "Is CI green?", Options{Command: "ci", Header: hdr})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Checking the logs.", "All green."}; !slices.Equal(texts(msgs), want) {
		t.Errorf("progress %q, want %q", texts(msgs), want)
	}
	c, _ := resp.Response()
	if c.Status != StatusSuccess || c.Result != "Checking the logs.\nAll green." || len(c.Actions) != 1 {
		t.Errorf("response %+v", c)
	}
	if resp.Metadata["transport"] != "remote" || msgs[0].Metadata["transport"] != "remote" {
		t.Errorf("metadata %v / %v", msgs[0].Metadata, resp.Metadata)
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.endpoint != "http://far.example/agents/far" || fw.agent != "far" {
		t.Errorf("forwarded to %s %s", fw.endpoint, fw.agent)
	}
	body, _ := json.Marshal(fw.body)
	if want := `{"agent":"far","command":"ci","contextVariables":[{"name":"userInputPrompt","value":"Is CI green?"}]}`; string(body) != want {
		t.Errorf("body %s\nwant %s", body, want)
	}
	if fw.header.Get("Authorization") != "Bearer t" || fw.header.Get("X-Request-Id") != msgs[0].ID ||
		fw.header.Get("Content-Type") != "application/json" || hdr.Get("X-Request-Id") != "" {
		t.Errorf("header %v (caller's %v)", fw.header, hdr)
	}
}

// TestAskRemoteErrors: the remote agent's error frame, an *apierr.Error
// from the forwarder, and a failure to reach it are error responses; the
// last says nothing of the transport.
func TestAskRemoteErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		serve func(context.Context, remote.Sink) error
		code  string
		msg   string
	}{
		{"frame", func(_ context.Context, s remote.Sink) error {
			_ = s.Chunk(chunk("partial"))
			return s.Error(apierr.New(apierr.CodeUpstreamTimeout, "the model took too long"))
		}, "UPSTREAM_TIMEOUT", "the model took too long"},
		{"refused", func(context.Context, remote.Sink) error {
			return apierr.New(apierr.CodeAgentNotFound, `no agent named "far"`)
		}, "AGENT_NOT_FOUND", `no agent named "far"`},
		{"unreachable", func(context.Context, remote.Sink) error {
			return errors.New("dial tcp 10.0.0.7:443: connection refused")
		}, "UPSTREAM_UNAVAILABLE", `agent "far" could not be reached`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, _, err := remoteAsker(&fakeForwarder{serve: tt.serve}).Ask(t.Context(), "lead", "far", "q", Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := resp.Response()
			if c.Status != StatusError || c.Error.Code != tt.code || c.Error.Message != tt.msg {
				t.Errorf("response %+v %+v, want %s %q", c, c.Error, tt.code, tt.msg)
			}
		})
	}
}

// TestAskRemoteCancel: a remote agent's CANCEL is its connection closing:
// the forwarder's context ends.
func TestAskRemoteCancel(t *testing.T) {
	gone := make(chan struct{})
	fw := &fakeForwarder{serve: func(ctx context.Context, sink remote.Sink) error {
		_ = sink.Chunk(chunk("thinking\n"))
		<-ctx.Done()
		close(gone)
		return ctx.Err()
	}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, msgs, err := remoteAsker(fw).Ask(ctx, "lead", "far", "q", Options{OnProgress: func(Message) { cancel() }})
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v", err)
	}
	if want := []Type{TypeRequest, TypeProgress, TypeCancel}; !slices.Equal(types(msgs), want) {
		t.Errorf("exchange %v, want %v", types(msgs), want)
	}
	<-gone
}

// TestAskRemoteNoForwarder: a remote agent without a forwarder is refused.
func TestAskRemoteNoForwarder(t *testing.T) {
	_, _, err := remoteAsker(nil).Ask(t.Context(), "lead", "far", "q", Options{})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("err %v", err)
	}
}

// TestAskScope: an ask from a context with a stored key's scope reaches
// only the commands the scope admits; out of it, it is refused FORBIDDEN
// (and ErrRefused) before anything is sent: the remote's forwarder is
// never called. A context without a scope asks anything.
func TestAskScope(t *testing.T) {
	var called int
	fw := &fakeForwarder{serve: func(_ context.Context, s remote.Sink) error {
		called++
		return s.Chunk(chunk("hello"))
	}}
	a := remoteAsker(fw)
	scoped := access.NewContext(t.Context(), access.Caller{Owner: "member:eve", Scope: &access.Scope{Agents: []string{"lead", "far/status"}}})
	for _, tt := range []struct {
		name, command string
		ctx           context.Context
		want          string // "" for an answer
	}{
		{"out of scope", "", scoped, `FORBIDDEN: this key may not ask command "default" of agent "far": the ask was refused`},
		{"another command", "deploy", scoped, `FORBIDDEN: this key may not ask command "deploy" of agent "far": the ask was refused`},
		{"in scope", "status", scoped, ""},
		{"no scope", "deploy", t.Context(), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := called
			_, msgs, err := a.Ask(tt.ctx, "lead", "far", "q", Options{Command: tt.command})
			var e *apierr.Error
			switch {
			case tt.want == "" && (err != nil || called != before+1):
				t.Errorf("err %v, forwarded %d times", err, called-before)
			case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrRefused) ||
				!errors.As(err, &e) || e.Code != apierr.CodeForbidden || msgs != nil || called != before):
				t.Errorf("err %v (messages %v, forwarded %d times), want %q", err, msgs, called-before, tt.want)
			}
		})
	}
}
