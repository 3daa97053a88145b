package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/server"
)

// TestScopedKeyAgentView: GET /agents/{name} shows a key limited to some
// commands of an agent those commands only (the others' templates and
// variables are the operator's, not the key holder's to read); a key
// with the whole agent, and the admin token, see every command.
func TestScopedKeyAgentView(t *testing.T) {
	t.Parallel()
	opt, _ := withKeys(t, nil)
	gw := newGateway(t, opt)
	greet := createKey(t, gw, "admin-tok", `{"user":"alice","agents":["chat/greet"]}`)
	two := createKey(t, gw, "admin-tok", `{"user":"bob","agents":["chat/gr*","chat/templated"]}`)
	whole := createKey(t, gw, "admin-tok", `{"user":"carol","agents":["chat"]}`)
	none := createKey(t, gw, "admin-tok", `{"user":"dave","agents":["greeter"]}`)

	greetJSON := `{"name":"greet","description":"A reply, then the model.","messageTemplates":[{"role":"system","template":"Greet the user."}]}`
	templatedJSON := `{"name":"templated","description":"Two system templates and a user template that mentions the input.","messageTemplates":[{"role":"system","template":"S1"},{"role":"user","template":"Q: {{ .userInputPrompt }}"},{"role":"system","template":"S2 for {{ .agent }}/{{ .command }}"}]}`
	head := `{"name":"chat","version":"0.1.0","type":"proxy","description":"Asks the upstream model.","publisherType":"","publisher":"","service":{"endpoint":"` + gw.URL + `"},"commands":[`
	for _, tc := range []struct {
		name, cred string
		commands   []string
	}{
		{"one command", greet.Secret, []string{greetJSON}},
		{"two commands", two.Secret, []string{templatedJSON, greetJSON}},
	} {
		r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", tc.cred, "")
		want := head + strings.Join(tc.commands, ",") + "]}\n"
		if r.status != http.StatusOK || string(r.body) != want {
			t.Errorf("%s: GET /agents/chat: %d\n%s\nwant\n%s", tc.name, r.status, r.body, want)
		}
	}
	for name, cred := range map[string]string{"whole agent": whole.Secret, "admin token": "admin-tok"} {
		r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", cred, "")
		for _, c := range []string{`"name":"default"`, `"name":"templated"`, `"name":"greet"`, `"name":"explain"`} {
			if r.status != http.StatusOK || !strings.Contains(string(r.body), c) {
				t.Errorf("%s: GET /agents/chat lacks %s: %d %s", name, c, r.status, r.body)
			}
		}
	}
	if r := sendKey(t, http.MethodGet, gw.URL+"/agents/chat", none.Secret, ""); r.status != http.StatusForbidden {
		t.Errorf("a key without chat: %d %s", r.status, r.body)
	}
}

// scopeSeen records the scope of each caller a hand-off hub
// (seenHandoffs) and schedules (seenSchedules) serve; they answer {}.
type scopeSeen struct {
	mu     sync.Mutex
	agents [][]string
}

type seenHandoffs struct {
	server.Handoffs
	*scopeSeen
}

type seenSchedules struct {
	server.Schedules
	*scopeSeen
}

func (s *scopeSeen) saw(who access.Caller) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var agents []string
	if who.Scope != nil {
		agents = who.Scope.Agents
	}
	s.agents = append(s.agents, agents)
	return json.RawMessage(`{}`), nil
}

func (s seenHandoffs) Submit(_ context.Context, who access.Caller, _ []byte) (json.RawMessage, bool, error) {
	st, err := s.saw(who)
	return st, true, err
}

func (s seenSchedules) Create(_ context.Context, who access.Caller, _ []byte) (json.RawMessage, error) {
	return s.saw(who)
}

func (s seenSchedules) Patch(_ context.Context, who access.Caller, _ string, _ []byte) (json.RawMessage, error) {
	return s.saw(who)
}

func (s seenSchedules) RunNow(_ context.Context, who access.Caller, _ string) (json.RawMessage, error) {
	return s.saw(who)
}

// TestScopedKeyRoutes: a key limited to some agents reaches POST
// /handoffs and the schedules' routes with its scope, for the hub and the
// schedules to check each target against it (handoff/hub and
// schedule/agentrun test those checks); /mcp stays FORBIDDEN to it: its
// tools map to no agent's command.
func TestScopedKeyRoutes(t *testing.T) {
	t.Parallel()
	opt, _ := withKeys(t, nil)
	seen := &scopeSeen{}
	gw := newGateway(t, opt, withServer(func(c *server.Config) {
		c.Handoffs, c.Schedules = seenHandoffs{scopeSeen: seen}, seenSchedules{scopeSeen: seen}
		c.MCP = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	}))
	alice := createKey(t, gw, "admin-tok", `{"user":"alice","agents":["greeter","chat/greet"]}`)
	for _, r := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/handoffs", `{}`, http.StatusAccepted}, {"POST", "/schedules", `{}`, http.StatusCreated},
		{"PATCH", "/schedules/x", `{}`, http.StatusOK}, {"POST", "/schedules/x/run", "", http.StatusAccepted},
	} {
		if got := sendKey(t, r.method, gw.URL+r.path, alice.Secret, r.body); got.status != r.status {
			t.Errorf("%s %s: %d %s, want %d", r.method, r.path, got.status, got.body, r.status)
		}
	}
	if len(seen.agents) != 4 {
		t.Fatalf("%d calls reached the hub and schedules, want 4", len(seen.agents))
	}
	for _, agents := range seen.agents {
		if !slices.Equal(agents, []string{"greeter", "chat/greet"}) {
			t.Errorf("a call reached them with the scope %q", agents)
		}
	}
	errorResponse(t, sendKey(t, http.MethodPost, gw.URL+"/mcp", alice.Secret, `{}`), 403, apierr.CodeForbidden)
}
