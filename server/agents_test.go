package server_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/server"
)

// TestListAgents: GET /agents lists every agent with its commands, sorted.
func TestListAgents(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	r := get(t, gw.URL+"/agents")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /agents: %d %s", r.status, r.header.Get("Content-Type"))
	}
	var list server.AgentList
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range list.Agents {
		var cmds []string
		for _, c := range a.Commands {
			cmds = append(cmds, c.Name)
		}
		got = append(got, a.Name+": "+strings.Join(cmds, ","))
	}
	want := []string{
		"chat: default,templated,greet,explain",
		"greeter: default",
		"hello: default,version",
		"models: default,pinned",
		"planner: default,bye,tree,parallel,fails,upstreamfails,cmdtree,children",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("agents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if h := list.Agents[2]; h.Version != "1.0.0" || h.Description == "" || h.Commands[1].Description != "Tell the version." {
		t.Errorf("hello summary %+v", h)
	}
}

// TestGetAgent: GET /agents/{name} is the platform definition with
// service.endpoint set to the gateway.
func TestGetAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		publicURL string
	}{
		{"request host", ""},
		{"public URL", "https://agents.example.com/gw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, withPublicURL(tt.publicURL))
			r := get(t, gw.URL+"/agents/hello")
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			var def agent.PlatformDefinition
			if err := json.Unmarshal(r.body, &def); err != nil {
				t.Fatal(err)
			}
			want := tt.publicURL
			if want == "" {
				want = gw.URL
			}
			if def.Service.Endpoint != want {
				t.Errorf("service.endpoint %q, want %q", def.Service.Endpoint, want)
			}
			if def.Name != "hello" || def.Type != "proxy" || len(def.Commands) != 2 || def.Commands[0].Name != "default" {
				t.Errorf("definition %s", r.body)
			}
			// Gateway extensions are not part of the platform's shape.
			for _, ext := range []string{"reply", "actions", "Welcome"} {
				if strings.Contains(string(r.body), ext) {
					t.Errorf("the platform definition carries the extension %q: %s", ext, r.body)
				}
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		t.Parallel()
		gw := newGateway(t)
		c := errorResponse(t, get(t, gw.URL+"/agents/helo"), 404, apierr.CodeAgentNotFound)
		if !strings.Contains(c.Message, `did you mean "hello"`) || !strings.Contains(c.SuggestedAction, "GET /agents") {
			t.Errorf("no suggestion: %+v", c)
		}
		errorResponse(t, get(t, gw.URL+"/agents/hello/more"), 404, apierr.CodeNotFound)
	})
}

// TestHealth: GET /healthz reports ok, the number of agents and the version.
func TestHealth(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withServer(func(c *server.Config) { c.Version = "v9.9.9-test" }))
	r := get(t, gw.URL+"/healthz")
	var h server.Health
	if err := json.Unmarshal(r.body, &h); err != nil || r.status != 200 {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	if h != (server.Health{Status: "ok", Agents: 5, Version: "v9.9.9-test"}) {
		t.Errorf("health %+v", h)
	}
}

// TestListAgentsProblems: GET /agents lists the problems of the last load
// with their positions, and has no problems key when there were none.
func TestListAgentsProblems(t *testing.T) {
	t.Parallel()
	reg := loadAgents(t)
	gw := httptest.NewServer(server.New(server.Config{Runner: runner.NewRunner(reg, runner.RunnerConfig{})}).Handler())
	defer gw.Close()
	if r := get(t, gw.URL+"/agents"); strings.Contains(string(r.body), `"problems"`) {
		t.Errorf("problems listed after a clean load: %s", r.body)
	}
	reg.SwapLoaded(reg.List(), agent.Diagnostics{
		{Pos: agent.Position{File: "agents/a.yaml", Line: 4, Column: 5}, Severity: agent.SeverityError, Message: `unknown field "replly"`},
		{Pos: agent.Position{File: "agents"}, Severity: agent.SeverityWarning, Message: "w"},
	})
	r := get(t, gw.URL+"/agents")
	const want = `"problems":[{"file":"agents/a.yaml","line":4,"column":5,"severity":"error","message":"unknown field \"replly\""},` +
		`{"file":"agents","severity":"warning","message":"w"}]}`
	if !strings.HasSuffix(strings.TrimSpace(string(r.body)), want) {
		t.Errorf("GET /agents ends\n%s\nwant\n%s", r.body[max(0, len(r.body)-200):], want)
	}
}
